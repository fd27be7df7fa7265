"""What the convention readers share: span roles, the extraction error, and value decoding.

Each convention module answers the same few questions about one span (its role, its documents, the
question or answer it carries); extract.py decides which span to ask. Decoding lives here so that a JSON
string and a structured OTLP value of the same attribute read alike whichever convention wrote it.
"""

from __future__ import annotations

import ast
import enum
import json
import math
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ragmon import jsontext
from ragmon.errors import InputError
from ragmon.ids import content_id
from ragmon.model import Context, whole
from ragmon.traces import Span

REDACTED = "__REDACTED__"
"""OpenInference's placeholder for hidden inputs and outputs: it is no value, not text to score."""
STATUS_ERROR = 2
"""OTLP `Status.code` ERROR: the instrumentor's mark of a call that raised, which has no output."""

QUESTION_KEYS = ("query", "question", "input", "query_str", "message")
"""`message`: LlamaIndex chat engines and agents (`chat(message, chat_history)`); without it their
question would fall through to the retriever query, which a condensing engine has rewritten."""
ANSWER_KEYS = ("output", "answer", "result", "response", "generation")
"""`generation`: LangGraph's self-RAG and corrective-RAG tutorials keep the answer under it in the state
their graph returns; without it the answer would fall through to the last model call, their grader's."""
_USER_ROLES = frozenset({"user", "human"})
_QUESTION_LABEL = re.compile(
    r"^[ \t]*(?:(?P<heading>#{1,6})[ \t]*|[*_]{1,2})?(?:(?:user|customer)(?:'s)?[ \t]+)?"
    r"(?:question|query|frage|pregunta|domanda|pergunta|问题)[*_]{0,2}[ \t]*(?P<colon>[:：])?[*_]{0,2}[ \t]*"
    r"(?P<rest>.*?)[ \t]*$", re.IGNORECASE | re.MULTILINE)
"""A line that labels the question: `Question: ...` in a template's words (`Query`, `User question`; the
German, Spanish, Italian, Portuguese and Chinese words; French `Question :`, a full-width colon,
Markdown bold), the question after the colon or, after a label alone on its line or a `## Question`
heading, on the lines below. A line with other words after the label (`Question the premise`) is none."""
_QUESTION_TAG = re.compile(r"<(/?)(question|query|user_question)>", re.IGNORECASE)
"""`<question>...</question>`, the XML style Anthropic's prompting guide recommends. The tags are found
alone and paired in one pass: a pattern spanning the text had searched to the prompt's end from every
opening tag (20,000 of them took 3 s)."""
_BLOCK_END = re.compile(r"[ \t]*(?:$|#|<|.*[:：][ \t]*$)")
"""A line that ends a question written below its label: a blank one, a heading, a tag, or the next label
(`Answer:`)."""
_METADATA_ID_KEYS = ("id", "source", "doc_id", "file_name", "file_path")
"""`file_name` and `file_path`: what LlamaIndex's SimpleDirectoryReader records of a file, and shows the
model beside each chunk; its node ids are random UUIDs, new at each build of the index, which no label and
no citation names ("(returns_policy.md)" had stayed in the claim and scored a page's sentence 0)."""
METADATA_TEXT_KEYS = ("text", "content", "page_content")
_ASSISTANT_PREFIX = "assistant: "
_REACT = re.compile(r"\s*Thought:.*?^(?:Final )?Answer:[ \t]*(\S.*)", re.DOTALL | re.MULTILINE)
_JSON_OPENERS = frozenset('{["')
FENCE = re.compile(r"```[^\n`]*\n(?P<body>.*?)\n?```", re.DOTALL)
"""A Markdown code fence around a model's output ("```json\n[2, 3, 1]\n```"), as models wrap JSON."""
_CUT_TOKEN = re.compile(r"(?:t(?:ru?)?|f(?:a(?:ls?)?)?|n(?:ul?)?|-|[.eE][-+]?|u[0-9a-fA-F]{0,4})?\s*")
"""What may follow the position of a JSON error when the text was cut short: nothing but whitespace, or
the start of a literal, of a number's sign, fraction or exponent, or of a `\\uXXXX` escape."""


