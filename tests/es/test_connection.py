"""Reaching a secured cluster and retrying only what is safe to retry (issue 16, invariants 29
and 92). The client is the real 8.x client with a recording node; the node sees the TLS options
and headers exactly as the HTTP layer would receive them."""

from __future__ import annotations

import base64
import functools

import pytest
from elastic_transport import ConnectionTimeout, TlsError

from memory.cli import main
from memory.errors import StoreUnavailableError, ValidationError
from memory.models import Episode, MemoryKind
from memory.settings import Settings
from memory.stores import open_store
from memory.stores.base import PutMemory, RecallFilter
from memory.stores.elasticsearch import ElasticsearchStore, connection
from memory.stores.elasticsearch.connection import (
    ConnectionSettings,
    InsecureConnectionWarning,
    client_kwargs,
)
from tests.es.conftest import Cluster, make_client

HTTPS = "https://es.example:9200"


@pytest.fixture
def ca(tmp_path):
    path = tmp_path / "http_ca.crt"
    path.write_text("-----BEGIN CERTIFICATE-----\nnot parsed by the recording node\n"
                    "-----END CERTIFICATE-----\n")
    return str(path)


@pytest.fixture
def captured(monkeypatch):
    """Route every client the store builds itself through a recording node."""
    cluster = Cluster()
    real = connection.Elasticsearch
    monkeypatch.setattr(connection, "Elasticsearch", functools.partial(
        real, node_class=cluster.node_class(), meta_header=False))
    return cluster


def node_config(store: ElasticsearchStore):
    return store.es.transport.node_pool.all()[0].config


def test_inv29_store_url_plus_settings_reach_a_secured_cluster(monkeypatch, ca, captured, hash_embedder):
    """`--store elasticsearch:https://...` with MEMDESK_ES_CA_CERTS and MEMDESK_ES_API_KEY: the
    node verifies against that CA and every request carries `Authorization: ApiKey <encoded>`
    (security-api-create-api-key.html: the `encoded` value is base64 of id:api_key)."""
    monkeypatch.setenv("MEMDESK_ES_CA_CERTS", ca)
    monkeypatch.setenv("MEMDESK_ES_API_KEY", "key-id:key-secret")
    store = open_store(f"elasticsearch:{HTTPS}", hash_embedder, Settings.from_env())
    cfg = node_config(store)
    assert (cfg.scheme, cfg.host, cfg.ca_certs, cfg.verify_certs) == ("https", "es.example", ca, True)
    encoded = base64.b64encode(b"key-id:key-secret").decode()
    assert {r.headers.get("authorization") for r in captured.requests} == {f"ApiKey {encoded}"}
    store.close()


def test_inv29_a_fingerprint_can_stand_in_for_the_ca(monkeypatch, captured, hash_embedder):
    monkeypatch.setenv("MEMDESK_ES_SSL_ASSERT_FINGERPRINT", "AB:CD:EF")
    store = open_store(f"elasticsearch:{HTTPS}", hash_embedder, Settings.from_env())
    assert node_config(store).ssl_assert_fingerprint == "AB:CD:EF"
    assert node_config(store).verify_certs is True
    store.close()


@pytest.mark.parametrize("raw", ["no", "0", "", "off", "False "])
def test_inv29_verification_is_never_off_by_a_typo(raw):
    if raw.strip().lower() == "false":
        assert Settings.from_env({"MEMDESK_ES_VERIFY_CERTS": raw}).es_verify_certs is False
        return
    with pytest.raises(ValidationError, match="MEMDESK_ES_VERIFY_CERTS"):
        Settings.from_env({"MEMDESK_ES_VERIFY_CERTS": raw})


def test_inv29_turning_verification_off_is_explicit_and_warns(monkeypatch, captured, hash_embedder):
    assert Settings.from_env({}).es_verify_certs is True  # the default
    monkeypatch.setenv("MEMDESK_ES_VERIFY_CERTS", "false")
    with pytest.warns(InsecureConnectionWarning, match="NOT verified"):
        store = open_store(f"elasticsearch:{HTTPS}", hash_embedder, Settings.from_env())
    assert node_config(store).verify_certs is False
    store.close()


