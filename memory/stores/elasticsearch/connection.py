"""How the store reaches a cluster: URL, TLS and credentials from settings, and the retry policy.

A self-managed 8.x/9.x cluster serves HTTPS signed by its own CA, so the CA file (or the
certificate's SHA-256 fingerprint) and an API key are settings, and certificate verification is
never silently off: it takes an explicit `MEMDESK_ES_VERIFY_CERTS=false` and warns each time.

Retries (issue 16, invariant 92): the transport retries only reads (search, get, mget, count,
info, licence). Writes — bulk, index, create_api_key, reindex, alias and block changes — go
through `writer()`, which never retries at the transport: a timed-out write may have landed,
and sending it again is the caller's decision (the write path converges on a re-apply instead).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from elasticsearch import Elasticsearch
from pydantic import BaseModel, ConfigDict

from ...errors import ValidationError
from ...settings import Settings

READ_RETRIES = 2
DEFAULT_TIMEOUT = 10.0


class InsecureConnectionWarning(UserWarning):
    """Certificate verification is off for the Elasticsearch connection."""


class ConnectionSettings(BaseModel):
    """Everything needed to open a client, from MEMDESK_* settings plus the store URL."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str
    ca_certs: str | None = None
    api_key: str | None = None
    verify_certs: bool = True
    ssl_assert_fingerprint: str | None = None
    request_timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def from_settings(cls, url: str, settings: Settings, **overrides: Any) -> ConnectionSettings:
        return cls(url=url, ca_certs=settings.es_ca_certs or None,
                   api_key=settings.es_api_key.get_secret_value() or None,
                   verify_certs=settings.es_verify_certs,
                   ssl_assert_fingerprint=settings.es_ssl_assert_fingerprint or None,
                   **overrides)

    @property
    def https(self) -> bool:
        return self.url.lower().startswith("https://")


def client_kwargs(cfg: ConnectionSettings) -> dict:
    """Keyword arguments for `Elasticsearch(cfg.url, **kwargs)`; raises ValidationError for a
    combination that cannot work (TLS options on an http:// URL, a missing CA file)."""
    kw: dict = {"request_timeout": cfg.request_timeout, "max_retries": READ_RETRIES,
                "retry_on_timeout": True}
    if cfg.api_key:
        key_id, sep, secret = cfg.api_key.partition(":")
        kw["api_key"] = (key_id, secret) if sep else cfg.api_key  # id:key or the encoded form
    tls = {k: v for k, v in (("ca_certs", cfg.ca_certs),
                             ("ssl_assert_fingerprint", cfg.ssl_assert_fingerprint)) if v}
    if tls and not cfg.https:
        names = ", ".join(f"MEMDESK_ES_{k.upper()}" for k in tls)
        raise ValidationError(f"{names} need an https:// Elasticsearch URL; the store URL uses "
                              "http://")
    if cfg.ca_certs and not Path(cfg.ca_certs).is_file():
        raise ValidationError(f"MEMDESK_ES_CA_CERTS={cfg.ca_certs}: no such file (the cluster's "
                              "CA certificate, e.g. config/certs/http_ca.crt of the node)")
    kw.update(tls)
    if not cfg.verify_certs:
        warnings.warn("MEMDESK_ES_VERIFY_CERTS=false: the Elasticsearch server's certificate is "
                      "NOT verified, so anyone on the network path can read and change memories. "
                      "Set MEMDESK_ES_CA_CERTS or MEMDESK_ES_SSL_ASSERT_FINGERPRINT instead",
                      InsecureConnectionWarning, stacklevel=3)
        kw.update(verify_certs=False, ssl_show_warn=False)  # warned once here, not per request
    return kw


def new_client(cfg: ConnectionSettings, **extra: Any) -> Elasticsearch:
    return Elasticsearch(cfg.url, **client_kwargs(cfg), **extra)


def writer(es: Elasticsearch) -> Elasticsearch:
    """The same client with transport retries off: for every request that is not idempotent."""
    return es.options(max_retries=0, retry_on_timeout=False)


TLS_HINT = ("set MEMDESK_ES_CA_CERTS to the cluster's CA certificate (config/certs/http_ca.crt "
            "on a self-managed node) or MEMDESK_ES_SSL_ASSERT_FINGERPRINT to its SHA-256 "
            "fingerprint")
