"""Which citations broke an example's citation metrics: the one place every report asks.

citation_accuracy below 1 says some cited id supported nothing, and a report giving only the figure left
the reader to work out which, from ids the JSON report did not hold. Two causes read differently: a
document retrieved and cited for nothing (a wrong source), and an id never retrieved at all (a typo,
"kb-shiping" for "kb-shipping", or a position `1` read as an id), which the retrieved ids beside it show.
citation_coverage is over contexts, not sentences (ragmon.metrics.generation): below 1, some context a
claim rests on was not cited, and that context is named.

Worked out from the result as the metrics are (`use`), never stored: nothing about scoring changes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ragmon.metrics.generation import use
from ragmon.model import ExampleResult

CITATION_METRICS = ("citation_accuracy", "citation_coverage")


@dataclass(frozen=True, slots=True)
class Citations:
    """An example's citations that lowered its citation metrics; each empty when that metric is 1 or
    undefined (citations unknown, which contexts were used unknown, or no claim made)."""

    unsupporting: tuple[str, ...]
    """Cited and retrieved, but supporting none of the answer's claims."""
    not_retrieved: tuple[str, ...]
    """Cited, but no context has the id."""
    uncited: tuple[str, ...]
    """Supporting a claim, but not cited."""
    retrieved: tuple[str, ...]
    """The contexts' distinct ids in rank order: what an id never retrieved is read beside."""

    def lines(self, named: Callable[[Sequence[str]], str],
              metrics: Collection[str] = CITATION_METRICS) -> list[str]:
        """One sentence per kind of fault of the `metrics` asked for, ids shown by `named` (each report
        bounds and formats its own), e.g. `cited kb-shiping, which was not retrieved: retrieved
        kb-shipping, kb-returns`."""
        lines = []
        if "citation_accuracy" in metrics:
            if self.unsupporting:
                lines.append(f"cited {named(self.unsupporting)}, which supported none of the answer's claims")
            if self.not_retrieved:
                was = "was" if len(self.not_retrieved) == 1 else "were"
                lines.append(f"cited {named(self.not_retrieved)}, which {was} not retrieved: "
                             f"retrieved {named(self.retrieved) if self.retrieved else 'nothing'}")
        if "citation_coverage" in metrics and self.uncited:
            lines.append(f"did not cite {named(self.uncited)}, which supported a claim")
        return lines


def of(result: ExampleResult) -> Citations:
    """The faults behind the example's citation metrics, none where a metric is 1 or undefined: an id is
    named under accuracy only when accuracy is defined, as `_citation_accuracy` requires, so that a report
    never names a fault the figure did not count."""
    example = result.example
    retrieved = tuple(dict.fromkeys(c.id for c in example.contexts or ()))
    # The cheap tests first: most golden sets give no citations, and `use` is the metrics' work again.
    if (example.citations is None or example.answer is None or example.contexts is None or not result.verdicts
            or (used := use(example, result.verdicts)) is None):
        return Citations((), (), (), retrieved)
    cited = tuple(dict.fromkeys(example.citations))
    known = set(retrieved)
    return Citations(unsupporting=tuple(doc for doc in cited if doc in known and doc not in used),
                     not_retrieved=tuple(doc for doc in cited if doc not in known),
                     uncited=tuple(doc for doc in retrieved if doc in used and doc not in cited),
                     retrieved=retrieved)