def test_inv29_tls_settings_on_an_http_url_or_a_missing_ca_are_clear_errors(ca, tmp_path):
    with pytest.raises(ValidationError, match="MEMDESK_ES_CA_CERTS need an https:// "):
        client_kwargs(ConnectionSettings(url="http://127.0.0.1:9200", ca_certs=ca))
    with pytest.raises(ValidationError, match="no such file"):
        client_kwargs(ConnectionSettings(url=HTTPS, ca_certs=str(tmp_path / "missing.crt")))


def test_inv29_cli_reports_a_bad_connection_setting_in_one_line(monkeypatch, ca, capsys):
    monkeypatch.setenv("MEMDESK_ES_CA_CERTS", ca)
    assert main(["facts", "--user", "u", "--store", "elasticsearch:http://127.0.0.1:9200"]) == 2
    err = capsys.readouterr().err
    assert "need an https:// Elasticsearch URL" in err and err.count("\n") == 1


def test_inv29_an_unverifiable_certificate_names_the_settings(hash_embedder):
    """A self-managed 8.x node serves HTTPS signed by its own CA (config/certs/http_ca.crt):
    without it the TLS handshake fails, which is not "cluster down" but "tell me the CA"."""
    cluster = Cluster()
    cluster.on("GET", "/", lambda req: TlsError("certificate verify failed: self-signed "
                                                "certificate in certificate chain"))
    with pytest.raises(StoreUnavailableError, match="TLS certificate.*MEMDESK_ES_CA_CERTS"):
        ElasticsearchStore(HTTPS, _hash(), client=make_client(cluster, HTTPS))


def _hash():
    from memory.embeddings import get_embedder
    return get_embedder("hash")


def test_inv92_transport_retries_reads_but_never_writes(hash_embedder):
    """With the production retry policy (client_kwargs: max_retries 2, retry_on_timeout): a
    search that times out twice is retried by the transport and succeeds; a bulk, a usage bump
    and create_api_key are each sent once by the transport — a timed-out write may have landed
    (elastic-transport retries any request on a timeout when retry_on_timeout is set, so writes
    go through `writer()`, max_retries=0). The batch's own single re-send (invariant 92,
    tests/es/test_batches.py) is the only second copy of a bulk."""
    cluster = Cluster(licence="platinum")
    cfg = ConnectionSettings(url="http://127.0.0.1:9200")
    store = ElasticsearchStore(cfg.url, hash_embedder, connection=cfg,
                               client=make_client(cluster, **client_kwargs(cfg)))
    cluster.requests.clear()  # start-up requests are checked in test_indices.py
    search_fails = [ConnectionTimeout("t"), ConnectionTimeout("t")]
    cluster.on("POST", r"/memdesk-.*/_search", lambda req: search_fails.pop(0) if search_fails
               else (200, {"hits": {"hits": []}}))
    cluster.on("PUT", "/_bulk", lambda req: ConnectionTimeout("t"))
    cluster.on("POST", "/_security/api_key", lambda req: ConnectionTimeout("t"))
    cluster.on("PUT", "/_security/api_key", lambda req: ConnectionTimeout("t"))
    store.search_bm25(RecallFilter(user_id="u"), "tea", 5)
    assert len(cluster.find("POST", r"/memdesk-.*/_search")) == 3
    with pytest.raises(StoreUnavailableError):
        store.apply([PutMemory(doc=Episode(user_id="u", text="hello"))])
    assert len(cluster.find("PUT", "/_bulk")) == 2  # one send + one re-send after a read-back
    with pytest.raises(StoreUnavailableError):
        store.bump_usage("u", [(MemoryKind.SEMANTIC, "fact_1")], _now())
    assert len(cluster.find("PUT", "/_bulk")) == 3  # a bump is sent once: never counted twice
    with pytest.raises(StoreUnavailableError):
        store._mint_user_key("ana")
    sent = cluster.find("PUT", "/_security/api_key") + cluster.find("POST", "/_security/api_key")
    assert len(sent) == 1  # no orphan keys


def _now():
    from tests.conftest import NOW
    return NOW
