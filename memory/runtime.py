"""The runtime bundle: settings read once, and every object built from them in one place.

The desk builds one `Runtime` per server (`st.cache_resource`), the CLI one per command; the
memory and review layers receive what they need from it and never read the environment
(invariant 18).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .access import Access, OperatorMode, load_roles
from .clock import Clock, utcnow
from .embeddings import Embedder, get_embedder
from .errors import MemdeskError
from .llm import LLM, UnavailableLLM, get_llm
from .policy import ReviewPolicy
from .service import MemoryService
from .settings import Settings
from .stores import open_store
from .stores.base import Store


@dataclass
class Runtime:
    settings: Settings
    store_url: str
    clock: Clock = utcnow
    _store: Store | None = field(default=None, repr=False)
    # How operators are known (memory/access.py): the CLI, the desk without login, or login.
    operators: OperatorMode = "cli"

    @cached_property
    def access(self) -> Access:
        """Roles: every batch of this runtime's service is checked against them (issue 14)."""
        return Access(load_roles(self.settings.roles_file), self.operators)

    @cached_property
    def embedder(self) -> Embedder:
        return get_embedder(self.settings.embedder, minilm_dir=self.settings.minilm_dir or None)

    @cached_property
    def store(self) -> Store:
        if self._store is not None:
            return self._store
        return open_store(self.store_url, self.embedder, self.settings)

    @cached_property
    def policy(self) -> ReviewPolicy:
        return ReviewPolicy.from_settings(self.settings)

    @cached_property
    def service(self) -> MemoryService:
        return MemoryService(self.store, clock=self.clock, policy=self.policy,
                             tombstone_similarity=self.settings.tombstone_similarity,
                             harsh_confidence_penalty=self.settings.harsh_confidence_penalty,
                             authorize=self.access.authorize)

    @cached_property
    def llm(self) -> LLM:
        """The configured model; a misconfigured one (MEMDESK_LLM=anthropic without a key)
        still builds, and every call fails with the reason, after the caller has stored what
        the user said (invariant 9: nothing the user wrote is lost to a model error)."""
        try:
            return get_llm(self.settings)
        except MemdeskError as exc:
            return UnavailableLLM(exc)

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()


def build_runtime(settings: Settings | None = None, *, store_url: str | None = None,
                  clock: Clock = utcnow, store: Store | None = None,
                  operators: OperatorMode = "cli") -> Runtime:
    """Settings (and the roles file) are validated here, at start-up: a bad one fails before
    anything opens."""
    settings = settings or Settings.from_env()
    rt = Runtime(settings=settings, store_url=store_url or settings.store, clock=clock,
                 _store=store, operators=operators)
    rt.access  # noqa: B018 - read the roles file now, not at the first write
    return rt
