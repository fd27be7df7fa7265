"""`ragmon replay --target`: what the user gives (the URL, the golden questions) is checked before any
question is asked, and a mistake is one line naming it, exit 2, never a traceback."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest
from aiohttp import web
from ports import free_port
from test_replay_target import live_target, run, serving

from ragmon.cli import main
from ragmon.errors import ExamplesFailed, RagmonError
from ragmon.model import Example
from ragmon.target import collect


@pytest.mark.parametrize(("url", "shown"), [
    # A CI template whose namespace variable was empty: `http://${SERVICE}.${NAMESPACE}.svc:8080/ask`.
    ("http://candidate..svc:8080/ask", "http://candidate..svc:8080/ask"),
    ("http://.svc:8080/ask", "http://.svc:8080/ask"),
    (f"http://{'a' * 64}.example:8080/ask", f"http://{'a' * 64}.example:8080/ask"),
    # Its key is no more shown here than in any other message.
    ("http://bob:hunter2@candidate..svc/ask?code=SECRETKEY", "http://bob:***@candidate..svc/ask?code=***"),
])
def test_a_host_name_with_an_empty_or_overlong_label_exits_2_naming_the_url(ragmon_cmd: list[str],
                                                                            tmp_path: Path, url: str,
                                                                            shown: str) -> None:
    # The resolver's UnicodeError ("label empty or too long") escaped as a traceback and "internal error
    # (a bug in ragmon: please report it ...)", after the receiver had started.
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", url, "--receiver-listen", "127.0.0.1:0", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (f"ragmon replay: error: --target {shown!r} names a host that cannot be looked "
                           f"up: a part of it between dots is empty or longer than 63 characters (a "
                           f"variable left empty in the URL?)\n")


async def test_a_blank_golden_question_is_refused_before_the_build_is_asked_anything() -> None:
    # A golden set exported from a sheet with an empty cell. A build whose request model requires a
    # question (FastAPI, min_length=1) answered 422, and the run pointed at --target-field, which was
    # right; a build that takes any text had its answer to nothing scored and gated on.
    asked: list[str] = []

    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        asked.append(question)
        if not question.strip():
            return web.json_response({"detail": "question: String should have at least 1 character"},
                                     status=422)
        return web.json_response({"answer": "At 9."})

    golden = [Example(id="a", question="When do you open?"), Example(id="b", question=""),
              Example(id="c", question=" \t\n")]
    async with serving(ask) as url:
        with pytest.raises(ExamplesFailed) as raised:
            await asyncio.to_thread(collect, golden, live_target(url, free_port()), log=None)
    assert asked == []
    assert str(raised.value) == ("2 of 3 questions cannot be asked: empty or blank, so the build would be "
                                 "asked nothing: b, c")


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run in `tmp_path`, free of the CI's RAGMON_, OTEL_ and GITHUB_ settings, so that its datasets are
    named as a user types them there."""
    for name in [k for k in os.environ if k.startswith(("RAGMON_", "OTEL_", "GITHUB_"))]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_blank_question_is_named_by_its_golden_file_and_line(in_tmp: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # b is on line 3 of the JSONL file (after a blank line 2), d on line 3 of the JSON document, whose line 1
    # is its "[": an id alone sent the user searching two files.
    (in_tmp / "g.jsonl").write_text('{"id": "a", "question": "q"}\n\n{"id": "b", "question": ""}\n',
                                    encoding="utf-8")
    (in_tmp / "g.json").write_text('[\n {"id": "c", "question": "q"},\n {"id": "d", "question": " "}\n]\n',
                                   encoding="utf-8")
    argv = ["replay", "g.jsonl", "g.json", "--target", f"http://127.0.0.1:{free_port()}/ask",
            "--receiver-listen", "127.0.0.1:0", "--json", "r.json"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "ragmon replay: error: 2 of 4 questions cannot be asked: empty or blank, so the build would be asked "
        "nothing: b, d (g.jsonl:3 and g.json:3)\n")
    # The JSON report lists them too, as it lists every question that stopped a run.
    blank = "empty or blank, so the build would be asked nothing"
    assert json.loads((in_tmp / "r.json").read_text())["failed"] == [{"id": "b", "reason": blank},
                                                                     {"id": "d", "reason": blank}]


def test_questions_without_an_answer_are_named_by_their_lines_ten_at_most(
        in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Twelve questions, all asked in the first round, each refused a connection (nothing listens): the
    # first ten are named with their lines, 1 to 10, the other two counted.
    (in_tmp / "g.jsonl").write_text("".join(f'{{"id": "q{i}", "question": "q"}}\n' for i in range(1, 13)),
                                    encoding="utf-8")
    dead = free_port()
    argv = ["replay", "g.jsonl", "--target", f"http://127.0.0.1:{dead}/ask", "--receiver-listen",
            "127.0.0.1:0", "--target-retries", "0", "--target-concurrency", "12", "--quiet"]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"ragmon replay: error: 12 of 12 questions got no answer from "
                            f"http://127.0.0.1:{dead}/ask: cannot connect to 127.0.0.1:{dead} (")
    assert error.endswith("): q1, q2, q3, q4, q5, q6, q7, q8, q9, q10 (g.jsonl lines 1, 2, 3, 4, 5, 6, 7, 8, "
                          "9, 10) and 2 more\n")


@pytest.mark.parametrize(("target_host", "listen"), [
    ("127.0.0.1", "127.0.0.1"),
    ("localhost", "127.0.0.1"),   # another name for the receiver's address
    ("127.0.0.1", "0.0.0.0"),     # a receiver on every interface is at the loopback address too
    ("0.0.0.0", "127.0.0.1"),     # connected to, every interface is loopback (Linux dials 127.0.0.1)
    ("[::ffff:127.0.0.1]", "127.0.0.1"),  # IPv4-mapped: 127.0.0.1 itself
])
def test_a_target_at_the_runs_own_receiver_is_refused_before_any_question(
        in_tmp: Path, capsys: pytest.CaptureFixture[str], target_host: str, listen: str) -> None:
    # The build's OTLP endpoint given for its URL: each question went to the receiver, which answered 404,
    # and after its retries the run failed quoting the receiver's 404 as the build's answer.
    (in_tmp / "g.jsonl").write_text('{"id": "q1", "question": "How long do refunds take?"}\n',
                                    encoding="utf-8")
    port = free_port()
    target = f"http://{target_host}:{port}/ask"
    assert main(["replay", "g.jsonl", "--target", target, "--receiver-listen", f"{listen}:{port}"]) == 2
    error = capsys.readouterr().err
    other = re.search(rf"--receiver-listen {re.escape(listen)}:(\d+)\) and export", error)
    assert other is not None and int(other[1]) != port
    # One line, and no "receiving the target's spans on ..." before it: the receiver never started.
    assert error == (f"ragmon replay: error: --target {target!r} is ragmon's own trace receiver "
                     f"(--receiver-listen {listen}:{port}), so the questions would go to it, not to the "
                     f"build: give --target the URL the build answers questions at, or, if the build "
                     f"listens on port {port}, give the receiver another (--receiver-listen "
                     f"{listen}:{other[1]}) and export the build's spans there\n")


async def test_a_long_refusal_is_quoted_cut_at_a_word_and_said_to_be_cut() -> None:
    # Quoted as its first 200 bytes and no more, the receiver's own 404 read "... so it must end in
    # /v1/trac", as if that were the whole answer.
    body = "x" * 190 + " so it must end in /v1/traces)"  # 220 characters: "must" straddles the 200th

    async def ask(request: web.Request) -> web.Response:
        return web.Response(status=404, text=body)

    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")], live_target(url, free_port()),
                                    log=None)
    assert str(raised.value) == (f"1 of 1 questions got no answer from {url}: HTTP 404 ({'x' * 190} so it... "
                                 f"(cut: 220 bytes in all)): a")


