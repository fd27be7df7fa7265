"""Structured answers: a model asked for JSON (OpenAI's `response_format`, LangChain's
`with_structured_output` or `JsonOutputParser`, Instructor, the AI SDK's `generateObject`) answers with an
object, `{"answer": "The warranty lasts 2 years.", "sources": ["d1"], "confidence": 0.8}`, and so does the
chain around it. Judged as the text it is, its braces, keys and metadata were claims: the sentence holding
`", "sources": ["d1"]}` and `"confidence": 0.8` were unsupported, a hallucination alarm on a grounded
answer.

An answer is structured when, stripped of the space around it and of a Markdown code fence (```` ```json
... ``` ````), it is a JSON object; anything else (prose, a JSON array or string, JSON that does not parse)
is text as it was. What is judged is its answer field (`ANSWER_KEYS`), else all its text; what it cites is
under `CITATION_KEYS`, which extract.py reads as it reads the answer's `[n]` marks.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ragmon.model import Context
from ragmon.semconv.common import FENCE, metadata_id, strict_json

ANSWER_KEYS = ("answer", "response", "final_answer", "reply", "output", "text", "content", "message")
"""The keys of an answer's text, in the order looked for, case aside: top level first, then one level
down (`{"result": {"answer": ...}}`, `{"message": {"content": ...}}`)."""
CITATION_KEYS = frozenset({"citations", "sources", "source_ids", "references", "context_ids", "document_ids",
                           "doc_ids"})
"""The keys of what an answer cites, case aside, found as the answer's text is: a list of ids or of numbers
of the prompt's sources (`[1, 3]`, `["d1"]`, `["[2]"]`), of objects naming one (`{"id": "d1", "quote":
...}`), or one such value."""
_OPENING = re.compile(r"\s*(?:\{|```)")
"""How a structured answer opens: tested before anything is parsed, as nearly every answer is prose."""
_LABEL = re.compile(r"[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*")
"""A schema's enum or tag value (`"high"`, `"en"`, `"fact-check"`, `"billing_question"`): one lower-case
word, no claim a passage could support. Judged, such a word was a claim of its own, unsupported unless a
retrieved passage happened to hold it. A capitalised word (a name, `"Warranty"`) is kept."""
_CITATION_KEY = re.compile(rf'"(?:{"|".join(sorted(CITATION_KEYS))})"\s*:', re.IGNORECASE)
"""A citation key as JSON text writes it."""


@dataclass(frozen=True, slots=True)
class Structured:
    """What a structured answer says: the text to judge, and what it cites."""

    text: str
    cited: tuple[str, ...] | None
    """Each value under a citation key as written (a number as its digits, `"[2]"` as `"2"`, an object as
    its id); None when the object has no citation key, empty when its citations are an empty list."""


def read(answer: str, contexts: Iterable[Context] | None) -> Structured | None:
    """The structured answer `answer` is, None when it is none. `contexts`: the retrieved documents, whose
    ids are no text to judge where the object holds them outside its citations (gathered only for an answer
    that is an object). An object holding no text (`{"refund_window_days": 30}`) is none either: its answer
    is data, no claim can be cut from it, and judged as an empty answer it would read as a refusal."""
    found = answer_object(answer)
    if found is None:
        return None
    text = _judged(found, {context.id for context in contexts or ()})
    return None if text is None else Structured(text, cited(found))


def answer_object(answer: str) -> Mapping[str, Any] | None:
    """The JSON object an answer is, fenced or not; None for anything else."""
    if _OPENING.match(answer) is None:
        return None
    text = answer.strip()
    fenced = FENCE.fullmatch(text)
    decoded = strict_json(fenced["body"] if fenced else text)
    return decoded if isinstance(decoded, dict) else None


def may_cite(text: str) -> bool:
    """Whether JSON text may hold a citation key: a scan, where parsing it may read every document a
    chain output."""
    return _CITATION_KEY.search(text) is not None


def cited(found: Mapping[str, Any]) -> tuple[str, ...] | None:
    """What an object cites (`Structured.cited`): the values under the citation keys of its top level, else
    of the first object one level down that has any."""
    for level in (found, *(value for value in found.values() if isinstance(value, dict))):
        values = [value for key, value in level.items() if key.casefold() in CITATION_KEYS]
        if values:
            return tuple(token for value in values
                         for item in (value if isinstance(value, list) else [value])
                         if (token := _token(item)) is not None)
    return None


def _token(item: Any) -> str | None:
    """One citation as text: an id, or a number of the prompt's sources (`2`, `"2"`, `"[2]"`)."""
    if isinstance(item, dict):
        return metadata_id(item)
    if isinstance(item, bool) or not isinstance(item, str | int):
        return None
    text = str(item).strip()
    return text[1:-1].strip() if text.startswith("[") and text.endswith("]") else text


def _judged(found: Mapping[str, Any], ids: Container[str]) -> str | None:
    """The text to judge: the answer field's alone, else every string in the object in order, each a
    paragraph of its own, but for its citations, the ids of retrieved documents and labels beside other
    text; None when there is none. Keys, numbers, booleans and nulls are structure or metadata (a
    confidence, a count), no claims."""
    answer = _answer_field(found)
    if answer is not None:
        return answer
    texts = _texts(found, ids)
    return "\n\n".join([text for text in texts if _LABEL.fullmatch(text) is None] or texts) or None


def _answer_field(found: Mapping[str, Any]) -> str | None:
    levels = (found, *(value for key, value in found.items()
                       if isinstance(value, dict) and key.casefold() not in CITATION_KEYS))
    for level in levels:
        fields = {key.casefold(): value for key, value in level.items() if isinstance(value, str)}
        text = next((fields[key] for key in ANSWER_KEYS if key in fields), None)
        if text is not None:
            return text
    return None


def _texts(found: Mapping[str, Any], ids: Container[str]) -> list[str]:
    """The object's strings in document order, citations and blank strings aside. A stack rather than
    recursion: JSON may nest deeper than Python recurses."""
    texts: list[str] = []
    stack: list[Any] = [found]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.strip() and item not in ids:
                texts.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed([value for key, value in item.items()
                                   if key.casefold() not in CITATION_KEYS]))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return texts
