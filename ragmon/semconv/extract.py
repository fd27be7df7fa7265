"""One trace in, one Example out (or None for a trace that is not RAG), whichever convention wrote it.

The precedence is DESIGN §5's, but for the app's own `ragmon.*` values, which come first where the
design put them last: they are what the app says the model was given and the user got, and the
instrumentation's record is what it could see. A parent-document retriever records the small chunks it
searched while the model is given their parent documents (scored against the chunks, a grounded answer
had scored 0.0); a guardrail replaces a made-up answer with a refusal the user got instead (the
hallucination no one saw had been scored). `ragmon.citations` and `ragmon.pipeline` came first already.
Conventions are asked about spans, never the other way round: this module
picks the spans that matter (the top chain, the retrievers, the answering LLM call) and the convention
readers only decode them, so a trace costs one sort, one role lookup per span, a pass down the tree for
each question about ancestors and a scan of the few spans that carry documents, the question or the answer.

Choices the design leaves open, made here:
- "Top" chain: a CHAIN/AGENT/workflow span with no such ancestor (its parent may be an HTTP span of
  another instrumentation). With several, the question comes from the first to start and the answer
  from the last to end (e.g. a condense-question chain followed by the answering chain); but when
  several each retrieved and called a model, one after another (a retry), the last of them is the
  example: its question, its documents, its answer. So too for such chains inside one top chain that
  did nothing else (the app's function asking its chain twice).
- Documents of one tier from several spans are concatenated in start order, a document (id and
  text) an earlier span gave left out: chunks sharing an id (LangChain loaders give every chunk of a
  file its `source`) are distinct contexts the model saw, a chunk two retrievers both return is one.
  One span's repeats are kept, each at its rank, as a golden record keeps them: a vector store holding
  a document twice gave it two of the top k, which the retrieval metrics count (collapsed, the same
  retrieval scored a hit live and a miss in replay). A span whose
  ancestor in the same tier already reported documents is skipped (LlamaIndex nests
  `VectorIndexRetriever.retrieve` around `_retrieve`, fusion retrievers wrap their sub-retrievers: the
  outer span holds what the pipeline used). A tier that has spans but no documents means retrieval
  returned nothing (`contexts=()`). Rerankers and retrievers are one tier, a reranker standing for the
  retrievers (and rerankers before it) whose documents it was given (`_unreranked`). A span whose
  reader finds its documents unrecorded is an error unless a span beneath it in the same tier reported
  documents, which then stand for its own (an OpenLLMetry LangChain retriever without content tracing
  over a vector store's result events).
- LLM spans nested in an LLM span are one call (LlamaIndex `predict` around `chat`/`complete`, LangChain
  around a provider SDK span): the last call is the outermost LLM span that ended last, read from its
  innermost span outwards.
- The answering call is given a retrieved document's text (in any message), outside tools, and is no
  agent's step (a call that asked for a tool and whose text, announcing the call, a later call is given
  in its history): the last to end, unless given only
  documents an earlier call was given. Such a later call quoting an earlier
  call's output works on it (a grader) and does not answer; one given only some of an earlier call's
  documents, asked once it ended, answers from its choice (a model that re-ranked them) when the earlier
  call's output is a ranking by its form ("2, 3, 1", "Document 2 is the most relevant.", not prose that
  holds small numbers) naming only numbers of the documents it was given, the later call's first among
  them, and its own is more than questions or a check's word ("yes"); after an output naming a number
  no document has (an answer: "30", JSON of a price), only when
  it states something, and else it is a check and does not answer; after one naming only documents by
  their numbers in other words ("Document 2 is the most relevant because ...", "Dokument 2 ist am
  relevantesten."), only when it states something, and else the two are an error; of the calls left
  that quote none, the end
  order tells nothing (a relevance check, a title or follow-up questions may come before, after or
  beside the answer), so a call that stated something answers over one that wrote a label of a word
  or two, a grade ("Score: 0.9") or only questions, and two left that wrote different text make the
  trace an error naming both, unless the app's ragmon.answer or a chain holding both gives the answer
  (`_answering_call`). Without documents in any input, the last call to end answers.
- Question: the top chain's input (a question key, else the last user turn of its `messages`; of a
  `@workflow`'s text arguments, the one the model was asked). Else, when a model call preceded the
  retrieval (it rewrote or condensed the question), the answering call's last user message; else the
  retriever's query. A user message holding a retrieved document's text is a stuffed prompt: the last
  question labelled in it is the question (`question_line`: `Question:`, `<question>`, `## Question`, in
  several languages), or none is known (`unasked_note` says why).
- ragmon.* values found on several spans are taken from the span nearest the root; of several answers
  as near, from the last to end (a retry's answer replaced the first), and two different ones that
  started and ended together are an error (`_View.answered`).
- The answer is the last top chain's output unless that chain called no model and a model call ended
  after it: then the chain only prepared the prompt (`retriever | format_docs`, the model called by the
  app itself) and the model's output is the answer. A chain that called no model and output the
  retrieved documents themselves gave no answer, model call or not: a search endpoint's, or a request
  whose model call was still running when the trace was decided (scored as the answer, the documents
  supported every claim of it, 1.0 for an answer the model then made up).
- A document exactly as long as its service's cut JSON attributes is an error: the SDK's attribute
  length limit cut it silently, and its lost tail would make supported claims look made up.
- A retriever inside an agent's tool call has the model's search string as its query, not the user's
  question: when every retrieval is one, the question is the user message of the agent's first model
  call that records one. A ReAct model's final `Thought: ... Answer: <answer>` is read as <answer>.
- An answer that is a JSON object (a model asked for structured output) is judged on its answer text,
  and cites what its citation keys name when its text cites nothing (ragmon.semconv.structured); a chain
  that picked its answer out of such an object cites what the object does (`_judged`).
- A trace whose content was never recorded is an error, not an example with nothing to measure (which
  the sidecar would count as scored while no score appears): a model call without an answer anywhere,
  because it failed or because none of its spans records its output (content capture off, outputs
  hidden), and a GenAI retrieval without its opt-in documents when no other span gave any. The error
  names the switch of the convention the span follows. A model call whose output holds no text (a tool
  call) is no such error, nor is a trace without a model call (a search endpoint) or without retrieval
  (a plain chat): those are scored on what they have. The checks run only once the answer or the
  documents came out missing.
- A trace without an answer whose request failed is an error too, as is one with neither documents nor
  an answer (nothing to score): the sidecar would count either as scored with nothing measured. The
  request's spans are the top chains, the span nearest the root with ragmon.question and the trace's
  roots, those of them that hold the RAG work; one that ended with status ERROR failed it (the innermost
  is named). Its documents are what a
  failed request got to, not a search endpoint's result. A request that failed after its answer was
  recorded is scored on it: the answer is what the pipeline gave. The check runs last, so a malformed
  attribute, or a failed or unrecorded model call, is the error named.
"""

from __future__ import annotations

import bisect
import dataclasses
import enum
import itertools
import json
import re
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from ragmon.ids import content_id
from ragmon.logs import clip
from ragmon.model import Context, Example
from ragmon.semconv import aisdk, genai, openinference, openllmetry, ragmon, structured
from ragmon.semconv.common import (
    FENCE,
    STATUS_ERROR,
    ExtractionError,
    Role,
    cut_length,
    question_line,
    react_answer,
    strip_assistant,
)
from ragmon.text import cited_ids
from ragmon.traces import Span, Trace, may_be_local_root

__all__ = [
    "ExtractionError", "extract", "pipeline_service", "records_its_callee", "request_count", "unasked_note",
]

T = TypeVar("T")
Reader = Callable[[Span], T | None]

_ROLE_READERS = (openinference.role, openllmetry.role, genai.role, aisdk.role)
_DOCUMENT_TIERS: tuple[tuple[frozenset[Role] | None, Reader[tuple[Context, ...]]], ...] = (
    (None, ragmon.documents),
    (frozenset({Role.RERANKER, Role.RETRIEVER}), openinference.documents),
    (None, genai.documents),
    (None, openllmetry.documents),
)
"""(the roles of the spans worth asking, or None for every span; reader), highest precedence first."""
_QUERY_READERS = (openinference.retriever_query, genai.retriever_query, openllmetry.retriever_query)
_CHAIN_INPUTS = (openinference.chain_input, openllmetry.chain_input, genai.chain_input)
_CHAIN_OUTPUTS = (openinference.chain_output, openllmetry.chain_output, genai.chain_output)
_CHAIN_OUTPUT_ATTRIBUTES = (openinference.OUTPUT_VALUE, openllmetry.ENTITY_OUTPUT)
"""Where the conventions that record a chain's output as JSON put it (GenAI's is a message's text)."""
_LLM_OUTPUTS = (openinference.llm_output, genai.llm_output, openllmetry.llm_output, aisdk.llm_output)
_LLM_USER_MESSAGES = (openinference.llm_user_message, genai.llm_user_message, aisdk.llm_user_message)
_LLM_INPUTS = (openinference.llm_input_text, genai.llm_input_text, aisdk.llm_input_text)
_OUTPUT_RECORDS = (openinference.output_recorded, genai.output_recorded, openllmetry.output_recorded,
                   aisdk.output_recorded)
_TOOL_REQUESTS = (openinference.requested_tools, genai.requested_tools, aisdk.requested_tools)
_CONTENT_SWITCHES: tuple[tuple[Callable[[Span], bool], str, str], ...] = (
    (openinference.follows, "llm.output_messages", openinference.CONTENT_SWITCH),
    (openllmetry.follows, genai.OUTPUT_MESSAGES, openllmetry.CONTENT_SWITCH),
    (genai.anthropic_sdk, genai.OUTPUT_MESSAGES, genai.ANTHROPIC_CONTENT_SWITCH),
    (aisdk.object_call, aisdk.RESPONSE_OBJECT, aisdk.CONTENT_SWITCH),
    (aisdk.follows, aisdk.RESPONSE_TEXT, aisdk.CONTENT_SWITCH),
    (lambda span: True, genai.OUTPUT_MESSAGES, genai.CONTENT_SWITCH),
)
"""(whether a span follows the convention, the attribute its output goes in, how to turn it on), asked
in order: GenAI attribute names are shared, so OpenLLMetry is told by its own marks first."""
_ERROR_TYPE = "error.type"
_EXCEPTION_EVENT = "exception"
_EXCEPTION_TYPE = "exception.type"
NOTHING = "documents and answer"
"""The field of a trace that recorded neither: what is missing, as no one attribute is; what another
service's part of the trace may hold (`ragmon.service`)."""
_CHAINS = frozenset({Role.CHAIN})
_LLMS = frozenset({Role.LLM})
_TOOLS = frozenset({Role.TOOL})
_RETRIEVERS = frozenset({Role.RETRIEVER})
_RETRIEVAL_ROLES = _RETRIEVERS | {Role.RERANKER}
_RAG_ROLES = _RETRIEVAL_ROLES | _LLMS
_SERVICE_NAME = "service.name"
_JSON_ATTRIBUTES = dict(openinference.JSON_ATTRIBUTES) | dict.fromkeys(
    (openllmetry.ENTITY_INPUT, openllmetry.ENTITY_OUTPUT, genai.INPUT_MESSAGES, genai.OUTPUT_MESSAGES,
     genai.RETRIEVAL_DOCUMENTS, aisdk.PROMPT_MESSAGES, aisdk.RESPONSE_OBJECT))
"""Attributes written as JSON text, whose cut shows: name -> None, or the attribute whose value
`openinference.JSON_MIME_TYPE` says the name's value is JSON."""

_WALKED = -2
"""The depth of a span `_View._place` is walking up from, until it is placed."""

_MARKER = re.compile(r"\[([^\[\]\n]{1,200})\]")
_MARKER_SEPARATOR = re.compile(r"\s*[,;]\s*")
_SOURCE_HEADER = re.compile(
    r"^(?:Source (\d{1,9}):[ \t]*$\n?|Source ID:[ \t]*(\d{1,9})[ \t]*$\n?|\[(\d{1,9})\][ \t]*+:?[ \t]*+)",
    re.MULTILINE)
"""How a prompt numbers its sources: LlamaIndex's CitationQueryEngine "Source 3:" on a line, the text on the
next; LangChain's citation tutorial "Source ID: 0" on a line, from 0, labelled fields on the next
(`_LABEL`); most apps "[3] text" on one line, which a re-ranker's order numbers (a plain function, it
records no span): read in retrieval order, an answer's "[1]" had named another document than the
prompt's [1]."""
_NUMBERED = re.compile(r"""Source (?:ID:[ \t]*)?\d|(?:^|\\n|["'])\[\d""", re.MULTILINE)
"""A prompt that may number its sources, found in its attributes as sent: a line opening "[n]" follows a
line break, or in a JSON-encoded message (GenAI's) or a list's repr an escaped one or the string's quote,
where the answer's "[2]" had been read as the second document retrieved, not the prompt's [2]."""


def extract(trace: Trace) -> Example | None:
    """The Example a trace describes; None when it has neither retrieval nor generation (not_rag).

    Raises ExtractionError when an attribute that decides the example is malformed, and when the trace is
    RAG but lost spans to the sidecar's limits (`Trace.spans_lost`): what is left of it may pair a
    question with the wrong answer or none (spans end children first, so the lost are the last to end:
    the chain holding the answer, the request's root), and scored, a made-up answer had read 1.0. That
    error is told in place of any other it causes."""
    return extract_noted(trace)[0]


def extract_noted(trace: Trace, *, recorded: bool = False) -> tuple[Example | None, str | None]:
    """`extract`, with what the sidecar should say of what the example leaves out: the trace's requests it
    leaves unscored (`_set_aside`) and the blank ids of ragmon.citations and ragmon.relevant_ids
    (`_blank_note`); or None. `recorded`: the trace was read from files, whole, and no wait decided it."""
    try:
        example, note = _extract(trace, recorded)
    except ExtractionError:
        if not trace.spans_lost:
            raise
    else:
        if example is None or not trace.spans_lost:
            return example, note
    first = min(trace.spans, key=lambda span: (span.start_time_unix_nano, span.span_id))
    lost = trace.spans_lost
    spans = f"{lost} span of this trace was" if lost == 1 else f"{lost} spans of this trace were"
    raise ExtractionError(first, "spans", f"{spans} refused, over the sidecar's limits for one trace, so its "
                          f"answer, documents or question may be among them: not scored ({LIMITS})")


LIMITS = ("--max-spans-per-trace, or the trace's share of --max-buffer: ragmon_spans_rejected_total's reason "
          "too_many_spans or too_many_bytes says which; raise it if the app's requests are this large")
"""The limits that refuse a trace's spans, told with how to know which did: the trace does not keep why, and
naming --max-spans-per-trace alone sent a user whose spans --max-buffer refused to raise the other."""


def _extract(trace: Trace, recorded: bool) -> tuple[Example | None, str | None]:
    if not trace.spans:
        return None, None
    view = _View(trace)
    tops = view.top_chains()
    answering = _answering_chains(view, tops)
    note = _set_aside(answering)
    if len(answering) > 1:  # one after another: the last answers, from its own documents
        tops = answering[-1:]
    contexts = _contexts(view, _subtree(view, tops[0]) if len(answering) > 1 else None)
    ragmon_question = view.nearest_root(ragmon.question)
    ragmon_answer = view.answered()
    if (contexts is None and ragmon_question is None and ragmon_answer is None
            and not _RAG_ROLES.intersection(view.roles.values())):
        return None, None
    if contexts is None:
        for span in view.with_role(_RETRIEVERS):
            genai.require_documents(span)
    bodies = _document_texts(contexts)
    texts = [body[:_PROBE] for body in bodies]
    llm_call, rival = _answering_call(view, texts, bodies)
    said = _answer(view, tops, llm_call, rival, ragmon_answer, texts)
    if contexts is not None:
        contexts = _shown(view, contexts, texts, llm_call)
    if said is None and llm_call:
        _no_answer(llm_call)
    answer, structured_cited = _judged(view, said, contexts)
    example = Example(
        id=trace.trace_id,
        question=_question(view, tops, llm_call, texts, ragmon_question) or "",
        contexts=contexts,
        answer=answer,
        relevant_ids=view.nearest_root(ragmon.relevant_ids),
        citations=_citations(view, answer, contexts, llm_call, structured_cited),
        ground_truth=view.nearest_root(ragmon.ground_truth),
        pipeline=view.nearest_root(ragmon.pipeline) or _service_name(view, tops),
    )
    if answer is None:
        _unanswered(view, tops, contexts, recorded, bool(llm_call))
    return example, "; ".join(filter(None, (note, _blank_note(view)))) or None


