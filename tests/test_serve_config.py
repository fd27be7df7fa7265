"""`ragmon serve`'s flags and RAGMON_* variables read into its settings, through the real CLI parser.

Bad values, which the CLI turns into one line and exit 2, are tested on the CLI itself (e.g. in
tests/test_service_pipelines.py).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from ragmon.cli import UsageError, build_parser
from ragmon.errors import InputError
from ragmon.serve_config import ServeConfig, read_token


def test_pipelines_flag_repeated_comma_separated_or_from_the_environment() -> None:
    def config(argv: list[str], environ: dict[str, str] | None = None) -> ServeConfig:
        return ServeConfig.from_args(build_parser("serve", environ or {}).parse_args(["serve", *argv]))

    repeated = config(["--pipelines", "a,b", "--pipelines", " c ", "--pipelines", "a"])
    assert repeated.pipelines == ("a", "b", "c")            # in order, blanks trimmed, each name once
    assert config([], {"RAGMON_PIPELINES": "a,b"}).pipelines == ("a", "b")
    assert config(["--pipelines", "c"], {"RAGMON_PIPELINES": "a,b"}).pipelines == ("c",)   # the flag wins
    unset = config([])
    assert (unset.pipelines, unset.max_pipelines) == (None, 20)       # DESIGN §5: default 20
    assert config(["--max-pipelines", "3"]).max_pipelines == 3


def test_workers_are_bounded_so_a_typo_cannot_start_a_thousand_processes() -> None:
    def workers(value: str) -> int:
        args = build_parser("serve", {}).parse_args(["serve", "--workers", value])
        return ServeConfig.from_args(args).workers

    assert (workers("1"), workers("64")) == (1, 64)
    for value in ("65", "1000", "0"):
        with pytest.raises(UsageError) as refused:
            workers(value)
        assert "--workers" in refused.value.message and value in refused.value.message


def test_a_shortened_label_can_be_listed_as_the_refusal_of_its_long_name_says() -> None:
    # A name over 128 bytes is refused by --pipelines with the label to list instead: that label, which
    # ends in "~" and 12 hex digits of the name's SHA-256, is taken.
    long = "checkout-" + "x" * 120
    label = "checkout-" + "x" * 106 + "~" + hashlib.sha256(long.encode()).hexdigest()[:12]
    args = build_parser("serve", {}).parse_args(["serve", "--pipelines", f"a,{label}"])
    assert ServeConfig.from_args(args).pipelines == ("a", label)


@pytest.mark.parametrize(("argv", "environ", "message"), [
    (["--max-buffer", "1KiB"], {},
     "--max-buffer 1024 bytes is under --max-body 16777216 bytes: the buffer must hold at least one "
     "request's spans"),
    ([], {"RAGMON_MAX_BUFFER": "1KiB"},
     "RAGMON_MAX_BUFFER 1024 bytes (--max-buffer) is under --max-body 16777216 bytes: the buffer must hold "
     "at least one request's spans"),
    # It started, received nothing, and answered /readyz 200 all the while.
    (["--grpc-listen", "off"], {"RAGMON_HTTP_LISTEN": "off"},
     "RAGMON_HTTP_LISTEN (--http-listen) and --grpc-listen are both off: the sidecar would receive no trace; "
     "leave one on"),
    # The second listener failed to bind after the workers started, blaming "another process" for ragmon's
    # own first one.
    (["--metrics-listen", "0.0.0.0:4318"], {},
     "--http-listen 127.0.0.1:4318 and --metrics-listen 0.0.0.0:4318 take the same port: the second could "
     "not listen; give each listener its own port"),
    (["--grpc-listen", "127.0.0.1:4318"], {"RAGMON_METRICS_LISTEN": "off"},
     "--http-listen 127.0.0.1:4318 and --grpc-listen 127.0.0.1:4318 take the same port: the second could "
     "not listen; give each listener its own port"),
    (["--http-listen", "off"], {"RAGMON_METRICS_LISTEN": "[::1]:4317", "RAGMON_GRPC_LISTEN": "[::1]:4317"},
     "RAGMON_GRPC_LISTEN [::1]:4317 (--grpc-listen) and RAGMON_METRICS_LISTEN [::1]:4317 (--metrics-listen) "
     "take the same port: the second could not listen; give each listener its own port"),
])
def test_settings_that_cannot_work_are_refused_naming_what_the_user_set(argv: list[str],
                                                                        environ: dict[str, str],
                                                                        message: str) -> None:
    args = build_parser("serve", environ).parse_args(["serve", *argv])
    with pytest.raises(InputError) as refused:
        ServeConfig.from_args(args)
    assert str(refused.value) == message


@pytest.mark.parametrize(("http", "grpc", "metrics"), [
    ("127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"),          # port 0: each its own free port
    ("127.0.0.1:4318", "127.0.0.2:4318", "off"),             # two addresses
    ("127.0.0.1:4318", "127.0.0.1:4317", "[::1]:4318"),      # IPv4 and IPv6 loopbacks: apart
])
def test_listeners_on_one_port_at_addresses_apart_are_taken(http: str, grpc: str, metrics: str) -> None:
    args = build_parser("serve", {}).parse_args(["serve", "--http-listen", http, "--grpc-listen", grpc,
                                                 "--metrics-listen", metrics])
    assert ServeConfig.from_args(args).http_listen is not None


@pytest.mark.parametrize(("text", "kind", "at"), [
    ("first-half\nsecond-half\n", "a line break", 11),  # a two-line file: stripped, the inner break stays
    ("two words", "a space", 4),
    ("caf\u00e9-token", "a non-ASCII character", 4),
    ("tab\x07bell", "a control character", 4),
])
def test_a_token_no_sender_can_send_is_refused_at_start_without_showing_it(tmp_path: Path, text: str,
                                                                          kind: str, at: int) -> None:
    # Every sender would get 401 with nothing at start to say why: headers carry visible ASCII only.
    path = tmp_path / "token"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as refused:
        read_token(path, None)
    assert str(refused.value) == (
        f"{path}: the token file (--token-file) holds {kind} at character {at}, which no sender can put in "
        "an Authorization header: a token is one word of visible ASCII")
    with pytest.raises(InputError, match=f"^RAGMON_TOKEN holds {kind} at character {at},"):
        read_token(None, text)


def test_a_token_of_visible_ascii_is_read_whole_and_stripped(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("  s3cr3t.T0ken~+/=\n", encoding="utf-8")
    assert read_token(path, "ignored: the file wins") == "s3cr3t.T0ken~+/="


def test_a_token_file_is_read_bounded_and_a_pipe_with_no_writer_does_not_hang(tmp_path: Path) -> None:
    # `--token-file /dev/zero` had read gigabytes before a MemoryError's traceback, and a named pipe with no
    # writer hung the start without a line. A pipe is read (a secret tool's `<(...)`): with no writer, empty.
    with pytest.raises(InputError) as refused:
        read_token(Path("/dev/zero"), None)
    assert str(refused.value) == ("/dev/zero: cannot read the token file (--token-file): it holds more than "
                                  "64 KiB, more than such a file holds")
    fifo = tmp_path / "token"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as refused:
        read_token(fifo, None)
    assert str(refused.value) == f"{fifo}: the token file (--token-file) is empty"


@pytest.mark.parametrize(("argv", "transports"), [
    ([], ("http", "grpc")),
    (["--grpc-listen", "off"], ("http",)),
    (["--http-listen", "off"], ("grpc",)),
])
def test_the_transports_are_the_receivers_that_listen(argv: list[str], transports: tuple[str, ...]) -> None:
    # What the exporter gives series to: a receiver turned off had them all the same.
    args = build_parser("serve", {}).parse_args(["serve", *argv])
    assert ServeConfig.from_args(args).transports == transports