class Role(enum.StrEnum):
    CHAIN = "chain"
    """A chain, agent or workflow: its input is the user's question, its output the answer."""
    RETRIEVER = "retriever"
    RERANKER = "reranker"
    LLM = "llm"
    TOOL = "tool"
    """A tool an agent called: a retrieval beneath it searched for what the model asked, not the user."""


class ExtractionError(InputError):
    """An attribute whose value breaks its convention badly enough that the trace cannot be scored.

    `problem` names the attribute (or the item within it), so `field` is set without repeating it."""

    def __init__(self, span: Span, attribute: str, problem: str) -> None:
        self.span_name = span.name
        self.span_id = span.span_id
        self.attribute = attribute
        super().__init__(f"span {span.name!r} (span id {span.span_id}): {problem}",
                         source=f"trace {span.trace_id}")
        self.field = attribute


def text_value(value: Any) -> str | None:
    """A usable string: not missing, not blank, not redacted."""
    if isinstance(value, str) and value.strip() and value != REDACTED:
        return value
    return None


def maybe_json(value: str) -> Any:
    """The decoded value when `value` is JSON text, else `value` itself (free text stays text)."""
    stripped = value.lstrip()
    if stripped[:1] not in _JSON_OPENERS:
        return value
    try:
        return jsontext.loads_bounded(stripped)
    except ValueError:
        return value


def structured(span: Span, attribute: str, value: Any) -> Any:
    """A value that may arrive as a JSON string or as structured OTLP (arrayValue/kvlistValue)."""
    if not isinstance(value, str):
        return value
    try:
        return jsontext.loads_bounded(value)
    except jsontext.NestedTooDeeply as exc:
        raise ExtractionError(span, attribute, f"attribute {attribute!r} is JSON {exc.msg}") from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):
            # Valid JSON that Python will not read: int()'s limit on digits, without its advice to the
            # programmer after the colon. Called invalid, the app's JSON was sent looking for a syntax slip.
            why = str(exc).partition(":")[0]
            raise ExtractionError(span, attribute, f"attribute {attribute!r} is JSON that cannot be read "
                                                   f"({why})") from None
        problem = f"attribute {attribute!r} is not valid JSON"
        if _ends_early(value, exc):
            problem += (f": it ends before the value is complete (cut at {len(value)} characters? check "
                        "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT / span attribute limits in the app)")
        raise ExtractionError(span, attribute, problem) from None


def cut_length(value: Any) -> int | None:
    """The length JSON text was cut to when it ends before its value does, else None. An SDK's attribute
    length limit cuts every string attribute of a span to that same length, so a JSON attribute cut
    short tells what the limit was for the span's other values, which cannot tell it themselves."""
    if not isinstance(value, str):
        return None
    try:
        jsontext.loads_bounded(value)
    except json.JSONDecodeError as exc:
        return len(value) if _ends_early(value, exc) else None
    except ValueError:
        return None
    return None


def _ends_early(text: str, error: json.JSONDecodeError) -> bool:
    """Whether JSON text failed only for want of more text, as an SDK's attribute length limit leaves
    it. A cut inside a string is reported at the string's start; elsewhere json stops at the end, or at
    a token the end cut short (`tru`, `-`, `1.`, `\\u00`). Text that does not open as JSON is free text
    (or nothing), not JSON cut short."""
    if text.lstrip()[:1] not in _JSON_OPENERS:
        return False
    return error.msg.startswith("Unterminated string") or _CUT_TOKEN.fullmatch(text, error.pos) is not None


def list_value(span: Span, attribute: str, value: Any) -> Sequence[Any]:
    decoded = structured(span, attribute, value)
    if isinstance(decoded, Sequence) and not isinstance(decoded, str | bytes):
        return decoded
    raise ExtractionError(span, attribute, f"attribute {attribute!r} is not a list")