class _View:
    """The trace as a tree: spans in start order, with each span's role, parent and depth.

    A span's ancestors are its parents within the trace, up to a missing parent or, where parents loop
    (malformed), up to the span the walk would come back to: a span in a loop has the loop's others as
    ancestors. Questions about ancestors are answered for every span at once, each span's answer taken
    from its parent's in one pass down the tree: walking up from each span in turn, a chain of 1,000
    nested spans (within --max-spans-per-trace) had cost 0.8 s of the sidecar's event loop. Spans are
    told apart by id, which the Assembler keeps unique (a span sent again is dropped)."""

    __slots__ = ("_by_id", "_calls", "_depths", "_given", "_json", "_loops", "_marked", "_order", "_outputs",
                 "_parents", "roles", "spans")

    def __init__(self, trace: Trace) -> None:
        self.spans = sorted(trace.spans, key=lambda s: (s.start_time_unix_nano, s.span_id))
        self._by_id = {span.span_id: span for span in self.spans}
        self.roles = {span.span_id: _role(span) for span in self.spans}
        self._marked = [span for span in self.spans if not ragmon.ATTRIBUTES.isdisjoint(span.attributes)]
        self._parents = {span.span_id: parent for span in self._by_id.values()
                         if (parent := self._by_id.get(span.parent_span_id or "")) is not None}
        self._depths: dict[str, int] = {}
        self._order: list[Span] = []
        """The spans outside loops, each after its parent."""
        self._loops: list[list[Span]] = []
        """The loops of parents, each span's parent the next one (the last's the first)."""
        self._calls: list[list[Span]] | None = None
        self._json: dict[int, list[tuple[str, Mapping[str, Any]]]] | None = None
        self._given: dict[str, str] = {}
        self._outputs: dict[str, str | None] = {}
        for span in self._by_id.values():
            self._place(span)

    def _place(self, span: Span) -> None:
        """Places the span and its ancestors not yet placed: up its parents to a placed span, a root or a
        loop, then down again, each depth its parent's plus one (a span in a loop is as deep as the loop
        has other spans). Iterative: a chain of any length, no recursion limit."""
        chain: list[Span] = []
        node: Span | None = span
        while node is not None and node.span_id not in self._depths:
            self._depths[node.span_id] = _WALKED
            chain.append(node)
            node = self._parents.get(node.span_id)
        depth = -1 if node is None else self._depths[node.span_id]
        if depth == _WALKED and node is not None:  # the walk came back to a span of its own: a loop
            start = next(at for at, member in enumerate(chain) if member is node)
            loop = chain[start:]
            del chain[start:]
            self._loops.append(loop)
            depth = len(loop) - 1
            self._depths.update((member.span_id, depth) for member in loop)
        for placed in reversed(chain):
            depth += 1
            self._depths[placed.span_id] = depth
            self._order.append(placed)

    def depth(self, span: Span) -> int:
        return self._depths[span.span_id]

    def nearest(self, span: Span, ids: Container[str]) -> str | None:
        """The id of `span`'s nearest ancestor among `ids`, if any (up to a loop's start)."""
        seen: set[str] = set()
        node = self._parents.get(span.span_id)
        while node is not None and node.span_id not in seen:
            if node.span_id in ids:
                return node.span_id
            seen.add(node.span_id)
            node = self._parents.get(node.span_id)
        return None

    def under(self, ids: Container[str]) -> dict[str, Span]:
        """Span id -> its outermost ancestor among `ids` (the last met walking up), for each span that has
        one."""
        found: dict[str, Span] = {}
        for loop in self._loops:
            # The ancestors of loop[i] are loop[i + 1:] and then loop[:i].
            last = next((member for member in reversed(loop) if member.span_id in ids), None)
            earlier: Span | None = None
            for member in loop:
                outermost = earlier if earlier is not None else last if last is not member else None
                if outermost is not None:
                    found[member.span_id] = outermost
                if member.span_id in ids:
                    earlier = member
        for span in self._order:
            if (parent := self._parents.get(span.span_id)) is not None:
                outermost = found.get(parent.span_id, parent if parent.span_id in ids else None)
                if outermost is not None:
                    found[span.span_id] = outermost
        return found

    def under_role(self, roles: frozenset[Role]) -> dict[str, Span]:
        return self.under({span.span_id for span in self.with_role(roles)})

    def above(self, ids: Container[str]) -> set[str]:
        """The ids of the ancestors of the spans `ids`: from the leaves up, a span's parent is one when the
        span is among `ids` or is one itself."""
        found: set[str] = set()
        for span in reversed(self._order):
            if ((span.span_id in ids or span.span_id in found)
                    and (parent := self._parents.get(span.span_id)) is not None):
                found.add(parent.span_id)
        for loop in self._loops:
            # A span below the loop has all of it as ancestors, a span in it the others.
            inside = [member.span_id for member in loop if member.span_id in ids]
            if len(inside) > 1 or any(member.span_id in found for member in loop):
                found.update(member.span_id for member in loop)
            elif inside:
                found.update(member.span_id for member in loop if member.span_id != inside[0])
        return found

    def cuts(self, lengths: Container[int]) -> dict[int, list[Mapping[str, Any]]]:
        """Each of `lengths` that JSON attributes were cut to in this trace -> the resources of the spans
        that hold them. The SDK's limit cuts every string attribute of a service to the same length, and
        cut JSON, unlike free text, says it was cut; only a value as long as a document could show that
        document's cut, so the others are not parsed and a trace that nothing cut costs a look-up per
        attribute. One pass for every document: asked span by span, 1,000 retrievers side by side had
        taken 1 s."""
        found: dict[int, list[Mapping[str, Any]]] = {}
        for length, values in self._json_values().items():
            if length in lengths:
                # A request's spans of one resource share its dict (ragmon.otlp.decode): kept once.
                resources = {id(resource): resource
                             for value, resource in values if cut_length(value) is not None}
                if resources:
                    found[length] = list(resources.values())
        return found

    def _json_values(self) -> dict[int, list[tuple[str, Mapping[str, Any]]]]:
        """Length -> the trace's JSON attribute values of that length, each with its span's resource, in
        span order. Gathered once a view: the documents and the answer each ask `cuts`, and scanning every
        span's attributes for each had been 7% of extracting a real LangChain trace."""
        if self._json is None:
            self._json = {}
            for span in self.spans:
                attributes = span.attributes
                for name in attributes.keys() & _JSON_ATTRIBUTES.keys():  # C-level: most spans have 1 or 2
                    value, mime_type = attributes[name], _JSON_ATTRIBUTES[name]
                    if isinstance(value, str) and (
                            mime_type is None or attributes.get(mime_type) == openinference.JSON_MIME_TYPE):
                        self._json.setdefault(len(value), []).append((value, span.resource))
        return self._json

    def with_role(self, roles: frozenset[Role]) -> list[Span]:
        return [span for span in self.spans if self.roles[span.span_id] in roles]

    def top_chains(self) -> list[Span]:
        chains = {span.span_id: span for span in self.with_role(_CHAINS)}
        nested = self.under(chains)
        return [span for span in chains.values() if span.span_id not in nested]

    def llm_calls(self) -> list[list[Span]]:
        """Each LLM call's spans, innermost first, the calls in the order their outermost spans started
        (see the module docstring). Worked out once: several steps ask."""
        if self._calls is None:
            llms = {span.span_id: span for span in self.with_role(_LLMS)}
            outermost = self.under(llms)
            calls: dict[str, list[Span]] = {}
            for span in llms.values():
                calls.setdefault(outermost.get(span.span_id, span).span_id, []).append(span)
            started = sorted(calls, key=lambda i: (llms[i].start_time_unix_nano, i))
            self._calls = [sorted(calls[i], key=lambda s: (-self.depth(s), -s.end_time_unix_nano))
                           for i in started]
        return self._calls

    def given(self, call: list[Span]) -> str:
        """`_given`, decoded once a call: choosing the answering call and the documents shown both ask."""
        return _once(self._given, call, _given)

    def output(self, call: list[Span]) -> str | None:
        """`_output`, decoded once a call: choosing the answering call asks for a round's outputs again at
        each later call, and finding the calls feeding it for every call's at each call found."""
        return _once(self._outputs, call, _output)

    def last_llm_call(self) -> list[Span]:
        """The spans of the call whose outermost span ended last."""
        calls = self.llm_calls()
        if not calls:
            return []
        return max(calls, key=lambda c: (c[-1].end_time_unix_nano, c[-1].start_time_unix_nano))

    def marked_spans(self) -> list[Span]:
        """The spans carrying a ragmon.* attribute, in start order."""
        return self._marked

    def nearest_root(self, read: Reader[T]) -> T | None:
        """A ragmon.* value from the span nearest the root that has it (ties: the first to start)."""
        found = self.marked(read)
        return None if found is None else found[1]

    def marked(self, read: Reader[T]) -> tuple[Span, T] | None:
        """That value and the span it is read from."""
        best: tuple[int, int] | None = None
        found: tuple[Span, T] | None = None
        for order, span in enumerate(self._marked):
            value = read(span)
            if value is not None and (best is None or (self.depth(span), order) < best):
                best, found = (self.depth(span), order), (span, value)
        return found

    def answered(self) -> tuple[Span, str] | None:
        """The app's `ragmon.answer`, with its span: the nearest the root, as `marked`, but of several as
        near the last to end (ties: the last to start), not the first to start: a guardrail's retry, or an
        app recording the answer again, replaces the first answer with the one the user got. Two different
        answers that started and ended together cannot be told apart: an error naming both, rather than
        the one a random span id sorted first (the same trace had scored 0.333, 0.667 or 0.833)."""
        found = [(span, value) for span in self._marked if (value := ragmon.answer(span)) is not None]
        if not found:
            return None
        depth = min(self.depth(span) for span, _ in found)
        nearest = [(span, value) for span, value in found if self.depth(span) == depth]
        last = max(nearest, key=lambda item: _ended(item[0]))
        other = next((item for item in nearest
                      if _ended(item[0]) == _ended(last[0]) and item[1] != last[1]), None)
        if other is not None:
            raise ExtractionError(
                last[0], ragmon.ANSWER,
                f"two spans record different answers, {other[0].name!r} (span id {other[0].span_id}) and "
                f"{last[0].name!r} (span id {last[0].span_id}), as near the root, started and ended at the "
                "same times: which the user got is unknown (the last to end counts). Record the answer the "
                "user got once, on the request span")
        return last

    def request_spans(self, tops: list[Span]) -> list[Span]:
        """The spans that stand for the RAG request, innermost first (ties in this order): the top chains,
        the span nearest the root carrying ragmon.question (ragmon.instrument's request span) and the
        trace's roots (an HTTP server span, a lone retriever), each only if it holds the RAG work (is, or
        is an ancestor of, a retriever, a model call or a span with ragmon.* attributes). A trace can hold
        other work: a sibling request that failed, or an orphan whose parent never arrived, says nothing
        of this one. Never empty: a trace whose parents form a cycle has no root, and the first RAG span
        stands in."""
        rag = [span for span in self.spans if self.roles[span.span_id] in _RAG_ROLES] + self._marked
        rag_ids = {span.span_id for span in rag}
        holding = rag_ids | self.above(rag_ids)
        marked = self.marked(ragmon.question)
        roots = [span for span in self.spans if self.depth(span) == 0]
        unique = {span.span_id: span for span in [*tops, *([marked[0]] if marked else []), *roots]
                  if span.span_id in holding}
        return sorted(unique.values(), key=lambda span: -self.depth(span)) or rag[:1] or self.spans[:1]


def pipeline_service(trace: Trace) -> str | None:
    """The service a trace's pipeline is named after (`_service_name`), for one extraction refused (it
    built this view of it before refusing): the top chain's, else that of the RAG span nearest the root."""
    view = _View(trace)
    return _service_name(view, view.top_chains())


UNASKED = ("no question found: no chain input with one, no retrieval query (OTel GenAI's "
           "gen_ai.retrieval.query.text is opt-in), and the model's user message holds the documents with "
           "no question labelled in it (`Question: ...`, `<question>...</question>`, a `## Question` "
           "heading) or none was recorded, so answer_relevance is not measured; record the question as "
           "ragmon.question (ragmon.instrument)")


def unasked_note(trace: Trace) -> str:
    """Why a trace's example has no question, for the sidecar to say when it scores one so (groundedness
    needs none, answer_relevance is then undefined): the switch that hid the app's inputs, as the errors
    for hidden outputs and documents name theirs, else what was looked for. Asked only of such traces."""
    for span in trace.spans:
        if openinference.inputs_hidden(span):
            return f"the app hides its inputs, so no question is known: {openinference.INPUT_SWITCH}"
        if (_role(span) is Role.LLM and not openinference.follows(span)
                and not any(read(span) for read in _LLM_INPUTS)):
            switch = next(switch for follows, _, switch in _CONTENT_SWITCHES if follows(span))
            return f"the model call {span.name!r} records no input, so no question is known: {switch}"
    return UNASKED


def request_count(trace: Trace) -> int:
    """How many requests a trace holds: the spans standing for a request (`_View.request_spans`) that stand
    under no other; live replay names a question's trace holding several (a build keeping one request's
    trace context for the next ones). One request's server span holds its chains, however many it ran (a
    rewrite, then the answer); requests continued from one kept context are each a root of their own, and
    those nested in an earlier request's span left open (never ended, so never exported) are roots beside
    its children; so are those nested in an earlier request's span that had ended before they started (a
    worker task or a context variable holding the first request's context): read as its children, six
    requests had counted one, and the run blamed the build's exporter. Ended before, as JS's millisecond
    starts allow (`_began_before_end`)."""
    view = _View(trace)
    requests = view.request_spans(view.top_chains())
    nested = view.under({span.span_id for span in requests})
    return sum(span.span_id not in nested or _ended_before(nested[span.span_id], span) for span in requests)


def _ended_before(earlier: Span, later: Span) -> bool:
    """Whether `earlier` had ended when `later` began (a span never ended has no end time)."""
    return earlier.end_time_unix_nano > 0 and not _began_before_end(later, earlier)


def records_its_callee(span: Span) -> bool:
    """Whether a span is a call whose callee sends no spans of its own, all it gave being recorded on the
    span: a model's API, a vector store's search, a reranker's API (GenAI's retrieval spans are CLIENT)."""
    return _role(span) in _CALLS_RECORDED


_CALLS_RECORDED = (Role.LLM, Role.RETRIEVER, Role.RERANKER)


def _role(span: Span) -> Role | None:
    for read in _ROLE_READERS:
        if (role := read(span)) is not None:
            return role
    return None


def _once(cache: dict[str, T], call: list[Span], read: Callable[[list[Span]], T]) -> T:
    """What `read` finds in the call, from `cache` (by the call's outermost span) after the first time."""
    key = call[-1].span_id
    if key not in cache:
        cache[key] = read(call)
    return cache[key]


