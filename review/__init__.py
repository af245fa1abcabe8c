"""The operator's review queue: candidates wait here until a person decides (issue 6)."""

from .decisions import decide, decide_many
from .models import Decision, ItemKind, QueueFilter, StaleItemError
from .propose import propose
from .queue import history, list_queue, show_item

__all__ = ["Decision", "ItemKind", "QueueFilter", "StaleItemError", "decide", "decide_many",
           "history", "list_queue", "propose", "show_item"]
