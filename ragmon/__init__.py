"""ragmon: groundedness and hallucination monitoring for retrieval-augmented generation."""

# `aevaluate` is exported here because `ragmon.evaluate` is the function: `ragmon.evaluate.aevaluate`,
# the module's attribute, cannot be reached through the package.
from ragmon.evaluate import aevaluate, evaluate
from ragmon.judges.claude import ClaudeJudge  # light: it imports the anthropic SDK only when built
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Aggregate, Context, EvalConfig, Example, Report

__version__ = "0.1.0"
__all__ = ["Aggregate", "ClaudeJudge", "Context", "EvalConfig", "Example", "LexicalJudge", "Report",
           "aevaluate", "evaluate"]
