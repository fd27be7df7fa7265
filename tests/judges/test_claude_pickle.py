"""A ClaudeJudge sent to worker processes: pickled as its settings, never with a key from the environment."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropic, claims_of

from ragmon.errors import RagmonError
from ragmon.judges.claude import ClaudeJudge
from ragmon.model import Claim, ClaimVerdict, Context, Example

PARIS = Claim("The tower is in Paris.", 0, 22)
ROME = Claim("It was built in Rome.", 23, 44)
EXAMPLE = Example(id="ex-1", question="Where is the Eiffel Tower?",
                  contexts=(Context("d1", "The Eiffel Tower stands in Paris."),),
                  answer=f"{PARIS.text} {ROME.text}")
ENV_KEY = "sk-ant-from-the-environment-0123456789"


def paris_only(body: dict[str, object]) -> list[dict[str, object]]:
    """Claims naming Paris are supported by d1, the rest by nothing."""
    return [{"claim": claim, "supported": "Paris" in claim,
             "supporting_ids": ["d1"] if "Paris" in claim else [], "reason": "read d1"}
            for claim in claims_of(body)]


EXPECTED = (ClaimVerdict(PARIS, True, ("d1",), "read d1"), ClaimVerdict(ROME, False, (), "read d1"))


def without_credentials(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """An environment where the SDK finds no credentials, whatever the machine running the tests has."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_CONFIG_DIR",
                 "ANTHROPIC_IDENTITY_TOKEN", "ANTHROPIC_IDENTITY_TOKEN_FILE", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))


def test_a_judge_pickled_to_a_spawned_worker_judges_as_in_the_parent(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ENV_KEY)
    fake_api.decide = paris_only
    judge = ClaudeJudge("claude-test", max_tokens=512, timeout=5.0, max_retries=1, base_url=fake_api.url,
                        max_doc_chars=100, max_total_chars=300, cache_dir=tmp_path / "cache",
                        cache_entries=50)
    copy = pickle.loads(pickle.dumps(judge))
    assert repr(copy) == repr(judge)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        in_worker = pool.submit(judge.judge, EXAMPLE, (PARIS, ROME)).result(timeout=90)
    assert in_worker == EXPECTED and fake_api.calls == 1
    # The parent is answered from the disk cache the worker wrote: the same directory, no second call.
    assert copy.judge(EXAMPLE, (PARIS, ROME)) == EXPECTED and fake_api.calls == 1


def test_an_unpickled_judge_keeps_nothing_of_the_memory_cache(fake_api: FakeAnthropic) -> None:
    fake_api.decide = paris_only
    judge = ClaudeJudge(base_url=fake_api.url, api_key="test-key")
    judge.judge(EXAMPLE, (PARIS,))
    copy = pickle.loads(pickle.dumps(judge))
    assert copy.judge(EXAMPLE, (PARIS,)) == EXPECTED[:1]
    assert fake_api.calls == 2  # asked again: a fresh judge's cache is empty
    judge.judge(EXAMPLE, (PARIS,))
    assert fake_api.calls == 2  # the original kept its own


def test_a_key_from_the_environment_is_neither_shown_nor_pickled(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ENV_KEY)
    judge = ClaudeJudge(base_url=fake_api.url)
    data = pickle.dumps(judge)
    assert ENV_KEY not in repr(judge) and ENV_KEY.encode() not in data
    # Unpickled where the environment has no key, it is refused as a judge built there would be.
    without_credentials(monkeypatch, tmp_path)
    with pytest.raises(RagmonError, match="needs an API key: set ANTHROPIC_API_KEY"):
        pickle.loads(data)


def test_a_key_given_to_the_constructor_travels_with_the_judge(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_api.decide = paris_only
    without_credentials(monkeypatch, tmp_path)
    data = pickle.dumps(ClaudeJudge(base_url=fake_api.url, api_key="sk-given-to-the-constructor"))
    assert pickle.loads(data).judge(EXAMPLE, (PARIS, ROME)) == EXPECTED