def _first(spans: Sequence[Span], readers: Sequence[Reader[T]]) -> T | None:
    found = _found(spans, readers)
    return None if found is None else found[1]


def _found(spans: Sequence[Span], readers: Sequence[Reader[T]]) -> tuple[Span, T] | None:
    """The first value a reader finds, with the span it is read from."""
    for span in spans:
        for read in readers:
            if (value := read(span)) is not None:
                return span, value
    return None


def _contexts(view: _View, within: Container[str] | None = None) -> tuple[Context, ...] | None:
    """The documents of the first tier that has any. A retriever that recorded none (content capture off)
    makes its tier unknowable, an error, unless a later tier gives them. The app's own `ragmon.contexts`
    come first (see the module docstring), and so stand in for content its instrumentation did not
    record. `within`: the ids of the spans the instrumentations' documents are read from (the answering
    chain's, of several in turn), None for all; the app's own are read from every span."""
    unknowable: openllmetry.UnrecordedDocuments | None = None
    for roles, read in _DOCUMENT_TIERS:
        candidates = view.spans if roles is None else view.with_role(roles)
        if within is not None and read is not ragmon.documents:
            candidates = [span for span in candidates if span.span_id in within]
        found: list[tuple[Span, tuple[Context, ...]]] = []
        unrecorded: list[openllmetry.UnrecordedDocuments] = []
        for span in candidates:
            try:
                docs = read(span)
            except openllmetry.UnrecordedDocuments as error:
                unrecorded.append(error)
                continue
            if docs is not None:
                found.append((span, docs))
        if unrecorded:
            # A span beneath one that recorded documents, or above it, is covered by them: a LangChain
            # retriever records what the vector search beneath it (qdrant's records none) found.
            recorded = {span.span_id for span, _ in found}
            covered = view.above(recorded) | view.under(recorded).keys()
            unknown = next((error for error in unrecorded if error.span_id not in covered), None)
            if unknown is not None:
                unknowable = unknowable or unknown
                continue
        if found:
            nested = view.under({span.span_id for span, docs in found if docs})
            outermost = [(span, docs) for span, docs in found if span.span_id not in nested]
            if len(outermost) < len(found):
                outermost = _named_beneath(outermost,
                                           [docs for span, docs in found if span.span_id in nested])
            if read is openinference.documents:
                outermost = _unreranked(view, outermost)
            lengths = {len(context.text) for _, docs in outermost for context in docs}
            cuts = view.cuts(lengths) if lengths else {}
            merged: list[Context] = []
            earlier: set[tuple[str, str]] = set()
            for span, docs in outermost:
                _check_whole(span, docs, cuts)
                merged += (context for context in docs if (context.id, context.text) not in earlier)
                earlier.update((context.id, context.text) for context in docs)
            return tuple(merged)
    if unknowable is not None:
        raise unknowable
    return None


def _named_beneath(outermost: list[tuple[Span, tuple[Context, ...]]], beneath: list[tuple[Context, ...]]
                   ) -> list[tuple[Span, tuple[Context, ...]]]:
    """The outer spans' documents, each named by its id, not its content hash, where a span beneath
    recorded the same text under an id: OpenLLMetry's LangChain retriever writes no `Document.id`, and the
    Chroma query under it names each hit. Named by their hashes, the documents the retrieval found were
    none of the relevant ids, and hit_rate was 0."""
    named = {context.text: context.id for docs in beneath for context in docs
             if context.id != content_id(context.text)}
    if not named:
        return outermost
    return [(span, tuple(dataclasses.replace(context, id=named[context.text])
                         if context.id == content_id(context.text) and context.text in named else context
                         for context in docs)) for span, docs in outermost]


def _unreranked(view: _View, sources: list[tuple[Span, tuple[Context, ...]]]
                ) -> list[tuple[Span, tuple[Context, ...]]]:
    """The sources (retrievers and rerankers, in start order) whose documents went into no reranker: a
    reranker's output stands for the retrievers it took documents from, not for every retriever of the
    trace. An app that reranks its knowledge base and adds an FAQ retriever's documents as they are gives
    the model both; the reranker's output alone had lost the FAQ's, its supported claims read as made up.
    A reranker may rerank another's output: it stands for that reranker if it started after it (ties:
    ended after it). One that records no input documents (OPENINFERENCE_HIDE_INPUTS) stands for every
    retriever, as which it took from is unknown."""
    rerankers = [span for span, _ in sources if view.roles[span.span_id] is Role.RERANKER]
    if not rerankers:
        return sources
    replaced: set[str] = set()
    for reranker in rerankers:
        given = openinference.reranker_inputs(reranker)
        for span, docs in sources:
            retriever = view.roles[span.span_id] is Role.RETRIEVER
            if given is None:
                if retriever:
                    replaced.add(span.span_id)
            elif ((retriever or _started(span) < _started(reranker))
                  and any((context.id, context.text) in given for context in docs)):
                replaced.add(span.span_id)
    return [(span, docs) for span, docs in sources if span.span_id not in replaced]


def _started(span: Span) -> tuple[int, int]:
    return span.start_time_unix_nano, span.end_time_unix_nano


def _ended(span: Span) -> tuple[int, int]:
    return span.end_time_unix_nano, span.start_time_unix_nano


def _check_whole(span: Span, docs: tuple[Context, ...], cuts: dict[int, list[Mapping[str, Any]]]) -> None:
    """A document exactly as long as its service's cut JSON attributes (`_View.cuts`) was cut short with
    them (or is exactly that long, which cannot be told apart). Its lost tail would make supported claims
    look made up. A longer document was not under that limit, a shorter one is whole."""
    for rank, context in enumerate(docs):
        if _cut_with_its_service(span, len(context.text), cuts):
            raise ExtractionError(
                span, "document text",
                f"document {rank} (id {context.id!r}) is {len(context.text)} characters long, the length "
                f"this service's JSON attributes were cut to: {_LENGTH_LIMIT} cut the document short, so the "
                "answer cannot be checked against it")


_LENGTH_LIMIT = ("the app's attribute length limit (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT or "
                 "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, SpanLimits)")


def _cut_with_its_service(span: Span, length: int, cuts: dict[int, list[Mapping[str, Any]]]) -> bool:
    mine = span.resource
    return any(resource is mine or resource == mine for resource in cuts.get(length, ()))


def _question(view: _View, tops: list[Span], llm_call: list[Span], texts: list[str],
              explicit: str | None) -> str | None:
    """The app's own `ragmon.question`, else the top chain's input, else what the user asked rather than
    what was searched for: a model call
    before the retrieval rewrote or condensed the question, so the answering call's user message is the
    user's; without one the retriever's query is the question. A retrieval inside an agent's tool call
    searched for what the model asked, not for the user's question. When every retrieval is one, the
    trace is an agent's: the user's question is what the first of its own model calls that records a
    user message was asked (later calls also carry tool results, as user turns in ReAct); calls inside
    tools are the tools' own."""
    if explicit is not None:
        return explicit
    question = _chain_question(tops, llm_call, texts)
    if question:
        return question
    retrievals = view.with_role(_RETRIEVAL_ROLES)
    in_tools = view.under_role(_TOOLS)
    direct = [span for span in retrievals if span.span_id not in in_tools]
    if direct and _rewritten(view, direct[0], in_tools) and (asked := _asked(llm_call, texts)):
        return asked
    question = _first(direct, _QUERY_READERS)
    if question:
        return question
    if retrievals and not direct:
        agent_calls = (call for call in view.llm_calls() if call[-1].span_id not in in_tools)
        asked = next(filter(None, (_first(call, _LLM_USER_MESSAGES) for call in agent_calls)), None)
    else:
        asked = _asked(llm_call, texts)
    return asked or _first(retrievals, _QUERY_READERS)


def _chain_question(tops: list[Span], llm_call: list[Span], texts: list[str]) -> str | None:
    """The top chain's question. A `@workflow` function takes more than the question (`answer(tenant,
    question)`): of its text arguments, the one the model was asked is the question."""
    arguments = openllmetry.workflow_arguments(tops[0]) if tops else []
    if len(arguments) > 1 and (asked := _asked(llm_call, texts)) in arguments:
        return asked
    return _first(tops[:1], _CHAIN_INPUTS)


def _rewritten(view: _View, retrieval: Span, in_tools: Container[str]) -> bool:
    """Whether a model call (not a tool's) started before the first retrieval: a step that rewrote,
    condensed or expanded the question (HyDE) into what was searched for."""
    return any(call[-1].start_time_unix_nano < retrieval.start_time_unix_nano
               and call[-1].span_id not in in_tools for call in view.llm_calls())


def _asked(llm_call: list[Span], texts: list[str]) -> str | None:
    """The call's last user message, unless it is a prompt stuffed with the retrieved documents: then
    its `Question:` line, or nothing, since scoring the documents as the question would match them to
    every answer. With no documents known (no retrieval span: a provider SDK's spans alone), a message of
    several lines with a `Question:` line is taken for such a prompt, as it had been taken whole."""
    message = _first(llm_call, _LLM_USER_MESSAGES)
    if message is None:
        return None
    if not texts:
        return (question_line(message) if "\n" in message else None) or message
    if not any(text in message for text in texts):
        return message
    return question_line(message)


_PROBED_DOCUMENTS = 20
"""Documents looked for in the model calls' inputs, the first retrieved: the ones a prompt holds."""
_PROBED_CALLS = 8
"""Model calls looked through for the documents, the last to end: the answer comes near the end."""
_PROBE = 256
"""Characters of a document looked for in a model's input (its start: a template may cut a long one
short), and of a numbered source matched to a document. With `_PROBED_DOCUMENTS` and `_PROBED_CALLS` they
bound what extraction searches: 900 calls of 100 KB prompts and 100 documents had taken 10 s, on the
sidecar's event loop."""
_OUTPUT_ATTRIBUTES = (openinference.OUTPUT_VALUE, openinference.OUTPUT_MESSAGES, openinference.CHOICES,
                      genai.OUTPUT_MESSAGES, genai.LEGACY_COMPLETION, openllmetry.ENTITY_OUTPUT,
                      aisdk.RESPONSE)
"""How the names of the attributes holding a model call's output start, in every convention read
(`gen_ai.completion` starts OpenLLMetry's indexed `gen_ai.completion.<i>.*` too): each records inputs
apart from outputs."""
_OUTPUT_EVENTS = frozenset({genai.CHOICE_EVENT, genai.LEGACY_COMPLETION_EVENT})
"""Span events holding a model call's output (GenAI's choice events; the v1.26 completion event)."""
_WORDS = 64
"""Characters of a document's whitespace-squeezed start that show it in a model's input, for `_shown`."""
_SCANNED = 65_536
"""Characters of a document a numbered source is looked for in."""
_SOURCE_HEADERS = 64
"""`Source n:` lines of a prompt read, at most."""


def _document_texts(contexts: tuple[Context, ...] | None) -> list[str]:
    """The retrieved texts to look for in a model's input, the first, stripped as a prompt template may
    strip them (a blank document is in every input): whole, where a prompt numbering them shows where
    one ends (`_numbering`); their starts (`_PROBE`) are looked for."""
    return [text for context in (contexts or ())[:_PROBED_DOCUMENTS] if (text := context.text.strip())]


def _answering_call(view: _View, texts: list[str],
                    bodies: list[str]) -> tuple[list[Span], list[Span] | None]:
    """The model call that answered from the documents, and a rival: another call given the same
    documents that may as well have answered, which makes the trace an error where the answer is read
    from the call (`_recorded_answer`), but not where the app's ragmon.answer or a chain holding both
    calls says what the user got.

    Calls are read in the order they ended, in rounds. A call given a document the round's first call
    was not starts a new round: it refines the answer from more documents (LlamaIndex's refine), and is
    the answer rather than the drafts before it. A call given no document (a chat title) is not the
    answer, unless it is given the outputs of calls given documents the round's calls were not: it joins
    parts written from more documents, and starts a round of its own (`_fed_documents`). A later call
    given the round's documents and quoting a round call's output works on that answer (grades it) and
    is not the answer either, nor is one that failed with no output while a round call has one: a
    fallback's failed first try, whatever order two services' clocks put the ends in (one clock 20 s
    ahead turned answered traces into errors). A call that asked for a tool and whose
    text a later call is given is an agent's step (`_stepped`), never the answer, and the later call is
    no grader of it; nor is a call inside a tool the answer, the tool's own (a query engine an agent
    called, answering the agent). A later call given some of a round call's documents, not all, asked
    once that call ended, was given its choice and answers in its place, or checked its answer and does
    not (`_after`: a model ranking or grading them records no span of its own), or nothing tells which.
    `texts` are the documents' starts, `bodies` the documents whole.

    Of the calls of the last round, the order they ended in tells nothing: a relevance check or a
    router is asked before the answer, a title, a summary for a log or follow-up questions after it,
    and any of them side by side with it, all from the same documents and the question, so none quotes
    the answer. Taking the last to end had scored the follow-up questions of a grounded answer (0.0).
    What they wrote tells more: an answer states something, while a check's output is a label of a word
    or two ("yes", "not relevant") or a grade ("Score: 0.9", `_grade`) and follow-up suggestions are
    only questions. So a call that stated something answers over those that did not. Two calls left that
    wrote different text (the answer and a summary, a retry after the app rejected the first answer, a
    short answer such as "30 days." beside a check's "yes" or beside follow-up questions, a clarifying
    question beside follow-up questions) are told apart by nothing ragmon can trust: scoring either
    could give a grounded answer 0.0 or a made-up one 1.0, so the trace is an error naming both, which
    the app settles by recording the answer the user got as ragmon.answer. A call whose output holds no
    text (a tool call, hidden content) keeps its place as the last to end: taken for the answer, its
    missing output is an error naming the switch to turn on, not an earlier call's output borrowed. With
    no documents in any call's input (a plain chat, an agent given a tool's summary rather than its
    documents) the last call to end answers."""
    calls = view.llm_calls()
    if len(calls) < 2 or not texts:
        return view.last_llm_call(), None
    in_tools = view.under_role(_TOOLS)
    calls = [call for call in calls if call[-1].span_id not in in_tools]
    calls.sort(key=lambda c: (c[-1].end_time_unix_nano, c[-1].start_time_unix_nano))
    round_calls: list[tuple[list[Span], dict[int, int]]] = []
    round_shown: set[int] = set()
    rankings: set[str] = set()
    unsure: set[str] = set()
    shown_calls: list[tuple[list[Span], dict[int, int]]] = []
    for call in calls[-_PROBED_CALLS:]:
        given = view.given(call)
        shown = _given_documents(view, call, texts) or _fed_documents(view, call, shown_calls, round_calls)
        if not shown:
            continue
        shown_calls.append((call, shown))
        # A round call that asked for a tool, whose text this call is given, was an agent's step, its text
        # this call's history, not an answer it works on: this call answers in its place.
        round_calls = [(earlier, seen) for earlier, seen in round_calls if not _stepped(view, earlier, given)]
        if not round_calls or not shown.keys() <= round_shown:
            round_calls, round_shown = [(call, shown)], set(shown)
            continue
        outputs = [output for earlier, _ in round_calls if (output := view.output(earlier)) is not None]
        if (_failed(view, call) and outputs) or any(_quotes(given, output) for output in outputs):
            continue
        after = [(earlier, seen, _after(view, bodies, earlier, seen, call, shown))
                 for earlier, seen in round_calls]
        if any(relation is _Relation.CHECKS for _, _, relation in after):
            continue
        rankings.update(earlier[-1].span_id for earlier, _, relation in after if relation is _Relation.RANKED)
        unsure.update(each[-1].span_id for earlier, _, relation in after if relation is _Relation.UNSURE
                      for each in (earlier, call))
        round_calls = [(earlier, seen) for earlier, seen, relation in after
                       if relation is not _Relation.CHOSE]
        round_calls.append((call, shown))
    if not round_calls:
        return view.last_llm_call(), None
    return _chosen(view, [call for call, _ in round_calls], rankings, unsure)


