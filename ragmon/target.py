"""`ragmon replay --target URL`: ask a running build the golden questions and score what its traces show.

Each question is POSTed to the candidate with a W3C `traceparent` whose trace id ragmon draws, so the
trace the candidate exports is matched to its question by an id ragmon chose, not by anything the
candidate says. The spans come back over OTLP/HTTP to a receiver embedded in the run (the sidecar's own
`add_otlp_routes`), are grouped by the same Assembler and read by the same extraction as live traffic.

Each example joins two sources: id, question, relevant_ids, ground_truth, category and extra come from
the golden file (what the build is tested against); contexts, answer and citations from the trace (what
the build did), and the pipeline from the trace unless the golden example names one. Answers in the
golden file are ignored.

The run stops with exit 2 (a RagmonError) rather than score part of the set: an unreachable target, a
non-2xx answer, a trace that never arrives or is not RAG each name the example ids concerned (and, given
the golden file's `Lines`, where they are). Before
that, a question whose answer may be transient (408, 429, 500, 502-504, a CDN's 520-524 and 529, a
timeout, a lost connection) is asked again, `retries` times, each under a new trace id: the failed
attempt may have exported part of a trace, which must not mix with the answered one. A build that answers
none of the first round of questions is not asked the rest. Until the build has answered once, and for
up to `start_wait`, what a build still starting gives (a refused or dropped connection, 429, 502-504, 521-523)
is asked again without counting as a retry.

The URL is shown in messages as `shown_target` gives it, without its secrets.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import email.utils
import errno
import ipaddress
import json
import logging
import math
import os
import re
import resource
import secrets
import socket
import ssl
import sys
import time
import zlib
from collections import Counter, defaultdict, deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from datetime import UTC
from pathlib import Path
from types import SimpleNamespace
from typing import TextIO
from urllib.parse import SplitResult, urljoin, urlsplit

import aiohttp
import yarl
from aiohttp import web

from ragmon.datasets.locate import LineOf
from ragmon.errors import ExamplesFailed, InputError, RagmonError, inert, printable
from ragmon.failures import service_name
from ragmon.model import Example
from ragmon.options import Flag, flag_of, shown_address
from ragmon.otlp.http import UnreadableRequests, add_otlp_routes, app_runner
from ragmon.otlp.limits import HTTP_CONNECTIONS
from ragmon.otlp.misdirected import REPLAY_RECEIVER, TRACES_PATH, endpoint_fix, grpc_client_advice
from ragmon.otlp.refusals import RefusalLog
from ragmon.otlp.sites import CappedSite
from ragmon.report.text import clip
from ragmon.semconv.extract import ExtractionError, extract_noted, request_count
from ragmon.semconv.unread import unread_note
from ragmon.setting_files import read_setting_file
from ragmon.traces import Assembler, Decided, Span, Trace

MAX_BODY = 16 << 20
"""The sidecar's default --max-body: a candidate's exporter batches are no larger here than in production."""
SHOWN_IDS = 10
"""Example ids named per problem in an error message; the rest are counted."""
SHOWN_PROBLEMS = 5
"""Distinct problems named in an error message, the commonest first; the rest are counted. Refusals whose
body quotes a request id differ one from the next: without a bound, the message grows with the set."""
SHOWN_BODY = 200
"""Characters of a refusal's body quoted in the error (and of a header or of an HTTP client error); the
rest of any answer is read and dropped."""
KEPT_BODY = 4096
"""Bytes of an answer's body, as sent, kept to decode the SHOWN_BODY characters quoted of it, and read of it
decoded: a body cut in the quote is said to be more than this when it is longer."""
MAX_WRONG_PATHS = 100
"""Distinct paths other than /v1/traces the receiver tells requests apart by."""
MAX_SERVICES = 100
"""Distinct service names the receiver tells the traces of trace ids ragmon did not send apart by."""
RECEIVER_GRACE = 1.0
"""Seconds an export still arriving when the run has done waiting gets to finish. A batch on loopback takes
milliseconds; an exporter stalled mid-body (its process hung, or paused in a debugger) held the run's end,
and a CI job's, for the receiver's own 30 s bound on a body."""

Lines = Mapping[str, tuple[str, LineOf]]
"""Each golden example's file, as errors name it, and its line, by example id (`datasets.located`):
`Example` carries neither, and every other error about a golden record names both."""


_RECEIVER_FLAG = Flag("--receiver-listen")


@dataclass(frozen=True, slots=True)
class Target:
    url: str = dataclass_field(repr=False)
    """May hold a key (basic auth, a query `?code=`): shown only through `shown_target`."""
    field: str = "question"
    concurrency: int = 4
    timeout: float = 30.0
    retries: int = 2
    receiver: tuple[str, int] = ("127.0.0.1", 4318)
    trace_wait: float = 30.0
    quiet: float = 10.0
    """How long after a trace's last span, once its root has arrived, it is taken as complete: twice the
    batch delay of the OpenTelemetry SDKs' span processors (5 s in Python, Java, Go and JavaScript, counted
    from the end of the previous export), so that a part ended after its root's batch left, or by another
    service, is in. At 500 ms a retrieval span exported 2 s after its root was left out, and at 5 s one in
    the SDK's next batch: the answer was scored with its contexts unknown, and a gate passed that failed
    with them. It delays only the run's end: spans of a trace decided earlier are still joined to it."""
    max_body: int = MAX_BODY
    """The largest request the receiver takes (--receiver-max-body): a build whose spans hold whole
    documents of megabytes sends larger batches than the sidecar's default."""
    headers: tuple[tuple[str, str], ...] = dataclass_field(default=(), repr=False)
    """Sent with every question (an Authorization token, say): kept out of the repr, which a traceback or
    a log line could print."""
    start_wait: float = 0.0
    """How long the build may take to answer its first question: a CI job that starts it and runs the gate
    at once would otherwise fail while it boots (a published Docker port accepts connections at once and
    drops them until the app is up; a gateway answers 502 or 503)."""
    receiver_setting: Flag = _RECEIVER_FLAG
    """How the receiver's address was set, which an error about its port names: the variable first, when
    one gave it (a CI job's environment), or a user told to change the flag looks for one never typed."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Target:
        """From the flags `ragmon replay` defines; bad settings are an InputError before any data is read."""
        target, receiver = flag_of(args, "--target"), flag_of(args, "--receiver-listen")
        _check_url(args.target, target)
        if args.receiver_listen is None:
            raise InputError(f"{receiver.given('off')} cannot be off with --target: the traces arrive there")
        _check_not_receiver(args.target, args.receiver_listen, target, receiver)
        if not args.target_field.strip():  # the build would get {"": question}: 422 to every question
            raise InputError(f"{flag_of(args, '--target-field')} is empty or blank: name the JSON field of "
                             f"the request body that carries the question (default question)")
        headers = () if args.target_header_file is None else read_headers(args.target_header_file)
        return cls(url=args.target, field=args.target_field, concurrency=args.target_concurrency,
                   timeout=args.target_timeout, retries=args.target_retries, receiver=args.receiver_listen,
                   trace_wait=args.trace_wait, quiet=args.trace_quiet, headers=headers,
                   start_wait=args.target_start_wait, max_body=args.receiver_max_body,
                   receiver_setting=receiver)


def _check_url(target: str, flag: Flag) -> None:
    """An InputError, naming the URL as `shown_target` shows it, for a --target no build can be asked at;
    `flag` names the setting, the variable first where it came from one."""
    try:
        url = urlsplit(target)
    except ValueError:  # an unclosed [IPv6] bracket
        url = urlsplit("")
    web = url.scheme in ("http", "https")
    if web and target.count("@") > url.netloc.count("@"):
        # `http://ci:1234/x@build/ask` asks host ci, port 1234, and an error naming them shows the password
        raise InputError(f"{flag.given(repr(shown_target(target)))} holds an '@' after its host, so where "
                         f"its credentials end is ambiguous: percent-encode a '/', '?' or '#' in the "
                         f"password (%2F, %3F, %23) and an '@' in the path or query (%40)")
    if not (web and url.hostname and _port_valid(url)):
        raise InputError(f"{flag} must be an http:// or https:// URL with a valid host and port, "
                         f"got {shown_target(target)!r}")
    if not _resolvable(url.hostname):
        raise InputError(f"{flag.given(repr(shown_target(target)))} names a host that cannot be looked up: a "
                         f"part of it between dots is empty or longer than 63 characters (a variable "
                         f"left empty in the URL?)")


def _check_not_receiver(target: str, receiver: tuple[str, int], target_flag: Flag,
                        receiver_flag: Flag) -> None:
    """An InputError for a --target at the run's own trace receiver (the build's OTLP endpoint given for
    its URL): each question went to the receiver, which answered 404, and the run failed after its retries
    quoting that 404 as the build's."""
    url = urlsplit(target)
    host, port = receiver
    if (url.port or _DEFAULT_PORTS[url.scheme]) != port or url.hostname is None \
            or not _reaches(url.hostname, host):
        return
    other = shown_address(host, _free_port_near(host, port, avoid=port))
    raise InputError(f"{target_flag.given(repr(shown_target(target)))} is ragmon's own trace receiver "
                     f"({receiver_flag.given(shown_address(host, port))}), so the questions would go to it, "
                     f"not to the build: give {target_flag.setting} the URL the build answers questions at, "
                     f"or, if the build listens on port {port}, give the receiver another "
                     f"({receiver_flag.setting} {other}) and export the build's spans there")


