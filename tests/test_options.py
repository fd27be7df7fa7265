"""The value types every subcommand shares: one meaning for `2s`, `16MiB`, `0.1` and `host:port`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest

from ragmon.cli import UsageError, build_parser
from ragmon.options import (
    byte_size,
    duration,
    fraction,
    listen_address,
    mib,
    non_negative_int,
    number,
    positive_int,
    report_path,
)


def test_durations_in_every_unit() -> None:
    assert duration("500ms") == pytest.approx(0.5)
    assert duration("2s") == 2.0
    assert duration("5m") == 300.0   # 5 x 60
    assert duration("1h") == 3600.0
    assert duration("1.5") == 1.5    # a bare number is seconds


@pytest.mark.parametrize("bad", ["", "fast", "2 days", "1d"])
def test_a_bad_duration_names_the_value(bad: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not a duration"):
        duration(bad)


def test_byte_sizes_binary_and_decimal() -> None:
    assert byte_size("16MiB") == 16 * 1024 * 1024
    assert byte_size("512KiB") == 512 * 1024
    assert byte_size("1MB") == 1_000_000
    assert byte_size("1234") == 1234


@pytest.mark.parametrize("bad", ["", "1.5MiB", "12 parsecs", "0"])
def test_a_bad_size_is_refused(bad: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=r"size|at least"):
        byte_size(bad)


def test_fractions_stay_within_zero_and_one() -> None:
    assert fraction("0") == 0.0 and fraction("1") == 1.0 and fraction("0.02") == 0.02
    for bad in ("1.5", "-0.1", "half"):
        with pytest.raises(argparse.ArgumentTypeError):
            fraction(bad)


@pytest.mark.parametrize(("text", "message"), [
    ("50%", "not a number: '50%' (write 0.5 for 50%)"),
    ("95%", "not a number: '95%' (write 0.95 for 95%)"),
    ("95", "must be between 0 and 1: 95 (write 0.95 for 95%)"),
    ("2.5%", "not a number: '2.5%' (write 0.025 for 2.5%)"),
    # As --gate reads them: only a whole number from 2 to 100 is taken for a percentage without its %.
    ("1.5", "must be between 0 and 1: 1.5"),
    ("150", "must be between 0 and 1: 150"),
    ("half", "not a number: 'half'"),
])
def test_a_fraction_written_as_a_percentage_is_refused_with_the_share_to_write(text: str,
                                                                              message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        fraction(text)
    assert str(refused.value) == message


@pytest.mark.parametrize(("text", "message"), [
    ("0,85", "not a number: '0,85' (a decimal comma: write 0.85)"),
    ("0,850", "not a number: '0,850' (a decimal comma: write 0.850)"),
    ("1,5", "not a number: '1,5' (a decimal comma: write 1.5)"),
    ("1,000", "not a number: '1,000'"),  # may group thousands: no guess
    ("0,8,5", "not a number: '0,8,5'"),
])
def test_a_decimal_comma_is_refused_with_the_point_to_write(text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        number(text)
    assert str(refused.value) == message


def test_positive_int() -> None:
    assert positive_int("3") == 3
    for bad in ("0", "-2", "2.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            positive_int(bad)


def test_non_negative_int() -> None:
    assert (non_negative_int("0"), non_negative_int("2")) == (0, 2)
    with pytest.raises(argparse.ArgumentTypeError, match="must be 0 or more: -1"):
        non_negative_int("-1")
    with pytest.raises(argparse.ArgumentTypeError, match="not a whole number"):
        non_negative_int("two")


def test_listen_addresses_ipv4_ipv6_and_off() -> None:
    assert listen_address("127.0.0.1:4318") == ("127.0.0.1", 4318)
    assert listen_address("[::1]:4317") == ("::1", 4317)
    assert listen_address(":9464") == ("0.0.0.0", 9464)   # no host: every interface
    assert listen_address("off") is None and listen_address("OFF") is None
    for bad in ("4318", "localhost", "127.0.0.1:99999", "127.0.0.1:http"):
        with pytest.raises(argparse.ArgumentTypeError, match="not a listen address"):
            listen_address(bad)


@pytest.mark.parametrize(("text", "message"), [
    # Each was taken: `[::1:4318` listened on ::1, the rest failed only once the workers had started.
    ("[::1:4318", "not a listen address: '[::1:4318' (brackets enclose an IPv6 host: [::1]:4317)"),
    ("::1]:4318", "not a listen address: '::1]:4318' (brackets enclose an IPv6 host: [::1]:4317)"),
    ("::1:4318", "not a listen address: '::1:4318' (an IPv6 host goes in brackets: [::1]:port)"),
    ("https://0.0.0.0:4318/", "not a listen address: 'https://0.0.0.0:4318/' (a URL: give its host:port "
                              "alone, without 'https://')"),
    ("my host:4318", "not a host name: 'my host' in 'my host:4318' (it holds a space)"),
    # Brackets say IPv6; "[]" bound every IPv4 interface, as ":4318" does.
    ("[]:4318", "not a listen address: '[]:4318' (brackets enclose an IPv6 host: [::1]:4317)"),
    ("[:]:4318", "not a listen address: '[:]:4318' (brackets enclose an IPv6 host: [::1]:4317)"),
    ("[%eth0]:4318", "not a listen address: '[%eth0]:4318' (brackets enclose an IPv6 host: [::1]:4317)"),
    ("[localhost]:4318", "not a listen address: '[localhost]:4318' (brackets enclose an IPv6 host: "
                         "[::1]:4317)"),
])
def test_a_listen_address_the_resolver_would_misread_is_refused_saying_how_to_write_it(
        text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        listen_address(text)
    assert str(refused.value) == message


def test_spaces_around_a_listen_address_are_not_part_of_its_host() -> None:
    # A leading space made the host " 0.0.0.0", which no resolver knows; a trailing one was refused.
    assert listen_address(" 0.0.0.0:4318") == listen_address("0.0.0.0:4318 ") == ("0.0.0.0", 4318)
    assert listen_address(" [::]:4317 ") == ("::", 4317)


@pytest.mark.parametrize(("parse", "text", "message"), [
    # Negative: argparse used to take `-1s` for an option ("expected one argument"), see test_cli.
    (duration, "-1s", "a duration cannot be negative: '-1s'"),
    (duration, " -500ms", "a duration cannot be negative: '-500ms'"),
    (byte_size, "-1MiB", "must be at least 1 byte: -1MiB"),
    # float() and int() read "0_5" as 5 and "1_0" as 10, and other scripts' digits as 0-9.
    (fraction, "0_5", "not a number: '0_5'"),
    (fraction, "٠.٥", "not a number: '٠.٥' (write it with the digits 0-9)"),
    (fraction, "inf", "not a number: 'inf'"),
    (positive_int, "1_0", "not a whole number: '1_0'"),
    (positive_int, "٣", "not a whole number: '٣' (write it with the digits 0-9)"),
    (duration, "٢s", "not a duration: '٢s' (write it with the digits 0-9)"),
    (byte_size, "１MiB", "not a size: '１MiB' (write it with the digits 0-9)"),  # a full-width 1
])
def test_a_negative_value_or_digits_other_than_0_to_9_are_refused_saying_so(
        parse: Callable[[str], object], text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(text)
    assert str(refused.value) == message


def test_a_plain_number_still_reads_as_float_reads_it() -> None:
    assert (fraction(" 0.5 "), fraction(".25"), fraction("1e-1"), fraction("+1")) == (0.5, 0.25, 0.1, 1.0)
    assert (positive_int(" 7 "), positive_int("+3")) == (7, 3)


@pytest.mark.parametrize("parse", [positive_int, non_negative_int, byte_size])
def test_a_number_past_64_bits_is_refused_saying_how_large_one_may_be(parse: Callable[[str], int]) -> None:
    # `ragmon serve --max-traces 1000...0` (400 digits) was taken, and the sidecar stopped with an internal
    # error where its limit became a gauge's float.
    assert parse(str(2**63 - 1)) == 2**63 - 1
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(str(2**63))
    assert str(refused.value) == "too large: 9223372036854775808 (at most 9223372036854775807)"
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse("1" + "0" * 400)
    assert str(refused.value) == f"too large: 1{'0' * 29}... (at most 9223372036854775807)"


def test_a_report_path_is_a_file_to_write_not_empty_nor_standard_input() -> None:
    # `--json -` wrote a file named "-", where a dataset's "-" is standard input.
    assert report_path("r.json") == Path("r.json")
    for text, message in (("", "empty: name the file to write"),
                          ("-", "'-' is no file to write: to print the report, give /dev/stdout")):
        with pytest.raises(argparse.ArgumentTypeError) as refused:
            report_path(text)
        assert str(refused.value) == message


@pytest.mark.parametrize(("command", "argv", "flag"), [
    ("serve", ["--token-file", ""], "--token-file"),
    ("serve", ["--capture", "", "--capture-below", "0.3"], "--capture"),
    ("serve", ["--llm-budget-file", ""], "--llm-budget-file"),
    ("replay", ["g.jsonl", "--baseline", "", "--max-drop", "recall=0.1"], "--baseline"),
    ("replay", ["g.jsonl", "--target", "http://127.0.0.1:9/ask", "--target-header-file", ""],
     "--target-header-file"),
    ("replay", ["g.jsonl", "--cache-dir", ""], "--cache-dir"),
    ("calibrate", ["l.jsonl", "--cache-dir", ""], "--cache-dir"),
])
def test_an_empty_path_typed_is_refused_naming_its_flag(command: str, argv: list[str], flag: str) -> None:
    # `--flag "$VAR"` with the variable unset: a token file had been "." ("Is a directory"), a --baseline or
    # --capture read as not given, the run going on without it ("--max-drop needs --baseline").
    with pytest.raises(UsageError) as refused:
        build_parser(command, {}).parse_args([command, *argv])
    assert refused.value.message == (f"argument {flag}: empty: name the file (a variable left unset in the "
                                     "command line?)")


@pytest.mark.parametrize(("size", "shown"), [
    (16 * 2**20, "16 MiB"), (512 * 2**10, "0.50 MiB"), (471_859, "0.45 MiB"), (100, "0.01 MiB"),
    (3 * 2**19, "1.5 MiB"), (2**20 + 1, "1.1 MiB"), (10 * 2**20 + 1, "11 MiB"),
])
def test_a_small_size_in_a_message_is_shown_to_a_tenth_of_a_mib_never_as_less(size: int, shown: str) -> None:
    # Rounded up to whole MiB, --max-buffer 512KiB was told as "1 MiB" beside its 90% written 471859.
    assert mib(size) == shown