def _fed_documents(view: _View, call: list[Span], shown_calls: list[tuple[list[Span], dict[int, int]]],
                   round_calls: list[tuple[list[Span], dict[int, int]]]) -> dict[int, int]:
    """The documents a call given none was given through the outputs of earlier calls (`shown_calls`, each
    with the documents it was given, from `_given_documents` or this), theirs in turn (`_feeding`), when
    they are more than the round's calls were given so: it combines parts written from them, and answers
    (LlamaIndex's tree_summarize root given two leaves' summaries, a reducing call given a hand-written
    extractor's extracts). Else empty, and it works on the round's answer (a grade, a title, follow-up
    questions given the answer), as a call given no document does. Skipped, the last leaf or extractor
    call had answered, and the only documents kept were the ones that call was given: a grounded answer
    repeating three documents scored 0.0, and an extractor's rejected document was its only support."""
    if not shown_calls:
        return {}
    fed = _through(view, call, shown_calls)
    if not fed:
        return {}
    rounds = set().union(*(_through(view, earlier, shown_calls).keys() for earlier, _ in round_calls))
    return fed if fed.keys() - rounds else {}


def _through(view: _View, call: list[Span], shown_calls: list[tuple[list[Span], dict[int, int]]]
             ) -> dict[int, int]:
    """The documents of the `shown_calls` whose output `call` was given, or theirs in turn (`_feeding`),
    and its own if it is one of them; each with where it shows in the input of the call that was given it,
    not in `call`'s."""
    documents = {earlier[-1].span_id: seen for earlier, seen in shown_calls}
    fed = _feeding(view, call, [earlier for earlier, _ in shown_calls])
    return {index: at for earlier in fed for index, at in documents[earlier[-1].span_id].items()}


def _given_documents(view: _View, call: list[Span], texts: list[str]) -> dict[int, int]:
    """The indexes in `texts` (the documents' starts) of the documents the call was given, each with where
    its input first shows it: what tells a call's round and choice (`_answering_call`), which document a
    call was given first (`_after`), and what the error for two calls says of them."""
    given = view.given(call)
    return {index: at for index, text in enumerate(texts) if (at := given.find(text)) >= 0}


class _Relation(enum.Enum):
    """What a later call given some of an earlier call's documents, asked once it ended, was to it
    (`_after`)."""

    CHOSE = "given the earlier call's choice, it answers in its place"
    RANKED = "given the earlier call's choice, it wrote only a check's word or questions: neither answers"
    CHECKS = "a check of the earlier call's documents, asked after the answer: it does not answer"
    UNSURE = "the earlier named documents by number in other words than a ranking's: neither answers"
    BESIDE = "nothing tells: both stay, and `_chosen` prefers the call that states something"


def _after(view: _View, bodies: list[str], earlier: list[Span], seen: dict[int, int], call: list[Span],
           shown: dict[int, int]) -> _Relation:
    """What `call`, given some of the documents `earlier` was given (`shown`, a strict subset of `seen`,
    from `_given_documents`; `bodies` the documents whole), was to it, as a model that ranks or filters
    documents records no span of its own: two calls, the later given fewer documents, are a ranking then
    the answer from its choice, or an answer then a check of the top document, and what the earlier
    wrote tells which.

    `call` answers if it states something. Else, a ranking is told by its form (`_ranked_numbers`: "2, 3,
    1", "Ranking: 2, 3, 1", LlamaIndex LLMRerank's "Doc: 2, Relevance: 9" lines, `{"ranking": ["2", "3",
    "1"]}`, "The most relevant document is 2."), and names the documents by their numbers in its prompt
    (`_numbering`): whole numbers, none twice, from 1 (or 0, when it names 0) to the count of documents
    it was given, any above that past the documents probed, the document `call` was given first among
    them (`_chooses`; any of those sharing its start, which show at the same place). Then `call` answers
    however short ("30 days.", "$49.99"), unless it only asks or is a check's word, which nothing tells
    from a reply to a yes/no question, and neither answers. An output naming a number no document has
    (`30`, `{"price_eur": 49.99}`, "Document 2: you have 30 days ...") chose nothing: it is an answer,
    and `call` a check of it in any words or form ("Oui", "8/10", `{"binary_score": "yes"}`). An output
    naming only documents by their numbers, the one `call` was given first among them, in other words or
    languages than a ranking's ("Document 2 is the most relevant because it mentions support by chat.",
    "Dokument 2 ist am relevantesten.", `_ranks_in_words`) may be a ranking or an answer citing them, and
    neither answers: it had been scored over the short answer from its choice, for writing more words.
    Numbers read from any prose had made an answer's "1 item within 3 weeks" or numbered steps a ranking,
    and the check after it the answer."""
    output = view.output(call)
    asked_after = not _began_before_end(call[-1], earlier[-1])
    if output is None or not (shown.keys() < seen.keys() and asked_after):
        return _Relation.BESIDE
    if _states(output):
        return _Relation.CHOSE
    chooser = view.output(earlier)
    if chooser is None:
        return _Relation.BESIDE
    ranked = _ranked_numbers(chooser)
    named = _numbers_written(chooser) if ranked is None else ranked
    if not named:
        return _Relation.BESIDE
    numbers = _numbering(view.given(earlier), {bodies[index] for index in seen})
    count = len(set().union(*numbers.values()))
    limit = count if len(bodies) < _PROBED_DOCUMENTS else None
    first = min(shown.values())
    top = set().union(*(numbers[bodies[index]] for index, at in shown.items() if at == first))
    if ranked is not None and _chooses(ranked, limit, top):
        return _Relation.RANKED if _asks(output) or _verdict(output) else _Relation.CHOSE
    if _names_documents(named, limit, top):
        return _Relation.UNSURE if _ranks_in_words(chooser) else _Relation.BESIDE
    if limit is not None and any(not isinstance(number, int) or number > limit for number in named):
        return _Relation.CHECKS
    return _Relation.BESIDE


_RANKING_WORD = re.compile(r"relevan|pertinen|rilevan|релевант|相关|関連|관련|\brank"
                           r"|\b(?:best|closest|top)\s+(?:match|source|document|fit|result|hit)"
                           r"|\bam\s+(?:relevantesten|besten\s+passend|passendsten|zutreffendsten)\b",
                           re.IGNORECASE)
"""Words a ranking says in prose, in a few languages ("the most relevant", "best match", "am
relevantesten", "le plus pertinent", "最相关"). A bare "most", "best" or German "am ...sten" is an
answer's as often ("The most popular plan is Pro (Document 1).", "am nächsten Werktag"): read as a
ranking's, beside a check of that document ("yes", "Score: 0.9") it had made the trace an error."""


def _ranks_in_words(output: str) -> bool:
    """Whether an output naming documents' numbers (`_CITING`) may be a ranking in other words than a
    ranking's form: it opens by naming a document ("Document 2 is ...", "Dokument 2 ist ...") or speaks
    of relevance or rank (`_RANKING_WORD`). An answer citing its source further on ("... (Document 1).",
    "According to Document 1, ...", "Sources: Document 1") is no ranking: read as one, beside a check
    of that document ("yes", "Score: 0.9") it had made the trace an error."""
    if _CITING.search(output) is None:
        return False
    opening = _LIST_MARKER.sub("", output, count=1).lstrip(_OPENING_MARKS)
    return _CITING.match(opening) is not None or _RANKING_WORD.search(output) is not None


_OPENING_MARKS = " \t\r\n[{(\"'*_`#>"
"""What may stand before an output's first word: spaces, brackets, quotes, emphasis, a heading's or a
quote's mark."""


def _numbering(given: str, documents: set[str]) -> dict[str, set[int]]:
    """The numbers each of the `documents` takes in a prompt (`given`) that shows them, as a ranking names
    them: 1 for the first shown, each time a document shows counted apart, but not one whose start shows
    inside another's place, as far as that other shows whole (`_shown_length`). A document retrieved
    twice under two ids (a file ingested again) shows its text twice, and either number names it:
    numbered by where each id's text is first found, the two copies had tied, and a ranking had to name
    both. Chunks overlap (LlamaIndex's SentenceSplitter repeats 200 tokens): the next chunk's start shows
    inside the one before, and read up to the other's start only, it had taken a number of its own, so
    "3" named the second chunk. Documents showing the same text at a place (all they show is alike) all
    take its number: the one first found had taken it alone, in the order of a set, which changes with
    Python's hash seed, and a ranking naming the other erred or not from one run to the next."""
    found = sorted(((at, -_shown_length(given, at, document), document)
                    for document in documents for at in _occurrences(given, document[:_PROBE])),
                   key=lambda place: place[:2])
    numbers: dict[str, set[int]] = {document: set() for document in documents}
    number = end = 0
    place = None
    for at, length, document in found:
        if (at, length) == place:
            numbers[document].add(number)
        elif at >= end:
            number += 1
            numbers[document].add(number)
            end = at - length
            place = (at, length)
    return numbers


def _shown_length(given: str, at: int, document: str) -> int:
    """How far a document whose start (`_PROBE`) a prompt shows at `at` runs there: the whole document, or
    as far as the prompt shows it (a template cut it short). Two documents sharing their start show both
    at each one's place, and the one shown further there is the one the prompt numbers."""
    return _matching_length(given, at, document, min(len(document), _PROBE))


def _matching_length(text: str, at: int, document: str, known: int = 0) -> int:
    """How many of `document`'s first characters `text` shows at `at`, the first `known` known to match:
    compared from there, in steps that double then halve (`_common_start`), so that the cost follows the
    text matched, not the document's length (a document can run to megabytes)."""
    if text.startswith(document, at):
        return len(document)
    return known + _common_start(document, text, known, at + known)


def _occurrences(given: str, text: str) -> Iterator[int]:
    """Where `text` shows in `given`, the first `_PROBED_DOCUMENTS` times at most (a prompt shows a
    document once or twice, a short text in a long prompt may show a thousand times)."""
    at = given.find(text)
    for _ in range(_PROBED_DOCUMENTS):
        if at < 0:
            return
        yield at
        at = given.find(text, at + len(text))


def _chooses(named: list[float], limit: int | None, top: set[int]) -> bool:
    """Whether numbers a ranking named are a choice of documents (`_names_documents`), none named twice. A
    ranking naming only the documents it puts first, as an app answering from them and the next ones
    has, chooses too."""
    return len(set(named)) == len(named) and _names_documents(named, limit, top)


def _names_documents(named: list[float], limit: int | None, top: set[int]) -> bool:
    """Whether numbers an output named are all documents', the first of those the later call was given
    among them (`top`, its numbers in the output's prompt): whole numbers, each a document's, to `limit`
    if the documents were all counted. A prompt numbering from 0 is read from 0 when 0 is named."""
    if not all(isinstance(number, int) for number in named):
        return False
    numbers = [number + 1 for number in named] if 0 in named else named
    return (all(number >= 1 and (limit is None or number <= limit) for number in numbers)
            and not top.isdisjoint(numbers))


def _chosen(view: _View, calls: list[list[Span]], rankings: Container[str] = frozenset(),
            unsure: Container[str] = frozenset()) -> tuple[list[Span], list[Span] | None]:
    """Of one round's calls (`_answering_call`), in the order they ended, the one that answered, and the
    last other one left beside it that wrote different text (spacing and case aside), if any. A ranking
    (`rankings`, its outermost span's id) states nothing of the question, however worded: left beside a
    check's word on its choice ("Document 2 is the most relevant." then "yes"), it had been scored as the
    answer, where nothing tells the "yes" from an answer to a yes/no question. Calls that may be a
    ranking and the answer from its choice (`unsure`, `_Relation.UNSURE`) stay however few their words."""
    if not view.output(calls[-1]):
        return calls[-1], None
    written = [(call, output) for call in calls if (output := view.output(call))]
    left = [(call, output) for call, output in written
            if call[-1].span_id not in rankings
            and (_states(output) or call[-1].span_id in unsure)] or written
    chosen, said = left[-1]
    said = _squeezed(said).casefold()
    rival = next((call for call, output in reversed(left) if _squeezed(output).casefold() != said), None)
    return chosen, rival


_LABEL_WORDS = 2
"""Words of an output, at most, that make it a label (a check's "yes", "not relevant")."""
_VERDICT_WORDS = frozenset({"yes", "no", "y", "n", "true", "false", "not", "relevant", "irrelevant",
                            "relevance", "score"})
"""The words of a check's label (`_verdict`), casefolded: a yes/no or relevance verdict, or the name of a
grade beside its number ("Score: 8")."""
_WORD = re.compile(r"\w+")
"""A word: a number's point, comma or slash splits it, so that a short answer with a price, a dose, a date
or a URL states something ("2.5 mg.", "By 12/05/2026.", "Open 24/7.", "See example.com/refunds."):
read as a two-word label, beside a check's "yes" it had made the trace an error. A grade is told by its
form instead (`_grade`)."""
_GRADE_NAMES = frozenset({"score", "rating", "grade", "relevance", "relevancy", "relevant", "irrelevant",
                          "confidence", "similarity", "probability", "bewertung", "relevanz", "pertinence",
                          "pertinencia", "relevancia", "puntuación", "punteggio", "оценка", "релевантность"})
"""Words, casefolded, that name a grade beside its number (`_grade`, `_SCORE`), in English and a few other
languages: "Score: 0.9", "Bewertung: 0,9", `{"relevance_score": 0.8}` (a name's parts split at "_")."""
_GRADE_SPACE = "[\\s\"'`*_\u201c\u201d\u2018\u2019]*"
"""What may stand around a grade's mark: spaces, quotes, emphasis ("**Confidence:** 0.92", JSON's
`"relevance_score": 0.8`), never a currency sign ("Cost: $12.50" is a price)."""
_GRADE = re.compile(rf"(?:(?P<name>[^\W\d]\w*(?:\s+[^\W\d]\w*)?)"
                    rf"(?:{_GRADE_SPACE}(?P<mark>[:=(]){_GRADE_SPACE}|\s+))?"
                    r"(?P<value>[-+]?\d+(?:[.,]\d+)*(?:\s*/\s*\d+(?:[.,]\d+)*)?\s*%?)")
"""A number ("0.9", "8.5/10", "92%"), bare or after a name of a word or two and a colon, equals sign or
bracket ("Score: 0.9", "Rating: 4.5", "Relevant (0.8)", "**Confidence:** 0.92", JSON's
`{"relevance_score": 0.8}`) or with no mark ("Score 8/10"): what may be a grade (`_grade`)."""
_ON_A_SCALE = re.compile(r"(?P<points>\d+(?:[.,]\d+)?)\s*/\s*(?P<scale>5|10|100)")
"""A number written as graders write one, whatever its name: points out of 5, 10 or 100 ("4/5", "8.5/10")."""
_GRADE_TOP = 100
"""The highest number a grade's name gives with no scale: points out of 10 or 100, a percentage."""
_NAME_PART = re.compile(r"[^\W_]+")
_LEADING_WHOLE = re.compile(r"[-+]?\d+")
_LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022+]|\d{1,3}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]*_,]*\s+")
"""Where a sentence ends: after its mark and any closing quote, bracket or emphasis (a JSON list's
`?", "`)."""
_WRAPPING = "\"'\u201c\u201d\u2018\u2019*_`()[]{},; \t"
_GRADE_WRAPPING = _WRAPPING + ".!\r\n"
"""What may wrap a grade (`_grade`): what wraps a sentence, a full stop and a line's end."""
_GRADE_CHARS = 128
"""Characters of a grade, at most, wrapping and all (`_grade`): a longer output is none, neither stripped
nor matched (a 1 MB run of spaces had been stripped whole, and the pattern's marks and spaces between a
name and its number backtrack over a long run of them)."""