def pick_text(value: Any, keys: Sequence[str]) -> str | None:
    """The text a decoded chain input or output stands for: the text itself, or the first of `keys` in
    an object, looked up at the top level and then one level down."""
    if isinstance(value, str):
        return text_value(value)
    if not isinstance(value, Mapping):
        return None
    found = _first_key(value, keys)
    if found is not None:
        return found
    for inner in value.values():
        if isinstance(inner, Mapping) and (found := _first_key(inner, keys)) is not None:
            return found
    return None


def strict_json(value: Any) -> Any:
    """A value its convention always JSON-encodes; None when it does not decode (e.g. truncated)."""
    if not isinstance(value, str):
        return None
    try:
        return jsontext.loads_bounded(value)
    except ValueError:
        return None


def last_user_text(value: Any) -> str | None:
    """The last user turn of a chat input given as messages: a `{"messages": [...]}` object (a LangGraph
    state, a chat chain's input) or the list itself. LangChain serialises a message as `{"type": "human",
    "data": {"content": ...}}`, a `("user", text)` pair, or an OpenAI-style `{"role", "content"}`."""
    if isinstance(value, Mapping):
        value = value.get("messages")
    if not isinstance(value, list):
        return None
    for message in reversed(value):
        if isinstance(message, list) and len(message) == 2 and _is_user(message[0]):
            return text_value(message[1])
        if isinstance(message, Mapping) and (_is_user(message.get("type")) or _is_user(message.get("role"))):
            data = message.get("data")
            return message_text(data if isinstance(data, Mapping) else message)
    return None


def _is_user(role: Any) -> bool:
    return isinstance(role, str) and role in _USER_ROLES


def question_line(prompt: str) -> str | None:
    """The question a prompt that holds the documents as well asks: the last one labelled as such
    (`_QUESTION_LABEL`, `_QUESTION_TAG`; LangChain's and LlamaIndex's stock RAG prompts end with a
    `Question:` or `Query:` line). A template written in other words (`<question>`, `## Question`, `Frage:`)
    had given no question at all. Only a label opening a line counts: an instruction that mentions the
    question ("Answer the question below.") names none."""
    found: tuple[int, str] | None = None
    for match in _QUESTION_LABEL.finditer(prompt):
        if match["colon"] and match["rest"]:
            text: str | None = match["rest"]
        elif not match["rest"] and (match["colon"] or match["heading"]):
            text = _below(prompt, match.end())
        else:
            continue
        if text:
            found = (match.start(), text)
    opened: dict[str, int] = {}
    for tag in _QUESTION_TAG.finditer(prompt):
        name = tag[2].lower()
        if not tag[1]:
            opened[name] = tag.end()
        elif (start := opened.pop(name, None)) is not None:
            text = prompt[start:tag.start()].strip()
            if text and (found is None or start > found[0]):
                found = (start, text)
    return found[1] if found else None


def _below(prompt: str, end: int) -> str | None:
    """The lines after a label alone on its line, up to the first that ends them (`_BLOCK_END`)."""
    lines = []
    start = end + 1
    while start <= len(prompt):
        stop = prompt.find("\n", start)
        line = prompt[start:] if stop < 0 else prompt[start:stop]
        if _BLOCK_END.match(line):
            break
        lines.append(line.strip())
        if stop < 0:
            break
        start = stop + 1
    return "\n".join(lines) or None


def strings(value: Any) -> list[str]:
    """Every string inside a decoded value, in order: the text of a structured input whatever its shape.
    A stack rather than recursion: JSON as deep as the parser reads would overflow Python's."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if isinstance(item, str):
            found.append(item)
        elif kind is dict or (kind not in _NO_MAPPINGS and isinstance(item, Mapping)):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
    return found


_NO_MAPPINGS = frozenset({list, tuple, int, float, bool, type(None)})
"""JSON's other types, which `strings` tells from a mapping by their type: each checked against Mapping (an
abstract class), the values of LangChain's JSON inputs had been ~5% of extracting its traces."""


