"""Server checks (version, licence) and the per-user API key body for document-level security.

Licences (Elastic's subscription matrix): the rrf retriever needs Enterprise or the trial on a
self-managed cluster (Basic answers 403); document-level security needs Platinum or better.
knn, standard queries and function_score need nothing.
"""

from __future__ import annotations

from ...errors import StoreUnavailableError
from .indices import IndexNames

MIN_VERSION = (8, 15)
RRF_LICENCES = frozenset({"enterprise", "trial"})
DLS_LICENCES = frozenset({"platinum", "enterprise", "trial"})
SERVERLESS = (
    "Elastic Cloud Serverless is not supported: index creation sends shard and replica settings "
    "Serverless rejects, it has no password login, and per-user keys cannot be minted from an "
    "API key there. Use an Elastic Cloud Hosted deployment or a self-managed 8.15+ cluster")


def is_serverless(info: dict) -> bool:
    return info.get("version", {}).get("build_flavor") == "serverless"


def parse_version(number: str) -> tuple[int, int]:
    parts = number.split("-")[0].split(".")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0


def check_version(info: dict, where: str) -> str:
    """The server's version string; older than 8.15 is refused (invariant 25)."""
    number = str(info.get("version", {}).get("number", "0.0"))
    if is_serverless(info):  # issue 16, invariant 25: refused at open, never half-working
        raise StoreUnavailableError(f"{where}: {SERVERLESS}")
    if parse_version(number) < MIN_VERSION:
        raise StoreUnavailableError(
            f"Elasticsearch at {where} is version {number}; Memdesk needs 8.15 or newer "
            "(8.15+ and 9.x are supported by the 8.x client it uses): upgrade the cluster")
    return number


# 9.2 leaves dense vectors out of `_source` by default (index.mapping.exclude_source_vectors:
# https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/dense-vector)
VECTORS_LEAVE_SOURCE = (9, 2)


def tombstone_matching(number: str) -> str:
    """How the tombstone check scores a user's tombstones (invariant 98): before 9.2 the knn
    candidates' vectors come back in `_source` and the cosine is taken here; from 9.2 they do
    not, so the cosine is taken by the cluster itself (script_score, cosineSimilarity)."""
    return "script_score" if parse_version(number) >= VECTORS_LEAVE_SOURCE else "knn_source"


def licence_type(licence: dict) -> str:
    lic = licence.get("license", {}) or {}
    return str(lic.get("type", "basic")) if lic.get("status", "active") == "active" else "expired"


def allows_rrf(kind: str) -> bool:
    return kind in RRF_LICENCES


def allows_dls(kind: str) -> bool:
    return kind in DLS_LICENCES


class LicenceError(StoreUnavailableError):
    """The cluster's licence lacks a feature this operation needs (invariant 25)."""


def require_dls(kind: str, where: str) -> None:
    if not allows_dls(kind):
        raise LicenceError(
            f"the cluster at {where} has a {kind!r} licence; per-user API keys with "
            "document-level security need Platinum, Enterprise or the trial "
            "(POST /_license/start_trial?acknowledge=true on a test cluster). The application-"
            "level user filter stays on either way")


def key_name(names: IndexNames, user_id: str) -> str:
    """Every key minted for one user carries this name, so re-bootstrapping invalidates them all."""
    return f"memdesk-{names.prefix}-{user_id}"[:256]


def require_mintable(api_key_auth: bool, where: str) -> None:
    """Elasticsearch refuses a key with privileges minted while authenticated with an API key
    (TransportCreateApiKeyAction: "creating derived api keys requires an explicit role
    descriptor that is empty")."""
    if api_key_auth:
        raise LicenceError(
            f"per-user keys cannot be minted at {where} while the store authenticates with "
            "MEMDESK_ES_API_KEY (Elasticsearch refuses derived keys with privileges): put a user "
            "with the manage_own_api_key privilege in the store URL instead. The application-"
            "level user filter stays on either way")


def api_key_body(names: IndexNames, user_id: str, expiration: str = "3600s") -> dict:
    """A short-lived key that can only read this user's documents (DLS on user_id) and the
    catalog. The state index is not granted at all."""
    user_indices = [f"{names.alias(n)}*" for n in ("episodic", "semantic", "procedural",
                                                   "tombstones", "audit", "usage")]
    return {
        "name": key_name(names, user_id),
        "expiration": expiration,
        "role_descriptors": {
            "memdesk_user_reader": {
                "cluster": [],
                "indices": [
                    {"names": user_indices, "privileges": ["read"],
                     "query": {"term": {"user_id": user_id}}},
                    {"names": [f"{names.alias('catalog')}*"], "privileges": ["read"]},
                ],
            }
        },
        "metadata": {"application": "memdesk", "memdesk_user": user_id,
                     "prefix": names.prefix},
    }
