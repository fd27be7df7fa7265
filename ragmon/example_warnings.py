"""A run's warnings that follow from its examples alone: citations written as positions, ids that only
look alike (examples' ids, and cited or relevant ids a context's only with white space or case aside), and
unanswerable markers written otherwise. `evaluate` puts them in the Report it returns
(`Report.run_warnings`), naming each example by its place in the list; `ragmon replay` words the same ones
with the file and line of each, as the rest of
its errors about a golden record do, and they take the report's place there.

Imports ragmon.model for type checking only: `Example` names the ids a positional citation meant in the
error for an integer citation. Imports the report module only when it warns: it imports the
gate and the CLI, which `from ragmon import evaluate` had never loaded (~0.4 s), and `python -m
ragmon.cli` warned of finding the CLI imported before it ran."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ragmon.errors import inert, json_escape
from ragmon.ids import ID_SHOWN, escaped_id, id_key
from ragmon.jsontext import replace_lone_surrogates
from ragmon.metrics.generation import INSUFFICIENT_CONTEXT, UNANSWERABLE_CATEGORIES

if TYPE_CHECKING:
    from ragmon.model import Context, Example

_CITED_SHOWN = 10
"""Citations of the example a warning turns into ids."""


def cites_by_position(example: Example) -> bool:
    """Whether every citation is a whole number and no context's id is one: `"citations": [1, 2]` meant as
    the first and second documents, which are read as the ids "1" and "2" (as the sidecar reads a
    `ragmon.citations` of `[12]`) and count as citations of documents never retrieved. Only an answer's
    `[n]` markers are read as positions (ragmon.semconv.extract), where no explicit list is given."""
    return bool(example.citations) and positional(example.citations or (), example.contexts or ())


def positional(citations: Sequence[str], contexts: Sequence[Context]) -> bool:
    """Whether `citations`, all whole numbers, can only be positions among `contexts`: none of whose ids
    is one."""
    return bool(contexts) and all(_is_number(doc) for doc in citations) \
        and not any(_is_number(context.id) for context in contexts)


def _is_number(doc_id: str) -> bool:
    return doc_id.isascii() and doc_id.isdigit()


def positional_warning(example: Example, which: str, places: str) -> str:
    """Once a run, however many examples (`which`, at `places`; `example` the first): citation_accuracy 0
    with no hint had been all they showed. Its citations are turned into the ids they likely meant, where in
    range; scoring reads them as written. Each citation is quoted clipped: ten of 100,000 digits made a
    JUnit file of 2 MB."""
    from ragmon.report.text import clip

    cited = (example.citations or ())[:_CITED_SHOWN]
    contexts = example.contexts or ()
    written = f"[{', '.join(clip(doc, ID_SHOWN) for doc in cited)}] of example {clip(example.id, ID_SHOWN)}"
    meant, past = positions(cited, contexts)
    why = (f"citations of {which} look like positions, not ids ({places}): a citation names a context by its "
           "id, and no context's id is a number, so each counts as a document never retrieved; cite the ids")
    if not meant:
        return f"{why}: the citations {written} are {past_contexts(contexts)}"
    told = f"{why}, e.g. [{', '.join(map(json_id, meant))}] for {written}"
    return f"{told}; {past_named(past, contexts)}" if past else told


def json_id(doc_id: str) -> str:
    """`doc_id` as a JSON string to paste into a golden set, which every report and log shows as written:
    what one would escape (a control or invisible character) or squeeze (a space after a space) is JSON's
    own escape (`\\u001b`, `\\u0020`), the same id to a parser, as is what a CI runner would act on
    (`errors.inert`). Quoted clipped and through ragmon.report.text's escapes, "kb  returns" and
    "kb\\treturns" had both been suggested as "kb returns", " kb-x " as "kb-x", and an escape character as
    "kb\\\\x1b", another id. One over ID_SHOWN characters is quoted by its first ID_SHOWN, then `…` after
    the closing quote: a context's id of 100,000 characters, ten times, had made a JUnit file of 2 MB."""
    from ragmon.report.text import plain

    quoted = "".join(char if plain(char) else json.dumps(char)[1:-1]
                     for char in json.dumps(doc_id[:ID_SHOWN], ensure_ascii=False))
    cut = "…" if len(doc_id) > ID_SHOWN else ""
    return inert(_SPACE_AFTER_SPACE.sub(r"\\u0020", quoted), json_escape) + cut


_SPACE_AFTER_SPACE = re.compile("(?<= ) ")


