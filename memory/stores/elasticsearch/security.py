"""Server checks (version, licence) and the per-user API key body for document-level security.

Licences (Elastic's subscription matrix): the rrf retriever needs Enterprise or the trial on a
self-managed cluster (Basic answers 403); document-level security needs Platinum or better.
knn, standard queries and function_score need nothing.
"""

from __future__ import annotations

from ...errors import StoreUnavailableError
from .indices import IndexNames

MIN_VERSION = (8, 15)
# Elastic Cloud Serverless has no licence API and reports a placeholder version; it offers both.
RRF_LICENCES = frozenset({"enterprise", "trial", "serverless"})
DLS_LICENCES = frozenset({"platinum", "enterprise", "trial", "serverless"})


def is_serverless(info: dict) -> bool:
    return info.get("version", {}).get("build_flavor") == "serverless"


def parse_version(number: str) -> tuple[int, int]:
    parts = number.split("-")[0].split(".")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0


def check_version(info: dict, where: str) -> str:
    """The server's version string; older than 8.15 is refused (invariant 25)."""
    number = str(info.get("version", {}).get("number", "0.0"))
    if is_serverless(info):
        return f"serverless ({number})"
    if parse_version(number) < MIN_VERSION:
        raise StoreUnavailableError(
            f"Elasticsearch at {where} is version {number}; Memdesk needs 8.15 or newer "
            "(8.15+ and 9.x are supported by the 8.x client it uses): upgrade the cluster")
    return number


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


def api_key_body(names: IndexNames, user_id: str) -> dict:
    """A key that can only read this user's documents (DLS on user_id) and the catalog.

    The state index (which holds the keys themselves) is not granted at all."""
    user_indices = [f"{names.alias(n)}*" for n in ("episodic", "semantic", "procedural",
                                                   "tombstones", "audit")]
    return {
        "name": f"memdesk-{names.prefix}-{user_id}"[:256],
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
