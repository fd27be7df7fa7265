"""`ragmon replay --target`: what the user gives (the URL, the golden questions) is checked before any
question is asked, and a mistake is one line naming it, exit 2, never a traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from aiohttp import web
from ports import free_port
from test_replay_target import live_target, run, serving

from ragmon.errors import InputError
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
        with pytest.raises(InputError) as raised:
            await asyncio.to_thread(collect, golden, live_target(url, free_port()), log=None)
    assert asked == []
    assert str(raised.value) == ("2 of 3 questions cannot be asked: empty or blank, so the build would be "
                                 "asked nothing: b, c")
