"""`ragmon replay --target`: a key in the URL stays out of stderr and every report, whatever characters it
holds. A CI secret spliced into `https://ci:${PASSWORD}@build/ask` is often generated, so it holds a `/`,
`?` or `#` unencoded, which the URL's grammar reads as the start of its path, query or fragment."""

from __future__ import annotations

from pathlib import Path

import pytest
from ports import free_port
from test_replay_target import run

from ragmon.target import shown_url

AMBIGUOUS = ("holds an '@' after its host, so where its credentials end is ambiguous: percent-encode a '/', "
             "'?' or '#' in the password (%2F, %3F, %23) and an '@' in the path or query (%40)")
"""What a --target with an '@' past the host the URL's grammar finds is told."""


@pytest.mark.parametrize(("url", "shown"), [
    ("https://ci:pa/ss@build.example/ask", "https://ci:***@build.example/ask"),
    ("https://ci:s3cr#t@build.example/ask", "https://ci:***@build.example/ask"),
    ("https://ci:p?ss@build.example/ask?k=v", "https://ci:***@build.example/ask?k=***"),
    ("https://TO/KEN@build.example/ask", "https://***@build.example/ask"),  # the key alone, as user name
    ("ci:pa/ss@build.example/ask", "ci:***@build.example/ask"),  # no scheme (refused, but named)
    ("http://build.example/ask?next=http://other/", "http://build.example/ask?next=***"),
])
def test_a_password_holding_a_slash_question_mark_or_hash_is_masked_whole(url: str, shown: str) -> None:
    assert shown_url(url) == shown


@pytest.mark.parametrize(("template", "secret"), [
    # Not a URL at all by its grammar (port "pa"): the error quoted it whole.
    ("http://ci:pa/ss@127.0.0.1:{port}/ask", "pa/ss"),
    ("http://ci:s3cr#t@127.0.0.1:{port}/ask", "s3cr"),
    ("http://ci:p?ss@127.0.0.1:{port}/ask", "ci:p"),
    # A URL by its grammar, of host localhost and port {dead}: the run asked there, and its error named
    # that host and port, and the URL whole.
    ("http://localhost:{dead}/KEY@127.0.0.1:{port}/ask", "KEY"),
])
def test_a_target_whose_password_holds_a_delimiter_is_refused_without_showing_it(
        ragmon_cmd: list[str], tmp_path: Path, template: str, secret: str) -> None:
    port, dead = free_port(), free_port()
    url = template.format(port=port, dead=dead)
    user = url.removeprefix("http://").partition(":")[0]
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", url, "--receiver-listen", "127.0.0.1:0",
               "--target-retries", "0", "--json", "r.json", "--markdown", "r.md", "--junit", "r.xml",
               cwd=tmp_path)
    why = f"--target 'http://{user}:***@127.0.0.1:{port}/ask' {AMBIGUOUS}"
    assert (done.returncode, done.stderr) == (2, f"ragmon replay: error: {why}\n")
    for name in ("r.json", "r.md", "r.xml"):
        written = (tmp_path / name).read_text(encoding="utf-8")
        assert "127.0.0.1" in written and secret not in written, name


def test_an_at_sign_in_the_query_is_refused_naming_its_encoding(ragmon_cmd: list[str],
                                                                tmp_path: Path) -> None:
    # `?user=a@b` reads the same as a password holding '?': the error says how to write either.
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", f"http://127.0.0.1:{free_port()}/ask?user=a@b.example",
               "--receiver-listen", "127.0.0.1:0", "--target-retries", "0", cwd=tmp_path)
    shown = "http://127.0.0.1:***@b.example"  # all up to the last '@' taken for credentials
    assert (done.returncode, done.stderr) == (2, f"ragmon replay: error: --target {shown!r} {AMBIGUOUS}\n")
