"""The Elasticsearch backend (issue 3): the Store protocol on Elasticsearch 8.15+ / 9.x."""

from .store import ElasticsearchStore

__all__ = ["ElasticsearchStore"]
