"""`ragmon replay --target`: a key in the URL stays out of stderr and every report, whatever characters it
holds. A CI secret spliced into `https://ci:${PASSWORD}@build/ask` is often generated, so it holds a `/`,
`?` or `#` unencoded, which the URL's grammar reads as the start of its path, query or fragment. A URL
the build names (a redirect's) is shown as that grammar reads it: the user must see its host."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
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


@asynccontextmanager
async def closing_after_continue() -> AsyncIterator[int]:
    """A gateway on a free loopback port (yielded) that takes a request's head, answers `100 Continue` and
    closes the connection, so that aiohttp fails writing the body, in a message that quotes the URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    serving = asyncio.create_task(_continue_then_close(listener))
    try:
        yield listener.getsockname()[1]
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
        listener.close()


async def _continue_then_close(listener: socket.socket) -> None:
    """The 100 and the close go out in one segment (MSG_MORE holds the 100 for the FIN): ragmon then reads
    the close before it writes the body, as it would not every time were they read apart."""
    loop = asyncio.get_running_loop()
    while True:
        connection, _ = await loop.sock_accept(listener)
        with connection:
            head = b""
            while b"\r\n\r\n" not in head and (received := await loop.sock_recv(connection, 65536)):
                head += received
            connection.send(b"HTTP/1.1 100 Continue\r\n\r\n", socket.MSG_MORE)
            connection.shutdown(socket.SHUT_WR)
            while await loop.sock_recv(connection, 65536):  # until ragmon closes its end
                pass


def replayed_without(ragmon_cmd: list[str], tmp_path: Path, url: str, secrets: tuple[str, ...],
                     *headers: str) -> str:
    """The last line of stderr of a replay of one question at `url`, with `headers` in a header file, once
    stderr and the JSON, Markdown and JUnit reports are found to hold none of `secrets`."""
    data, header_file = tmp_path / "q.jsonl", tmp_path / "headers.txt"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    header_file.write_text("".join(f"{header}\n" for header in headers), encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", url, "--target-header-file", header_file,
               "--receiver-listen", "127.0.0.1:0", "--target-retries", "0", "--json", "r.json", "--markdown",
               "r.md", "--junit", "r.xml", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    for name, written in [("stderr", done.stderr), *((name, (tmp_path / name).read_text(encoding="utf-8"))
                                                       for name in ("r.json", "r.md", "r.xml"))]:
        assert [secret for secret in secrets if secret in written] == [], (name, written)
    return done.stderr.splitlines()[-1]


@pytest.mark.parametrize("character", [
    # yarl writes '%27' back as "'", where a URL in aiohttp's message was taken to end: "code=***'Klast".
    "'", "%27",
    # yarl writes these percent-encoded, which no URL is taken to end at: hidden before too, but aiohttp's
    # URL (without the user name) is now named as the rest of the error names the --target.
    '"', "%20",
])
async def test_a_secret_in_the_target_stays_hidden_when_the_build_drops_the_request(
        ragmon_cmd: list[str], tmp_path: Path, character: str) -> None:
    # With `Expect: 100-continue` (a header file's, for a gateway that wants it) aiohttp writes the body
    # once the 100 is in, and finds the connection closed. It sends the password as an Authorization
    # header, so only the query is in its message; each half of a secret is looked for, as either was shown.
    async with closing_after_continue() as port:
        url = f"http://ci:PWfirst{character}PWlast@127.0.0.1:{port}/ask?code=Kfirst{character}Klast"
        last_line = await asyncio.to_thread(replayed_without, ragmon_cmd, tmp_path, url,
                                            ("PWfirst", "PWlast", "Kfirst", "Klast"), "Expect: 100-continue")
    shown = f"http://ci:***@127.0.0.1:{port}/ask?code=***"
    assert last_line == (f"ragmon replay: error: 1 of 1 questions got no answer from {shown}: request failed "
                         f"([Errno None] Can not write request body for {shown}): "
                         f"a ({tmp_path / 'q.jsonl'}:1)")


@pytest.mark.parametrize("character", ["'", '"', " ", "<", ">"])
def test_a_target_aiohttp_cannot_read_is_quoted_without_its_password_whatever_it_holds(
        ragmon_cmd: list[str], tmp_path: Path, character: str) -> None:
    # A '\' typed for a '/': urllib reads host "127.0.0.1\ask", yarl refuses it, and aiohttp's error is
    # the --target as given, where a URL in the message was taken to end at the character: the password's
    # second half, or both, and the query value were shown.
    url = f"http://ci:PWfirst{character}PWlast@127.0.0.1\\ask?code=K3Y"
    last_line = replayed_without(ragmon_cmd, tmp_path, url, ("PWfirst", "PWlast", "K3Y"))
    shown = "http://ci:***@127.0.0.1\\ask?code=***"
    assert last_line == (f"ragmon replay: error: 1 of 1 questions got no answer from {shown}: request failed "
                         f"({shown}): a ({tmp_path / 'q.jsonl'}:1)")
