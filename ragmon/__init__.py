"""ragmon: groundedness and hallucination monitoring for retrieval-augmented generation.

The public names are imported on first use (PEP 562), not with the package: every `ragmon` command imports
the package before it can install its signal handlers, and the lexical judge's text modules take ~0.5 s
to import (1.4 s on a slow machine), a window in which a cancelled CI job's SIGTERM killed the process
outright and left the previous run's passing reports in place. `ragmon.evaluation` holds `evaluate`: a
module of that name would take the function's place as the package's attribute once imported."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragmon.evaluation import aevaluate, evaluate
    from ragmon.judges.claude import ClaudeJudge
    from ragmon.judges.lexical import LexicalJudge
    from ragmon.model import Aggregate, Context, EvalConfig, Example, Report

__version__ = "0.1.0"
__all__ = ["Aggregate", "ClaudeJudge", "Context", "EvalConfig", "Example", "LexicalJudge", "Report",
           "aevaluate", "evaluate"]

_HOMES = {"aevaluate": "ragmon.evaluation", "evaluate": "ragmon.evaluation",
          "ClaudeJudge": "ragmon.judges.claude", "LexicalJudge": "ragmon.judges.lexical",
          "Aggregate": "ragmon.model", "Context": "ragmon.model", "EvalConfig": "ragmon.model",
          "Example": "ragmon.model", "Report": "ragmon.model"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'ragmon' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
