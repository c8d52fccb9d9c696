"""litcorpus: validate, count and publish the awesome-llm-mas-rl literature corpus."""

__version__ = "0.1.0"