_DEFAULT_PORTS = {"http": 80, "https": 443}
_ANY_IPV4, _ANY = ipaddress.ip_address("0.0.0.0"), ipaddress.ip_address("::")
_LOOPBACK = {4: ipaddress.ip_address("127.0.0.1"), 6: ipaddress.ip_address("::1")}


def _reaches(target_host: str, listen_host: str) -> bool:
    """Whether a request to `target_host` can reach a listener bound to `listen_host`: an address in common
    (`localhost` is 127.0.0.1), or, for a listener on every interface (`::` takes IPv4 too), an address of
    this machine. Looked up only when the ports agree; a name that cannot be looked up reaches nothing."""
    targeted = {_dialled(address) for address in _addresses(target_host)}
    listening = _addresses(listen_host)
    if _ANY in listening:
        return any(_local(address) for address in targeted)
    if _ANY_IPV4 in listening:
        return any(_local(address) for address in targeted if address.version == 4)
    return not targeted.isdisjoint(listening)


def _dialled(address: ipaddress.IPv4Address | ipaddress.IPv6Address,
             ) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address a connection to `address` reaches. 0.0.0.0 and :: are every interface to a listener
    only: connected to, they are loopback (Linux dials 127.0.0.1 and ::1), so `http://0.0.0.0:4318/` was
    let through to the receiver on 127.0.0.1:4318. An IPv4-mapped address (`::ffff:127.0.0.1`) is its IPv4
    address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return _LOOPBACK[address.version] if address.is_unspecified else address