def _first_key(obj: Mapping[str, Any], keys: Sequence[str]) -> str | None:
    for key in keys:
        if (text := text_value(obj.get(key))) is not None:
            return text
    return None


def strip_assistant(text: str) -> str:
    """LlamaIndex records `str(ChatResponse)`, which prefixes the answer with its role."""
    return text[len(_ASSISTANT_PREFIX):] if text.startswith(_ASSISTANT_PREFIX) else text


def react_answer(text: str) -> str:
    """The answer a ReAct agent's model gave after its reasoning (`Thought: ...` then `Answer: ...` in
    LlamaIndex, `Final Answer: ...` in LangChain), when an agent's last model output is all there is."""
    match = _REACT.match(text)
    return match.group(1) if match else text


def joined(pieces: Iterable[str]) -> str:
    """Pieces of one text (a message's parts, a streamed answer's chunks) put back together. A space goes
    between a piece ending a sentence and one opening the next with a capital ("...purchase." and "Returns
    are..."): glued ("purchase.Returns"), the two were one claim that no context holds. Nowhere else: a
    word split across chunks ("The warr", "anty") stays whole, and so do a number ("$3.", "50") and an
    abbreviation ("e.g.", "the") split after their point."""
    out: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if out and piece[0].isupper() and out[-1].rstrip(_CLOSING)[-1:] in _SENTENCE_MARKS:
            out.append(" ")
        out.append(piece)
    return "".join(out)


_NON_TEXT_BLOCKS = frozenset({
    "file", "input_file", "audio", "input_audio", "image", "image_url", "input_image", "video", "document",
    "reasoning", "thinking", "redacted_thinking"})
"""Content block types of LangChain, OpenAI and Anthropic messages that hold media or a model's reasoning."""
_SENTENCE_MARKS = frozenset(".!?…")
_CLOSING = "\"')]”’"
"""What may follow a sentence's mark within it: a closing quote or bracket."""


def _parts_joined(parts: Iterable[Any]) -> str:
    return joined(text for part in parts if (text := _part_text(part)) is not None)


def _part_text(part: Any) -> str | None:
    if not isinstance(part, Mapping) or part.get("type", "text") != "text":
        return None
    text = part.get("content", part.get("text"))
    return text if isinstance(text, str) and not _serialised_block(text) else None


def _serialised_block(text: str) -> bool:
    """Whether a text part holds the JSON of a block that is no text: OpenLLMetry's LangChain instrumentor
    (0.62, `span_utils._content_to_parts`) writes a block it does not know (a file, audio, a document) as
    a text part of the block's JSON. Read as text, a question sent with a PDF was the question followed
    by the PDF's base64."""
    if not text.startswith("{"):
        return False
    decoded = strict_json(text)
    kind = decoded.get("type") if isinstance(decoded, Mapping) else None
    return isinstance(kind, str) and kind in _NON_TEXT_BLOCKS


def parts_text(parts: Iterable[Any]) -> str | None:
    """The text of a multi-part message: the `text` parts in order, joined."""
    return text_value(_parts_joined(parts))


def message_piece(message: Any) -> str | None:
    """A chat message's text as written, blank or not, whether it carries `parts` (GenAI) or `content`
    (OpenAI style): one streamed chunk may be only the space between two words."""
    if not isinstance(message, Mapping):
        return None
    parts = message.get("parts")
    if isinstance(parts, Sequence) and not isinstance(parts, str):
        return _parts_joined(parts)
    content = message.get("content")
    if isinstance(content, Sequence) and not isinstance(content, str):
        return _parts_joined(content)
    return content if isinstance(content, str) else None


def message_text(message: Any) -> str | None:
    """`message_piece` when it is usable text: not blank, not redacted."""
    return text_value(message_piece(message))


