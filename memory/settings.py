"""Every setting, typed and range-checked, read once from the environment (MEMDESK_*).

`Settings.from_env()` is called by the runtime (memory/runtime.py) at start-up and nowhere
else; nothing below the runtime reads the environment. An unknown MEMDESK_* variable, or a value
out of range (MEMDESK_REVIEW_CONFIDENCE=2), fails at start-up naming the setting: a typo must not
silently fall back to a default (invariant 18).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic import ValidationError as PydanticError

from .errors import ValidationError

PREFIX = "MEMDESK_"
# The SDKs' own variables, read once with the settings (issue 29)
SDK_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY")


class Settings(BaseModel):
    """The product's configuration. Field descriptions are the README's settings table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    store: str = Field(f"embedded:{Path('.memdesk') / 'memdesk.db'}",
                       description="where memories live: embedded:PATH (default) or "
                                   "elasticsearch:URL")
    embedder: Literal["minilm", "static", "hash"] = Field(
        "minilm", description="sentence embedder: minilm (default), static (distilled, fast) or "
                              "hash (unit tests only)")
    tombstone_similarity: float = Field(
        0.85, ge=0.0, le=1.0,
        description="cosine at or above which a write restates a tombstoned value (when its "
                    "names, numbers and half its terms also agree; memory/values.py)")
    harsh_confidence_penalty: float = Field(
        0.2, ge=0.0, le=1.0,
        description="confidence subtracted from a fact that harshly contradicts (retracts) "
                    "another")
    llm: Literal["auto", "anthropic", "openai", "offline"] = Field(
        "auto", description="auto (Anthropic when ANTHROPIC_API_KEY is set, else offline, said "
                            "in the trace), anthropic, openai (any OpenAI-compatible server at "
                            "MEMDESK_OPENAI_BASE_URL) or offline")
    anthropic_model: str = Field("claude-sonnet-4-6", min_length=1,
                                 description="Anthropic model for extraction and chat")
    # issue 29: the SDK retries (honouring retry-after); these bound each call and each turn
    anthropic_max_retries: int = Field(
        3, ge=0, le=10, description="retries of one Anthropic call by the SDK (connection "
                                    "errors, 408, 409, 429, 5xx; retry-after honoured)")
    anthropic_timeout: float = Field(60.0, gt=0, le=600, allow_inf_nan=False,
                                     description="seconds one Anthropic HTTP attempt may take")
    anthropic_max_tokens: int = Field(4096, ge=64, le=64_000,
                                      description="most tokens one Anthropic reply may hold")
    openai_base_url: str = Field("", description="OpenAI-compatible server for MEMDESK_LLM="
                                 "openai, e.g. http://localhost:11434/v1 (Ollama) or "
                                 "http://localhost:8000/v1 (vLLM)")
    openai_model: str = Field("", description="model name on that server, e.g. qwen3:8b")
    openai_max_retries: int = Field(2, ge=0, le=10,
                                    description="retries of one call to the OpenAI-compatible "
                                                "server by the SDK")
    openai_timeout: float = Field(120.0, gt=0, le=1800, allow_inf_nan=False,
                                  description="seconds one attempt on the OpenAI-compatible "
                                              "server may take (local models are slow)")
    openai_max_tokens: int = Field(4096, ge=64, le=64_000,
                                   description="most tokens one reply of the OpenAI-compatible "
                                               "model may hold")
    llm_turn_timeout: float = Field(
        300.0, gt=0, le=3600, allow_inf_nan=False,
        description="seconds a whole agent turn's model calls may take, retries included; no "
                    "call or retry starts past it")
    max_retire_per_run: int = Field(
        3, ge=0, le=10_000,
        description="most facts one consolidation run may supersede; the rest go to review")
    review_confidence: float = Field(0.7, ge=0.0, le=1.0,
                                     description="facts below this confidence wait in review")
    es_url: str = Field("", description="Elasticsearch URL for the live contract tests "
                                        "(MEMDESK_ES_URL)")
    es_prefix: str = Field("memdesk", pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$",
                           description="index name prefix on Elasticsearch")
    # issue 16: reaching a secured cluster (memory/stores/elasticsearch/connection.py)
    es_ca_certs: str = Field("", description="CA certificate (PEM file) that the Elasticsearch "
                             "server's HTTPS certificate must chain to, e.g. a self-managed "
                             "node's config/certs/http_ca.crt")
    es_ssl_assert_fingerprint: str = Field("", description="SHA-256 fingerprint of the "
                                           "Elasticsearch server's certificate, instead of a CA file")
    es_api_key: SecretStr = Field(SecretStr(""), description="Elasticsearch API key the store "
                                  "authenticates with (encoded, or id:key); else credentials in "
                                  "the URL")
    es_num_candidates: float = Field(
        2.0, ge=2.0, le=20.0, description="approximate kNN candidates per shard as a multiple "
        "of the hits a dense leg keeps (k): at least 2 (Elasticsearch's own default is 1.5); "
        "more finds more of the exact nearest at more cost")
    es_verify_certs: bool = Field(True, description="verify the Elasticsearch server's "
                                  "certificate: true (default) or false, which must be written "
                                  "out and warns at every start")
    minilm_dir: str = Field("", description="override the directory holding the MiniLM weights")
    agent_consolidation: str = Field(
        "manual", pattern=r"^(manual|every_turn|every_[1-9][0-9]{0,5})$",
        description="when the chat agent runs consolidation: manual (default), every_turn, or "
                    "every_N (once N new episodes wait)")
    busy_timeout: float = Field(5.0, ge=0.0, le=3600.0, allow_inf_nan=False,
                                description="seconds a write waits for another process's lock "
                                            "on the embedded store before failing (exit 6)")
    # issue 15: how long an id recalled over MCP may be named by the same token's write/forget
    mcp_recall_window: int = Field(
        3600, ge=60, le=86_400,
        description="seconds an id recalled over MCP stays usable by the same token's "
                    "write_memory (supersedes_id) and forget_memory (60 to 86400)")
    # issue 14: who may do what on the desk (memory/access.py), and a desk without login
    roles_file: str = Field("", description="TOML or JSON file mapping operators' emails and "
                            "@domains to viewer, reviewer or admin, with the role of an "
                            "unlisted signed-in operator and of a desk without login "
                            "(memory/access.py)")
    allow_anonymous: bool = Field(False, description="let the desk run without login on an "
                                  "address other than 127.0.0.1 (everyone who reaches it "
                                  "operates it): true or false")
    # Not MEMDESK_ settings: the SDKs' own variables, read at the same moment.
    anthropic_api_key: SecretStr | None = Field(None, exclude=True)
    anthropic_base_url: str | None = Field(None, exclude=True)
    openai_api_key: SecretStr | None = Field(None, exclude=True)

    @field_validator("es_verify_certs", "allow_anonymous", mode="before")
    @classmethod
    def _true_or_false(cls, value: object) -> object:
        """Only an explicit true/false: a typo can never switch a safety check off (issue 16)."""
        if isinstance(value, str):
            if value.strip().lower() not in {"true", "false"}:
                raise ValueError("expected true or false")
            return value.strip().lower() == "true"
        return value

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read MEMDESK_* (and SDK_VARIABLES) once; refuse unknown names and bad values."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        names = public_fields()
        for key, raw in env.items():
            if not key.startswith(PREFIX):
                continue
            name = key.removeprefix(PREFIX).lower()
            if name not in names:
                known = ", ".join(f"{PREFIX}{n.upper()}" for n in names)
                raise ValidationError(f"unknown setting {key}; known settings: {known}")
            values[name] = raw
        for var in SDK_VARIABLES:
            if env.get(var):
                values[var.lower()] = env[var]
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except PydanticError as exc:
            first = exc.errors()[0]
            name = str(first["loc"][0]) if first.get("loc") else "?"
            shown = f"{PREFIX}{name.upper()}" if name in names else name
            msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
            raise ValidationError(f"{shown}={values.get(name)!r} is invalid: {msg}") from None


def public_fields() -> list[str]:
    """Settings an operator sets through MEMDESK_* (the README table lists each)."""
    return [n for n, f in Settings.model_fields.items() if not f.exclude]


def settings_table() -> list[tuple[str, str, str]]:
    """(variable, default, help) rows, in declaration order."""
    return [(f"{PREFIX}{n.upper()}", str(Settings.model_fields[n].default),
             Settings.model_fields[n].description or "") for n in public_fields()]
