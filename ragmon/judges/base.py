"""What a judge is: something that decides, claim by claim, whether the retrieved contexts support it.

Claims are split once, by `ragmon.text`, before any judge sees the example, so two judges always
decide on the very same sentences and can be compared (and calibrated) claim by claim.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from ragmon.errors import RagmonError
from ragmon.model import Claim, ClaimVerdict, Example


class JudgeError(RagmonError):
    """The judge could not decide. Fail-closed: never read as "supported".

    `unreachable` says the judge's service was never reached or never replied (refused, unresolvable, timed
    out): the next example would wait as long for the same outcome, so `evaluate` and `calibrate` told to skip
    judge errors stop calling the judge after a few of these in a row (`ragmon.evaluation.Unreachable`)."""

    unreachable: bool = False


@runtime_checkable
class Judge(Protocol):
    """What `evaluate` takes as a judge: a protocol, not a base class, so a judge of your own needs no
    import from ragmon beyond the data it reads and returns."""

    @property
    def name(self) -> str:
        """Labels its figures in reports. A property here, so that a read-only name (a frozen dataclass's
        field, a property, a `Final`) satisfies a type checker as a plain attribute does: ragmon never
        sets it."""
        ...

    def settings(self) -> Mapping[str, Any]:
        """What a report records so a figure can be reproduced: model, temperature, threshold, ..."""
        ...

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> Iterable[ClaimVerdict]:
        """One verdict per claim, in claim order; raises JudgeError rather than guess. Any iterable is
        taken and checked (`ragmon.evaluation.checked`): a user's type checker refused a judge of one's
        own returning a list, which ran."""
        ...


@runtime_checkable
class AsyncJudge(Protocol):
    """What `aevaluate` takes as a judge: `Judge` with a coroutine in place of `judge`, for a judge that
    calls out over the network and waits on replies (the sidecar's event loop, `aevaluate`'s
    concurrency). A judge of one's own need not write a blocking twin of it, which nothing awaiting
    would call; the Claude judge offers both, as `ragmon replay` runs it either way."""

    @property
    def name(self) -> str:
        """As `Judge.name`."""
        ...

    def settings(self) -> Mapping[str, Any]:
        """As `Judge.settings`."""
        ...

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> Iterable[ClaimVerdict]:
        """As `Judge.judge`, awaited."""
        ...