def positions(citations: Sequence[str], contexts: Sequence[Context]) -> tuple[list[str], list[str]]:
    """The ids of the contexts at the positions `citations` give, counted from 0 if one of them is 0, else
    from 1, as written (`json_id` quotes them); and the positions past the contexts, each once, clipped. A
    position past them is no id to cite: kept among the ids as written, "2" had been told as one to pass."""
    from ragmon.report.text import clip

    first = first_position(citations)
    meant: list[str] = []
    past: dict[str, None] = {}
    for doc in citations:
        digits = doc.lstrip("0") or "0"  # a long number is past them: int() refuses one of over 4,300 digits
        index = (int(digits) if len(digits) <= len(str(len(contexts))) else -1) - first
        if 0 <= index < len(contexts):
            meant.append(contexts[index].id)
        else:
            past[clip(doc, ID_SHOWN)] = None
    return meant, list(past)


def past_contexts(contexts: Sequence[Context]) -> str:
    return f"past the {len(contexts)} context{'' if len(contexts) == 1 else 's'} retrieved"


def past_named(past: Sequence[str], contexts: Sequence[Context]) -> str:
    """"2 is past the 1 context retrieved": the positions `positions` found past them."""
    return f"{', '.join(past)} {'is' if len(past) == 1 else 'are'} {past_contexts(contexts)}"


def first_position(citations: Sequence[str]) -> int:
    """0 if one of the positions is 0 (`[0, 1]` counts from 0), else 1."""
    return 0 if any(not doc.strip("0") for doc in citations) else 1


def loosely_named(example: Example) -> tuple[str, str] | None:
    """The first of `example`'s citations and relevant ids that is no retrieved context's id as written but
    is one with white space, case and Unicode form aside, and that context's id; else None. A spreadsheet's
    cell keeps a trailing space ("kb-returns "), a hand label another case ("KB-Shipping"): compared as
    written, each was a document never retrieved, hit_rate and citation_accuracy 0 without a word."""
    contexts = example.contexts or ()
    if not contexts or not (example.citations or example.relevant_ids):
        return None
    written = {context.id for context in contexts}
    loose: dict[str, str] | None = None
    for doc in (*(example.citations or ()), *sorted(example.relevant_ids or ())):
        if doc in written:
            continue
        if loose is None:
            loose = {}
            for context in contexts:
                loose.setdefault(_loose(context.id), context.id)
        if (meant := loose.get(_loose(doc))) is not None:
            return doc, meant
    return None


def _loose(doc_id: str) -> str:
    return id_key(doc_id).casefold()


def loose_warning(example: Example, which: str, places: str) -> str:
    """Once a run, however many examples (`which`, at `places`; `example` the first)."""
    from ragmon.report.text import clip

    doc, meant = loosely_named(example) or ("", "")
    return (f"ids cited or labelled relevant in {which} match a retrieved context's id only with white "
            f"space, case or Unicode form aside ({places}; {escaped_id(doc)} for {escaped_id(meant)} in "
            f"example {clip(example.id, ID_SHOWN)}): ids are compared as written, so each counts as a "
            "document never retrieved; write them as the contexts' ids")


class LookAlikes:
    """Ids that differ only as a report may not show (`ragmon.ids.id_key`: "café" in its two Unicode forms,
    "q01" and "q01 "): two examples, each figure of which the reader takes for the other's. A warning, not the
    error a duplicate is: ids are the user's, and golden sets that hold such pairs loaded until now. One
    dictionary lookup an example, so a set of 100,000 costs what its ids do. Each id comes with where it is
    (`at`), asked only of the first pair found."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[str, Callable[[], str]]] = {}
        self.first: tuple[str, str, str, str] | None = None
        """The first pair found: each id and where it is."""
        self.count = 0

    def add(self, example_id: str, at: Callable[[], str]) -> None:
        key = id_key(replace_lone_surrogates(example_id))
        first_id, first_at = self.seen.setdefault(key, (example_id, at))
        if first_id == example_id:
            return
        self.count += 1
        if self.first is None:
            self.first = (first_id, first_at(), example_id, at())

    def warning(self) -> tuple[str, ...]:
        if self.first is None:
            return ()
        first_id, first_at, again_id, again_at = self.first
        more = f" (and {self.count - 1:,} more such id{'s' * (self.count > 2)})" if self.count > 1 else ""
        return (f"example ids {escaped_id(first_id)} ({first_at}) and {escaped_id(again_id)} ({again_at}) "
                f"differ only in Unicode normalisation or white space around them{more}: they are two "
                "examples, which a report can show alike (an accent written two ways looks the same, and so "
                "does a space at the end); write each id one way",)


_PLACES_SHOWN = 5
"""Examples a positional warning of `evaluate` names by their place in the list."""


def unanswerable_otherwise(example: Example) -> str | None:
    """The category or ground truth of `example` that writes an unanswerable marker otherwise than ragmon
    reads it ("Unanswerable", "Insufficient context", "INSUFFICIENT_CONTEXT"), or None. Read as written, the
    question counted as answerable (abstention had no value for it) and "Insufficient context" was scored
    as the answer's text, without a word: a golden set labelled by hand or by another tool writes them so."""
    for value, markers in ((example.category, UNANSWERABLE_CATEGORIES),
                           (example.ground_truth, _INSUFFICIENT)):
        if value is not None and value not in markers and len(value) <= _MARKER_LONGEST \
                and "_".join(value.casefold().replace("-", " ").split()) in markers:
            return value
    return None