def _states(output: str) -> bool:
    """Whether a model's output states something: more than a label of a word or two, or an amount under
    a name that is no grade ("VAT: 20%", "Price: 50": read as two-word labels, beside a check's "yes"
    they had made the trace an error); not a grade (`_grade`: "Score: 0.9" is three words) and not only
    questions (`_asks`)."""
    if _grade(output) is not None or _asks(output):
        return False
    if len(_first_words(output)) > _LABEL_WORDS:
        return True
    amount = _GRADE.fullmatch(output.strip(_GRADE_WRAPPING)) if len(output) <= _GRADE_CHARS else None
    return amount is not None and bool(amount["name"]) and bool(amount["mark"])  # "VAT: 20%", no grade


def _grade(output: str) -> list[str] | None:
    """The casefolded words naming the grade a model's output is (`_GRADE`), none for a bare number; None
    if it is no grade. After a mark, a number is a grade when its name is a grade's (`_GRADE_NAMES`:
    "Score: 0.9", "Bewertung: 0,9") or it is points on a scale ("Match: 8/10", `_graded_value`); with no
    mark, when each word of its name is a grade's or a check's ("Score 8/10"). "Price: 49.99", "Answer:
    3.5", "Open 24/7." and "By 12/05/2026." are short answers: read as grades, beside a check's "yes" they
    had made the trace an error, and beside a summary the summary had been scored."""
    if len(output) > _GRADE_CHARS:
        return None
    found = _GRADE.fullmatch(output.strip(_GRADE_WRAPPING))
    if found is None:
        return None
    if not found["name"]:
        return []
    name = found["name"].casefold().split()
    if found["mark"]:
        graded = not _GRADE_NAMES.isdisjoint(_NAME_PART.findall(found["name"].casefold()))
        return name if _graded_value(found["value"], graded) else None
    return name if (_GRADE_NAMES | _VERDICT_WORDS).issuperset(name) else None


def _graded_value(value: str, graded: bool) -> bool:
    """Whether a number after a name and a mark is a grade: points on a scale (`_ON_A_SCALE`, no more than
    it) under any name, or up to `_GRADE_TOP` under a grade's name (`graded`). A decimal or percentage
    under another name is an amount ("Price: 0.99", "VAT: 20%", "Dosage: 0.5"), and so is a number past
    any scale under a grade's ("Credit score: 720"): read as grades, beside a check's "yes" they had made
    the trace an error, and beside a summary the summary had been scored."""
    found = _ON_A_SCALE.fullmatch(value)
    if found is not None:
        return float(found["points"].replace(",", ".")) <= int(found["scale"])
    whole = _LEADING_WHOLE.match(value)
    return graded and whole is not None and int(whole.group()) <= _GRADE_TOP


def _first_words(output: str) -> list[str]:
    """The output's first words, casefolded, one more than a label holds at most: the words past them are
    not read (an answer may run to 1 MB)."""
    return [word.group().casefold() for word in itertools.islice(_WORD.finditer(output), _LABEL_WORDS + 1)]


_RANKING_CHARS = 400
"""Characters of an output, at most, that a ranking of documents runs to (`_ranked_numbers`): a longer one
is an answer, not parsed (JSON nested a thousand deep would overflow the parser's stack)."""
_NUMBER = re.compile(r"\d+(?:[./]\d+)?")
"""A number as an output writes it: an integer may name a document, "49.99", "2.0" or "8/10" none."""
_SEPARATORS = r"[\s,;>|*_#()\[\].\-\u2013\u2014\u2192\u060c\u3001\uff0c]"
"""What a ranking writes between its numbers: spaces, commas (Arabic, ideographic and full-width too),
arrows, brackets, emphasis, a full stop."""
_NUMBERS_LINE = re.compile(
    rf"{_SEPARATORS}*(?:[^\W\d_]+(?:\s+[^\W\d_]+){{0,2}}{_SEPARATORS}*[:=]{_SEPARATORS}*)?"
    rf"(?:\d+(?:[./]\d+)?(?!\d|[./]\d){_SEPARATORS}*)+")
"""A ranking's line: only numbers and what separates them, after a label of a word to three and a colon
("2, 3, 1", "Ranking: 2, 3, 1", "[2] > [3] > [1]"). A number may not end where a digit, or a point or
slash and a digit, follows, so that each is read whole, in one way."""
_BRACKETED_SCORE = re.compile(r"\(\s*\d+[.,]\d+\s*\)")
"""A score in brackets beside a document's number: "2 (0.9)", "Document 2 (0.91)"."""
_REFERENCE = re.compile(r"\b(?:doc(?:ument)?|passage|source|chunk|context)s?(?:\s+(?:is|are))?\W{0,3}"
                        r"(?P<numbers>\d+(?:\s*(?:,|&|\band\b|\bor\b)\s*\d+)*)(?!\d|[.,/]\d)", re.IGNORECASE)
"""Documents named by their numbers: "Document 2", "Docs 2 and 3", "Doc: 3", "Source 1", "document is 2"."""
_SCORE = re.compile(rf"\b(?:{'|'.join(sorted(_GRADE_NAMES, key=len, reverse=True))})\W{{0,3}}"
                    r"\s*[-+]?\d+(?:[.,/]\d+)*%?", re.IGNORECASE)
"""A score beside a document's number: a grade's name (`_GRADE_NAMES`) and its number ("Relevance: 9",
"score=0.8", "relevance 9"). Any other named value is the answer's ("Per Document 1, refund window: 30
days.", "Price: 49.99 (Document 1)"): read as a score, such an answer had read as a ranking of document
1, and a check of it after the answer had been scored in its place."""
_CITING = re.compile(r"(?:\b(?:doc|dokument|fuente|fonte|source|quelle|passag|pasaje|chunk|context|kontext|"
                     r"fragment|документ|источник)\w*|文档|文件|资料|文書|ドキュメント|문서)\W{0,3}\d",
                     re.IGNORECASE)
"""A document named by its number in any of a few languages ("Document 2", "Dokument 2", "documento 3",
"文档 2", "Документ 2", "Fuente 2"): an output naming only documents' numbers so may rank them (`_after`)."""
_DIGIT = re.compile(r"\d")
_RANKING_WORDS = 6
"""Words a line naming documents by their numbers holds at most besides them and their scores: "Document
2 is the most relevant." is a ranking, "Source 1 says refunds are accepted within a month of delivery."
an answer."""


def _ranked_numbers(output: str) -> list[float] | None:
    """The numbers an output names, in order, if it is in a ranking's form (`_after`); None if it is not,
    names none, or runs longer than a ranking. From JSON, its values (`{"ranking": ["2", "3", "1"]}`, in a
    Markdown code fence or not; none if one is a word, as a grade's `{"binary_score": "yes"}`). From
    text, each line's (`_ranked_line`): any line in other words makes it an answer."""
    text = output.strip()
    if len(text) > _RANKING_CHARS:
        return None
    fenced = FENCE.fullmatch(text)
    text = fenced["body"].strip() if fenced else text
    try:
        parsed = json.loads(text)
    except ValueError:
        lines = [_ranked_line(line) for line in text.splitlines()]
        named = [number for line in lines if line is not None for number in line]
        return named if named and None not in lines else None
    return _json_numbers(parsed) or None


def _ranked_line(line: str) -> list[float] | None:
    """The numbers one line of a ranking names, a list's marker aside; None for a line in other words: a
    line of only numbers (`_NUMBERS_LINE`, a score in brackets aside), documents named by their numbers
    with their scores (`_SCORE`) and a few words ("Doc: 2, Relevance: 9", "Document 2 (score 0.91)",
    "Document 2 is the most relevant."), or a lead-in ending in a colon. A sentence holding small numbers
    ("You can return 1 item within 3 weeks.", a step "2. Choose the item.") names no document, and words
    before the first document named, with no score nor ranking's word (`_RANKING_WORD`), are an answer
    citing it ("Refunds take thirty days (Document 1)."): read as a ranking, a check after it had been
    scored in its place, or made the trace an error."""
    line = _BRACKETED_SCORE.sub(" ", _LIST_MARKER.sub("", line)).strip()
    if _NUMBERS_LINE.fullmatch(line):
        return [_number(number) for number in _NUMBER.findall(line)]
    references = list(_REFERENCE.finditer(line))
    if references:
        rest = _SCORE.sub(" ", _REFERENCE.sub(" ", line))
        if _DIGIT.search(rest) or len(_WORD.findall(rest)) > _RANKING_WORDS:
            return None
        lead = line[:references[0].start()].strip(_OPENING_MARKS)
        if lead and not lead.endswith(":") and not (_SCORE.search(line) or _RANKING_WORD.search(line)):
            return None  # "Refunds take thirty days (Document 1).": an answer citing its source, no ranking
        return [_number(number) for found in references for number in _NUMBER.findall(found["numbers"])]
    return [] if not line or (line.endswith(":") and not _DIGIT.search(line)) else None


def _numbers_written(output: str) -> list[float]:
    """Every number an output holds, whatever its form, if it is no longer than a ranking: one no document
    has ("30 days.", "Version 2.0.") shows that it is an answer (`_after`)."""
    text = output.strip()
    return [] if len(text) > _RANKING_CHARS else [_number(number) for number in _NUMBER.findall(text)]


def _number(text: str) -> float:
    """A number as `_NUMBER` finds it: an integer kept exact, however long (a float of 400 digits
    overflows); one with a point or slash a float, which names no document ("2.0" either)."""
    return int(text) if text.isdigit() else float(text.replace("/", "."))


def _json_numbers(value: object) -> list[float]:
    """The numbers of parsed JSON's values (keys aside), numbers written as strings among them; none if a
    value is anything else."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        numbers = [_json_numbers(item) for item in value]
        return [number for each in numbers for number in each] if all(numbers) else []
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return [_number(value.strip())]
    return [value] if isinstance(value, int | float) and not isinstance(value, bool) else []


def _verdict(output: str) -> bool:
    """Whether the output is only a check's word or two ("Yes.", "not relevant"), or a grade they name
    ("Relevance: 9", "Score: 0.9"), as a model asked whether a document is relevant replies: a short
    answer names something ("30 days.", "Paris."), or is a bare number ("$49.99"), which a grade with no
    name cannot be told from."""
    grade = _grade(output)
    words = _first_words(output) if grade is None else grade
    return (len(words) <= _LABEL_WORDS and not _VERDICT_WORDS.isdisjoint(words)
            and all(word in _VERDICT_WORDS or word.isdigit() for word in words))


def _asks(output: str) -> bool:
    """Whether the output is only questions: each sentence ends in "?", a list's lead-in line ending in
    ":" aside, list markers and the quotes of a JSON list ignored."""
    sentences = [stripped for line in output.splitlines()
                 for sentence in _SENTENCE_END.split(_LIST_MARKER.sub("", line))
                 if (stripped := sentence.strip(_WRAPPING))]
    return (any(sentence.endswith("?") for sentence in sentences)
            and all(sentence.endswith(("?", ":")) for sentence in sentences))


def _ambiguous(view: _View, texts: list[str], chosen: list[Span], rival: list[Span]) -> ExtractionError:
    """The error for two calls `_chosen` cannot tell apart, on the one that ended last, naming both and
    saying whether they were given the same documents (`texts`, their starts): a ranking given three and
    a short answer given its choice of one had been called two calls given the same documents."""
    later_call, earlier_call = sorted((chosen, rival), key=lambda call: _ended(call[-1]), reverse=True)
    earlier, later = earlier_call[-1], later_call[-1]
    earlier_shown = _given_documents(view, earlier_call, texts).keys()
    later_shown = _given_documents(view, later_call, texts).keys()
    given = ("the same documents" if earlier_shown == later_shown else
             f"different sets of the retrieved documents ({len(earlier_shown)} and {len(later_shown)} of "
             "them)")
    return ExtractionError(
        later, "answer",
        f"two model calls given {given}, neither given the other's output, wrote different "
        f"text: {earlier.name!r} (span id {earlier.span_id}) and {later.name!r} (span id "
        f"{later.span_id}); which one the user got is unknown (the other may be a summary, a title or "
        "a rejected first try), and scoring a guess could score the wrong text. Record the answer the "
        "user got as ragmon.answer on the request span (ragmon.instrument)")


def _shown(view: _View, contexts: tuple[Context, ...], texts: list[str],
           llm_call: list[Span]) -> tuple[Context, ...]:
    """The documents the answer was written from, when some model call was given any: those given to the
    answering call or to the calls whose output it was given (`_feeding`), else to any call. One no model
    saw cannot support the answer. A re-ranker or filter that is a plain function (a LangChain lambda
    keeping the top document, a LlamaIndex postprocessor) records no span of its own, and the retriever's
    whole list had counted as support (a sentence only a dropped document states scored 1.0). A re-ranker
    or grader that is a model call (LlamaIndex's LLMRerank, a corrective RAG's relevance check) is given
    every retrieved document and records no re-ranker span either: read from every call, the 20 documents
    it chose 2 from had all counted as support. A call whose output the answering call was given counts:
    LlamaIndex's refine answers from a draft written from documents its last call was not given."""
    calls = view.llm_calls()
    if len(contexts) < 2 or not calls or len(calls) > _PROBED_CALLS:
        return contexts
    feeding = _feeding(view, llm_call, calls)
    shown = _shown_to(view, feeding, contexts, texts) if len(feeding) < len(calls) else None
    if shown:
        return _given_past_shared(view, feeding, shown)
    shown = _shown_to(view, calls, contexts, texts)
    return _given_past_shared(view, calls, shown) if shown else contexts


_HEAD = 32
"""Characters of a document's spaced start (`_spaced_start`) told apart first, by `_given_past_shared`:
documents whose heads all differ share no start, and spacing this much of each, not `_PROBE` characters,
was a tenth of an extraction's cost in a trace of 5 documents of ~200 words."""
_OWN_CHARS = 16
"""Characters of a document's own text past the start it shares with a neighbour that a prompt must show
for the document to count as given (`_given_past_shared`)."""


def _given_past_shared(view: _View, calls: list[list[Span]],
                       contexts: tuple[Context, ...]) -> tuple[Context, ...]:
    """Of documents sharing their start (`_spaced_start`), those no other is shown past where the two part
    while they are not (`_outshown`), spacing aside: the prompt searched for a start shows the other's
    start too, and an answer given the refunds article alone had the shipping article under the same
    header count as its support. A template cutting a long document short still shows its own text; one
    cutting every document within their header shows none, and all stay. Telling them apart by how far
    each matched had dropped a chunk for the document it was cut from, and every such document past the
    20th; by whether each was shown whole, a cut one beside a short one; by showing past what it shares
    with the documents that count, an article no model was given, whose start a given one shows."""
    if len({_spaced_start(context.text, _HEAD) for context in contexts}) == len(contexts):
        return contexts  # no two share their first characters, so no two share a start
    groups: dict[str, list[Context]] = {}
    for context in contexts:
        groups.setdefault(_spaced_start(context.text), []).append(context)
    shared = [group for group in groups.values() if len(group) > 1]
    if not shared:
        return contexts
    prompts = list(dict.fromkeys(view.given(call) for call in calls))
    spaced_prompts: list[str] = []
    dropped: set[int] = set()
    for group in shared:
        whole = _whole_first(group, prompts)
        if whole == len(group):
            continue
        spaced_prompts = spaced_prompts or list(dict.fromkeys(map(_squeezed, prompts)))
        texts = [_squeezed(context.text) for context in group]
        order = sorted(range(len(texts)), key=texts.__getitem__)
        parts = [_common_start(texts[before], texts[index]) for before, index in itertools.pairwise(order)]
        reaches = _reaches(texts, order, parts, spaced_prompts, whole)
        dropped |= {id(group[index]) for index in _outshown(order, parts, reaches)}
    return tuple(context for context in contexts if id(context) not in dropped)


