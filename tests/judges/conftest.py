"""The Messages API stand-in for judge tests: one fresh server per test, stopped when the test ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.anthropic_server import FakeAnthropic


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as api:
        yield api
