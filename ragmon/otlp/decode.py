"""OTLP trace requests (protobuf or OTLP/JSON) to ragmon `Span`s.

Both decoders produce identical spans, rejections and messages for the same data, so nothing downstream
can tell which encoding or transport a span came by.

Two kinds of badness, because OTLP distinguishes them:
- a body that cannot be read as a request at all (not protobuf, not JSON, a JSON field of the wrong
  type) raises `DecodeError` naming the field, e.g. `resourceSpans[0].scopeSpans[1].spans[3].name: not a
  string`; the receiver answers 400 and the client must not retry;
- a readable span with unusable ids (empty, wrong length, all zeros, not hex) is rejected on its own and
  named in `DecodedBatch.errors`; the rest are accepted (OTLP partial success).

A JSON `null` is the field's default, as in proto3's JSON mapping (OpenTelemetry JS writes a NaN double so,
since `JSON.stringify(NaN)` is null): a null id is an empty one, a null AnyValue field an unset one. A key
that holds spans given twice in one object refuses the body, as protobuf's own JSON parser does: keeping
the last would drop the spans the first held without a word (another key keeps its last value).

A key is a field's lowerCamelCase name or its original proto field name (`trace_id`), as proto3's JSON
mapping has parsers accept: `MessageToJson(preserving_proto_field_name=True)` writes the latter. One field
given under both names in one object refuses the body, naming both: protobuf's own Python parser keeps the
later, and the other value would be lost without a word. An AnyValue's fields are the exception: its first
not null is read, under either name, as of any two of its fields (`_json_value`).

Messages quote what the sender wrote (a span's name, a value) cut short (`MAX_QUOTED`): a rejection quoting
a 1 MiB name whole made a response gRPC clients refuse to read (over their 4 MiB), so the spans ragmon had
taken were sent again.

An all-zero parent id is read as "no parent": it cannot name a real span, and treating it as a root
keeps the span rather than losing it. Spans of one resource share one `resource` dict (decoded once per
resource, not per span): treat it as read-only.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import codecs
import decimal
import json
import re
import reprlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from google.protobuf.unknown_fields import UnknownFieldSet
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans

from ragmon import jsontext
from ragmon.errors import RagmonError
from ragmon.otlp.utf8_repair import NotRepairable, repaired
from ragmon.otlp.values import MalformedProtobuf, json_values, protobuf_exceeds
from ragmon.traces import Span, SpanEvent

MAX_ERRORS = 10
"""Rejection messages kept per batch; `rejected` still counts every rejected span."""

MAX_QUOTED = 100
"""Characters of a sender's text (a span's name, a value) that a message quotes; with `MAX_ERRORS`, what
keeps a partial-success message or a 400's body a few KB, whatever the request held."""