_NEAR = 65_536
"""Characters past where the document before it was found that a document is looked for first
(`_whole_first`)."""


def _whole_first(group: list[Context], prompts: list[str]) -> int:
    """How many of the group's documents, from its first, a prompt shows as it is: when all are, none is
    dropped and the prompts need not be spaced (spacing 15 MB for 17 articles given whole at its start took
    0.22 s, against 11 ms to find them); those found keep their whole length (`_reaches`). Each is looked
    for first just past where the one before it was found, as a template lists them, then anywhere: 2,499
    articles of 2,500 in a prompt of 3.7 MB had each read it up to where it was found (1.3 s), and 100
    after a dump of 14 MB read it 100 times."""
    after = [0] * len(prompts)
    for count, context in enumerate(group):
        if not _found_whole(context.text.strip(), prompts, after):
            return count
    return len(group)


def _found_whole(text: str, prompts: list[str], after: list[int]) -> bool:
    """Whether a prompt shows `text` as it is; `after` holds where in each prompt the last document found
    there ended, where this one is looked for first, and is moved to its end."""
    for number, prompt in enumerate(prompts):
        at = prompt.find(text, after[number], after[number] + _NEAR + len(text))
        if at < 0:
            at = prompt.find(text)
        if at >= 0:
            after[number] = at + len(text)
            return True
    return False


def _reaches(texts: list[str], order: list[int], parts: list[int], prompts: list[str],
             whole: int) -> list[int]:
    """How many of each document's first characters the prompts show with `_OWN_CHARS` more after them
    (all spaced): all of them when it is shown whole, whatever another document shares with it. `order`
    sorts the texts, `parts` is where each parts from the one before it there; the first `whole` texts are
    known to be shown whole (`_whole_first`), and only the others are searched for when the pass gives up
    (`_marks`). Exact from the start all share on, which is all `_outshown` compares them at; below it,
    some number below it."""
    ordered = [texts[index] for index in order]
    marks = _marks(ordered, parts, prompts)
    shown = ([len(texts[index]) if index < whole else _shown_depth(texts[index], prompts) for index in order]
             if marks is None else _spread(marks, parts))
    reaches = [0] * len(texts)
    for index, depth in zip(order, shown, strict=True):
        reaches[index] = depth if depth == len(texts[index]) else depth - _OWN_CHARS
    return reaches


def _shown_depth(text: str, prompts: list[str]) -> int:
    """How many of `text`'s first characters a prompt shows: each prompt searched on from the place
    showing the most so far, so that a long prompt is read about once, not at each step of a bisection."""
    depth = 0
    for prompt in prompts:
        at = prompt.find(text[:depth + 1])
        while at >= 0 and depth < len(text):
            depth = _matching_length(prompt, at, text, depth + 1)
            at = prompt.find(text[:depth + 1], at + 1)
    return depth


_CHARS_PER_MARK = 40_000
"""Characters of prompt a search for a document's start (`_shown_depth`, at C's speed) reads in five times
the time or more `_Marks` takes to look at one place (8 to 10 us, against 50 to 80 us)."""


