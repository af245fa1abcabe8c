"""Open a store from a URL: embedded:PATH (default) or elasticsearch:URL."""

from __future__ import annotations

from ..embeddings import Embedder, get_embedder
from ..errors import ValidationError
from ..settings import Settings
from .base import Store


def open_store(url: str, embedder: Embedder | None = None,
               settings: Settings | None = None) -> Store:
    """The store a URL names, configured from `settings` (the runtime's; defaults otherwise)."""
    embedder = embedder or get_embedder()
    settings = settings or Settings()
    scheme, _, rest = url.partition(":")
    if scheme == "embedded" and rest:
        from .embedded import EmbeddedStore

        return EmbeddedStore(rest, embedder)
    if scheme == "elasticsearch" and rest:
        try:
            from .elasticsearch import ElasticsearchStore
        except ImportError as exc:  # the backend lands with its own issue
            raise ValidationError(f"the Elasticsearch store is not available: {exc}") from None
        from .elasticsearch.connection import ConnectionSettings

        return ElasticsearchStore(rest, embedder, settings.es_prefix,
                                  connection=ConnectionSettings.from_settings(rest, settings))
    raise ValidationError(
        f"invalid store {url!r}: use embedded:PATH (e.g. embedded:.memdesk/memdesk.db) "
        "or elasticsearch:URL (e.g. elasticsearch:http://127.0.0.1:9200)"
    )