_TRACE_HEX = 32
_SPAN_HEX = 16
_ZEROS = {_TRACE_HEX: "0" * _TRACE_HEX, _SPAN_HEX: "0" * _SPAN_HEX}
_HEX = re.compile(r"[0-9a-f]*")
_INT32 = (-(2**31), 2**31 - 1)
_UINT32 = (0, 2**32 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_UINT64 = (0, 2**64 - 1)
"""The ranges of the protobuf fields (enums, flags, intValue, times): a JSON number outside one is no
value the protobuf encoding could carry, so the two decoders would not agree on it."""

# Proto3 JSON allows enum names; the OTLP spec asks for integers but a lenient reader costs nothing here.
_SPAN_KINDS = {
    "SPAN_KIND_UNSPECIFIED": 0, "SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2, "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5,
}
_STATUS_CODES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
"""Each enum's own names: one table for both had read a status code's name as a kind (`"kind":
"STATUS_CODE_ERROR"`, a SERVER span) and a kind's as a status (`SPAN_KIND_SERVER`, a failed span), values
protobuf's own JSON parser refuses."""


class DecodeError(RagmonError):
    """The body is not a readable ExportTraceServiceRequest; the message says what and where."""


@dataclass(frozen=True, slots=True)
class DecodedBatch:
    spans: tuple[Span, ...]
    rejected: int
    errors: tuple[str, ...]

    def rejection_message(self) -> str:
        """For a partial-success error_message: every kept rejection, and how many more there were."""
        more = self.rejected - len(self.errors)
        return "; ".join(self.errors) + (f"; and {more} more" if more > 0 else "")


class _Quote(reprlib.Repr):
    """`repr` of a value from a request, of bounded size and cost: a text cut after `MAX_QUOTED`
    characters (with "…" after its quote), a list or object after a few items, two levels deep."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxlong = self.maxother = MAX_QUOTED
        self.maxlevel, self.maxlist, self.maxdict = 2, 4, 4

    def repr_str(self, x: str, level: int) -> str:
        return repr(x[:self.maxstring]) + ("…" if len(x) > self.maxstring else "")


_QUOTE = _Quote()


def _clipped(text: str) -> str:
    """At most 2 x `MAX_QUOTED` characters: a quotation's escapes (up to 10 characters a character) and a
    path through a sender's own keys are bounded too."""
    return text if len(text) <= 2 * MAX_QUOTED else text[:2 * MAX_QUOTED] + "…"


def _quoted(value: Any) -> str:
    return _clipped(_QUOTE.repr(value))


class _Collector:
    """Accepted spans plus the tally of rejected ones, shared by both decoders."""

    __slots__ = ("errors", "rejected", "spans")

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.rejected = 0
        self.errors: list[str] = []

    def reject(self, where: str, name: str, problem: str) -> None:
        self.rejected += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(f"{where} {_quoted(name)}: {problem}")

    def batch(self) -> DecodedBatch:
        return DecodedBatch(tuple(self.spans), self.rejected, tuple(self.errors))


def _id_problem(field: str, value: str, hex_len: int) -> str | None:
    """Why a lowercase hex id is unusable, or None when it is fine."""
    if not value:
        return f"{field} is empty"
    if len(value) != hex_len or not _HEX.fullmatch(value):
        return f"{field} is not {hex_len} hex digits"
    if value == _ZEROS[hex_len]:
        return f"{field} is all zeros"
    return None


def _check_ids(trace_id: str, span_id: str, parent: str) -> tuple[str | None, str | None]:
    """(why the span must be rejected or None, its parent id or None for a root)."""
    problem = _id_problem("traceId", trace_id, _TRACE_HEX) or _id_problem("spanId", span_id, _SPAN_HEX)
    if problem or not parent:
        return problem, None
    problem = _id_problem("parentSpanId", parent, _SPAN_HEX)
    if problem == "parentSpanId is all zeros":
        return None, None
    return problem, parent


# --- protobuf ---------------------------------------------------------------------------------------


_HAS_IS_REMOTE = 0x100
_IS_REMOTE = 0x200


def _parent_is_remote(flags: int) -> bool | None:
    return bool(flags & _IS_REMOTE) if flags & _HAS_IS_REMOTE else None


INLINE_DECODE_LIMIT = 256 * 1024
"""Bodies above this many bytes are decoded in a worker thread so the event loop keeps serving."""

_LARGE_DECODES = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmon-decode")
"""One thread for every large body, whichever receiver took it: each decode may take up to `MAX_VALUES`
worth of memory (~100 MiB), so two at once would be two of those, and decoding holds the GIL, so a second
thread would not decode any faster."""


async def decode_off_loop(decode: Callable[[bytes, int], DecodedBatch], body: bytes,
                          max_values: int) -> DecodedBatch:
    """`decode(body, max_values)` for a receiver on the event loop: inline when small (a thread hop costs
    more than the work), else on the one decoding thread, after the large bodies before it."""
    if len(body) <= INLINE_DECODE_LIMIT:
        try:
            return decode(body, max_values)
        except RepairOffLoop:
            pass
    return await asyncio.get_running_loop().run_in_executor(_LARGE_DECODES, decode, body, max_values)


MAX_VALUES = 2**19
"""Values one request may hold (ragmon.otlp.values): ~100 MiB and ~2 s of CPU to decode at the most
(~200 bytes a value, the cost of an empty span event), and room for a Collector's default batch of 8,192
spans of 20 short attributes each."""


class TooManyValues(RagmonError):
    """The request holds more values than the limit (`MAX_VALUES`); answered like a body over
    `--max-body`, as the sender's remedy is the same: smaller batches."""


def _why_invalid(exc: Exception) -> str:
    """The decoder's reason, but for its depth limit, whose message ("Exceeded upb_DecodeOptions_MaxDepth")
    names neither the cause nor a remedy: an attribute value of arrays 48 deep, which OTLP/JSON takes,
    refused the whole batch with it."""
    if "MaxDepth" in str(exc):
        return ("values nested too deep: protobuf decoding stops at 100 nested messages, which an attribute "
                "value of arrays within arrays reaches at 48 levels, of key-value lists sooner; flatten it")
    return str(exc)


def decode_protobuf(body: bytes, max_values: int = MAX_VALUES) -> DecodedBatch:
    try:
        if protobuf_exceeds(body, max_values):
            raise TooManyValues(f"the request holds more than {max_values} values (spans, their ids, events, "
                                "links, attributes, their values; 4 other fields count as one; "
                                "--max-values): send smaller batches")
        request = _request(body)
    except (ProtobufDecodeError, RecursionError, MalformedProtobuf) as exc:
        raise DecodeError(f"not a valid protobuf ExportTraceServiceRequest ({_why_invalid(exc)})") from None
    out = _Collector()
    for i, resource_spans in enumerate(request.resource_spans):
        _pb_not_outdated(resource_spans, i)
        resource = _pb_attributes(resource_spans.resource.attributes)
        for j, scope_spans in enumerate(resource_spans.scope_spans):
            scope_name = scope_spans.scope.name
            for k, span in enumerate(scope_spans.spans):
                trace_id, span_id = span.trace_id.hex(), span.span_id.hex()
                problem, parent = _check_ids(trace_id, span_id, span.parent_span_id.hex())
                if problem:
                    out.reject(f"resourceSpans[{i}].scopeSpans[{j}].spans[{k}]", span.name, problem)
                    continue
                out.spans.append(Span(
                    trace_id=trace_id, span_id=span_id, parent_span_id=parent,
                    name=span.name, start_time_unix_nano=span.start_time_unix_nano,
                    end_time_unix_nano=span.end_time_unix_nano, kind=span.kind,
                    attributes=_pb_attributes(span.attributes),
                    events=tuple(SpanEvent(e.name, e.time_unix_nano, _pb_attributes(e.attributes))
                                 for e in span.events),
                    resource=resource, status_code=span.status.code, scope_name=scope_name,
                    parent_is_remote=_parent_is_remote(span.flags)))
    return out.batch()


_OUTDATED_FIELD = 1000
"""ResourceSpans' `instrumentation_library_spans` in OTLP 0.15 to 0.18, where an exporter may have put its
spans; removed in 0.19. It has ScopeSpans' wire form, but the JSON door refuses its spans (`_OUTDATED`)
and so does this one, with the same reason."""
_REPLACED = "replaced by {} in OTLP 0.19 (2022): upgrade the exporter"


def _pb_not_outdated(resource_spans: ResourceSpans, index: int) -> None:
    """DecodeError for spans under `_OUTDATED_FIELD` alone: read as an unknown field, the request was
    answered success with none of them read or counted. Beside scope_spans it is ignored, as OTLP 0.18
    asked of a receiver."""
    if not resource_spans.scope_spans and any(
            field.field_number == _OUTDATED_FIELD for field in UnknownFieldSet(resource_spans)):
        raise DecodeError(f"resourceSpans[{index}].instrumentation_library_spans: "
                          + _REPLACED.format("scope_spans"))


class RepairOffLoop(Exception):
    """A body to repair met on an event loop: `decode_off_loop` sends it to the decoding thread."""


def _request(body: bytes) -> ExportTraceServiceRequest:
    """The request, its strings that are not UTF-8 read with U+FFFD for each bad sequence
    (`ragmon.otlp.utf8_repair`): the parser refused the whole batch over one. Never on an event loop:
    the repair walks in Python each message the parser refuses, up to ~0.3 s for 256 KiB of them, a
    receiver's whole loop stalled."""
    try:
        return ExportTraceServiceRequest.FromString(body)
    except ProtobufDecodeError as exc:
        if _on_event_loop():
            raise RepairOffLoop from None
        try:
            fixed, count = repaired(body, ExportTraceServiceRequest.DESCRIPTOR)
        except (NotRepairable, RecursionError):
            raise exc from None
        if not count:
            raise
        return ExportTraceServiceRequest.FromString(fixed)


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _pb_attributes(key_values: Iterable[Any]) -> dict[str, Any]:
    return {kv.key: _pb_value(kv.value) for kv in key_values}


def _pb_value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "array_value":
        return [_pb_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return _pb_attributes(value.kvlist_value.values)
    return None if kind is None else getattr(value, kind)


# --- OTLP/JSON --------------------------------------------------------------------------------------


class _Invalid(Exception):
    """A JSON field of the wrong shape; `where` grows as the error travels up to the request level."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(where, what)
        self.where = where
        self.what = what

    def under(self, prefix: str) -> _Invalid:
        return _Invalid(prefix + self.where, self.what)


def decode_json(body: bytes, max_values: int = MAX_VALUES) -> DecodedBatch:
    """`max_values` is checked on the text (ragmon.otlp.values) before `json.loads` allocates anything, and
    with the spans, found in the parsed document, before any is built."""
    if (encoding := _json_encoding(body)) not in ("utf-8", "utf-8-sig"):
        raise DecodeError(f"OTLP/JSON is UTF-8; this body is {encoding.upper()}")
    if 0 in body[:2]:
        # `json.loads` would read it as UTF-16 or UTF-32 (`json.detect_encoding`), which it is not.
        raise DecodeError(f"not valid JSON: byte {body.index(0)} is zero, which no UTF-8 JSON text holds")
    values = json_values(body, max_values)
    if values > max_values:
        raise TooManyValues(_json_too_many(max_values))
    try:
        doc = _parsed(body) if body and not body.isspace() else {}
    except RecursionError:
        raise DecodeError("not valid JSON: nested too deeply") from None
    except ValueError as exc:
        raise DecodeError(f"not valid JSON: {exc}") from None
    except _Invalid as exc:
        raise DecodeError(f"{exc.where or 'body'}: {exc.what}") from None
    # A span costs what its ids do over protobuf (2 values more): counted on the parsed document, as its
    # keys may be written escaped ("span\u0049d"), before any span is built.
    spans = 2 * _spans_in(doc)
    if values + spans > max_values and (
            spans > max_values or json_values(body, max_values - spans, exact=True) > max_values - spans):
        raise TooManyValues(_json_too_many(max_values))
    try:
        return _json_request(doc)
    except _Invalid as exc:
        raise DecodeError(f"{exc.where or 'body'}: {exc.what}") from None
    except RecursionError:
        raise DecodeError("attribute values nested too deeply") from None


_BOMS = ((codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF16_BE, "utf-16"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF8, "utf-8-sig"))
"""UTF-32's before UTF-16's: UTF-32-LE's byte-order mark starts with UTF-16-LE's."""


def _text_start(encoding: str) -> re.Pattern[bytes]:
    """How a JSON text starts in `encoding`: whitespace, then the first character of a value."""
    def either(chars: str) -> bytes:
        return b"|".join(re.escape(char.encode(encoding)) for char in chars)

    return re.compile(b"(?:%b)*(?:%b)" % (either(" \t\r\n"), either('{["-0123456789tfn')))


_WIDE_STARTS = tuple((encoding, _text_start(encoding))
                     for encoding in ("utf-32-be", "utf-32-le", "utf-16-be", "utf-16-le"))
"""UTF-32's before UTF-16's: `{` in UTF-32-LE starts as it does in UTF-16-LE."""


def _json_encoding(body: bytes) -> str:
    """The encoding `body` is JSON in, if it is JSON: named by its byte-order mark, or the one its start
    reads as a JSON text's in (`_text_start`), else UTF-8. `json.detect_encoding` guesses from the zero
    bytes alone, so a protobuf body whose second byte is zero (an empty first ResourceSpans) was refused
    as UTF-16, its sender told of an encoding it never used."""
    for mark, encoding in _BOMS:
        if body.startswith(mark):
            return encoding
    return next((encoding for encoding, start in _WIDE_STARTS if start.match(body)), "utf-8")


def _snake_case(key: str) -> str:
    return re.sub("[A-Z]", lambda capital: "_" + capital[0].lower(), key)


_PROTO_NAMES = {key: _snake_case(key) for key in (
    "resourceSpans", "scopeSpans", "traceId", "spanId", "parentSpanId", "startTimeUnixNano",
    "endTimeUnixNano", "timeUnixNano")}
"""The proto field names (`trace_id`) of the fields read outside an AnyValue whose lowerCamelCase JSON name
is another word; an AnyValue's are in `_JSON_ANY`."""

_SPAN_HOLDERS = ("resourceSpans", "resource_spans", "scopeSpans", "scope_spans", "spans")
"""The keys whose value holds spans: given twice, the first value's spans would be lost without a word.
Another key given twice keeps its last value, as `json.loads` and most JSON readers do."""

_QUOTED_HOLDERS = re.compile(b'"(%b)"' % b"|".join(key.encode() for key in _SPAN_HOLDERS))
"""`_SPAN_HOLDERS` in the text, quoted, all found in one pass (a count of each key held had read a body three
times). Two cannot overlap in JSON `json.loads` took: a quote closing a string is followed by a colon, a
comma, a bracket or a blank, never by a key's first letter."""
_ESCAPED_U = re.compile(rb"\\u")
"""A backslash-u escape, found by the regex engine's search for its backslash: `in` compared every place
holding a 'u', and took three times as long on an OTLP body of English text."""


class _Repeated(dict[str, Any]):
    """An object of the body holding `key`, one of `_SPAN_HOLDERS`, more than once."""

    __slots__ = ("key",)

    def __init__(self, pairs: list[tuple[str, Any]], key: str) -> None:
        super().__init__(pairs)
        self.key = key


def _repeated_holder(pairs: list[tuple[str, Any]]) -> str | None:
    keys = [key for key, _ in pairs if key in _SPAN_HOLDERS]
    return next((key for key in _SPAN_HOLDERS if keys.count(key) > 1), None)


_SURROGATE_SOURCES = (re.compile(rb"\xed[\xa0-\xbf]"), re.compile(rb"\\u[dD][89a-fA-F]"))
"""What a lone surrogate can be written as (ragmon.jsontext): ED A0-BF, or escaped. Each starts with a
literal, which the regex engine skips to."""


def _parsed(body: bytes) -> Any:
    """The JSON document, refusing (`_Invalid`, naming the key and where) an object that holds one of
    `_SPAN_HOLDERS` twice: counted (`_span_keys_once`), and found in the parse (`_parsed_strictly`) only when
    the count cannot tell, or a key may be written with a backslash-u escape, which the count would not
    see."""
    if _ESCAPED_U.search(body) is None:
        doc = json.loads(body)
        if _span_keys_once(body, doc):
            return jsontext.loads(body) if _SURROGATE_SOURCES[0].search(body) else doc
    return _parsed_strictly(body)


def _span_keys_once(body: bytes, doc: Any) -> bool:
    """Whether the keys that hold spans (`_SPAN_HOLDERS`) are each given once per object:
    as often in the text as in the parsed document, which keeps one of a repeated key. A quote cannot stand
    inside a JSON string unescaped, so `"spans"` in the text is that key or a value of that very text (then
    the strict parse decides). Checking every key in the parse (an `object_pairs_hook`) had cost a
    third more instructions for a batch of many attributes, for a mistake no exporter makes."""
    if type(doc) is not dict:
        return True
    resources, scopes = _resources_and_scopes(doc)
    given = Counter(_QUOTED_HOLDERS.findall(body))
    return all(_given_once(given, key, holders) for key, holders in (
        ("resourceSpans", [doc]), ("resource_spans", [doc]), ("scopeSpans", resources),
        ("scope_spans", resources), ("spans", scopes)))


def _given_once(given: Counter[bytes], key: str, holders: list[dict[str, Any]]) -> bool:
    """Whether `key` is in the text (`given`: each holder key's count there) as often as in `holders`: a key
    none holds is given twice in none of them."""
    held = sum(key in holder for holder in holders)
    return not held or given[key.encode()] == held


def _resources_and_scopes(doc: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ResourceSpans and ScopeSpans objects of a parsed request, under either name of their keys (one
    given under both is refused later, `_field`), where its shape lets them be found (`_json_request` names
    any other shape)."""
    resources = [r for r in _held(doc, "resourceSpans") if type(r) is dict]
    return resources, [s for r in resources for s in _held(r, "scopeSpans") if type(s) is dict]


def _held(obj: dict[str, Any], key: str) -> list[Any]:
    return [item for value in (obj.get(key), obj.get(_PROTO_NAMES[key])) if type(value) is list
            for item in value]


def _parsed_strictly(body: bytes) -> Any:
    """The JSON document, refusing an object that holds one of `_SPAN_HOLDERS` twice, found in the parse (an
    `object_pairs_hook`, which costs `json.loads` its fast path for objects: twice the instructions to
    parse). Parsed again by `jsontext.loads`, which makes each lone surrogate U+FFFD, only when the body may
    hold one (not for Hangul, whose ED bytes it would check)."""
    repeated: list[_Repeated] = []

    def one_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) < len(pairs) and (key := _repeated_holder(pairs)) is not None:
            repeated.append(_Repeated(pairs, key))
            return repeated[-1]
        return obj

    doc = json.loads(body, object_pairs_hook=one_each)
    if repeated and (first := _first_repeated(doc)) is not None:
        where, key = first
        raise _Invalid(where, f"the key {_quoted(key)} is given twice in one object")
    return jsontext.loads(body) if any(found.search(body) for found in _SURROGATE_SOURCES) else doc


def _first_repeated(doc: Any) -> tuple[str, str] | None:
    """Where the first object holding a key twice is, in the order of the text, and that key; None when the
    document keeps none. An object lost to its parent's repeated holder key leaves the parent marked, but one
    lost to another repeated key (`{"a": {"spans": [], "spans": []}, "a": 1}`) is in no value the document
    keeps, so nothing of it is lost. Each value keeps a link to its parent's (no path text is built but the
    one found), with a stack of its own: any nesting the parser took is walked."""
    pending: list[tuple[Any, Any]] = [(doc, None)]
    while pending:
        value, trail = pending.pop()
        if type(value) is _Repeated:
            return _path(trail), value.key
        if type(value) is list:
            pending.extend((item, (trail, n)) for n, item in reversed(list(enumerate(value))))
        elif type(value) is dict:
            pending.extend((item, (trail, key)) for key, item in reversed(value.items()))
    return None


def _path(trail: Any) -> str:
    """`resourceSpans[0].scopeSpans[1]`, as the decoder's other messages place a field; a key that is no
    name (a sender's own, of any length or text) is quoted."""
    steps: list[str] = []
    while trail is not None:
        trail, step = trail
        if type(step) is int:
            steps.append(f"[{step}]")
        elif step.isidentifier() and len(step) <= MAX_QUOTED:
            steps.append(f".{step}")
        else:
            steps.append(f"[{_quoted(step)}]")
    return _clipped("".join(reversed(steps)).removeprefix("."))


def _json_too_many(max_values: int) -> str:
    return (f"the request holds more than {max_values} values (JSON objects, arrays, values after a comma, "
            "2 for a span's ids; --max-values): send smaller batches")


def _spans_in(doc: Any) -> int:
    """The spans of a parsed request, where its shape lets them be found."""
    if type(doc) is not dict:
        return 0
    return sum(len(spans) for scope in _resources_and_scopes(doc)[1]
               if type(spans := scope.get("spans")) is list)


def _field(obj: Mapping[str, Any], key: str, prefix: str = "") -> str:
    """The name `obj` gives `key` (a lowerCamelCase name of `_PROTO_NAMES`) under: its proto field name when
    it holds that, else `key` (held or not). Both refuse the body: which value to read is anyone's guess."""
    proto_name = _PROTO_NAMES[key]
    if proto_name not in obj:
        return key
    if key in obj:
        raise _Invalid(prefix + proto_name, f"given beside {key}, the same field: give one of the two")
    return proto_name


_OUTDATED = ("instrumentationLibrarySpans", "instrumentation_library_spans")
"""What held spans before OTLP 0.19, with another shape (`instrumentationLibrary`, not `scope`): ignored as
unknown fields, a body of them would be answered 200 for spans never read, so it is refused with the
reason (400, no retry) and its spans are counted."""


def _scope_spans_key(resource_spans: dict[str, Any], prefix: str) -> str:
    """The key scopeSpans is under; `_Invalid` when they are empty and an `_OUTDATED` key holds any, as
    protobuf refuses (`_pb_not_outdated`), where an empty list is not on the wire: a JSON writer that
    writes empty fields (`"scopeSpans": []`) beside them was answered 200 for spans never read."""
    key = _field(resource_spans, "scopeSpans", prefix)
    if not _holds_any(resource_spans.get(key)):
        for outdated in _OUTDATED:
            if _holds_any(resource_spans.get(outdated)):
                raise _Invalid(prefix + outdated, _REPLACED.format("scopeSpans"))
    return key


def _holds_any(value: Any) -> bool:
    """Whether a repeated field's JSON value would be on protobuf's wire: a null or [] is not."""
    return value is not None and value != []


def _json_request(doc: Any) -> DecodedBatch:
    if type(doc) is not dict:
        raise _Invalid("", "not a JSON object (want an ExportTraceServiceRequest)")
    out = _Collector()
    for i, resource_spans in enumerate(_json_list(doc, _field(doc, "resourceSpans"), "")):
        where_rs = f"resourceSpans[{i}]"
        _json_object(resource_spans, where_rs)
        scope_spans_key = _scope_spans_key(resource_spans, f"{where_rs}.")
        resource_doc = resource_spans.get("resource") or {}
        _json_object(resource_doc, f"{where_rs}.resource")
        resource = _json_attributes(resource_doc, f"{where_rs}.resource.")
        for j, scope_spans in enumerate(_json_list(resource_spans, scope_spans_key, f"{where_rs}.")):
            where_ss = f"{where_rs}.scopeSpans[{j}]"
            _json_object(scope_spans, where_ss)
            scope = scope_spans.get("scope") or {}
            _json_object(scope, f"{where_ss}.scope")
            scope_name = _json_str(scope, "name", f"{where_ss}.scope.")
            for k, span in enumerate(_json_list(scope_spans, "spans", f"{where_ss}.")):
                where = f"{where_ss}.spans[{k}]"
                _json_object(span, where)
                try:
                    _json_span(out, where, span, resource, scope_name)
                except _Invalid as exc:
                    raise exc.under(f"{where}.") from None
    return out.batch()


def _json_span(out: _Collector, where: str, span: dict[str, Any], resource: Mapping[str, Any],
               scope_name: str) -> None:
    name = _json_str(span, "name", "")
    trace_id = _json_hex(span, "traceId")
    span_id = _json_hex(span, "spanId")
    problem, parent = _check_ids(trace_id, span_id, _json_hex(span, "parentSpanId"))
    if problem:
        out.reject(where, name, problem + _base64_hint(span, problem))
        return
    status = span.get("status") or {}
    _json_object(status, "status")
    out.spans.append(Span(
        trace_id=trace_id, span_id=span_id, parent_span_id=parent, name=name,
        start_time_unix_nano=_json_time(span, "startTimeUnixNano", ""),
        end_time_unix_nano=_json_time(span, "endTimeUnixNano", ""),
        kind=_json_enum(span.get("kind"), "kind", _SPAN_KINDS),
        attributes=_json_attributes(span, ""),
        events=tuple(_json_event(event, f"events[{n}]")
                     for n, event in enumerate(_json_list(span, "events", ""))),
        resource=resource, status_code=_json_enum(status.get("code"), "status.code", _STATUS_CODES),
        scope_name=scope_name,
        parent_is_remote=_parent_is_remote(_json_int(span.get("flags"), "flags", _UINT32))))


def _json_event(event: Any, where: str) -> SpanEvent:
    _json_object(event, where)
    prefix = f"{where}."
    return SpanEvent(_json_str(event, "name", prefix), _json_time(event, "timeUnixNano", prefix),
                     _json_attributes(event, prefix))


def _json_object(value: Any, where: str) -> None:
    if type(value) is not dict:
        raise _Invalid(where, "not a JSON object")


def _json_list(obj: dict[str, Any], key: str, prefix: str) -> list[Any]:
    value = obj.get(key)
    if value is None:
        return []
    if type(value) is not list:
        raise _Invalid(prefix + key, "not a list")
    return value


def _json_str(obj: dict[str, Any], key: str, prefix: str) -> str:
    value = obj.get(key)
    if value is None:
        return ""
    if type(value) is not str:
        raise _Invalid(prefix + key, "not a string")
    return value


def _json_hex(obj: dict[str, Any], key: str) -> str:
    """An id as lowercase hex; absent or null it is empty, which `_check_ids` rejects (traceId, spanId) or
    reads as no parent."""
    written = _field(obj, key)
    value = obj.get(written)
    if value is None:
        return ""
    if type(value) is not str:
        raise _Invalid(written, "not a hex string")
    return value.lower()


def _json_time(obj: dict[str, Any], key: str, prefix: str) -> int:
    written = _field(obj, key, prefix)
    return _json_int(obj.get(written), prefix + written, _UINT64)


def _base64_hint(span: Mapping[str, Any], problem: str) -> str:
    """Why an id of the right size is not hex, when it is base64: proto3's JSON mapping writes bytes so,
    and an exporter built on a generic protobuf-to-JSON library does, where OTLP/JSON wants hex."""
    field, _, what = problem.partition(" ")
    if not what.endswith("hex digits"):
        return ""
    size = (_TRACE_HEX if field == "traceId" else _SPAN_HEX) // 2
    try:
        decoded = base64.b64decode(span[_field(span, field)], validate=True)
    except ValueError:  # binascii.Error, or a character outside ASCII
        return ""
    return " (OTLP/JSON writes ids in hex, not base64)" if len(decoded) == size else ""


def _json_int(value: Any, where: str, bounds: tuple[int, int] = _INT64) -> int:
    """`value` of a field that is absent or null is None: the field's default, 0."""
    if value is None:
        return 0
    number = _integer(value)
    if number is None:
        raise _Invalid(where, f"not an integer: {_quoted(value)}")
    if not bounds[0] <= number <= bounds[1]:
        raise _Invalid(where, f"out of range: {_quoted(value)} (want {bounds[0]} to {bounds[1]})")
    return number


def _integer(value: Any) -> int | None:
    """A JSON number, or a string holding one (how proto3 JSON writes a 64-bit integer), that is whole:
    the mapping takes exponent notation, quoted or not ("1e3"). Python's `int` is not the reader: it
    took "1_000", " 7 " and Arabic-Indic digits, which no proto3 JSON writer sends and other receivers
    refuse, so an exporter's bug showed only once something else stood between."""
    if type(value) is int:
        return value
    if type(value) is str:
        if _JSON_NUMBER.fullmatch(value) is None:
            return None
        if _WHOLE.fullmatch(value):
            return int(value)
        try:
            number = decimal.Decimal(value)
        except decimal.InvalidOperation:
            return _past_decimal(value)
        if number != number.to_integral_value():
            return None
        # Past every field's range ("1e999999999"): said so, without making the integer
        return int(number) if _INT64[0] <= number <= _UINT64[1] else _UINT64[1] + 1
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def _past_decimal(value: str) -> int | None:
    """`_integer` of a JSON number whose exponent is past what `decimal` takes (about 10**18 either way,
    "1e1000000000000000000"), which it refuses with an InvalidOperation: zero if its digits are, else no
    integer below 1 (a negative exponent) or past every field's range."""
    digits, _, exponent = value.lower().partition("e")
    if not digits.strip("-0."):
        return 0
    return None if exponent.startswith("-") else _UINT64[1] + 1


_SPECIAL_DOUBLES = frozenset(("NaN", "Infinity", "-Infinity"))
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
"""A number as JSON writes one (RFC 8259): ASCII digits, no sign but "-", no leading zero, no blanks."""
_WHOLE = re.compile(r"-?(?:0|[1-9][0-9]{0,19})")


def _json_enum(value: Any, where: str, names: Mapping[str, int]) -> int:
    """An integer, or one of the enum's `names`; a string that is neither is refused listing the names,
    since "not an integer" misleads a sender that wrote a name."""
    if type(value) is str and value in names:
        return names[value]
    if type(value) is str and _integer(value) is None:
        raise _Invalid(where, f"not an integer nor one of {', '.join(names)}: {_quoted(value)}")
    return _json_int(value, where, _INT32)


def _json_attributes(obj: dict[str, Any], prefix: str) -> dict[str, Any]:
    return _json_key_values(_json_list(obj, "attributes", prefix), f"{prefix}attributes")


MAX_NESTING = jsontext.MAX_NESTING
"""Arrays and key-value lists one OTLP/JSON attribute value may hold within each other, 128, as many as
JSON text in a string attribute may (`ragmon.jsontext`); deeper is refused (a 400). Bounded here, not by
Python's recursion limit: on 3.12 `json.loads` no longer spends Python frames, so values nested ~500 deep
were let through that ragmon's accounting (`ragmon.traces.footprint`), called deeper in the stack, could
not size: a RecursionError from one hostile request. 128 is far past any real attribute (the protobuf
door stops at 48) and leaves decode, then footprint, over 450 of the 1,000 frames Python allows, on every
Python alike."""


class _TooDeep(Exception):
    """An attribute value nested deeper than `MAX_NESTING`, named at its attribute rather than by the path
    through each level."""


def _json_key_values(items: list[Any], where: str, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n, item in enumerate(items):
        # proto3 JSON leaves out a field holding its default (or writes it null), so an absent key is ""
        # (as the protobuf door reads it), not an error.
        if type(item) is not dict or ((key := item.get("key")) is not None and type(key) is not str):
            raise _Invalid(f"{where}[{n}]", "not a {key, value} object with a string key")
        try:
            out[key or ""] = _json_value(item.get("value"), depth)
        except _Invalid as exc:
            raise exc.under(f"{where}[{n}].value") from None
        except _TooDeep:
            if depth:
                raise
            raise _Invalid(f"{where}[{n}].value", "arrays and key-value lists nested more than "
                           f"{MAX_NESTING} levels deep: flatten it") from None
    return out


def _json_value(value: Any, depth: int = 0) -> Any:
    """An AnyValue; the first known field not null wins (under either name, `stringValue` or
    `string_value`), unknown fields are ignored, `{}` is an empty value (None, as the protobuf door reads an
    AnyValue with no field set), and so is `{"doubleValue": null}`. `depth`: the arrays and key-value lists
    it is within."""
    if value is None:
        return None
    if type(value) is not dict:
        raise _Invalid("", "not an AnyValue object")
    for key, item in value.items():
        convert = _JSON_ANY.get(key)
        if convert is not None and item is not None:
            try:
                return convert(item, depth) if convert in _JSON_NESTED else convert(item)
            except _Invalid as exc:
                raise exc.under(f".{key}") from None
    return None


def _json_string_value(value: Any) -> str:
    if type(value) is not str:
        raise _Invalid("", "not a string")
    return value


def _json_bool_value(value: Any) -> bool:
    if type(value) is not bool:
        raise _Invalid("", "not true or false")
    return value


def _json_double_value(value: Any) -> float:
    """A JSON number, or a string holding one or "NaN", "Infinity" or "-Infinity", as proto3 JSON writes a
    double; not what Python's `float` reads besides ("nan", "inf", " 1.5 ", "1_0.5")."""
    if type(value) is str and value not in _SPECIAL_DOUBLES and _JSON_NUMBER.fullmatch(value) is None:
        raise _Invalid("", f"not a number: {_quoted(value)}")
    if type(value) in (int, float, str):
        try:
            return float(value)
        except OverflowError:  # an integer beyond the largest double
            raise _Invalid("", "out of range for a double") from None
        except ValueError:
            pass
    raise _Invalid("", f"not a number: {_quoted(value)}")


def _json_bytes_value(value: Any) -> bytes:
    """Standard proto3 JSON bytes: base64, URL-safe alphabet and missing padding tolerated."""
    if type(value) is not str:
        raise _Invalid("", "not a base64 string")
    text = value.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except binascii.Error:
        raise _Invalid("", "not valid base64") from None


def _json_array_value(value: Any, depth: int) -> list[Any]:
    if type(value) is not dict:
        raise _Invalid("", "not an ArrayValue object")
    items = _json_list(value, "values", ".")
    out = []
    for n, item in enumerate(items):
        try:
            out.append(_json_value(item, _deeper(depth)))
        except _Invalid as exc:
            raise exc.under(f".values[{n}]") from None
    return out


def _json_kvlist_value(value: Any, depth: int) -> dict[str, Any]:
    if type(value) is not dict:
        raise _Invalid("", "not a KeyValueList object")
    return _json_key_values(_json_list(value, "values", "."), ".values", _deeper(depth))


def _deeper(depth: int) -> int:
    if depth == MAX_NESTING:
        raise _TooDeep
    return depth + 1


_JSON_NESTED: frozenset[Callable[[Any, int], Any]] = frozenset({_json_array_value, _json_kvlist_value})
"""The converters of `_JSON_ANY` given the depth too; the others take the value alone, as a wrapper taking
it for them had cost a batch of attributes 16% more Python calls (benchmarks/calls.py's otlp_json)."""
_JSON_ANY: dict[str, Callable[..., Any]] = {
    "stringValue": _json_string_value,
    "intValue": lambda v: _json_int(v, ""),
    "boolValue": _json_bool_value,
    "doubleValue": _json_double_value,
    "arrayValue": _json_array_value,
    "kvlistValue": _json_kvlist_value,
    "bytesValue": _json_bytes_value,
}
_JSON_ANY.update({_snake_case(key): convert for key, convert in _JSON_ANY.items()})
