"""The one reader of what people say (issue 28): `read_message` turns a message and the user's
facts into readings and operations; `memory/reading/tables/` holds what it knows."""

from .model import FactRef, Operation, Reading
from .pipeline import MessageReading, read_message

__all__ = ["FactRef", "MessageReading", "Operation", "Reading", "read_message"]