def _addresses(host: str) -> set[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return set()
    return {ipaddress.ip_address(str(info[4][0]).partition("%")[0]) for info in found}


def _local(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether `address` is this machine's: one a socket can bind to."""
    try:
        with socket.socket(socket.AF_INET6 if address.version == 6 else socket.AF_INET) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


def _port_valid(url: SplitResult) -> bool:
    try:
        return url.port != 0
    except ValueError:  # out of range, or not a number
        return False


def _resolvable(host: str) -> bool:
    """Whether the resolver takes this host name: Python's IDNA codec refuses an ASCII label that is empty
    or over 63 characters with a UnicodeError, which aiohttp lets through unwrapped, so the run ended in a
    traceback once the receiver was up. A non-ASCII name aiohttp encodes itself (IDNA 2008, which this
    codec is not), refusing one it cannot as an error the run reports."""
    if not host.isascii():
        return True
    try:
        host.encode("idna")
    except UnicodeError:
        return False
    return True


def shown_url(url: str) -> str:
    """`url` as messages show it, with the password of its userinfo and every query value (and any
    fragment) masked: `http://user:***@host/ask?api_key=***`. A --target often carries a key there (basic
    auth, an Azure Functions `?code=`), set as a CI secret, and the messages reach the CI log and every
    report, which CI publishes. A user name without a password is masked too: it is the key itself
    (`https://TOKEN@host`). The parts are where urllib finds them, read without urllib, which raises on
    some malformed URLs: a URL refused as malformed is shown as well. So a URL the build sent (a redirect's
    `Location`) is shown with its host: read to its last `@`, an SSO page's `?login_hint=ci@corp.com` made
    it `https://***@corp.com`."""
    return _masked(url, _secrets(url, to_last_at=False))


def shown_target(url: str) -> str:
    """The user's --target as messages show it: masked as `shown_url` masks it, and as it reads when its
    userinfo runs to the last `@`, whichever hides more of each character. A password holding an unencoded
    `/`, `?` or `#` (a generated one) was shown whole, as the path, query or fragment it seemed to begin;
    and read to the last `@` alone, an `@` in a query value (`?code=KEY&user=ci@corp.com`) made the key the
    user name shown."""
    return _masked(url, _secrets(url, to_last_at=False) + _secrets(url, to_last_at=True))


def _secrets(url: str, *, to_last_at: bool) -> list[tuple[int, int]]:
    """The spans of `url` to mask in one reading of it: its userinfo ending at the last `@` before the
    first `/`, `?` or `#` (urllib's), or at the last `@` of all (`to_last_at`); then the query values and
    the fragment after it."""
    scheme = _SCHEME.match(url)
    start = scheme.end() if scheme else 0  # no scheme: a host, or user:password@host, to begin with
    authority_end = len(url) if to_last_at else _first_of(url, "/?#", start)
    at = url.rfind("@", start, authority_end)
    if at < 0:
        return _query_secrets(url, start)
    return [_userinfo_secret(url, start, at), *_query_secrets(url, at + 1)]


def _first_of(text: str, characters: str, start: int) -> int:
    """Where the first of `characters` in `text` from `start` is; its length when none is."""
    return min((found for character in characters if (found := text.find(character, start)) >= 0),
               default=len(text))


def _userinfo_secret(url: str, start: int, at: int) -> tuple[int, int]:
    """The password; the userinfo whole when it has none (the user name is then the key), or when it holds
    a `/`, `?` or `#`: the part before its first `:` is then as likely a host, path and query as a user."""
    userinfo = url[start:at]
    user, colon, password = userinfo.partition(":")
    if not password or any(delimiter in userinfo for delimiter in "/?#"):
        return start, at
    return start + len(user) + len(colon), at


def _query_secrets(url: str, start: int) -> list[tuple[int, int]]:
    """The spans of every query value (an item without `=`, whole) and of the fragment after `start`."""
    hash_sign = url.find("#", start)
    end = len(url) if hash_sign < 0 else hash_sign
    spans = [] if hash_sign < 0 else [(hash_sign + 1, len(url))]
    question_mark = url.find("?", start, end)
    if question_mark < 0:
        return spans
    position = question_mark + 1
    for item in url[position:end].split("&"):
        equals = item.find("=")
        spans.append((position + equals + 1 if equals >= 0 else position, position + len(item)))
        position += len(item) + 1
    return spans


def _masked(url: str, spans: list[tuple[int, int]]) -> str:
    """`url` with each run of characters the `spans` cover (an empty one too) shown as `***`."""
    shown: list[str] = []
    position = 0
    for start, end in _merged(spans):
        shown += [url[position:start], "***"]
        position = end
    return "".join(shown) + url[position:]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans in order, those that overlap or touch made one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
"""A URL's scheme and the `//` of its authority."""
_URL_IN_TEXT = re.compile(_SCHEME.pattern + r"[^\s'\"<>]+")
"""A URL inside a message of aiohttp's: "Can not write request body for http://...", "url='http://...'"."""


def _urls_shown(text: str, target: str) -> str:
    """`text` with every URL in it as `shown_target` shows it: the URL aiohttp quotes is the --target's.
    Each way of writing the --target is replaced by its masked form before any URL is looked for, as
    `_URL_IN_TEXT` ends a URL at a quote, a space or a `<`, which a password or query value may hold: in
    `https://ci:pa'ss@build/ask` it found `https://ci:pa`, no `@` in it, and the rest was shown as text."""
    shown = shown_target(target)
    for form in _forms(target):
        text = text.replace(form, shown)
    return _URL_IN_TEXT.sub(lambda found: shown_target(found.group()), text)


def _forms(target: str) -> list[str]:
    """The --target as a message may write it, the longest first, so that one is not cut short by another
    it begins with: as given (aiohttp's InvalidURL quotes it so), and as yarl writes it in aiohttp's other
    messages, encoded (`str()`, which decodes `%27` back to `'`) or decoded (`human_repr()`), with or
    without its userinfo (aiohttp sends that as an Authorization header) and its fragment (never sent)."""
    forms = {target}
    with contextlib.suppress(ValueError):  # a URL yarl refuses is written only as given
        url = yarl.URL(target)
        for sent in (url, url.with_fragment(None)):
            for written in (sent, sent.with_user(None)):
                forms |= {str(written), written.human_repr()}
    return sorted(forms, key=len, reverse=True)


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP field name: a token (RFC 9110, 5.1)."""
_HEADER_VALUE = re.compile(r"[^\x00-\x08\x0a-\x1f\x7f]*")
"""Visible characters, spaces and tabs (RFC 9110, 5.5): a control character could split the request."""
_SET_BY_RAGMON = {"traceparent": "ragmon chooses each question's trace id",
                  "tracestate": "ragmon chooses each question's trace",
                  "content-type": "the body is JSON", "content-length": "it is the body's",
                  "transfer-encoding": "it is the body's", "host": "it is the --target URL's"}


def read_headers(path: Path) -> tuple[tuple[str, str], ...]:
    """`Name: value` per line of `path` (blank lines and `#` comments skipped), checked so that a typo fails
    the run before any question is asked, with the file and line named. A value is never quoted in an
    error: it is likely a secret, and errors reach CI logs."""
    try:
        text = read_setting_file(path, "utf-8-sig")  # -sig: Notepad and PowerShell 5 start with a BOM
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"cannot read the --target-header-file: {reason}", source=str(path)) from None
    headers: dict[str, tuple[int, tuple[str, str]]] = {}
    # Not splitlines(), which also splits at \x0c and the like: a value holding one must be refused whole.
    for number, line in enumerate(text.removesuffix("\n").split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip(" \t") or line.lstrip(" \t").startswith("#"):
            continue
        name, colon, value = (part.strip(" \t") for part in line.partition(":"))  # HTTP's whitespace only
        if not colon or not _HEADER_NAME.fullmatch(name):
            problem = "expected 'Name: value', with a header name of letters, digits and -"
        elif not _HEADER_VALUE.fullmatch(value):
            problem = f"the value of {name} holds a control character"
        elif name.lower() in _SET_BY_RAGMON:
            problem = f"{name} is set by ragmon: {_SET_BY_RAGMON[name.lower()]}"
        elif name.lower() in headers:
            problem = f"{name} is given twice (first on line {headers[name.lower()][0]})"
        else:
            headers[name.lower()] = (number, (name, value))
            continue
        raise InputError(f"--target-header-file: {problem}", source=str(path), line=number)
    return tuple(header for _, header in headers.values())


def collect(golden: Sequence[Example], target: Target, *, log: TextIO | None = sys.stderr,
            progress: Callable[[int, int], None] | None = None,
            set_aside: list[tuple[str, str]] | None = None, lines: Lines | None = None) -> list[Example]:
    """The golden examples answered live by the target, in the golden order. `progress(done, total)` is
    called as each question is answered or given up on: with a build taking seconds per answer, asking
    takes far longer than scoring, and a CI job that prints nothing for minutes is killed. `log` None
    (`--quiet`) prints nothing, the receiver's lines about requests it refused included: what stops the
    run is raised. Examples whose trace held several requests, of which the last is scored, are appended
    to `set_aside` as (example id, why), for the caller to say (`extract_noted`). The errors naming
    examples name their file and line too, those `lines` knows."""
    _check_questions(golden, lines)
    return asyncio.run(_collect(golden, target, log, progress, [] if set_aside is None else set_aside,
                                lines))


def _check_questions(golden: Sequence[Example], lines: Lines | None) -> None:
    """A blank question, before any is asked: the build would be asked nothing, and either refuse it (a
    422, which points at --target-field) or have its answer to nothing scored and gated on."""
    blank = [(example.id, "empty or blank, so the build would be asked nothing")
             for example in golden if not example.question.strip()]
    if blank:
        raise ExamplesFailed(f"{len(blank)} of {len(golden)} questions cannot be asked: "
                             f"{_by_reason(blank, lines)}", blank)


def new_trace_id() -> str:
    return _random_hex(16)


def traceparent(trace_id: str) -> str:
    """Flags 01 (sampled): the SDK's default parent-based sampler drops the whole trace without it."""
    return f"00-{trace_id}-{_random_hex(8)}-01"


def _random_hex(size: int) -> str:
    """W3C ids must not be all zeros."""
    while int(value := secrets.token_hex(size), 16) == 0:
        pass
    return value


async def _collect(golden: Sequence[Example], target: Target, log: TextIO | None,
                   progress: Callable[[int, int], None] | None,
                   set_aside: list[tuple[str, str]], lines: Lines | None) -> list[Example]:
    # 128 random bits each: a repeat among even millions of questions is far less likely than a bit flip.
    trace_ids = {example.id: new_trace_id() for example in golden}
    sink = TraceSink(set(trace_ids.values()), quiet=target.quiet, decision_wait=target.trace_wait)
    app = web.Application()
    logger = None if log is None else _receiver_log(log)
    add_otlp_routes(app, sink, max_body=target.max_body, token=None, max_body_flag="--receiver-max-body",
                    logger=logger, on_wrong_path=sink.wrong_path)
    # A gRPC exporter here, or a request aiohttp cannot parse: a line on `log`, not aiohttp's traceback.
    advice = grpc_client_advice(REPLAY_RECEIVER, None, None, grpc_flag=None)
    unreadable = UnreadableRequests(sink, lambda: advice, otlp=True, refusals=RefusalLog(logger))
    # The receiver inflates bodies itself, bounded by max_body (see ragmon.otlp.http).
    runner = app_runner(app, unreadable, access_log=None, auto_decompress=False,
                        shutdown_timeout=RECEIVER_GRACE)
    await runner.setup()
    try:
        host, port = target.receiver
        try:
            await CappedSite(runner, host, port, limit=HTTP_CONNECTIONS,
                             what=f"OTLP ({target.receiver_setting.named})").start()
        except OSError as exc:
            raise RagmonError(f"cannot listen for OTLP on {host}:{port} ({target.receiver_setting.named}): "
                              f"{exc.strerror or exc}{_port_taken(exc, host, port, target)}") from None
        endpoint = _http_url(host, int(runner.addresses[0][1]))
        _tell(log, f"receiving the target's spans on {endpoint} (OTLP/HTTP: "
                   f"OTEL_EXPORTER_OTLP_ENDPOINT={endpoint})")
        if target.start_wait > 0:
            _tell(log, f"waiting up to {target.start_wait:g}s for {shown_target(target.url)} to answer its "
                       f"first question (--target-start-wait)")
        replies: dict[str, _Reply] = {}
        failed, unasked, why = await _ask_all(golden, trace_ids, sink, target, progress, replies)
        if failed:
            stopped = f" and {len(unasked)} were not asked, {why}" if unasked else ""
            raise ExamplesFailed(f"{len(failed)} of {len(golden)} questions got no answer from "
                                 f"{shown_target(target.url)}{stopped}: {_by_reason(failed, lines)}",
                                 [*failed, *((example_id, f"not asked, {why}") for example_id in unasked)])
        if (undecoded := _undecoded(golden, replies)) is not None:
            _tell(log, undecoded)
        await sink.wait(time.monotonic() + target.trace_wait)
    finally:
        await runner.cleanup()
    if sink.rejected["too_large"]:
        # A batch of spans over --receiver-max-body, refused unread (so whose traces it held is unknown) and
        # not sent again: any answer may be scored without its documents, and a gate pass so proves nothing.
        # Not the other refusals: a 503 is sent again, and a body that is not OTLP (a probe, a scanner)
        # or a span without valid ids held nothing of a question's trace that could be read.
        raise RagmonError(f"the receiver refused spans the build exported as too large, so its answers may "
                          f"be scored on part of their traces{_receiver_problems(sink)}")
    return _join(golden, trace_ids, sink, target, set_aside, replies, lines)


def _undecoded(golden: Sequence[Example], replies: dict[str, _Reply]) -> str | None:
    """The one warning of a run whose 2xx answers had bodies that could not be decoded, naming the first
    (by golden id) and counting the rest: one line a question would bury the progress of a large set in a
    gateway's setting, repeated."""
    undecoded = [(example.id, reply.undecodable) for example in golden
                 if (reply := replies.get(example.id)) is not None and reply.undecodable is not None]
    if not undecoded:
        return None
    (first, why), more = undecoded[0], len(undecoded) - 1
    others = f" (and of {more} other question{'s' if more > 1 else ''})" if more else ""
    return (f"ragmon replay: warning: the body of the 2xx answer to {printable(first)}{others} could not be "
            f"decoded: {why}; the answer is read from its trace, so it is scored all the same (does a "
            f"gateway before the build set its Content-Encoding?)")


def _port_taken(error: OSError, host: str, port: int, target: Target) -> str:
    """The way out when the receiver's port is taken, as the default 127.0.0.1:4318 is by a `ragmon serve`
    or a Collector on the same machine: another port, which the build must export to. Not port 0, which
    the receiver could take: the build's OTLP endpoint is set when it starts, and no run could tell it.
    Not the --target's port either: free while the build is still starting (--target-start-wait), it was
    named, and the build then could not listen on its own port."""
    if error.errno != errno.EADDRINUSE:
        return ""
    other = _free_port_near(host, port, avoid=urlsplit(target.url).port)
    listen = shown_address(host, other)
    return (f" (by a ragmon serve or a Collector on this machine?): give the receiver another port, "
            f"{target.receiver_setting.setting} {listen} say, and export the build's spans there "
            f"(OTEL_EXPORTER_OTLP_ENDPOINT={_http_url(host, other)}); port 0 would take a port the build "
            f"does not know")


def _free_port_near(host: str, port: int, tries: int = 20, *, avoid: int | None = None) -> int:
    """The first port after `port` (before it, at the top of the range), other than `avoid`, that binds on
    `host` now: the next port alone was suggested however busy it was too. The next one when none of
    `tries` binds."""
    step = 1 if port < 65535 else -1
    candidates = [port + step * i for i in range(1, tries + 1)
                  if 0 < port + step * i <= 65535 and port + step * i != avoid]
    for candidate in candidates:
        try:
            with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
                probe.bind((host, candidate))
        except OSError:
            continue
        return candidate
    return port + step


def _tell(log: TextIO | None, line: str) -> None:
    """A line on `log`, if any. One it cannot take (a full disk under the CI log) is lost, and the run goes
    on: its OSError would stop a run that can still decide its gates (exit 2), as `ragmon.cli.note` says."""
    if log is not None:
        with contextlib.suppress(OSError):
            print(inert(line), file=log, flush=True)  # quoting the build's answers, ids: in a CI log


def _receiver_log(stream: TextIO) -> logging.Logger:
    """A logger for the embedded receiver's lines, on `stream`. A replay sets up no logging, so on the
    shared "ragmon.otlp" logger Python's last-resort handler would print the bare message and drop the
    fields that say which request it was (the path, in `detail`, and the peer), which the sidecar's log
    formats show. Not registered with `logging`: it changes nothing for a program that runs replays."""
    logger = logging.Logger("ragmon.replay.receiver", logging.WARNING)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_ReceiverFormatter())
    logger.addHandler(handler)
    return logger


class _ReceiverFormatter(logging.Formatter):
    """`warning: <message> from <peer> (<user agent>), answered <status>: <detail>`, the fields a
    RefusalLog line carries, every character that is not printable shown as its escape, as the sidecar's
    text log shows them: a request's path and user agent are the sender's, and a path holding
    "\x1b]52;c;..." had reached the terminal raw (a clipboard write, a cleared screen)."""

    def format(self, record: logging.LogRecord) -> str:
        fields = vars(record)
        agent = f" ({fields['user_agent']})" if fields.get("user_agent") else ""
        return inert(printable(f"{record.levelname.lower()}: {record.getMessage()} from {fields.get('peer')}"
                               f"{agent}, answered {fields.get('status')}: {fields.get('detail')}"))


async def _ask_all(golden: Sequence[Example], trace_ids: dict[str, str], sink: TraceSink, target: Target,
                   progress: Callable[[int, int], None] | None,
                   replies: dict[str, _Reply]) -> tuple[list[tuple[str, str]], list[str], str]:
    """(example id, what went wrong) for every question without a 2xx answer after its retries, the ids of
    the questions not asked, and why they were not (`as none was answered`); a retry moves the
    example to a new trace id, in `trace_ids` and in what `sink` waits for. Each 2xx answer is put in
    `replies`, by example id.

    Until the build has answered once, only the first round of questions (as many as are asked at once)
    is asked. If every one of them fails, the build is taken to be down and the rest are not asked: the
    run stops with exit 2 from the first failure anyway, and a build that lets every request time out
    would otherwise hold it for timeout x tries x questions / concurrency (hours, for a few thousand
    questions). A build that answers keeps being asked them all, so every question it fails on is named,
    until it stops answering at all: once as many questions in a row as are asked at once end with no
    answer begun (`_Reply.silent`) or refused as too many (a 429: a quota used up), the rest are not
    asked either. A build that hung mid-run (a deadlock, a pool of connections used up) had each of them
    time out, tries times: hours, until the CI job's own limit killed the run, and its report named none
    of them; and as a 429 holds every question back, a used-up quota had each refused tries times, one
    pause after another. Only a question that failed counts, never an attempt answered on its retry, so
    a run stopped so had exited 2 anyway.

    Until it has answered once, a failure of a build still starting is asked again, without counting as a
    retry, until --target-start-wait is over; then the question stops with that said. A published Docker
    port accepts connections while the app boots and drops each one, and a gateway answers 502 or 503:
    waiting for the port alone would fail the run in seconds."""
    ready_by = time.monotonic() + target.start_wait
    slots = _Slots(target.concurrency)
    first_round = min(target.concurrency, len(golden))
    answered = failed = silent = 0
    known = asyncio.Event()  # whether the build answers: once it has, or once the first round all failed
    # A pool as large as the concurrency: with aiohttp's default of 100, questions beyond it would wait for
    # a connection, and that wait counts against --target-timeout.
    connector = aiohttp.TCPConnector(limit=target.concurrency)
    # Bodies are decoded by `_decoded`, not aiohttp: a body its Content-Encoding does not describe (a
    # gateway's, or br without Brotli installed) was a failed request, asked again, though the build had
    # answered; and of an encoding aiohttp cannot decode, even the status was lost.
    async with aiohttp.ClientSession(connector=connector, auto_decompress=False, trace_configs=[_sending()],
                                     timeout=aiohttp.ClientTimeout(total=target.timeout)) as session:

        async def ask(index: int, example: Example) -> str | None:
            nonlocal answered, failed, silent
            if index >= first_round:
                await known.wait()
                if not answered:
                    return _NOT_ASKED
            attempt = 0
            resent = asked = False
            while True:
                async with slots.taken(again=asked):
                    if not asked and silent >= first_round:  # the build stopped answering meanwhile
                        return _NOT_ASKED
                    asked = True
                    reply = await _ask(session, target, example.question, trace_ids[example.id])
                if reply.stale and not resent:  # no answer of the build's, and no retry of its question
                    resent = True
                    trace_ids[example.id] = sink.replace(trace_ids[example.id])
                    continue
                problem, retry_in = reply.problem, reply.retry_in
                if problem is None:
                    replies[example.id] = reply
                if problem is None or retry_in is None:
                    break
                if reply.starting and not answered and target.start_wait > 0:
                    left = ready_by - time.monotonic()
                    if left <= 0:
                        problem = (f"the build did not become ready within --target-start-wait "
                                   f"{target.start_wait:g}s (last: {problem})")
                        break
                    retry_in = min(max(retry_in, RETRY_PAUSE), left)  # not at once: it is booting
                elif attempt == target.retries:
                    break
                else:
                    attempt += 1
                    retry_in = _pause(retry_in, reply.throttled, attempt)
                if reply.throttled:
                    slots.hold(retry_in)
                trace_ids[example.id] = sink.replace(trace_ids[example.id])
                await asyncio.sleep(retry_in)  # outside the slots: a pause takes no request's place
            if problem is None:
                answered += 1
            else:
                failed += 1
            silent = silent + 1 if problem is not None and (reply.silent or reply.throttled) else 0
            if answered or failed == first_round:
                known.set()
            if progress is not None:
                progress(answered + failed, len(golden))
            if not problem or not (attempt or resent):
                return problem
            # The resend counts as asked: the build's access log shows it.
            again = ", once again at once as the build closed its kept-alive connection" if resent else ""
            return f"{problem} (asked {attempt + 1 + resent} times{again})"

        problems = await asyncio.gather(*(ask(index, example) for index, example in enumerate(golden)))
    failures = [(example.id, problem) for example, problem in zip(golden, problems, strict=True)
                if problem and problem is not _NOT_ASKED]
    unasked = [example.id for example, problem in zip(golden, problems, strict=True) if problem is _NOT_ASKED]
    return failures, unasked, _not_asked(answered, first_round)


def _not_asked(answered: int, first_round: int) -> str:
    """Why questions were not asked (`as none was answered`), for an error naming the questions without
    an answer."""
    if not answered:
        return "as none was answered"
    last = "the last question asked" if first_round == 1 else f"the last {first_round} questions asked"
    return (f"as the build stopped answering ({last} got no answer: every try timed out, was dropped or was "
            f"refused as too many)")


class _Slots:
    """As many requests in flight at once as --target-concurrency, a question asked again served before
    any not yet asked, and none sent while a 429 holds them back (`hold`). Served in turn, every question
    of a build that hung was asked before any had used up its retries (each retry waited behind the
    questions queued at the start), so the build could not be seen to have stopped answering until all
    had been asked, tries times."""

    def __init__(self, size: int) -> None:
        self._free = size
        self._waiting: tuple[deque[asyncio.Future[None]], deque[asyncio.Future[None]]] = (deque(), deque())
        """The requests waiting for a slot: those asked again, then those not yet asked."""
        self._resume_at = -math.inf
        """When requests may go out again (time.monotonic())."""

    @contextlib.asynccontextmanager
    async def taken(self, *, again: bool) -> AsyncIterator[None]:
        """A slot held for the block, entered once no hold is on; `again` for a question asked before."""
        if self._free and not any(self._waiting):
            self._free -= 1
        else:
            await self._queued(self._waiting[not again])
        try:
            while (held := self._resume_at - time.monotonic()) > 0:  # a hold may be made longer meanwhile
                await asyncio.sleep(held)
            yield
        finally:
            self._release()

    def hold(self, seconds: float) -> None:
        """No request goes out for `seconds` from now (longer if held so already). A 429 refuses the rate
        of requests, not one question: while only its own question waited, the others went out and were
        refused in turn, each using up its tries, so a build behind a rate limit failed the run at any
        --target-concurrency."""
        self._resume_at = max(self._resume_at, time.monotonic() + seconds)

    async def _queued(self, queue: deque[asyncio.Future[None]]) -> None:
        """Until `_release` hands this request a slot; cancelled (a stop signal), it hands it on."""
        turn = asyncio.get_running_loop().create_future()
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if not turn.cancelled():
                self._release()
            else:
                with contextlib.suppress(ValueError):  # a release meanwhile passed it over
                    queue.remove(turn)
            raise

    def _release(self) -> None:
        for queue in self._waiting:
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self._free += 1


_NOT_ASKED = "not asked"
"""A question left out once the build was found down or no longer answering; told apart from problems by
identity."""
_TRANSIENT = frozenset({408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529})
"""Answers worth asking again: the build, or the gateway or CDN before it, was busy or broke for a moment
(Cloudflare's 520-524: the origin answered nothing usable, was down or unreachable, or timed out; 529:
overloaded). Other 4xx are the request's, and other 5xx say the same every time: 501 and 505 (not
implemented, HTTP version), 507 (storage full), 508, 510, 511, and a CDN's 525-527 (its TLS to the
origin)."""
_STARTING = frozenset({429, 502, 503, 504, 521, 522, 523})
"""Answers of a build still starting, or of the gateway before it: the app is not up yet, or is warming."""
RETRY_PAUSE = 0.5
"""Seconds before asking again when the answer did not say (no Retry-After)."""
MAX_RETRY_AFTER = 30.0
"""A longer Retry-After is not honoured: the retry comes after this many seconds."""


@dataclass(frozen=True, slots=True)
class _Reply:
    """What one request got."""

    problem: str | None = None
    """What went wrong; None for a 2xx answer."""
    retry_in: float | None = None
    """Seconds to wait before asking again; None when it is not worth it."""
    starting: bool = False
    """Whether it is what a build still starting gives."""
    page: str | None = None
    """A 2xx answer that is a web page, quoted: a gateway's error page, a login page or a web app answers
    200 in the build's place, and the trace that then never comes is no fault of the build's exporter."""
    undecodable: str | None = None
    """Why the body could not be decoded. The answer is read from the trace, so a 2xx answer still counts:
    its encoding is the gateway's concern, and the run's only loss is the start of the body to quote."""
    stale: bool = False
    """Whether the request went out on a kept-alive connection that was lost before any answer, within
    STALE_WITHIN of the request's last bytes going out: the build closed it, idle, as the request was sent
    (its keep-alive timeout), which no HTTP client can rule out. Such a request is sent again at once, once
    per question, as browsers do; counted as a retry, it failed a question of a build that had not failed it
    under --target-retries 0, and used up a retry otherwise. A build that drops the question itself drops it
    again, and that failure counts."""
    silent: bool = False
    """Whether no answer began: the request was refused, lost or timed out before any status came."""
    throttled: bool = False
    """Whether it is a 429: too many requests, from this run as a whole."""


STALE_WITHIN = 1.5
"""Seconds after a request's last bytes went out on a kept-alive connection within which losing that
connection is taken for the build's idle close crossing the request: that close comes within a round trip,
but the loss is seen only when this process next runs, and a full garbage collection of a process that has
imported a RAG stack takes 0.36 s on an idle machine. With 0.5 s, a loaded CI runner saw such a close
late, and failed a question the build never failed. A loss later is the build failing a question it had
(a worker dying mid-answer, its model called and paid): sent again, it was paid twice, and the crash left
the run."""


def _sending() -> aiohttp.TraceConfig:
    """The tracing that tells a stale connection (`_Reply.stale`) apart: a request's `trace_request_ctx`, a
    dict, gets "reused" when it goes out on a kept-alive connection, and "sent", the time.monotonic() its
    headers or a chunk of its body was last handed to the connection."""
    config = aiohttp.TraceConfig()
    config.on_connection_reuseconn.append(_reused)
    config.on_request_headers_sent.append(_sent)
    config.on_request_chunk_sent.append(_sent)
    return config


async def _reused(session: aiohttp.ClientSession, context: SimpleNamespace,
                  params: aiohttp.TraceConnectionReuseconnParams) -> None:
    context.trace_request_ctx["reused"] = True


async def _sent(session: aiohttp.ClientSession, context: SimpleNamespace,
                params: aiohttp.TraceRequestHeadersSentParams | aiohttp.TraceRequestChunkSentParams) -> None:
    context.trace_request_ctx["sent"] = time.monotonic()


def _stale(sending: dict[str, float]) -> bool:
    """Whether a connection lost before any answer was the build's idle close of a kept-alive one: the
    request was sent on one, and lost before it was written or within STALE_WITHIN after."""
    sent = sending.get("sent")
    return "reused" in sending and (sent is None or time.monotonic() - sent <= STALE_WITHIN)


async def _ask(session: aiohttp.ClientSession, target: Target, question: str, trace_id: str) -> _Reply:
    headers = {**_accepted(target.headers), **dict(target.headers), "traceparent": traceparent(trace_id)}
    status: int | None = None
    sending: dict[str, float] = {}
    try:
        # No redirect is followed. aiohttp would take the question, and every header but Authorization (an
        # API key of the header file), to whatever host the redirect names, even over plain http, and show
        # the start of that host's answer in the CI log: a build under test could make the runner fetch
        # internal addresses. A 301 or 302 would also turn the POST into a GET without the question.
        async with session.post(target.url, json={target.field: question}, headers=headers,
                                allow_redirects=False, trace_request_ctx=sending) as response:
            status = response.status
            kept, whole = await _read_body(response.content, KEPT_BODY, to_end=200 <= status < 300)
            head, whole, undecodable = _decoded(response.headers.get("Content-Encoding", ""), kept, whole)
            return _replied(response, head, whole, target, undecodable)
    except TimeoutError:
        # A build streaming its answer is not "not answering": what to raise is the same flag.
        within = f"within --target-timeout {target.timeout:g}s"
        if status is None:
            return _Reply(f"no answer {within}", RETRY_PAUSE, silent=True)
        return _Reply(f"the HTTP {status} answer did not end {within}", RETRY_PAUSE)
    except aiohttp.ClientConnectorError as exc:
        # A TLS failure is the same every time: a URL or certificate to fix, not a build to wait for.
        where = exc.host if exc.port is None else shown_address(exc.host, exc.port)  # [::1]:8080
        if exc.os_error.errno in _OUT_OF_FILES:
            return _Reply(_out_of_files(exc.os_error.errno, where, target.concurrency))
        refused = not isinstance(exc, aiohttp.ClientSSLError)
        return _Reply(f"cannot connect to {where} ({_connect_problem(exc.os_error)})", RETRY_PAUSE,
                      refused, silent=refused)
    except aiohttp.ClientResponseError as exc:
        # The answer's head is not HTTP/1.1 that aiohttp's parser reads (the only ClientResponseError of a
        # request that follows no redirect and checks no status), named "400, message=...": an HTTP 400
        # the build never sent, with the message's line breaks escaped.
        return _Reply(_not_http(exc.message), RETRY_PAUSE)
    except aiohttp.ClientPayloadError as exc:
        # aiohttp names the cut as its parser's "<ContentLengthError: 400, ...>", which read as an HTTP 400
        # the build never sent.
        cut = getattr(exc.__cause__, "message", None) or str(exc)
        return _Reply(f"the HTTP {status} answer ended before its body did ({clip(cut, SHOWN_BODY)})",
                      RETRY_PAUSE)
    except aiohttp.ClientError as exc:
        # aiohttp's may span lines, and quote the URL ("Can not write request body for http://...").
        problem = f"request failed ({clip(_urls_shown(str(exc), target.url), SHOWN_BODY)})"
        lost = isinstance(exc, aiohttp.ClientConnectionError)
        unanswered = lost and status is None
        return _Reply(problem, RETRY_PAUSE, lost, stale=unanswered and _stale(sending), silent=unanswered)


def _not_http(message: str) -> str:
    """An answer aiohttp's parser cannot read, with what the parser said on one line (its caret line
    dropped). A status line it cannot read is most often a port that does not speak HTTP/1.1: a gRPC or
    other HTTP/2-only port, or a TLS one asked over http://, whose first bytes are no status line."""
    said = " ".join(part for line in message.splitlines() if (part := line.strip()) and part != "^")
    wrong_port = said.startswith("Bad status line")
    hint = "is --target the build's HTTP port, not its gRPC or TLS one?" if wrong_port else ""
    detail = "; ".join(part for part in (clip(said, SHOWN_BODY), hint) if part)
    return "the answer is not HTTP ragmon can read" + (f" ({detail})" if detail else "")


def _replied(response: aiohttp.ClientResponse, head: bytes, whole: bool, target: Target,
             undecodable: str | None) -> _Reply:
    """What an answer of `response`'s status says, `head` the start of its body (`whole` when that is all
    of it), decoded unless `undecodable` says why it could not be."""
    status = response.status
    if 300 <= status < 400:
        # The build's, any bytes; an http -> https redirect repeats the URL, its key included.
        location = response.headers.get("Location")
        if location is None:  # "redirect to ?" pointed at a URL to give as --target, and there is none
            return _Reply(f"HTTP {status} with no Location header, so no URL to follow (is --target the "
                          f"URL the build answers questions at?)")
        shown = clip(shown_url(_resolved(target.url, location)), SHOWN_BODY)
        return _Reply(f"HTTP {status} redirect to {shown} (not followed, as it could take the question and "
                      f"any --target-header-file headers to another host: give that URL as --target)")
    if 200 <= status < 300:
        return _Reply(page=_refusal(status, head, whole) if _is_page(response.content_type, head) else None,
                      undecodable=undecodable)
    quoted = (_refusal(status, head, whole) if undecodable is None
              else f"HTTP {status} (body not shown: {undecodable})")
    problem = (quoted + _field_hint(status, target.field)
               + _credentials_hint(status, target.headers) + _rate_hint(status))
    if status not in _TRANSIENT:
        return _Reply(problem)
    return _Reply(problem, _retry_after(response.headers.get("Retry-After")), status in _STARTING,
                  throttled=status == 429)


def _resolved(base: str, location: str) -> str:
    """The URL a Location names: a relative one (`/ask/`, as a framework adding a trailing slash gives it)
    is of the --target's host, and only a whole URL can be given as --target. As given when malformed."""
    try:
        return urljoin(base, location)
    except ValueError:
        return location


_PAGE_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_PAGE_STARTS = (b"<!doctype html", b"<html")


def _is_page(content_type: str, head: bytes) -> bool:
    """Whether an answer is a web page: by its type, or by its first bytes when a server mislabels it."""
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip().lower()  # a UTF-8 byte order mark, then spaces
    return content_type in _PAGE_TYPES or start.startswith(_PAGE_STARTS)


def _refusal(status: int, head: bytes, whole: bool) -> str:
    """`HTTP 503 (the body's start)`, on one line: the body is the build's, and an ANSI escape or a NUL in
    it must not reach the terminal or the reports as it stands. `head` is the start of the body, `whole`
    when that is all of it. A body longer than SHOWN_BODY characters is cut at a word and said to be, with
    its size: cut mid-word and unmarked ("...so it must end in /v1/trac"), it read as the whole answer."""
    text = head.decode("utf-8", "replace")
    if whole and len(text) <= SHOWN_BODY:
        quoted = clip(text, SHOWN_BODY)
    else:
        size = f"{len(head)} bytes" if whole else f"more than {len(head)} bytes"
        quoted = f"{clip(_at_word(text, SHOWN_BODY), SHOWN_BODY).removesuffix('…')}... (cut: {size} in all)"
    return f"HTTP {status}" + (f" ({quoted})" if quoted else "")


def _at_word(text: str, width: int) -> str:
    """The first `width` characters of `text` or fewer, ending at a space when one is in their second
    half: a word cut in two can read as another."""
    head = text[:width + 1]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    return (head[:space] if space > width // 2 else head[:width]).rstrip()


def _field_hint(status: int, field: str) -> str:
    """For a 400 or 422, the likeliest cause: a build that reads the question from a field of its own
    (`query`, say; FastAPI answers 422 to a body without its model's fields), which only --target-field
    can name, and which the body quoted seldom says in those words."""
    if status not in (400, 422):
        return ""
    return (f" (a {status} refuses the request, here {{{json.dumps(field)}: <question>}}: if the build reads "
            f"the question from another JSON field, name that field with --target-field)")


def _credentials_hint(status: int, headers: tuple[tuple[str, str], ...]) -> str:
    """For a 401, 403 or 407, the likeliest cause: credentials the build, or a gateway before it, wants,
    which only --target-header-file sends; when it sent some, which ones, by name (the values are
    secrets)."""
    if status not in (401, 403, 407):
        return ""
    if not headers:
        return (" (the build, or a gateway before it, wants credentials: give them in --target-header-file, "
                "one 'Name: value' a line, 'Authorization: Bearer <token>' say)")
    return (f" (the build, or a gateway before it, refused the credentials sent: check the headers of "
            f"--target-header-file, {', '.join(name for name, _ in headers)})")


def _pause(said: float, throttled: bool, attempt: int) -> float:
    """Seconds before the `attempt`th retry (from 1): what the answer `said` (`_retry_after`), or for a 429
    (`throttled`), RETRY_PAUSE doubled for each retry before unless it said longer, at most
    MAX_RETRY_AFTER. A 429 without Retry-After (AWS API Gateway's throttling, nginx's limit_req) says to
    slow down, not for how long: at a fixed 0.5 s, every retry fell within a rate limit's window of a
    second or more."""
    if not throttled:
        return said
    return min(max(said, RETRY_PAUSE * 2 ** (attempt - 1)), MAX_RETRY_AFTER)


def _rate_hint(status: int) -> str:
    """For a 429, what lets the run through a rate limit: more retries, each pause twice the last
    (`_pause`), or fewer questions at once."""
    if status != 429:
        return ""
    return (" (the build, or a gateway before it, limits how often it is asked: raise --target-retries, "
            "the pause after each 429 twice the last, or lower --target-concurrency)")


def _retry_after(header: str | None) -> float:
    """Retry-After in seconds, from either of its forms (RFC 9110, 10.2.3: seconds, or an HTTP-date, which
    some gateways and rate limiters send: read as no advice, it had the question asked again after
    RETRY_PAUSE, and refused again), at most MAX_RETRY_AFTER; RETRY_PAUSE when it says nothing readable."""
    if header is None:
        return RETRY_PAUSE
    try:
        seconds = float(header)
    except ValueError:
        seconds = _seconds_until(header)
    return min(max(seconds, 0.0), MAX_RETRY_AFTER) if math.isfinite(seconds) else RETRY_PAUSE


def _seconds_until(date: str) -> float:
    """Seconds from now to an HTTP-date (negative once past); NaN when `date` is not one."""
    try:
        when = email.utils.parsedate_to_datetime(date)
    except (TypeError, ValueError, IndexError, OverflowError):
        return math.nan
    if when.tzinfo is None:  # "-0000": UTC, of a sender that does not say where it is
        when = when.replace(tzinfo=UTC)
    return when.timestamp() - time.time()


async def _read_body(stream: aiohttp.StreamReader, keep: int, *, to_end: bool) -> tuple[bytes, bool]:
    """The first `keep` bytes of a body, and whether they are the whole body. The answer itself is read
    from the trace, but a 2xx body is still read `to_end`, as a streaming build must finish answering
    before it ends its trace; held whole, a huge or endless one (bounded only by --target-timeout) would
    exhaust memory. Any other answer is read only for the start it quotes, and so far as it comes before
    --target-timeout: a 401 whose body stalled was told as a timeout, without its credentials hint, and
    asked again."""
    head = b""
    whole = True
    try:
        async for chunk in stream.iter_any():
            whole = whole and len(head) + len(chunk) <= keep
            head += chunk[:keep - len(head)]
            if not (to_end or whole):
                break
    except TimeoutError:
        if to_end:
            raise
        whole = False
    return head, whole


ACCEPTED_ENCODINGS = "gzip, deflate"
"""The Content-Encodings `_decoded` decodes, asked for unless --target-header-file names its own."""
_WINDOW_BITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
"""zlib's setting for each of them."""


def _accepted(headers: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The Accept-Encoding sent: aiohttp's own names br when Brotli is installed, which `_decoded` is not."""
    given = any(name.lower() == "accept-encoding" for name, _ in headers)
    return {} if given else {"Accept-Encoding": ACCEPTED_ENCODINGS}


def _decoded(encoding: str, kept: bytes, whole: bool) -> tuple[bytes, bool, str | None]:
    """The first KEPT_BODY bytes of a body whose first bytes, as sent, are `kept` (`whole` when that is
    all of it), decoded by its Content-Encoding; whether they are all of it, decoded; and why they cannot
    be decoded, when they cannot."""
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        return kept, whole, None
    if coding not in _WINDOW_BITS:
        return b"", whole, (f"Content-Encoding '{clip(encoding, SHOWN_BODY)}', which ragmon does not decode "
                            f"(it asks for {ACCEPTED_ENCODINGS})")
    bits = _WINDOW_BITS[coding]
    if coding == "deflate" and kept and kept[0] & 0x0F != 8:
        bits = -zlib.MAX_WBITS  # deflate without zlib's header, as some servers send it (aiohttp reads it)
    decoder = zlib.decompressobj(bits)
    try:
        head = decoder.decompress(kept, KEPT_BODY)
    except zlib.error as exc:
        return b"", whole, f"the body is not the {coding} its Content-Encoding says ({exc})"
    if whole and kept and not decoder.eof and len(head) < KEPT_BODY:
        return head, whole, f"the body ends before the {coding} its Content-Encoding says does"
    return head, whole and decoder.eof and not decoder.unconsumed_tail, None


_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE)
"""The errnos of a socket this process could not open: a limit of ragmon's, not of the build's."""


def _out_of_files(code: int, where: str, concurrency: int) -> str:
    """What a question is told when ragmon could not open a socket to ask it: "cannot connect to
    127.0.0.1:8080 (Too many open files)" read as the build's fault, and was asked again as a build's
    failure, though no request had left. Not asked again: the limit stays for the run."""
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    shown = "unlimited" if limit == resource.RLIM_INFINITY else str(limit)
    whose = (f"ragmon's own limit of open files (ulimit -n {shown})" if code == errno.EMFILE
             else "the open-files limit of the machine ragmon runs on")
    return (f"ragmon could not open a connection to {where} ({os.strerror(code)}: {whose}, not the "
            f"build's: raise `ulimit -n` or lower --target-concurrency from {concurrency})")


def _connect_problem(error: OSError) -> str:
    """asyncio words a refusal "Connect call failed (address)", so the errno's own text is plainer; but
    the resolver and TLS number their errors in their own spaces, where os.strerror would say
    "Unknown error -2" or "Operation not permitted"."""
    if isinstance(error, ssl.SSLError | socket.gaierror) or not error.errno:
        return error.strerror or str(error)
    return os.strerror(error.errno)


def _join(golden: Sequence[Example], trace_ids: dict[str, str], sink: TraceSink, target: Target,
          set_aside: list[tuple[str, str]], replies: dict[str, _Reply], lines: Lines | None) -> list[Example]:
    joined: list[Example] = []
    problems: list[tuple[str, str]] = []
    crowded = _most_requests(golden, trace_ids, sink) if len(sink.decided) < len(golden) else None
    asked = {example.id: _asked(example.question) for example in golden}
    asked_by: dict[str, str] = {}
    for example_id, question in asked.items():
        asked_by.setdefault(question, example_id)
    for example in golden:
        trace_id = trace_ids[example.id]
        trace = sink.decided.get(trace_id)
        if trace is None:
            reply = replies.get(example.id)
            page = None if reply is None else reply.page
            problems.append((example.id, _no_trace(sink, target.trace_wait, page, crowded)))
            continue
        try:
            observed, unscored = extract_noted(trace)
        except ExtractionError as exc:
            problems.append((example.id, _without_ids(exc, trace_id)))
            continue
        if observed is None:
            why = unread_note(trace)
            problems.append((example.id, "its trace has no retrieval or generation span (not RAG)"
                             + ("" if why is None else f": {why}") + _rag_elsewhere(sink)))
            continue
        answered = _asked(observed.question)
        if (answered != asked[example.id] and (other := asked_by.get(answered)) is not None
                and request_count(trace) == 1):
            problems.append((example.id, f"its trace answered the question of {printable(other)}, not its "
                             "own: the build mixed up concurrent requests (a request's question, answer or "
                             "trace context kept where another request finds it)"))
            continue
        if unscored is not None:
            set_aside.append((example.id, unscored))
        joined.append(replace(example, contexts=observed.contexts, answer=observed.answer,
                              citations=observed.citations, pipeline=example.pipeline or observed.pipeline))
    if problems:
        raise ExamplesFailed(f"{len(problems)} of {len(golden)} answers cannot be scored from their traces: "
                             f"{_by_reason(problems, lines)}{_receiver_problems(sink)}", problems)
    return joined


def _asked(question: str) -> str:
    """A question as compared with the golden ones: a build whose traces answer another golden question
    than the one sent mixed up its requests, and its answers had been scored against the wrong labels,
    the run passing. A question the build rewrote, or wrapped in its prompt, matches none of them. A trace
    holding several requests is told of as such (`_no_trace`), the others' traces missing."""
    return " ".join(question.split()).casefold()


def _no_trace(sink: TraceSink, trace_wait: float, page: str | None,
              crowded: tuple[str, int] | None) -> str:
    """Why a question's trace is missing, as far as the receiver can tell. A web page answered (`page`,
    quoted) is what answered in the build's place: asking about its exporter sent the user the wrong way.
    A question's trace that held several requests (`crowded`: its example id and how many) is a build
    that starts each request's span in the context an earlier request left (a context variable set once,
    a thread's span left open): the missing traces are in that one, and asking whether the build exports
    and propagates, which it does, hid the one trace that shows it.
    Traces under trace ids ragmon never sent, and none of any question's, are an app that starts a trace
    of its own for each request: it exports to the right place, and asking whether it does would send the
    user the wrong way too. Once some question's trace arrived, the app does continue the traceparent, and
    those are other traffic."""
    waited = f"no span of its trace arrived within --trace-wait {trace_wait:g}s"
    if page is not None:
        return (f"{waited}, and the answer was a web page, not an API's ({page}): does --target name the "
                f"build's API, or did a gateway, a login page or a web app answer in its place?")
    if crowded is not None:
        example_id, requests = crowded
        return (f"{waited}, but the trace of {printable(example_id)} held {requests} requests, not one: the "
                f"build keeps one request's trace context for the next ones (start each request's span in "
                f"the context opentelemetry.propagate.extract(request.headers) returns, never in one an "
                f"earlier request set or left open)")
    if not sink.foreign or sink.decided:
        return f"{waited} (is the target exporting OTLP/HTTP to the receiver and propagating traceparent?)"
    arrived = f"{sink.foreign} trace(s) arrived{_services(sink.foreign_services)}"
    return (f"{waited}, but {arrived} under trace ids ragmon did not send: the app is not continuing the "
            f"incoming traceparent (propagate it: start each request's span in the context "
            f"opentelemetry.propagate.extract(request.headers) returns, as OpenTelemetry's web framework "
            f"instrumentations do)")


def _rag_elsewhere(sink: TraceSink) -> str:
    """For a question's trace that is not RAG, the traces under trace ids ragmon never sent that are, when
    any arrived: the build lost the request's trace context before its RAG spans started (a thread pool, a
    task queue), so they began traces of their own. Told only "not RAG", a user looked for spans missing
    from the export, or for a convention ragmon does not read, while they had arrived."""
    if not sink.foreign_rag:
        return ""
    return (f"; but {sink.foreign_rag} trace(s) under trace ids ragmon did not send hold retrieval or "
            f"generation spans: the build likely starts them in a trace of their own, the request's trace "
            f"context lost on the way (a thread pool, a task queue: start them in the context of the "
            f"request's span, passed on with opentelemetry.context.attach)")


def _most_requests(golden: Sequence[Example], trace_ids: dict[str, str],
                   sink: TraceSink) -> tuple[str, int] | None:
    """The example whose trace that arrived held the most requests (the first in the golden order among
    equals) and how many, when one held more than one; else None."""
    counts = [(example.id, request_count(trace)) for example in golden
              if (trace := sink.decided.get(trace_ids[example.id])) is not None]
    crowded = max(counts, key=lambda count: count[1], default=None)
    return crowded if crowded is not None and crowded[1] > 1 else None


def _services(services: Counter[str]) -> str:
    """` (from service 'a')`, ` (from services 'a', 'b' and 3 others)`, the commonest first; nothing when
    no trace named its service. Quoted, not `repr`'d: the names were escaped when kept, and a repr escaped
    their backslashes again."""
    named = ", ".join(f"'{name}'" for name, _ in services.most_common(SHOWN_PROBLEMS))
    more = f" and {len(services) - SHOWN_PROBLEMS} others" if len(services) > SHOWN_PROBLEMS else ""
    return f" (from service{'s' if len(services) > 1 else ''} {named}{more})" if services else ""


def _receiver_problems(sink: TraceSink) -> str:
    """What the receiver refused, and where else than /v1/traces it was sent requests, with what to change
    in the exporter's settings for each path: the likeliest reason the traces are missing."""
    refused = "".join(f"; the receiver refused {count} span(s): {reason}"
                      + (" (requests over --receiver-max-body, or holding more values than a receiver "
                         "reads: raise --receiver-max-body, or export smaller batches)"
                         if reason == "too_large" else "")
                      for reason, count in sink.rejected.items())
    named = sink.wrong_paths.most_common(SHOWN_PROBLEMS)
    refused += "".join(f"; the receiver got {count} request(s) at {path}, not {TRACES_PATH} "
                       f"({endpoint_fix(path)})" for path, count in named)
    if unnamed := sink.wrong_requests - sum(count for _, count in named):
        refused += f"; and {unnamed} request(s) at other paths"
    return refused


class TraceSink:
    """The embedded receiver's sink: every span into an Assembler, the decided traces of our questions
    kept until the run ends, anything else (the target's other traffic) dropped when decided. At the
    deadline a question's trace is taken as it stands, as the sidecar does at decision_wait: one whose
    local root the Assembler cannot recognise (an INTERNAL entry span from an SDK that does not flag its
    remote parent) would otherwise be decided only after the replay stopped waiting, whatever the wait.

    A span of a question's trace arriving after the Assembler decided it is added to the kept trace,
    where the sidecar would count and drop it: the traces are only read once waiting is over, and a gate
    should score the whole trace the build produced. Decided traces are taken as spans arrive, not only
    once every question is answered: a large golden set fills the Assembler, whose evictions must be kept
    like any decision, and the late spans of an evicted trace joined to it."""

    def __init__(self, wanted: set[str], *, quiet: float, decision_wait: float,
                 max_traces: int = 20_000) -> None:
        self.wanted = wanted
        self.sent = set(wanted)
        """Every trace id a question was asked under, a failed attempt's too: its spans are no sign of an
        app that ignores the traceparent."""
        self.foreign = 0
        """Traces decided under trace ids ragmon never sent: the app's other traffic, or every request's
        when it starts a trace of its own instead of continuing the traceparent."""
        self.foreign_services: Counter[str] = Counter()
        """Those traces by `service.name`, for the first MAX_SERVICES names."""
        self.foreign_rag = 0
        """Those traces that hold a retrieval or generation span."""
        self.quiet = quiet
        self.joined_late = -math.inf
        """When a span last joined a trace already decided (time.monotonic): more of it may follow."""
        self.assembler = Assembler(quiet=quiet, decision_wait=decision_wait, max_traces=max_traces)
        self.decided: dict[str, Trace] = {}
        self.rejected: Counter[str] = Counter()
        self.wrong_requests = 0
        """Requests at no OTLP signal's path: most likely the target's spans."""
        self.wrong_paths: Counter[str] = Counter()
        """Those requests by path, for the first MAX_WRONG_PATHS paths."""
        self._changed = asyncio.Event()

    def offer(self, spans: Sequence[Span], transport: str) -> bool:
        for span in spans:
            if span.trace_id not in self.wanted:
                self.assembler.add(span)
                continue
            if self.assembler.add(span) == "late":
                if span.trace_id not in self.decided:
                    self._keep(self.assembler.pop_decided())  # evicted moments ago, in this very batch
                trace = self.decided.get(span.trace_id)
                if trace is not None and all(s.span_id != span.span_id for s in trace.spans):
                    self.decided[span.trace_id] = Trace(trace.trace_id, (*trace.spans, span))
                    self.joined_late = time.monotonic()
        self._keep(self.assembler.pop_decided())
        self._changed.set()
        return True

    def reject(self, count: int, reason: str) -> None:
        self.rejected[reason] += count

    def misdirected(self, transport: str, signal: str) -> None:
        """Nothing to count: the target's other signals are no concern of a replay, and a wrong path is
        counted by `wrong_path`, which is told the path."""

    def wrong_path(self, path: str) -> None:
        """Count a request at `path`. A path past MAX_WRONG_PATHS distinct ones (a scanner's) is counted in
        the total only, as each is kept until the run ends."""
        self.wrong_requests += 1
        shown = clip(path, SHOWN_BODY)
        if shown in self.wrong_paths or len(self.wrong_paths) < MAX_WRONG_PATHS:
            self.wrong_paths[shown] += 1

    def replace(self, trace_id: str) -> str:
        """A new trace id to wait for in place of `trace_id`, whose spans (a failed attempt's) are from
        now on the target's other traffic."""
        self.wanted.discard(trace_id)
        self.decided.pop(trace_id, None)
        fresh = new_trace_id()
        self.wanted.add(fresh)
        self.sent.add(fresh)
        return fresh

    async def wait(self, deadline: float) -> None:
        """Until every question's trace is decided and `quiet` has passed both since the call, made once
        every question is answered, and since a span last joined a decided trace; or until the deadline.
        A trace decided while its question was still being answered (a callee's root, a retriever's, ended
        it `quiet` before the model did; or decision_wait, counted from its first span, ran out) gets the
        spans the build exports after its answer, within an SDK's batch delay, as late ones: when the
        decisions alone were waited for, the run ended at the last answer, and that question was scored
        without its answer (left out of groundedness: a failing gate passed) or failed."""
        answered = time.monotonic()
        while True:
            self._keep(self.assembler.pop_decided())
            now = time.monotonic()
            settled = max(answered, self.joined_late) + self.quiet
            if len(self.decided) == len(self.wanted) and now >= settled:
                return
            if now >= deadline:
                self._keep(self.assembler.drain())
                return
            due = self.assembler.next_deadline()
            wake = deadline if due is None else min(deadline, due)
            if settled > now:
                wake = min(wake, settled)
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), wake - now)

    def _keep(self, decided: Sequence[Decided]) -> None:
        for done in decided:
            if done.trace.trace_id in self.wanted:
                self.decided[done.trace.trace_id] = done.trace
            elif done.trace.trace_id not in self.sent:
                self.foreign += 1
                self.foreign_rag += _is_rag(done.trace)
                name = service_name(done.trace, None)
                shown = None if name is None else clip(name, SHOWN_BODY)  # the app's: any characters
                if shown is not None and (shown in self.foreign_services
                                          or len(self.foreign_services) < MAX_SERVICES):
                    self.foreign_services[shown] += 1


