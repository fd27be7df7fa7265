"""A Claude API that cannot be reached: the error names the address tried, and a run skipping judge errors
stops calling it after 3 examples in a row were not reached, skipping the rest at once, fail-closed."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from ports import free_port

from ragmon import ClaudeJudge, Context, Example, evaluate
from ragmon.evaluation import example_claims
from ragmon.judges.claude import ClaudeJudgeError

DOCS = [Context("kb-ship", "Orders ship within 2 days.")]


def examples(count: int) -> list[Example]:
    return [Example(f"q{n}", "How fast?", DOCS, f"Orders ship within {n} days.") for n in range(count)]


class Silent:
    """A server that accepts connections and never answers, counting them: an API behind a dead proxy."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed: the test ended
                return
            self.accepted.append(conn)

    def close(self) -> None:
        self.sock.close()
        self.thread.join(5)
        for conn in self.accepted:
            conn.close()


@pytest.fixture
def silent() -> Iterator[Silent]:
    server = Silent()
    try:
        yield server
    finally:
        server.close()


def test_a_closed_port_is_named_in_the_error() -> None:
    port = free_port()  # nothing listens on it
    judge = ClaudeJudge(base_url=f"http://127.0.0.1:{port}", api_key="test-key", max_retries=0)
    (example,) = examples(1)

    with pytest.raises(ClaudeJudgeError) as caught:
        judge.judge(example, example_claims(example))

    assert str(caught.value) == (f"example 'q0': Claude judge: cannot reach the API at http://127.0.0.1:"
                                 f"{port}: the request was never sent (ConnectError; 1 attempt)")


def test_repr_names_a_given_base_url_without_its_credentials_or_path() -> None:
    judge = ClaudeJudge(base_url="http://user:pw@127.0.0.1:8080/proxy?token=t0k", api_key="test-key")

    assert repr(judge).endswith(", base_url='http://127.0.0.1:8080')")
    assert "pw" not in repr(judge) and "t0k" not in repr(judge)


def test_a_closed_port_is_tried_for_3_examples_and_the_rest_skipped_at_once() -> None:
    port = free_port()
    judge = ClaudeJudge(base_url=f"http://127.0.0.1:{port}", api_key="test-key", max_retries=0)
    no_context = Example("q-none", "How fast?", [], "Orders ship within 9 days.")

    report = evaluate([*examples(6), no_context], judge, skip_judge_errors=True)

    assert [example_id for example_id, _ in report.skipped] == ["q0", "q1", "q2", "q3", "q4", "q5"]
    tried = f"cannot reach the API at http://127.0.0.1:{port}: the request was never sent"
    assert all(tried in reason for _, reason in report.skipped[:3])
    for _, reason in report.skipped[3:]:
        assert reason.startswith("not judged: the judge was not reached for 3 examples in a row")
        assert reason.endswith(f"the last error: example 'q2': Claude judge: {tried} (ConnectError; 1 "
                               "attempt)")
    # Needing no judge, it is still scored, and its claim is unsupported: nothing was retrieved.
    (scored,) = report.results
    assert scored.example.id == "q-none" and scored.metrics["groundedness"] == 0.0


def test_a_server_that_never_answers_is_waited_for_3_times_not_once_per_example(silent: Silent) -> None:
    judge = ClaudeJudge(base_url=f"http://127.0.0.1:{silent.port}", api_key="test-key", timeout=0.3,
                        max_retries=0)
    report = evaluate(examples(20), judge, skip_judge_errors=True)

    # 3 timeouts of 0.3 s, where each of the 20 had waited its own.
    assert len(silent.accepted) == 3
    assert len(report.skipped) == 20 and report.results == ()
    assert all("no reply within 0.3s" in reason for _, reason in report.skipped)
