"""orchtrace: validate and replay orchestration traces of LLM multi-agent systems."""

__version__ = "0.1.0"
