"""The two agents behind one interface (issue 12): Claude with tool use, and an offline agent."""

from __future__ import annotations

from .base import MAX_STEPS, Agent, AgentInput, AgentOutput, StepLimitError, ToolRunner


def get_agent(llm=None) -> Agent:
    """The agent for the configured model (MEMDESK_LLM): Claude when it is Anthropic, else the
    deterministic offline agent. A missing key is the LLM seam's clear ValidationError."""
    if llm is None:
        from ..llm import get_llm

        llm = get_llm()
    if llm.mode == "offline":
        from .offline import OfflineAgent

        return OfflineAgent()
    from .claude import ClaudeAgent

    return ClaudeAgent(llm)


__all__ = ["MAX_STEPS", "Agent", "AgentInput", "AgentOutput", "StepLimitError", "ToolRunner",
           "get_agent"]
