"""prompt-inspector: what an LLM agent really sends to its model."""

__version__ = "0.1.0"
