"""Consolidation as a reviewable changeset: extract → gates → Plan → apply (issue 5)."""