_INSUFFICIENT = frozenset({INSUFFICIENT_CONTEXT})
_MARKER_LONGEST = 40
"""Characters of a value read as a marker written otherwise: an answer text is not cased and spaced over."""


def unanswerable_warning(example: Example, which: str, places: str) -> str:
    """Once a run, however many examples (`which`, at `places`; `example` the first)."""
    from ragmon.report.text import clip

    written = clip(unanswerable_otherwise(example) or "", _MARKER_LONGEST)
    return (f"{which} mark{'s' * (which.startswith('1 '))} a question unanswerable in words ragmon does not "
            f"read as the marker ({places}; {json.dumps(written, ensure_ascii=False)} of example "
            f"{clip(example.id, ID_SHOWN)}): write category \"unanswerable\" or \"adversarial\", or ground "
            "truth \"insufficient_context\", as written here; read as they are, the question counts as "
            "answerable (abstention has no value for it) and such a ground truth is scored as an answer")


def answers_in_json(example: Example) -> bool:
    """Whether `example`'s answer is a structured answer (`ragmon.semconv.structured`): a JSON object with
    text in it, as an app asking its model for JSON records it. The sidecar and live replay judge such an
    answer on its answer text and read its sources as citations; a golden record's answer is judged as
    written, its keys, syntax and fields (a confidence, the sources) cut into claims, the unsupported ones
    counted as hallucinations. Looked at only past a cheap test of its first character."""
    if example.answer is None or _JSON_OPENING.match(example.answer) is None:
        return False
    from ragmon.semconv import structured

    return structured.read(example.answer, example.contexts) is not None


_JSON_OPENING = re.compile(r"\s*[{`]")


def json_answer_warning(example: Example, which: str, places: str) -> str:
    """Once a run, however many examples (`which`, at `places`; `example` the first)."""
    from ragmon.report.text import clip

    one = which.startswith("1 ")
    return (f"the answer{'' if one else 's'} of {which} {'is a JSON object' if one else 'are JSON objects'} "
            f"({places}; example {clip(example.id, ID_SHOWN)}): judged as written, keys, syntax and fields "
            "such as a confidence or the sources are cut into claims, the unsupported ones counted as "
            "hallucinations; record the answer's text as \"answer\" and what it cites as \"citations\" (the "
            "sidecar and live replay read such an answer so: the text under its \"answer\" key, its "
            "\"sources\" as citations)")


def run_warnings(examples: Sequence[Example]) -> tuple[str, ...]:
    """The warnings `evaluate` reports of `examples`, each example named by its index (`examples[3]`)."""
    alike = LookAlikes()
    by_position: list[int] = []
    otherwise: list[int] = []
    loosely: list[int] = []
    in_json: list[int] = []
    for index, example in enumerate(examples):
        alike.add(example.id, functools.partial(_place, index))
        if cites_by_position(example):
            by_position.append(index)
        if unanswerable_otherwise(example) is not None:
            otherwise.append(index)
        if loosely_named(example) is not None:
            loosely.append(index)
        if answers_in_json(example):
            in_json.append(index)
    warnings = list(alike.warning())
    for flagged, warning in ((by_position, positional_warning), (otherwise, unanswerable_warning),
                             (loosely, loose_warning), (in_json, json_answer_warning)):
        if flagged:
            shown = ", ".join(map(_place, flagged[:_PLACES_SHOWN]))
            more = f" and {len(flagged) - _PLACES_SHOWN:,} more" if len(flagged) > _PLACES_SHOWN else ""
            which = f"{len(flagged):,} example{'s' * (len(flagged) > 1)}"
            warnings.append(warning(examples[flagged[0]], which, shown + more))
    return tuple(warnings)


def _place(index: int) -> str:
    return f"examples[{index}]"
