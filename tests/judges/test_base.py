"""The judge protocols as a user's type checker reads them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import ragmon.errors
import ragmon.judges.base
import ragmon.model

USER_JUDGES = '''
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ragmon.judges.base import AsyncJudge, Judge
from ragmon.model import Claim, ClaimVerdict, Example


@dataclass(frozen=True)
class FrozenJudge:
    name: str = "embed-sim"

    def settings(self) -> Mapping[str, Any]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return ()


class PropertyJudge:
    @property
    def name(self) -> str:
        return "prop"

    def settings(self) -> Mapping[str, Any]:
        return {}

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return ()


class FinalJudge:
    name: Final = "final"

    def settings(self) -> Mapping[str, Any]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return ()


class NamelessJudge:
    def settings(self) -> Mapping[str, Any]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return ()


frozen: Judge = FrozenJudge()
read_only: AsyncJudge = PropertyJudge()
final: Judge = FinalJudge()
nameless: Judge = NamelessJudge()
'''


def test_a_judge_whose_name_is_read_only_is_a_judge_to_a_type_checker(tmp_path: Path) -> None:
    # ragmon only reads a judge's name, but the protocols declared a settable attribute: mypy refused a
    # frozen dataclass, a property and a Final ("Protocol member Judge.name expected settable variable").
    package = tmp_path / "ragmon"
    (package / "judges").mkdir(parents=True)
    for module, path in ((ragmon.model, "model.py"), (ragmon.errors, "errors.py"),
                         (ragmon.judges.base, "judges/base.py")):
        shutil.copy(str(module.__file__), package / path)
    for path in ("__init__.py", "py.typed", "judges/__init__.py"):
        (package / path).write_text("")
    # As a user's mypy reads an installed package: the modules model.py imports on first use (the JSON
    # report's, for Report.to_dict) are left out of this copy.
    (tmp_path / "mypy.ini").write_text("[mypy]\n[mypy-ragmon.*]\nfollow_imports = silent\n"
                                       "ignore_missing_imports = True\n")
    (tmp_path / "user.py").write_text(USER_JUDGES)
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "user.py"]
    checked = subprocess.run(command, cwd=tmp_path, env={"MYPYPATH": str(tmp_path)}, capture_output=True,
                             text=True, check=False)
    # Only the judge with no name at all is refused.
    line = USER_JUDGES.splitlines().index("nameless: Judge = NamelessJudge()") + 1
    assert checked.stdout.splitlines()[0] == (f'user.py:{line}: error: Incompatible types in assignment '
                                              '(expression has type "NamelessJudge", variable has type '
                                              '"Judge")  [assignment]')
    assert checked.stdout.splitlines()[-1] == "Found 1 error in 1 file (checked 1 source file)"
