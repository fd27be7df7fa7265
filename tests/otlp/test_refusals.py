"""The rate-limited refusal log, driven by an injected clock; the receivers' use of it is tested with them."""

from __future__ import annotations

import json
import logging

import pytest
from manual_clock import ManualClock

from ragmon.logs import JsonFormatter, TextFormatter
from ragmon.otlp.refusals import RefusalLog, grpc_peer_host

UA = "OTel-OTLP-Exporter-Python/1.45.0"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1000.0)


@pytest.fixture
def refusals(clock: ManualClock) -> RefusalLog:
    return RefusalLog(logging.getLogger("ragmon.otlp"), clock=clock)


def refuse(refusals: RefusalLog, reason: str = "decode_error", peer: str = "10.0.0.7",
           detail: str = "not valid JSON: Expecting value: line 1 column 1 (char 0)") -> None:
    status = {"decode_error": "400", "unauthorized": "401", "backpressure": "503"}[reason]
    refusals.refused(reason, status, transport="http", peer=peer, user_agent=UA, detail=detail)


def test_one_line_per_window_and_the_next_counts_the_ones_left_out(refusals, clock, refusal_records):
    refuse(refusals)
    for _ in range(5):  # t = +10 .. +50 s, all inside the 60 s window
        clock.now += 10
        refuse(refusals)
    clock.now = 1000.0 + 59.9
    refuse(refusals)  # the sixth, still inside: not logged either
    clock.now = 1000.0 + 60
    refuse(refusals)

    first, second = refusal_records()
    assert first.getMessage() == "OTLP request refused"
    assert (first.reason, first.status, first.peer) == ("decode_error", "400", "10.0.0.7")
    assert first.suppressed == 0
    # Six calls between the two lines (five at +10..+50 s and one at +59.9 s) were left out.
    assert second.getMessage() == "OTLP request refused ... and 6 more like it since the last line"
    assert second.suppressed == 6 and second.levelno == logging.WARNING


def test_the_count_restarts_after_each_line(refusals, clock, refusal_records):
    refuse(refusals)
    for _ in range(5):
        clock.now += 1
        refuse(refusals)
    clock.now = 1000.0 + 60  # the line after 60 s says "5 more"
    refuse(refusals)
    clock.now += 60  # nothing in between: the next line counts none
    refuse(refusals)
    assert [record.suppressed for record in refusal_records()] == [0, 5, 0]
    assert refusal_records()[1].getMessage().endswith("... and 5 more like it since the last line")


def test_reasons_and_peers_are_limited_separately(refusals, refusal_records):
    refuse(refusals, "decode_error", "10.0.0.7")
    refuse(refusals, "unauthorized", "10.0.0.7")
    refuse(refusals, "decode_error", "10.0.0.8")
    refuse(refusals, "decode_error", "10.0.0.7")
    assert [(r.reason, r.peer) for r in refusal_records()] == [
        ("decode_error", "10.0.0.7"), ("unauthorized", "10.0.0.7"), ("decode_error", "10.0.0.8")]


def test_back_pressure_is_info_and_limited_the_same_way(refusals, refusal_records):
    refuse(refusals, "backpressure")
    refuse(refusals, "backpressure")
    [record] = refusal_records()
    assert (record.levelno, record.reason, record.status) == (logging.INFO, "backpressure", "503")


def test_the_oldest_key_is_forgotten_past_the_bound(clock, refusal_records):
    refusals = RefusalLog(logging.getLogger("ragmon.otlp"), clock=clock, max_keys=2)
    for peer in ("a", "b", "c"):  # "c" pushes "a" out
        refuse(refusals, peer=peer)
    refuse(refusals, peer="c")  # remembered: left out
    refuse(refusals, peer="a")  # forgotten: logged again inside the window (and it pushes "b" out)
    refuse(refusals, peer="b")
    assert [r.peer for r in refusal_records()] == ["a", "b", "c", "a", "b"]


def test_client_text_is_clipped_to_one_short_line(refusals, refusal_records):
    refusals.refused("decode_error", "400", transport="http", peer="10.0.0.7",
                     user_agent="x" * 1000, detail="unknown field\n'" + "y" * 1000 + "'")
    [record] = refusal_records()
    # 300 characters at most: 297 of the text, then "...".
    assert record.user_agent == "x" * 297 + "..."
    assert record.detail == "unknown field '" + "y" * 282 + "..."


def test_both_log_formats_carry_the_fields(refusals, clock, refusal_records):
    refuse(refusals, "unauthorized", detail="missing or wrong bearer token")
    refuse(refusals, "unauthorized")
    clock.now += 60
    refuse(refusals, "unauthorized", detail="missing or wrong bearer token")
    record = refusal_records()[1]

    doc = json.loads(JsonFormatter().format(record))
    assert doc["level"] == "warning" and doc["logger"] == "ragmon.otlp"
    assert doc["message"] == "OTLP request refused ... and 1 more like it since the last line"
    assert {key: doc[key] for key in ("reason", "status", "transport", "peer", "user_agent", "suppressed",
                                      "detail")} == {
        "reason": "unauthorized", "status": "401", "transport": "http", "peer": "10.0.0.7", "user_agent": UA,
        "suppressed": 1, "detail": "missing or wrong bearer token"}

    text = TextFormatter().format(record)
    assert text.endswith("ragmon.otlp: OTLP request refused ... and 1 more like it since the last line "
                         f"reason=unauthorized status=401 transport=http peer=10.0.0.7 user_agent={UA} "
                         'suppressed=1 detail="missing or wrong bearer token"')


@pytest.mark.parametrize(("peer", "host"), [
    ("ipv4:10.0.0.7:53412", "10.0.0.7"),
    ("ipv6:%5B::1%5D:53412", "::1"),  # as grpcio 1.85 reports it
    ("ipv6:[fe80::1]:1", "fe80::1"),
    ("unix:/run/ragmon.sock", "unix:/run/ragmon.sock"),
])
def test_grpc_peers_lose_their_port(peer, host):
    assert grpc_peer_host(peer) == host