def _is_rag(trace: Trace) -> bool:
    """Whether a trace holds a retrieval or generation span: one its extraction refuses does too."""
    try:
        observed, _ = extract_noted(trace)
    except ExtractionError:
        return True
    return observed is not None


def _by_reason(problems: Sequence[tuple[str, str]], lines: Lines | None) -> str:
    """`reason: id, id, ... (where) and N more` per distinct reason, the commonest SHOWN_PROBLEMS of them,
    so 500 refusals make one readable line; `where` is the shown ids' lines (`_where`)."""
    groups: defaultdict[str, list[str]] = defaultdict(list)
    for example_id, reason in problems:
        groups[reason].append(example_id)
    ordered = sorted(groups.items(), key=lambda group: -len(group[1]))  # stable: ties in the golden order
    parts = []
    for reason, ids in ordered[:SHOWN_PROBLEMS]:
        more = f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else ""
        parts.append(f"{reason}: {', '.join(ids[:SHOWN_IDS])}{_where(ids[:SHOWN_IDS], lines)}{more}")
    if rest := ordered[SHOWN_PROBLEMS:]:
        parts.append(f"and {sum(len(ids) for _, ids in rest)} more with {len(rest)} other problems")
    return "; ".join(parts)


def _where(ids: Sequence[str], lines: Lines | None) -> str:
    """` (golden.jsonl:2)`, ` (golden.jsonl lines 2, 5)`, or per file, ` (a.jsonl:2 and b.jsonl lines 1,
    4)`: the lines of `ids` in their order, each file named once, so ten ids cost a few characters each.
    Nothing for ids `lines` does not know. A line is found only here: in a whole-JSON file that walks its
    text (`datasets.locate`)."""
    by_file: dict[str, list[str]] = {}
    for example_id in ids:
        if lines is not None and (found := lines.get(example_id)) is not None:
            source, line_of = found
            by_file.setdefault(source, []).append(str(line_of()))
    files = [f"{source}:{numbers[0]}" if len(numbers) == 1 else f"{source} lines {', '.join(numbers)}"
             for source, numbers in by_file.items()]
    return f" ({' and '.join(files)})" if files else ""


def _without_ids(error: ExtractionError, trace_id: str) -> str:
    """The problem without the trace and span ids, which differ per example: with them, a build that
    breaks a convention on every trace would make one group, and one line, per example."""
    return str(error).removeprefix(f"trace {trace_id}: ").replace(f" (span id {error.span_id})", "", 1)


def _http_url(host: str, port: int) -> str:
    host = "127.0.0.1" if host in ("", "0.0.0.0") else host
    return f"http://{shown_address(host, port)}"
