"""What a judge is: something that decides, claim by claim, whether the retrieved contexts support it.

Claims are split once, by `ragmon.text`, before any judge sees the example, so two judges always
decide on the very same sentences and can be compared (and calibrated) claim by claim.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ragmon.errors import RagmonError
from ragmon.model import Claim, ClaimVerdict, Example


class JudgeError(RagmonError):
    """The judge could not decide. Fail-closed: never read as "supported"."""


@runtime_checkable
class Judge(Protocol):
    """What `evaluate` takes as a judge: a protocol, not a base class, so a judge of your own needs no
    import from ragmon beyond the data it reads and returns. `name` labels its figures in reports."""

    name: str

    def settings(self) -> Mapping[str, Any]:
        """What a report records so a figure can be reproduced: model, temperature, threshold, ..."""
        ...

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        """One verdict per claim, in claim order; raises JudgeError rather than guess."""
        ...


@runtime_checkable
class AsyncJudge(Judge, Protocol):
    """A judge that calls out over the network also offers a coroutine, for the sidecar's event loop."""

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]: ...
