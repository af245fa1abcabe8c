"""The two agents behind one interface (issue 12): Claude with tool use, and an offline agent."""

from __future__ import annotations

from ..errors import ValidationError
from ..llm import LLM, UnavailableLLM
from .base import MAX_STEPS, Agent, AgentInput, AgentOutput, StepLimitError, ToolRunner


def get_agent(llm: LLM) -> Agent:
    """The agent for the configured model (MEMDESK_LLM): Claude when it is Anthropic, the
    chat-completions agent on an OpenAI-compatible server, else the deterministic offline agent. An unusable model fails on its first call, clearly."""
    if isinstance(llm, UnavailableLLM):
        raise llm.error  # e.g. MEMDESK_LLM=anthropic without a key: one clear message
    if llm.mode == "offline":
        from .offline import OfflineAgent

        return OfflineAgent()
    from ..llm.claude import AnthropicLLM
    from ..llm.openai_compat import OpenAICompatLLM

    if isinstance(llm, OpenAICompatLLM):  # issue 29: chat-completions tool calling
        from .openai_agent import OpenAIAgent

        return OpenAIAgent(llm)
    if not isinstance(llm, AnthropicLLM):  # tool use is Claude's protocol
        raise ValidationError(f"no agent drives the model {llm.mode!r}")
    from .claude import ClaudeAgent

    return ClaudeAgent(llm)


__all__ = ["MAX_STEPS", "Agent", "AgentInput", "AgentOutput", "StepLimitError", "ToolRunner",
           "get_agent"]
