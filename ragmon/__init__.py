"""ragmon: groundedness and hallucination monitoring for retrieval-augmented generation."""
__version__ = "0.1.0"
