"""litcorpus: validate, count and publish a living literature corpus."""

__version__ = "0.1.0"