def metadata_mapping(span: Span, where: str, value: Any) -> Mapping[str, Any]:
    """Document metadata: a dict, a JSON object string, or (Pinecone) the Python repr of a dict."""
    if value is None or value == REDACTED or isinstance(value, Mapping):
        return value if isinstance(value, Mapping) else {}
    field = f"{where}.metadata"
    if isinstance(value, str):
        for parse in (jsontext.loads_bounded, _python_literal):
            try:
                parsed = parse(value)
            except jsontext.NestedTooDeeply as exc:  # not then read as a Python literal, which goes deeper
                raise ExtractionError(span, field, f"{field} is JSON {exc.msg}") from None
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):  # as its docs list
                continue
            if isinstance(parsed, Mapping):
                return parsed
    raise ExtractionError(span, field, f"{field} is not an object")


def _python_literal(text: str) -> Any:
    """A Python literal: Pinecone's metadata is a dict's repr. Read without the SyntaxWarning compile()
    writes for some text that is none ("<unknown>:1: SyntaxWarning: invalid decimal literal" for
    "{'a': 1x}"): a line of its own on the sidecar's stderr, not JSON in a `--log-format json` log."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(text)


def make_context(span: Span, where: str, doc_id: Any, text: Any, score: Any, metadata: Any) -> Context:
    """A context under the id rule every door shares: the given id, else metadata id|source|doc_id, else
    the content hash. Text missing from the document falls back to the metadata's text field. Metadata
    is only decoded when one of the two is missing. `where` locates the document in error messages.

    Redacted or missing text is an error, not an empty document: scoring an empty document would call
    every claim unsupported, a false alarm rather than an unknown."""
    if text == REDACTED:
        raise ExtractionError(span, f"{where}.content",
                              f"{where}.content is {REDACTED}: the app hides retrieved documents "
                              "(OPENINFERENCE_HIDE_OUTPUTS or _HIDE_RETRIEVAL_DOCUMENTS), so the answer "
                              "cannot be checked against them")
    body = text if isinstance(text, str) else None
    ident = _id_text(doc_id)
    if body is None or ident is None:
        meta = metadata_mapping(span, where, metadata)
        if body is None:
            body = next((v for k in METADATA_TEXT_KEYS if isinstance(v := meta.get(k), str)), None)
            if body is None:
                raise ExtractionError(span, f"{where}.content",
                                      f"{where} has no text (no content, and none in its metadata), so "
                                      "the answer cannot be checked against it")
        if ident is None:
            ident = metadata_id(meta) or content_id(body)
    return Context(ident, body, number(score))


def metadata_id(metadata: Mapping[str, Any]) -> str | None:
    """A document's id from its metadata (id, else source, doc_id, file_name, file_path), as LangChain and
    LlamaIndex loaders record it; shared with `ragmon.instrument`, so both name a document alike."""
    return next((i for k in _METADATA_ID_KEYS if (i := _id_text(metadata.get(k))) is not None), None)


def _id_text(value: Any) -> str | None:
    if whole(value):  # numpy's int64 too: `ragmon.instrument` reads an app's metadata with this
        return str(int(value))
    return value if isinstance(value, str) and value.strip() and value != REDACTED else None


def number(value: Any) -> float | None:
    """A retriever's score, which no metric reads. One that is NaN, infinite or beyond the largest double
    says nothing of rank and is none, as a golden file's is read (ragmon.datasets.fields) and capture
    writes it: the trace and the golden record of one retrieval give equal examples."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        score = float(value)
    except (ValueError, OverflowError):  # not a number, or an integer beyond the largest double
        return None
    return score if math.isfinite(score) else None


def indexed(attributes: Mapping[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """Unflatten `<prefix><i>.<rest>` attributes into {i: {rest: value}} in one pass over the span."""
    items: dict[int, dict[str, Any]] = {}
    start = len(prefix)
    for key, value in attributes.items():
        if key.startswith(prefix):
            index, _, rest = key[start:].partition(".")
            if rest and index.isdecimal():  # what int() reads: isdigit() also takes "²"
                items.setdefault(int(index), {})[rest] = value
    return items
