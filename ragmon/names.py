"""Which known name an unknown one was meant as: a misspelling (`anwser`), or another tool's name for the
same thing (ragas's `retrieved_contexts`). Shared by every reader that refuses such a name, golden files
(ragmon.datasets.fields), ragmon's own span convention (ragmon.semconv.ragmon, and ragmon.instrument
through it) and gate names (ragmon.gate), so each suggests alike."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Collection, Iterable, Mapping

_TYPO_CUTOFF = 0.8
_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[-_\s]+")


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
             synonyms: Mapping[str, str] | None = None) -> str | None:
    """Why `key`, a name outside `known` in an object holding `present`, is refused, or None when it is the
    user's own. Only a known name the object lacks can have been meant: a synonym given beside the name
    itself (a `prompt` beside a `question`) is a field of the user's."""
    missing = tuple(sorted(name for name in known if name not in present))
    meant = near_miss(key, missing)
    if meant is not None:
        return f"unknown field {key!r}: did you mean {meant!r}?"
    named = (synonyms or {}).get(_spelling(key))
    if named is not None and named in missing:
        return f"unknown field {key!r}: ragmon reads this as {named!r}, rename it"
    return None


def _spelling(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").removesuffix("s")


def _words(name: str) -> list[str]:
    return [word for word in _WORD_BREAK.split(name) if word]


def _synonyms(names: Mapping[str, Iterable[str]]) -> dict[str, str]:
    return {_spelling(other): name for name, others in names.items() for other in others}


_QUESTION = ("query", "user_input", "user_query", "prompt")
_CONTEXTS = ("retrieved_contexts", "retrieval_context", "retrieved_documents", "retrieved_docs",
             "source_documents", "context_list")
_ANSWER = ("response", "actual_output", "generated_answer")
_GROUND_TRUTH = ("reference_answer", "expected_output", "expected_answer", "gold_answer", "golden_answer")
_RELEVANT = ("relevant_docs", "relevant_doc_ids", "relevant_document_ids", "gold_ids", "gold_doc_ids",
             "expected_ids", "expected_doc_ids", "ground_truth_ids")
_CITATIONS = ("cited_ids", "citation_ids", "cited_docs")
RECORD_SYNONYMS = _synonyms({"question": _QUESTION, "contexts": _CONTEXTS, "answer": _ANSWER,
                             "ground_truth": _GROUND_TRUTH, "relevant_ids": _RELEVANT,
                             "citations": _CITATIONS})
"""Names ragas, DeepEval, LangChain and common usage give a ragmon record's fields (`retrieved_contexts`,
`actual_output`...), refused only where the record lacks the field itself. Only names that can mean
nothing else: a golden set asked live (`--target`) leaves contexts and answer out on purpose, and may
keep `documents`, `reference` (a URL) or `relevant` (a flag) of its own."""
TRACE_SYNONYMS = _synonyms({"input": _QUESTION, "contexts": _CONTEXTS, "output": _ANSWER,
                            "ground_truth": _GROUND_TRUTH, "expectedDocs": _RELEVANT,
                            "citations": _CITATIONS})
"""The same names in a trace record (one with `input`, as DeepEval's are): its answer is `output` and its
relevant ids `expectedDocs`. Its documents are in `steps`; told `contexts`, a user renaming
`retrieval_context` is then told the record mixes two formats, and which."""
CONTEXT_SYNONYMS = _synonyms({
    "id": ("doc_id", "document_id", "chunk_id", "passage_id"),
    "text": ("content", "document", "passage", "chunk", "page_content"),  # the last: a LangChain Document
})
"""A retrieved document's id and text under other names: a `doc_id` left unread becomes a content hash,
which no relevant or cited id matches. Not its score's: it is only shown, so another key is the user's."""
