"""`ragmon replay --target`: a key in the URL stays out of stderr and every report, whatever characters it
holds. A CI secret spliced into `https://ci:${PASSWORD}@build/ask` is often generated, so it holds a `/`,
`?` or `#` unencoded, which the URL's grammar reads as the start of its path, query or fragment. A URL
the build names (a redirect's) is shown as that grammar reads it: the user must see its host."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from aiohttp import web
from ports import free_port
from test_replay_target import live_target, run, serving

from ragmon.errors import RagmonError
from ragmon.model import Example
from ragmon.target import collect, shown_target

AMBIGUOUS = ("holds an '@' after its host, so where its credentials end is ambiguous: percent-encode a '/', "
             "'?' or '#' in the password (%2F, %3F, %23) and an '@' in the path or query (%40)")
"""What a --target with an '@' past the host the URL's grammar finds is told."""


@pytest.mark.parametrize(("url", "shown"), [
    # Read to the last '@', the userinfo holds a '/', '?' or '#', so its part before ':' may be a host and
    # path as well as a user name: masked whole. Read as urllib reads it, the part after a '#' is a
    # fragment and after a '?' a query item ("ss@build.example/ask?k" named, "v" its value): masked too.
    ("https://ci:pa/ss@build.example/ask", "https://***@build.example/ask"),
    ("https://ci:s3cr#t@build.example/ask", "https://***"),
    ("https://ci:p?ss@build.example/ask?k=v", "https://***@build.example/ask?k=***"),
    ("https://TO/KEN@build.example/ask", "https://***@build.example/ask"),  # the key alone, as user name
    ("ci:pa/ss@build.example/ask", "***@build.example/ask"),  # no scheme (refused, but named)
    ("http://build.example/ask?next=http://other/", "http://build.example/ask?next=***"),
    # An '@' in a query value: read to the last '@', the key was in the user name shown
    # ("...?code=S3CR3T&since=2026-01-01T10:***@corp.com"); read as urllib reads it, every value is masked.
    ("https://fn.azurewebsites.net/api/ask?code=S3CR3T&since=2026-01-01T10:00:00Z&user=ci@corp.com",
     "https://***"),
    ("https://fn.example.net/api/ask?code=S3CR3T&notify=https://ci@hooks.example.com/x", "https://***"),
    # What neither reading hides is still shown: the name of a query item after the '@'.
    ("http://build:8000/ask?email=a@b.com&key=K", "http://***&key=***"),
])
def test_a_target_is_shown_masked_in_every_reading_of_where_its_credentials_end(url: str,
                                                                                 shown: str) -> None:
    assert shown_target(url) == shown


@pytest.mark.parametrize(("template", "secret", "shown"), [
    # Not a URL at all by its grammar (port "pa"): the error quoted it whole.
    ("http://ci:pa/ss@127.0.0.1:{port}/ask", "pa/ss", "http://***@127.0.0.1:{port}/ask"),
    # By its grammar, the rest is a fragment, or a query item: masked as such.
    ("http://ci:s3cr#t@127.0.0.1:{port}/ask", "s3cr", "http://***"),
    ("http://ci:p?ss@127.0.0.1:{port}/ask", "ci:p", "http://***"),
    # A URL by its grammar, of host localhost and port {dead}: the run asked there, and its error named
    # that host and port, and the URL whole.
    ("http://localhost:{dead}/KEY@127.0.0.1:{port}/ask", "KEY", "http://***@127.0.0.1:{port}/ask"),
])
def test_a_target_whose_password_holds_a_delimiter_is_refused_without_showing_it(
        ragmon_cmd: list[str], tmp_path: Path, template: str, secret: str, shown: str) -> None:
    port, dead = free_port(), free_port()
    url = template.format(port=port, dead=dead)
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", url, "--receiver-listen", "127.0.0.1:0",
               "--target-retries", "0", "--json", "r.json", "--markdown", "r.md", "--junit", "r.xml",
               cwd=tmp_path)
    why = f"--target {shown.format(port=port)!r} {AMBIGUOUS}"
    assert (done.returncode, done.stderr) == (2, f"ragmon replay: error: {why}\n")
    for name in ("r.json", "r.md", "r.xml"):
        written = (tmp_path / name).read_text(encoding="utf-8")
        assert "ambiguous" in written and secret not in written, name


def test_an_at_sign_in_the_query_is_refused_without_showing_a_query_value(ragmon_cmd: list[str],
                                                                          tmp_path: Path) -> None:
    # `&user=ci@corp.com` reads the same as a password holding '?': the error says how to write either.
    # All up to the last '@' was taken for credentials, and the part before its first ':' shown as the user
    # name: "http://127.0.0.1:PORT/api/ask?code=S3CR3T&since=2026-01-01T10:***@corp.com".
    url = f"http://127.0.0.1:{free_port()}/api/ask?code=S3CR3T&since=2026-01-01T10:00:00Z&user=ci@corp.com"
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", url, "--receiver-listen", "127.0.0.1:0",
               "--target-retries", "0", "--json", "r.json", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, f"ragmon replay: error: --target 'http://***' {AMBIGUOUS}\n")
    assert "S3CR3T" not in (tmp_path / "r.json").read_text(encoding="utf-8")


SSO_PAGE = ("https://login.microsoftonline.com/contoso/oauth2/v2.0/authorize"
            "?client_id=abc&login_hint=ci-bot@contoso.com")
"""A login page's URL with an '@' in its query, as Azure AD's and Google's `login_hint` puts it."""


async def test_a_redirect_is_shown_with_the_host_it_names_though_its_query_holds_an_at_sign() -> None:
    # The build redirects to its SSO login page. Its Location was read as the --target is, credentials to
    # the last '@', and named "https://***@contoso.com": a host it does not name.
    async def ask(request: web.Request) -> web.Response:
        raise web.HTTPFound(SSO_PAGE)

    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(url, free_port(), retries=0), log=None)
    assert str(raised.value) == (
        f"1 of 1 questions got no answer from {url}: HTTP 302 redirect to "
        f"https://login.microsoftonline.com/contoso/oauth2/v2.0/authorize?client_id=***&login_hint=*** (not "
        f"followed, as it could take the question and any --target-header-file headers to another host: give "
        f"that URL as --target): a")