async def test_a_refusal_longer_than_what_is_read_of_it_is_said_to_be_longer() -> None:
    # 10,000 bytes without a space: cut at the 200th character, and of its size only what was read is known.
    async def ask(request: web.Request) -> web.Response:
        return web.Response(status=500, text="y" * 10_000)

    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(url, free_port(), retries=0), log=None)
    assert str(raised.value) == (f"1 of 1 questions got no answer from {url}: HTTP 500 ({'y' * 200}... (cut: "
                                 f"more than 4096 bytes in all)): a")


def test_a_target_and_receiver_set_as_variables_are_named_by_their_variables(
        in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A CI job's environment sets them: the errors had named the flags, which nobody typed.
    (in_tmp / "g.jsonl").write_text('{"id": "q1", "question": "q"}\n', encoding="utf-8")

    def refusal(**variables: str) -> str:
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        assert main(["replay", "g.jsonl"]) == 2
        for name in variables:
            monkeypatch.delenv(name)
        return capsys.readouterr().err

    assert refusal(RAGMON_TARGET="ftp://x/ask") == (
        "ragmon replay: error: RAGMON_TARGET (--target) must be an http:// or https:// URL with a valid host "
        "and port, got 'ftp://x/ask'\n")
    assert refusal(RAGMON_TARGET="http://a..b/ask").startswith(
        "ragmon replay: error: RAGMON_TARGET 'http://a..b/ask' (--target) names a host that cannot be looked "
        "up")
    assert refusal(RAGMON_TARGET="http://127.0.0.1:9/ask", RAGMON_RECEIVER_LISTEN="off") == (
        "ragmon replay: error: RAGMON_RECEIVER_LISTEN off (--receiver-listen) cannot be off with --target: "
        "the traces arrive there\n")
    port = free_port()
    error = refusal(RAGMON_TARGET=f"http://127.0.0.1:{port}/ask", RAGMON_RECEIVER_LISTEN=f"127.0.0.1:{port}")
    assert error.startswith(f"ragmon replay: error: RAGMON_TARGET 'http://127.0.0.1:{port}/ask' (--target) "
                            f"is ragmon's own trace receiver (RAGMON_RECEIVER_LISTEN 127.0.0.1:{port} "
                            f"(--receiver-listen)), so the questions would go to it, not to the build: "
                            f"give RAGMON_TARGET the URL")
    assert "give the receiver another (RAGMON_RECEIVER_LISTEN 127.0.0.1:" in error
