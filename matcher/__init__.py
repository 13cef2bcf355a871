"""logkb: match LLM-serving logs against a catalog of GPU-memory error signatures."""

__version__ = "0.1.0"
