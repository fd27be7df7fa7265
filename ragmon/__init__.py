"""ragmon: groundedness and hallucination monitoring for retrieval-augmented generation."""

from ragmon.evaluate import evaluate
from ragmon.judges.claude import ClaudeJudge  # light: it imports the anthropic SDK only when built
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Aggregate, Context, EvalConfig, Example, Report

__version__ = "0.1.0"
__all__ = ["Aggregate", "ClaudeJudge", "Context", "EvalConfig", "Example", "LexicalJudge", "Report",
           "evaluate"]
