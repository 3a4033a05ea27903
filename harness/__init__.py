"""kv-budget-harness: measure how many KV-cache tokens vLLM and SGLang really allocate."""

__version__ = "0.1.0"
