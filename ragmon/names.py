"""Which known name an unknown one was meant as: a misspelling (`anwser`), or another tool's name for the
same thing (ragas's `retrieved_contexts`), or a common name that is only sometimes meant (`documents`)
holding a value of that thing's shape. Shared by every reader that refuses such a name, golden files
(ragmon.datasets.fields), ragmon's own span convention (ragmon.semconv.ragmon, and ragmon.instrument
through it) and gate names (ragmon.gate), so each suggests alike."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, NamedTuple

_TYPO_CUTOFF = 0.8
_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[-_\s]+")
_URL = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*://")
_TWO_WORDS = re.compile(r"\S\s+\S")

Shape = Callable[[Any], str | None]
"""Whether a value is of the shape a field is read in: what it holds, said in the error ("a list of 3
texts"), "" when the name alone says which field was meant, None when the value is of another shape."""
Meant = tuple[str, Shape]
"""The field another name is read as, when its value has the shape."""


class OwnName(NamedTuple):
    """How a record's format gives a field the other format names otherwise: a ragmon record's
    `relevant_ids` is a trace record's `expectedDocs`. Told the other format's name, the user renamed the
    field and was then told the record mixes two formats."""

    name: str
    how: str = ""
    """How to give it, when renaming is not enough (a trace record's contexts are a retrieval step's
    output); the field is then told this, and is meant even beside `name`."""


Renamed = Mapping[str, OwnName]


@functools.lru_cache(maxsize=1024)
def near_miss(name: str, candidates: tuple[str, ...]) -> str | None:
    """The candidate `name` is most likely a misspelling of, or None. Cached: a file repeats its fields on
    every line.

    The same name with another case, `-`/`_` or a trailing "s" is one (`Context`, `groundtruth`,
    `answers`); so is a name as close as `difflib`'s 0.8 that has as many words (`anwser`, `relevant_id`,
    `stpes`). A known name with a word added (`question_id`, `pipeline_version`, `subcategory`) is a field
    of its own, as is anything near a name of under four letters (`idx`, `uid` are not `id`)."""
    spelling = _spelling(name)
    same = [known_name for known_name in candidates if _spelling(known_name) == spelling]
    if same:
        return same[0]
    words = len(_words(name))
    close = {known_name.lower(): known_name for known_name in candidates
             if len(known_name) >= 4 and len(_words(known_name)) == words
             and not (_spelling(known_name) in spelling and len(spelling) - len(_spelling(known_name)) >= 2)}
    found = difflib.get_close_matches(name.lower(), close, n=1, cutoff=_TYPO_CUTOFF)
    return close[found[0]] if found else None


def misnamed(key: str, known: Collection[str], present: Collection[str],
             synonyms: Mapping[str, Meant] | None = None, value: Any = None) -> str | None:
    """Why `key`, a name outside `known` in an object holding `present`, is refused, or None when it is the
    user's own (`meant_as`, without the field meant)."""
    found = meant_as(key, known, present, synonyms, value)
    return None if found is None else found[1]


def meant_as(key: str, known: Collection[str], present: Collection[str],
             synonyms: Mapping[str, Meant] | None = None, value: Any = None,
             renamed: Renamed | None = None) -> tuple[str, str] | None:
    """The known field `key`, a name outside `known` in an object holding `present`, was meant as, and why
    it is refused; None when it is the user's own. Only a known name the object lacks can have been meant:
    a synonym given beside the name itself (a `prompt` beside a `question`) is a field of the user's. So
    is one that is only sometimes meant (`documents`, `reference`) when its `value` is not of the shape
    the field is read in. The field meant tells a reader listing every problem of a record that a
    required field it lacks is on its way (`user_input` is the `question`).

    A known name of another format the object is not in is told as the object's own format gives it
    (`renamed`), and is not meant when the object has that."""
    renamed = renamed or {}
    missing = _lacked(known, present, renamed)
    meant = near_miss(key, missing)
    if meant is not None:
        own = renamed.get(meant, OwnName(meant))
        return own.name, f"unknown field {key!r}: {own.how or f'did you mean {own.name!r}?'}"
    found = (synonyms or {}).get(_spelling(key))
    if found is None or found[0] not in missing:
        return None
    named, shape = found
    held = shape(value)
    if held is None:
        return None
    because = f" (it holds {held})" if held else ""
    own = renamed.get(named, OwnName(named))
    told = f"{own.how}{because}" if own.how else f"ragmon reads this as {own.name!r}{because}, rename it"
    return own.name, f"unknown field {key!r}: {told}"


def _lacked(known: Collection[str], present: Collection[str], renamed: Renamed) -> tuple[str, ...]:
    """The known names an object lacks, counting another format's name as there when the object has the
    field it renames (`expected_docs` beside `relevant_ids` is the user's own)."""
    def there(name: str) -> bool:
        own = renamed.get(name)
        return name in present or (own is not None and not own.how and own.name in present)
    return tuple(sorted(name for name in known if not there(name)))


def _spelling(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").removesuffix("s")


def _words(name: str) -> list[str]:
    return [word for word in _WORD_BREAK.split(name) if word]


def _synonyms(names: Mapping[str, Iterable[str]], shape: Shape) -> dict[str, Meant]:
    return {_spelling(other): (name, shape) for name, others in names.items() for other in others}


def _named(value: Any) -> str | None:
    return ""


def _prose(value: Any) -> bool:
    """A sentence rather than a name or a label: a URL, an id or a file name (`returns.md`) has no two
    words apart, a URL followed by a note still opens with its scheme, and a title or a tag ("Return
    policy", "see FAQ section 2", "v2") ends with no sentence mark and is short. A golden set asked live
    keeps such fields of its own, `sources` of titles, a `reply` channel, a `reference` to a section."""
    return (isinstance(value, str) and _URL.match(value) is None and _TWO_WORDS.search(value) is not None
            and (_SENTENCE_END.search(value) is not None or len(value.split()) >= _LONG_WORDS))


_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s*$")
_LONG_WORDS = 8


def _sentence(value: Any) -> str | None:
    return "a sentence" if _prose(value) else None


def _text(value: Any) -> str | None:
    return "a text, not a URL" if _prose(value) else None


def _documents(value: Any) -> str | None:
    """Retrieved documents: texts, or objects holding one under a name ragmon reads a context's text from.
    A list of file names, URLs or ids, or of objects without a text (`{"id", "title"}`), is a label."""
    if not isinstance(value, list) or not value:
        return None
    count = f"a list of {len(value)}"
    if all(_prose(item) for item in value):
        return f"{count} text{'' if len(value) == 1 else 's'}"
    if all(isinstance(item, dict) and any(isinstance(item.get(key), str) for key in _DOCUMENT_TEXT)
           for item in value):
        return f"{count} document{'' if len(value) == 1 else 's'} with text"
    return None


_QUESTION = ("query", "user_input", "user_query", "prompt")
_CONTEXTS = ("retrieved_contexts", "retrieval_context", "retrieved_documents", "retrieved_docs",
             "source_documents", "context_list")
_DOCUMENTS = ("documents", "docs", "passages", "sources", "chunks", "retrieved", "retrieval", "context_docs")
_ANSWER = ("response", "actual_output", "generated_answer")
_COMPLETION = ("completion", "prediction", "reply", "generation")
_RESULT = "result"  # LangChain RetrievalQA's answer; a common word, so only a sentence is taken for one
# ragmon's own eval-set JSON names two fields otherwise (`ground_truth_answer`, `expected_chunk_ids`): a
# record copied from one into a golden JSONL lost its labels without a word.
_GROUND_TRUTH = ("reference_answer", "expected_output", "expected_answer", "gold_answer", "golden_answer",
                 "ground_truth_answer")
_RELEVANT = ("relevant_docs", "relevant_doc_ids", "relevant_document_ids", "gold_ids", "gold_doc_ids",
             "expected_ids", "expected_doc_ids", "ground_truth_ids", "reference_context_ids",
             "expected_chunk_ids")
_CITATIONS = ("cited_ids", "citation_ids", "cited_docs")
_TEXT = ("content", "document", "passage", "chunk", "page_content")  # the last: a LangChain Document
_DOCUMENT_TEXT = ("text", "pageContent", *_TEXT)


def _record_synonyms(question: str, answer: str, relevant: str) -> dict[str, Meant]:
    return {
        **_synonyms({question: _QUESTION, "contexts": _CONTEXTS, answer: _ANSWER,
                     "ground_truth": _GROUND_TRUTH, relevant: _RELEVANT, "citations": _CITATIONS}, _named),
        **_synonyms({"contexts": _DOCUMENTS}, _documents),
        **_synonyms({answer: (*_COMPLETION, _RESULT)}, _sentence),
        **_synonyms({"ground_truth": ("reference",)}, _text),  # ragas >= 0.2
    }


RECORD_SYNONYMS = _record_synonyms("question", "answer", "relevant_ids")
"""Names ragas, DeepEval, LangChain and common usage give a ragmon record's fields (`retrieved_contexts`,
`actual_output`...), refused only where the record lacks the field itself. A golden set asked live
(`--target`) leaves contexts and answer out on purpose, and may keep `documents` (names, URLs, a count),
`reference` (a URL) or `relevant` (a flag) of its own: such a name is refused only when its value is of the
field's shape (a list of sentences or of documents with text, a sentence, a sentence that is no URL:
`_prose`). Carried along unread, it left
the record scored without contexts or answer, or asked live without its ground truth, and so out of every
mean a gate checks."""
TRACE_SYNONYMS = _record_synonyms("input", "output", "expectedDocs")
"""The same names in a trace record (one with `input`, as DeepEval's are): its answer is `output` and its
relevant ids `expectedDocs`. Its documents are in `steps`, as ragmon.datasets.formats tells a
`retrieval_context`: told `contexts`, the user renaming it was then told the record mixes two formats."""
EVALSET_SYNONYMS = _synonyms({"ground_truth_answer": ("ground_truth", *_GROUND_TRUTH),
                              "expected_chunk_ids": ("relevant_ids", "expectedDocs", *_RELEVANT)}, _named)
"""The labels of an eval set's example under the names a ragmon or trace record, or another tool, gives
them: an example copied from a golden JSONL kept its `relevant_ids` and `ground_truth` in `Example.extra`,
and was asked live with neither, every retrieval and correctness figure undefined without a word."""
CONTEXT_SYNONYMS = _synonyms({"id": ("doc_id", "document_id", "chunk_id", "passage_id"), "text": _TEXT},
                             _named)
"""A retrieved document's id and text under other names: a `doc_id` left unread becomes a content hash,
which no relevant or cited id matches. Not its score's: it is only shown, so another key is the user's."""
LOGGED_QUESTION = ("question", "input", *_QUESTION)
LOGGED_ANSWER = ("answer", "output", "text", "content", _RESULT, *_ANSWER)
LOGGED_CONTEXTS = ("contexts", *_CONTEXTS)
"""Where a tracer's logged input and output objects (a trace record's `input` and `output`, LangSmith's
`inputs` and `outputs` renamed) hold the question, the answer and the contexts, under ragmon's names or
the chain's (RetrievalQA's `query`, `result`, `source_documents`). Read under any of them, not refused:
the names inside such an object are the chain's, not the user's to choose."""
LOGGED_SYNONYMS = {**_synonyms({"contexts": _DOCUMENTS}, _documents),
                   **_synonyms({"answer": _COMPLETION}, _sentence)}
"""Common names only sometimes meant, refused inside a logged object when their value has the shape:
`documents` holding texts there would be contexts left unread."""