def _marks(ordered: list[str], parts: list[int], prompts: list[str]) -> list[int] | None:
    """For each sorted text, the most a prompt shows of it at a place where that text shares the most with
    the prompt: each prompt read once for the start all share (a search for each document's start had
    read a prompt of 3 MB for each of 3,000 articles cut short under one header, 3.6 s). None once it has
    looked at more places, or read more texts for how far they repeat (`_Marks._repeating`), than one for
    each `_CHARS_PER_MARK` characters a search for each document's start reads: searching for each then
    costs a fifth more than it would have alone. 20 documents of "A" of distinct lengths, shown in runs
    of "A" each could end, had had every run looked at for every document (6.3 s, against 0.63 s to
    search); 17 documents in a prompt showing their start at 40,000 places take 0.34 s searched for,
    0.65 s looked at."""
    marks = _Marks(ordered, parts, len(ordered) * sum(map(len, prompts)) // _CHARS_PER_MARK)
    for prompt in prompts if marks.shared else ():
        marks.read(prompt)
    return marks.marks if marks.left >= 0 else None


class _Marks:
    """`_marks`, for one group of texts (`ordered`, each parting from the one before it at `parts`),
    looking at places, each taken from `left`, until it runs out."""

    def __init__(self, ordered: list[str], parts: list[int], left: int) -> None:
        self.ordered = ordered
        self.shared = ordered[0][:min(parts)]
        self.span = max(parts) + 1
        """As many characters as the most two texts share, and one more: where a place's text sorts
        among the texts, which tells the one sharing the most with it."""
        self.marks = [0] * len(ordered)
        self.left = left
        self._runs: dict[str, dict[int, list[int]]] = {}

    def read(self, prompt: str) -> None:
        """Marks every place the prompt shows the start all share, those along a run of text repeating
        (a base64 blob's "AAAA", a log of one line over and over) only where one could show some text
        the furthest: a place at each of its characters had cost 2 s for a run of 160,000 "A", one at
        each line 0.9 s for a log of 2 MB, where each place was compared to its end."""
        at = prompt.find(self.shared)
        while at >= 0 and self.left >= 0:
            self._mark(prompt, at)
            following = prompt.find(self.shared, at + 1)
            if following >= 0 and self._repeats(prompt, at, following - at):
                following = self._run(prompt, at, following - at)
            at = following

    def _repeats(self, prompt: str, at: int, period: int) -> bool:
        """Whether the prompt's text from `at` repeats every `period` characters for at least two more
        places showing the shared start, or overlapping with it (`_run`): articles of one length cut
        short show it at equal steps, with nothing else repeating."""
        return period < len(self.shared) or prompt.startswith(prompt[at:at + period + len(self.shared)],
                                                              at + period)

    def _mark(self, prompt: str, at: int) -> None:
        """The text sharing the most with the prompt at `at` sorts next to what the prompt shows there."""
        self.left -= 1
        place = self._place(prompt, at)
        for near in range(max(place - 1, 0), min(place + 1, len(self.ordered))):
            shown = _matching_length(prompt, at, self.ordered[near], len(self.shared))
            self.marks[near] = max(self.marks[near], shown)

    def _place(self, prompt: str, at: int) -> int:
        """Where the prompt's `span` characters from `at` sort among the texts, from as few of them as
        tell it: fewer sort the same unless a text goes on past them as the prompt does. Not `span` at
        each place: a long document retrieved twice makes it that document's length, and slicing that
        much at each of 40,000 places had taken 7.5 s for one of 2 MB."""
        width = 2 * len(self.shared)
        while True:
            key = prompt[at:at + min(width, self.span)]
            place = bisect.bisect(self.ordered, key)
            if width >= self.span or at + width >= len(prompt) or not (
                    place < len(self.ordered) and self.ordered[place].startswith(key)):
                return place
            width *= 2

    def _run(self, prompt: str, at: int, period: int) -> int:
        """Marks the places along the text repeating every `period` characters from `at`, where the
        shared start shows again with no other place in between, and returns the place to search on from.
        A place `length` short of the run's end shows as much of a text as the text repeats the run's
        first `period` characters, if that is less, else `length`: no more than the first place shows,
        but where the text repeats them for `length` exactly (ending as the run ends), and the last place
        (a text parting from those characters within them). Those are the places marked."""
        length = period + _common_start(prompt, prompt, at + period, at)
        last = (length - len(self.shared)) // period
        runs = self._repeating(prompt[at:at + period]).get(length % period, [])
        ends = runs[bisect.bisect_left(runs, length - last * period):
                    bisect.bisect_right(runs, length - period)]
        for place in sorted({at + length - end for end in ends} | {at + last * period}):
            self._mark(prompt, place)
        return prompt.find(self.shared, at + last * period + 1)

    def _repeating(self, block: str) -> dict[int, list[int]]:
        """How far each text opening with `block` repeats it, grouped by that length's remainder by the
        block's (a run's places, a block apart, leave as much of it as their first leaves, less some
        blocks). Only those texts, which sort together: another shows no more at any place along a run
        than at its first, or at its last, both marked. Each read counts as a place looked at: a document
        shown twice in a row is a run, and each of 1,000 of distinct lengths had read every text."""
        if block not in self._runs:
            grouped: dict[int, set[int]] = {}
            at = bisect.bisect_left(self.ordered, block)
            while at < len(self.ordered) and self.ordered[at].startswith(block):
                text = self.ordered[at]
                run = min(len(text), len(block) + _common_start(text, text, len(block)))
                grouped.setdefault(run % len(block), set()).add(run)
                self.left -= 1
                at += 1
            self._runs[block] = {remainder: sorted(runs) for remainder, runs in grouped.items()}
        return self._runs[block]


def _spread(marks: list[int], parts: list[int]) -> list[int]:
    """How much of each sorted text the prompts show, from `marks`: a place showing `mark` characters of
    one text shows as many of another as the two share, up to `mark`, and two sorted texts share the least
    `parts` between them; a sweep each way carries that along."""
    shown = marks.copy()
    for at, part in enumerate(parts):
        shown[at + 1] = max(shown[at + 1], min(shown[at], part))
    for at in reversed(range(len(parts))):
        shown[at] = max(shown[at], min(shown[at + 1], parts[at]))
    return shown


@dataclasses.dataclass
class _Branch:
    """Documents sharing their first `depth` characters (`_branches`)."""

    depth: int
    children: list[_Branch | int]
    """Documents (indices) parting from the others at `depth`, and branches sharing more."""
    reach: int = 0
    """The most any of its documents reaches (`_reaches`), set once every document is in (`_closed`)."""


def _outshown(order: list[int], parts: list[int], reaches: list[int]) -> list[int]:
    """The documents (indices of the texts `order` sorts, each parting from the one before it there at
    `parts` and reaching `reaches`) some other is shown past where the two part, while they are not: the
    prompts show text telling the other apart from them, and none telling them apart from it. Held against
    every other document, not only those that count: an article no model was given, parting from the
    others after the header and a short introduction, had counted beside a given one that a template cut
    short within what it shares with a third. Compared where they part in the tree of their starts, not
    pair by pair: 3,000 documents under one header had kept the sidecar's event loop for 53 seconds."""
    outshown: list[int] = []
    pending: list[tuple[_Branch, float]] = [(_branches(order, parts, reaches), float("-inf"))]
    while pending:
        branch, bar = pending.pop()
        reached = [reaches[child] if isinstance(child, int) else child.reach for child in branch.children]
        first, second = [*sorted(reached, reverse=True), float("-inf")][:2]
        for child, reach in zip(branch.children, reached, strict=True):
            rival = second if reach == first else first
            below = branch.depth if rival >= branch.depth else bar
            if not isinstance(child, int):
                pending.append((child, below))
            elif reach < below:
                outshown.append(child)
    return outshown


def _branches(order: list[int], parts: list[int], reaches: list[int]) -> _Branch:
    """The tree of the texts' starts, built from the texts in sorted order (`order`, each parting from the
    one before it at `parts`): the text sharing the most with one is next to it there, so each is compared
    with one other (`_common_start`), not with all."""
    stack = [_Branch(0, [order[0]])]
    for index, depth in zip(order[1:], parts, strict=True):
        last: _Branch | None = None
        while depth < stack[-1].depth:
            last = _closed(stack.pop(), reaches)
            if depth <= stack[-1].depth:
                stack[-1].children.append(last)
                last = None
        if depth > stack[-1].depth:
            stack.append(_Branch(depth, [last if last is not None else stack[-1].children.pop()]))
        stack[-1].children.append(index)
    while len(stack) > 1:
        stack[-2].children.append(_closed(stack.pop(), reaches))
    return _closed(stack[0], reaches)


def _closed(branch: _Branch, reaches: list[int]) -> _Branch:
    branch.reach = max(reaches[child] if isinstance(child, int) else child.reach for child in branch.children)
    return branch


def _spaced_start(text: str, length: int = _PROBE) -> str:
    """The first `length` characters of `_squeezed(text)`, the key `_given_past_shared` groups documents by.
    Keyed by the raw start, the same header stored with a blank line in one article where another has a
    line break put the two in different groups, never compared: an article the model was not given
    counted as support when the prompt showed the other. Only as much of the text is spaced as the key
    needs, more only while runs of whitespace leave it short: every retrieved document is keyed, and
    spacing a document of a megabyte whole would read all of it for 256 characters. A start spaced is a
    start of the whole spaced, so the key is the same."""
    size = 2 * length
    while len(start := _squeezed(text[:size])) < length and size < len(text):
        size *= 2
    return start[:length]


def _shown_to(view: _View, calls: list[list[Span]], contexts: tuple[Context, ...],
              texts: list[str]) -> tuple[Context, ...] | None:
    """The documents these calls were given, or None when that is unknown or none: past the documents
    probed, or when the app's attribute length limit shows (`_View.cuts`) at the length of one of the
    calls' values (a prompt cut short lists only its first documents). A document is shown by its start,
    or its first words, as a text splitter cuts and re-joins them (LlamaIndex's citation chunks are
    shorter than `_PROBE`). Looked for in the calls' inputs only (`_raw_inputs`, `_given`), in their raw
    attribute values first: decoding every call's input for each trace had cost 40% more instructions an
    extraction, and a prompt that shows the documents mostly holds them as they are. `texts` are the
    documents' starts (`_document_texts`)."""
    probes = set(texts)
    values = [value for call in calls for value in _raw_inputs(call)]
    raw = "\n".join(values)
    unseen = {start for start in probes if start not in raw}
    if not unseen or view.cuts({len(value) for value in values}):
        return contexts  # all shown, or an attribute length limit cut what the calls were given
    given = [view.given(call) for call in calls]
    unseen = {start for start in unseen if not any(start in text for text in given)}
    if not unseen:
        return contexts
    if unseen == probes:
        return None
    squeezed = "\n".join(_squeezed(text) for text in given)  # no whitespace is left but these newlines
    unseen = {start for start in unseen if _squeezed(start)[:_WORDS] not in squeezed}
    if unseen and "\\" in squeezed:
        unescaped = "\n".join(_squeezed(_unescaped(text)) for text in given if "\\" in text)
        unseen = {start for start in unseen if _squeezed(start)[:_WORDS] not in unescaped}
    return tuple(context for context in contexts if context.text.strip()[:_PROBE] not in unseen)


_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([ntr])|([\"'\\/]))")
"""An escape of a string written in a prompt as Python or JSON writes it: a LangChain chain handing the
retrieved documents to its prompt as they are shows their list's repr (`page_content='...\\n...'`), and an
app may show them as JSON."""


def _unescaped(text: str) -> str:
    """`text` with its escapes as what they stand for, a line break or tab as a space: a document whose
    first lines a prompt showed escaped had been read as not given, and the answer copied from it scored 0."""
    return _ESCAPE.sub(lambda found: (chr(int(found.group(1), 16)) if found.group(1)
                                      else " " if found.group(2) else found.group(3)), text)


def _feeding(view: _View, llm_call: list[Span], calls: list[list[Span]]) -> list[list[Span]]:
    """The answering call and the calls whose output it was given (a draft it refines, an extract of a
    document, a tool's answer), theirs in turn, in the order of `calls`. A call whose output it was not
    given (a re-ranker's choice, a relevance grade, a rewritten query) chose or searched for the
    documents, and what it was given is no support of the answer."""
    if not llm_call:
        return calls
    fed = {llm_call[-1].span_id}
    pending = [llm_call]
    while pending:
        given = view.given(pending.pop())
        for call in calls:
            if call[-1].span_id not in fed and _quotes(given, view.output(call)):
                fed.add(call[-1].span_id)
                pending.append(call)
    return [call for call in calls if call[-1].span_id in fed]


def _given(call: list[Span]) -> str:
    """All the text a model call was given, every span of it read by every convention."""
    return "\n".join(read(span) for span in call for read in _LLM_INPUTS)


def _output(call: list[Span]) -> str | None:
    """A call's answer, or None when it has none or the attribute is malformed (an error only where the
    call turns out to be the one answering)."""
    try:
        return _first(call, _LLM_OUTPUTS)
    except ExtractionError:
        return None


def _stepped(view: _View, call: list[Span], later_given: str) -> bool:
    """Whether `call` was an agent's step, as a later call given `later_given` shows: it asked for a tool,
    and the later call is given its text, in its history. Such text announces the call ("Let me check when
    your order was delivered."): read as an answer the later call quotes, it had made the agent's answer
    a grader's work, and the announcement was scored as the answer. A call that asked for a tool and is
    given to no later call (a client tool beside the answer, a hand-off) may be the answer itself."""
    if not any(requested(span) for span in call for requested in _TOOL_REQUESTS):
        return False  # most calls: spared reading the later call's input for their output
    output = view.output(call)
    return output is not None and _quotes(later_given, output)


def _failed(view: _View, call: list[Span]) -> bool:
    return view.output(call) is None and any(span.status_code == STATUS_ERROR for span in call)


def _quotes(given: str, output: str | None) -> bool:
    """Whether a model input quotes an earlier answer: a whole run of words, not a label like "yes" that
    a grader gave and the documents may happen to contain, and no part of a longer word at either end.
    Found as a string, then its ends checked where it occurs (`_places`): a regular expression opening
    with a look-behind is tried at every character of the input, each try reading as much of the answer
    as the input repeats, and an input holding a long run of one word took 8 s against seven answers of
    that word that end otherwise (input x answer), on the sidecar's event loop."""
    if output is None:
        return False
    quoted = output.strip()
    if len(quoted.split(maxsplit=1)) < 2:
        return False
    return any(_apart(given, at, at + len(quoted)) for at in _places(given, quoted))


_WORD_CHARACTER = re.compile(r"\w")


def _apart(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] touches no word character on either side."""
    return (start == 0 or not _WORD_CHARACTER.match(text, start - 1)) and not _WORD_CHARACTER.match(text, end)


def _places(text: str, sought: str) -> Iterator[int]:
    """Where `sought` occurs in `text`, but for the inner places of a run: occurring again within half its
    length, at d characters, it occurs every d characters while the text repeats its first d characters
    (d is then its shortest period), and the characters before and after each inner place are those of
    the run's second place. Each place found costs the length of `sought`, and a long run of one word
    held as many places as words, none apart from the words around it ("a ha ... ha h" in "ha ha ...")."""
    at = text.find(sought)
    while at >= 0:
        yield at
        after = text.find(sought, at + 1)
        period = after - at
        if 0 < period <= len(sought) // 2:
            yield after
            repeated = period + _common_start(text, text, at, after)  # from `at`, repeating its first d
            after = at + (repeated - len(sought)) // period * period  # the run's last place
        at = after


def _answer(view: _View, tops: list[Span], llm_call: list[Span], rival: list[Span] | None,
            explicit: tuple[Span, str] | None, texts: list[str]) -> tuple[Span, str] | None:
    """The app's own `ragmon.answer`, else the answer its instrumentation recorded (`_recorded_answer`),
    with the span it is read from.
    The app's word wins: it is what the user got, where a guardrail may have replaced what the model
    wrote. An answer as long as its service's cut JSON attributes was cut with them (`_View.cuts`), as a
    document is (`_check_whole`): scored, its lost tail had raised groundedness (0.75 -> 1.0)."""
    found = explicit or _recorded_answer(view, tops, llm_call, rival, texts)
    if found is None:
        return None
    span, answer = found
    if answer and _cut_with_its_service(span, len(answer), view.cuts({len(answer)})):
        raise ExtractionError(
            span, "answer",
            f"the answer is {len(answer)} characters long, the length this service's JSON attributes "
            f"were cut to: {_LENGTH_LIMIT} cut the answer short, and what it lost is not scored (a "
            "made-up sentence at its end would go unseen)")
    return span, react_answer(strip_assistant(answer))


def _judged(view: _View, said: tuple[Span, str] | None, contexts: tuple[Context, ...] | None
            ) -> tuple[str | None, Callable[[], tuple[str, ...] | None]]:
    """The answer's text to judge, and how to find what a structured answer cites (`_citations` asks only
    when the text cites nothing): a structured answer's own (`structured.read`), or, for an answer a chain
    picked out of the JSON object it output (the chain readers' `ANSWER_KEYS`: LangChain's
    `JsonOutputParser` ending a chain gives `{"answer": ..., "sources": [...]}`), that object's."""
    if said is None:
        return None, lambda: None
    span, answer = said
    reading = structured.read(answer, contexts)
    if reading is not None:
        return reading.text, lambda: reading.cited
    if view.roles[span.span_id] is not Role.CHAIN:
        return answer, lambda: None
    return answer, lambda: _chain_cited(span)


def _chain_cited(chain: Span) -> tuple[str, ...] | None:
    """What the JSON object a chain output cites (`structured.cited`), found without parsing it when it
    names no citation key: a chain's output may hold every retrieved document."""
    output = next((value for name in _CHAIN_OUTPUT_ATTRIBUTES
                   if isinstance(value := chain.attributes.get(name), str)), None)
    if output is None or not structured.may_cite(output):
        return None
    found = structured.answer_object(output)
    return None if found is None else structured.cited(found)


def _recorded_answer(view: _View, tops: list[Span], llm_call: list[Span], rival: list[Span] | None,
                     texts: list[str]) -> tuple[Span, str] | None:
    """The output of the top chain that made the answering call, with its span: a later chain of the same
    request (one that suggests follow-up questions or titles the chat) made a call of its own, and its
    output scored as the answer had turned a grounded answer into 0.0. With no chain holding the call,
    the top chain that ended last, unless it only prepared the prompt or output the documents; else the
    answering call's own output. `rival`, a call that cannot be told from the answering one
    (`_answering_call`), makes an error only where the answer depends on which of them answered: read
    from the call, or from the top chain holding it when another holds the rival. A chain holding both
    gave its own answer, whichever call wrote it."""
    holding = view.above({llm_call[-1].span_id}) if llm_call and len(tops) > 1 else set()
    candidates = [top for top in tops if top.span_id in holding] or tops
    if rival is not None and len(tops) > 1:
        rival_holding = view.above({rival[-1].span_id})
        if candidates != ([top for top in tops if top.span_id in rival_holding] or tops):
            raise _ambiguous(view, texts, llm_call, rival)
    last_top = [max(candidates, key=lambda s: s.end_time_unix_nano)] if candidates else []
    if last_top and llm_call and _only_prepares(view, last_top[0], llm_call[-1]):
        last_top = []
    found = _found(last_top, _CHAIN_OUTPUTS)
    if found is not None and found[1]:
        if not _documents_only(view, *found, texts):
            return found
        if not llm_call or llm_call[-1].end_time_unix_nano <= found[0].end_time_unix_nano:
            return None  # no model call answered after it: a condense step's rewrite is no answer either
    found = _found(llm_call, _LLM_OUTPUTS)
    if found is None or not found[1]:
        return None
    if rival is not None:
        raise _ambiguous(view, texts, llm_call, rival)
    return found


def _documents_only(view: _View, chain: Span, output: str, texts: list[str]) -> bool:
    """Whether a chain that called no model output the retrieved documents (`retriever | format_docs`):
    every one of them (`texts`, their starts), as a formatter lays them out, and two at least. An answer
    the app got from a model it called outside any instrumentation, inside the chain, quotes some of them
    at most; of one document, an answer quoting it whole cannot be told from the document laid out, and
    is taken for an answer."""
    if len(texts) < 2 or len(output) < sum(min(len(text), _WORDS) for text in texts) // 2:
        return False  # too short to hold them all (the bound is loose: a layout may squeeze whitespace)
    laid_out = _squeezed(output)
    return (all(_squeezed(text)[:_WORDS] in laid_out for text in texts)  # an answer fails at the first
            and _called_no_model(view, chain))


def _answering_chains(view: _View, tops: list[Span]) -> list[Span]:
    """The top chains that each retrieved and called a model, in start order; an error when they ran at
    once: one request answering several questions side by side (`chain.batch`, a thread pool). Read as
    one example, the first question met another's answer and every chain's documents, scored as one, and
    the other answers were never scored. One after another, the last is a retry or a refinement of the
    first, and answers: its question, documents and answer are the example (read from the whole trace,
    the first chain's question had met the last one's answer and both chains' documents)."""
    _nested_workflows(view)
    answering: list[Span] = []
    if len(tops) > 1:
        holder = view.under({top.span_id for top in tops})
        retrieved = {holder[span.span_id].span_id for span in view.with_role(_RETRIEVAL_ROLES)
                     if span.span_id in holder}
        called = {holder[call[-1].span_id].span_id for call in view.llm_calls()
                  if call[-1].span_id in holder}
        answering = [top for top in tops if top.span_id in retrieved & called]
    if len(answering) < 2 and (answering or len(tops) == 1):
        answering = _answering_within(view, (answering or tops)[0])
    return _in_turn(sorted(answering, key=lambda chain: chain.start_time_unix_nano))


def _answering_within(view: _View, top: Span) -> list[Span]:
    """The chains inside `top` that each retrieved and called a model, outermost ones only, when `top`
    did nothing but run them: every retrieval and model call beneath it is inside one (an app's function
    asking its chain twice, a retry). A top that also called a model of its own (a sub-question engine's
    synthesis, an agent's reasoning) answers itself, from all they found."""
    if len(view.llm_calls()) < 2:  # most traces: one answering call, so one answering chain at most
        return []
    below = view.under({top.span_id})
    chains = [span for span in view.with_role(_CHAINS) if span.span_id in below]
    retrievals = {span.span_id for span in view.with_role(_RETRIEVAL_ROLES) if span.span_id in below}
    calls = {call[-1].span_id for call in view.llm_calls() if call[-1].span_id in below}
    if len(chains) < 2 or len(retrievals) < 2 or len(calls) < 2:
        return []
    holding = view.above(retrievals) & view.above(calls)
    answering = {span.span_id for span in chains if span.span_id in holding}
    nested = view.under(answering)
    units = [span for span in chains if span.span_id in answering and span.span_id not in nested]
    if len(units) < 2 or not (retrievals | calls) <= nested.keys():
        return []
    return units


def _set_aside(answering: list[Span]) -> str | None:
    """What to say of chains that each retrieved and answered one after another, asked different questions:
    no retry of one request (which asks again what it asked) but several requests in one trace, an eval
    loop or a queue worker under one span, of which only the last is scored. Their earlier answers had
    gone unscored without a word."""
    asked = list(dict.fromkeys(filter(None, (_first([chain], _CHAIN_INPUTS) for chain in answering))))
    if len(asked) < 2:
        return None
    shown = ", ".join(repr(clip(question, _QUOTED)) for question in asked[:3])
    more = f" and {len(asked) - 3} more" if len(asked) > 3 else ""
    # What it costs first: a report's terminal summary shows a warning's first 85 characters.
    n = len(answering)
    return (f"only the last of {n} answers is scored: {n} chains of this trace each retrieved and answered, "
            f"one after another, asked different questions ({shown}{more}); ragmon "
            "scores one answer a trace. Give each request its own trace (a span per request, not one around "
            "a loop or a queue's worker); if they are one request asking again in other words, this is what "
            "it should do")


_QUOTED = 80
"""Characters of each question `_set_aside` quotes."""


_MILLISECOND = 1_000_000


def _began_before_end(later: Span, earlier: Span) -> bool:
    """Whether `later` surely began before `earlier` ended. OpenTelemetry JS stamps a span's start with
    `Date.now()`, a whole millisecond, and its end as that start plus a duration measured to the
    microsecond: both up to a millisecond early. So a span begun just after another ended, within the
    same millisecond, shows a start before that end: a LangChain.js chain run twice, one run after the
    other, had read as two side by side, an error (1 run in 20 of a real Node app). A start on a whole
    millisecond is read as any instant of that millisecond (Python's SDK stamps nanoseconds)."""
    start = later.start_time_unix_nano
    if start % _MILLISECOND == 0:
        return start + _MILLISECOND <= earlier.end_time_unix_nano
    return start < earlier.end_time_unix_nano


def _in_turn(answering: list[Span]) -> list[Span]:
    """`answering` (chains that each retrieved and answered, in start order), unless two ran at once."""
    for earlier, later in itertools.pairwise(answering):
        if _began_before_end(later, earlier):
            names = ", ".join(f"{top.name!r} ({top.span_id})" for top in answering)
            raise ExtractionError(later, "span", f"{len(answering)} chains of this trace each retrieved and "
                                  f"answered, side by side: {names}; ragmon scores one answer a trace. Give "
                                  "each question its own trace, or run them one after another (the last "
                                  "then answers)")
    return answering


def _nested_workflows(view: _View) -> None:
    """An error when OpenLLMetry workflows of one name, each inside the one before, each retrieved and
    called a model: OpenLLMetry runs each question of a LangChain `chain.batch` as a workflow inside the
    previous one's, so the questions side by side share a trace as one top chain, and its first answer
    was scored alone (the others, made up or not, never). A workflow holds the spans it is the nearest
    workflow above. Workflows side by side (two `invoke`s in one request) are top chains, which
    `_answering_chains` reads; one inside another of another name (a `@workflow` function calling a chain)
    is an app's own nesting."""
    workflows = {span.span_id for span in view.with_role(_CHAINS) if openllmetry.workflow(span)}
    if len(workflows) < 2:
        return
    retrieved = {view.nearest(span, workflows) for span in view.with_role(_RETRIEVAL_ROLES)}
    called = {view.nearest(call[-1], workflows) for call in view.llm_calls()}
    answering = {span.span_id: span for span in view.spans if span.span_id in retrieved & called}
    nested = [span for span in answering.values()
              if (outer := view.nearest(span, answering)) is not None and answering[outer].name == span.name]
    if nested:
        answering = {span.span_id: span for span in view.spans if span.span_id in answering
                     and span.name == nested[0].name}
        names = ", ".join(f"{span.name!r} ({span.span_id})" for span in answering.values())
        raise ExtractionError(nested[0], "span", f"{len(answering)} OpenLLMetry workflows of this "
                              f"trace, each inside the one before, each retrieved and answered: {names} "
                              "(OpenLLMetry nests the questions of a LangChain chain.batch so); ragmon "
                              "scores one answer a trace. Give each question its own trace (invoke the "
                              "chain for each)")


_BLANK_IDS: dict[str, tuple[Reader[Any], str]] = {
    ragmon.CITATIONS: (ragmon.citations, "citing a document never retrieved"),
    ragmon.RELEVANT_IDS: (ragmon.relevant_ids, "a relevant document never retrieved")}
"""Each attribute's reader, and what a blank id of it had been read as, before it was left out."""


def _blank_note(view: _View) -> str | None:
    """What to say of the blank ids left out of `ragmon.citations` and `ragmon.relevant_ids`
    (`ragmon.blank_ids`): an app's citation code falling back to "" for a document without an id is an
    artefact to fix in the app, not a wrong citation, but the figures it leaves out must not go unsaid.
    The spans counted are those whose blanks moved a figure: the one the value is read from
    (`_View.marked`), and any nearer the root holding blanks only, passed over for it; a blank on a span
    never read was never scored, and saying it was would send the user after nothing. The first is named."""
    notes = []
    spans = view.marked_spans()
    for attribute, (read, read_as) in _BLANK_IDS.items():
        chosen = view.marked(read)
        reach = None if chosen is None else (view.depth(chosen[0]), spans.index(chosen[0]))
        blanks = [(span, count) for order, span in enumerate(spans)
                  if (reach is None or (view.depth(span), order) <= reach)
                  and (count := ragmon.blank_ids(span, attribute))]
        if blanks:
            first = blanks[0][0]
            more = f" and {len(blanks) - 1} more span(s)" if len(blanks) > 1 else ""
            total = sum(count for _, count in blanks)
            ids = "1 id that is" if total == 1 else f"{total} ids that are"
            notes.append(f"{attribute} on span {first.name!r} (span id {first.span_id}){more} "
                         f"{'hold' if more else 'holds'} {ids} empty or spaces, naming no document: left out "
                         f"(each had been scored as {read_as}); record only the ids of documents")
    return "; ".join(notes) or None


def _subtree(view: _View, span: Span) -> set[str]:
    """The ids of `span` and the spans beneath it."""
    return {span.span_id, *view.under({span.span_id})}


def _no_answer(call: list[Span]) -> None:
    """Why a trace with a model call has no answer, as an error, unless a span of the call that did not
    fail recorded an output without text: a failed span may record an empty one (LangChain's LLMResult),
    and a failed attempt inside a call that went on to answer was retried. The span named is the call's
    innermost, nearest the model; the switches are those of every convention among the call's spans, as
    recording the output on any of them would do."""
    answered = [span for span in call if span.status_code != STATUS_ERROR]
    if any(recorded(span) for span in answered for recorded in _OUTPUT_RECORDS):
        return
    failed = next((span for span in call if span.status_code == STATUS_ERROR), None)
    if failed is not None:
        raise ExtractionError(failed, "status",
                              f"the model call failed: no answer to score ({_failure(failed)})")
    switches = [next((attribute, switch) for follows, attribute, switch in _CONTENT_SWITCHES if follows(span))
                for span in call]
    attribute = switches[0][0]
    raise ExtractionError(
        call[0], attribute,
        f"the model call records no output (no {attribute} nor any other output attribute), so there is no "
        "answer to score. " + "; ".join(dict.fromkeys(switch for _, switch in switches))
        + "; or record the answer as ragmon.answer (ragmon.instrument)")


def _unanswered(view: _View, tops: list[Span], contexts: tuple[Context, ...] | None, recorded: bool,
                called: bool) -> None:
    """Why a trace without an answer (and without a model call that explains it) cannot be scored, as an
    error; none when it is a search endpoint that ended well, scored on its documents. A request that
    failed (status ERROR) left no answer for a reason of its own, not because it only searches: its
    documents, if any, are what a failed request got to, and scoring them would count it as served. A
    trace with neither documents nor an answer has nothing to score: counted "scored", it would show
    traffic that no score ever reflects. A trace whose every top span has its parent missing, and not in
    another process, was cut off: the spans around the model call never ended (a client that stopped
    reading a streamed answer) or were never sent, and the documents that came are no search endpoint's
    answer. A trace recording `ragmon.citations` and no model call (`called`) had an answer that cited
    them, which the app did not record (`ragmon.answer` forgotten): scored as a search endpoint's, it
    counted as served with no figure, and nothing said why; the span named is the one recording them (a
    model call that only asked for a tool keeps its documents scored, citations or not). Otherwise it is
    the innermost one standing for the request. A recorded trace (`recorded`) was read whole from files,
    which no --decision-wait or --trace-wait cut short: told they had, a user replaying the rotated files of
    a Collector's file exporter raised a wait the run never used."""
    requests = view.request_spans(tops)
    failed = next((span for span in requests if span.status_code == STATUS_ERROR), None)
    if failed is not None:
        raise ExtractionError(failed, "status",
                              f"the request failed: no answer to score ({_failure(failed)})")
    if contexts is None:
        raise ExtractionError(requests[0], NOTHING,
                              "the request recorded neither documents nor an answer: nothing to score")
    roots = [span for span in view.spans if view.depth(span) == 0]
    if roots and not any(may_be_local_root(span) for span in roots):
        parent = f"its parent (parent_span_id {roots[0].parent_span_id})"
        why = (f"{parent} is in none of the files read, nor the answer: the recording holds no more of the "
               "trace (a file the Collector's file exporter wrote left out, a rotated one say, or the "
               "request still running when the recording stopped" if recorded else
               f"{parent} never arrived, nor the answer: the trace was decided without them (the request was "
               "still running when it was decided, at serve's --decision-wait or replay's --trace-wait: a "
               "slow model call say, or ragmon stopped meanwhile")
        raise ExtractionError(roots[0], "parent_span_id",
                              f"{why}; or a streamed answer's client stopped reading, which ends none of the "
                              "spans around the model call), so its documents are not scored alone")
    cited = None if called else view.marked(ragmon.citations)
    if cited is not None:
        raise ExtractionError(cited[0], ragmon.ANSWER,
                              f"{ragmon.CITATIONS} is what an answer cited, but the trace records no answer "
                              f"({ragmon.ANSWER}) and no model call: not scored, as its documents alone "
                              "would count it a search endpoint's result")


def _failure(span: Span) -> str:
    """How a failed span failed, as far as it says: its `error.type` (the GenAI conventions'), else the
    type of the last exception recorded on it (the SDK's `exception` event, which `start_as_current_span`
    and instrumentors record for an exception they let through)."""
    error_type = span.attributes.get(_ERROR_TYPE)
    if isinstance(error_type, str) and error_type:
        return f"status ERROR, {_ERROR_TYPE} {error_type!r}"
    for event in reversed(span.events):
        exception_type = event.attributes.get(_EXCEPTION_TYPE) if event.name == _EXCEPTION_EVENT else None
        if isinstance(exception_type, str) and exception_type:
            return f"status ERROR, {_EXCEPTION_TYPE} {exception_type!r}"
    return "status ERROR"


def _only_prepares(view: _View, chain: Span, call: Span) -> bool:
    """Whether a top chain that called no model only prepared the model's prompt: the app ran, say,
    `retriever | format_docs` as a chain and then called the model itself, after the chain ended.
    The chain's output is then the formatted documents, and scoring them as the answer would find
    every claim supported; the model's output is the answer."""
    return call.end_time_unix_nano > chain.end_time_unix_nano and _called_no_model(view, chain)


def _called_no_model(view: _View, chain: Span) -> bool:
    return chain.span_id not in view.above({span.span_id for span in view.with_role(_LLMS)})


def _citations(view: _View, answer: str | None, contexts: tuple[Context, ...] | None, llm_call: list[Span],
               structured_cited: Callable[[], tuple[str, ...] | None]) -> tuple[str, ...] | None:
    """Explicit `ragmon.citations`, else markers in the answer: `[doc-id]` naming a retrieved id, `[n]` a
    1-based position among the contexts (in range only), or the document the prompt's "Source n" block
    was cut from when the prompt numbers its sources so (`_source_blocks`), and after them the citations of
    retrieved ids the claims are read without ("(KB-1234, p. 3)", "According to doc-3, ...":
    `cited_ids.citations`), which had left citation_accuracy undefined for an app citing in parentheses;
    else what a structured answer cites (`structured_cited`: `{"sources": ["d1", 2]}`), read as a
    marker's ids and numbers are, an empty list citing nothing; None when none is. A structured answer's
    citations naming no retrieved document (a URL, a title) are none: which document they mean is unknown,
    and counted as citations of no retrieved document they would fail citation_accuracy."""
    explicit = view.nearest_root(ragmon.citations)
    if explicit is not None or not answer or not contexts:
        return explicit
    numbering = _Numbering(view, contexts, llm_call)
    cited: dict[str, None] = {}
    for match in _MARKER.finditer(answer):
        cited.update(dict.fromkeys(numbering.named(match.group(1))))
    cited.update(dict.fromkeys(cited_ids.citations(answer, [context.id for context in contexts])))
    if cited:
        return tuple(cited)
    tokens = structured_cited()
    if tokens is None:
        return None
    found = tuple(dict.fromkeys(ident for token in tokens for ident in numbering.named(token)))
    return found if found or not tokens else None


class _Numbering:
    """The retrieved ids a citation names: an id itself, or a number of the prompt's sources, as the
    prompt numbered them (`_source_blocks`, `_source`), else as the contexts' positions (in range only),
    counted from 1, or from 0 where the prompt numbers its sources from 0. The prompt is read once, at the
    first number."""

    __slots__ = ("_blocks", "_contexts", "_ids", "_llm_call", "_sources", "_texts", "_view")

    def __init__(self, view: _View, contexts: tuple[Context, ...], llm_call: list[Span]) -> None:
        self._view, self._contexts, self._llm_call = view, contexts, llm_call
        self._ids = {context.id for context in contexts}
        self._blocks: dict[int, list[str]] | None = None
        self._texts: list[str] = []
        self._sources: dict[int, str | None] = {}

    def named(self, cited: str) -> Iterator[str]:
        """The ids `cited` names: a marker's content or a structured citation, one token or several
        (`[1, 2]`, `"d1; d2"`)."""
        for token in _MARKER_SEPARATOR.split(cited.strip()):
            if token in self._ids:
                yield token
            elif token.isascii() and token.isdigit() and (found := self._numbered(int(token))) is not None:
                yield found

    def _numbered(self, number: int) -> str | None:
        if self._blocks is None:
            self._blocks = _source_blocks(self._view, self._llm_call)
            probed = self._contexts[:_PROBED_DOCUMENTS] if self._blocks else ()
            self._texts = [_squeezed(context.text[:_SCANNED]) for context in probed]
        if number not in self._sources:
            self._sources[number] = _source(self._blocks.get(number, []), self._contexts, self._texts)
        source = self._sources[number]
        first = 0 if 0 in self._blocks else 1  # a prompt numbering from 0 ("Source ID: 0") counts so
        if source is None and first <= number < first + len(self._contexts):
            source = self._contexts[number - first].id
        return source


def _source_blocks(view: _View, llm_call: list[Span]) -> dict[int, list[str]]:
    """n -> the start of the text after each "Source n:" line or "[n]" opening a line of the model's input,
    in order. LlamaIndex's CitationQueryEngine cuts each retrieved node into chunks of `citation_chunk_size`
    and numbers the chunks, so "[3]" may be the second document's only chunk."""
    if not any(_NUMBERED.search(value) for value in _raw_inputs(llm_call)):
        return {}  # the usual case, found without decoding the prompt: 180 us of a 300 us extraction
    prompt = view.given(llm_call)  # decoded once a call: choosing the answering call had decoded it
    headers = list(itertools.islice(_SOURCE_HEADER.finditer(prompt), _SOURCE_HEADERS))
    blocks: dict[int, list[str]] = {}
    for header, following in zip(headers, [*headers[1:], None], strict=False):
        end = following.start() if following else len(prompt)
        start = header.end()
        number = int(header.group(1) or header.group(2) or header.group(3))
        blocks.setdefault(number, []).append(prompt[start:min(end, start + 4 * _PROBE)])
    return blocks


def _raw_inputs(call: list[Span]) -> list[str]:
    """The string values of the call's spans, attributes and event attributes, as sent, but for those
    recording its output (`_OUTPUT_ATTRIBUTES`, `_OUTPUT_EVENTS`): an answer quoting the start of a
    document no model was given had made that document shown, and support of the answer quoting it."""
    values = [value for span in call for value in _input_values(span.attributes)]
    values += [value for span in call for event in span.events if event.name not in _OUTPUT_EVENTS
               for value in _input_values(event.attributes)]
    return values


def _input_values(attributes: Mapping[str, Any]) -> list[str]:
    return [value for name, value in attributes.items()
            if isinstance(value, str) and not name.startswith(_OUTPUT_ATTRIBUTES)]


def _source(blocks: list[str], contexts: tuple[Context, ...], texts: list[str]) -> str | None:
    """The id of the document the last of a number's blocks copied from a document was cut from (`texts`
    are the documents' `_squeezed` starts). The template shows example sources first, copied from no
    document."""
    for block in reversed(blocks):
        holder = _holder(block, texts)
        if holder is None:
            holder = _labelled_holder(block, texts)
        if holder is not None:
            return contexts[holder].id
    return None


_LABEL = re.compile(r"^[^\W\d_][^\n:]{0,39}:[ \t]*(?=\S)", re.MULTILINE)
"""A field's label opening a line of a numbered source ("Article Title: ", "Article Snippet: ")."""
_LABELS = 4
_NAMING_LINE = 24
"""Characters a labelled field's first line holds at least to name the document holding it: a title's
word or two ("Warranty") is found in other documents too."""


def _labelled_holder(block: str, texts: list[str]) -> int | None:
    """The document a source laid out as labelled fields holds (LangChain's citation tutorial: "Article
    Title: ...", then "Article Snippet: <text>"): `_holder` of the text after one of its first labels, the
    last first, whose first line is long enough to name one document. Its first line is a label's, found
    in no document, so the source had named none, and its number the document at its position."""
    labels = list(itertools.islice(_LABEL.finditer(block), _LABELS))
    for label in reversed(labels):
        rest = block[label.end():]
        if len(rest.split("\n", 1)[0]) >= _NAMING_LINE and (holder := _holder(rest, texts)) is not None:
            return holder
    return None


def _holder(block: str, texts: list[str]) -> int | None:
    """The index of the text holding the longest start of the block (up to `_PROBE` characters), if that
    start covers the block's first line: a source is a run of one document's text, followed by the
    template's next words."""
    first_line = _squeezed(block.strip().split("\n", 1)[0])[:_PROBE]
    if not first_line:
        return None
    block = _squeezed(block)[:_PROBE]
    best, best_length = None, len(first_line) - 1
    for index, text in enumerate(texts):
        at = text.find(first_line)
        if at >= 0 and (length := _common_start(block, text[at:at + len(block)])) > best_length:
            best, best_length = index, length
    return best


def _common_start(one: str, other: str, one_at: int = 0, other_at: int = 0) -> int:
    """How many characters one[one_at:] and other[other_at:] share from their start: compared a doubling,
    then halving, number of characters at a time, each comparison at C's speed, as `_places` compares
    a long run of text with itself."""
    limit = min(len(one) - one_at, len(other) - other_at)
    length, step = 0, 1
    while length + step <= limit and _same(one, one_at + length, other, other_at + length, step):
        length, step = length + step, step * 2
    while step > 1:
        step //= 2
        if length + step <= limit and _same(one, one_at + length, other, other_at + length, step):
            length += step
    return length


def _same(one: str, one_at: int, other: str, other_at: int, size: int) -> bool:
    return other.startswith(one[one_at:one_at + size], other_at)


def _squeezed(text: str) -> str:
    """Text with each run of whitespace as one space, as text splitters re-join words."""
    return " ".join(text.split())


def _service_name(view: _View, tops: list[Span]) -> str | None:
    """The service that ran the pipeline: the top chain's, else that of the RAG span nearest the root (the
    first to start among those as near), else any. Not the first RAG span's: where a RAG service with no
    chain span calls a retriever service, the retrieval starts first, and its service is no pipeline. A
    span recording ragmon.question or ragmon.answer is a RAG span too: read by their roles alone, an app
    recording both on its request span named its pipeline after the retriever service it called."""
    asked = [span for span in view.marked_spans()
             if ragmon.QUESTION in span.attributes or ragmon.ANSWER in span.attributes]
    rag = view.with_role(_RAG_ROLES) + asked
    anchors = tops[:1] + ([min(rag, key=view.depth)] if rag else []) + view.spans
    for span in anchors:
        name = span.resource.get(_SERVICE_NAME)
        if isinstance(name, str) and name:
            return name
    return None
