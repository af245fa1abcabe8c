"""Memdesk memory layer: episodic, semantic and procedural memory per user, plus a shared catalog."""
