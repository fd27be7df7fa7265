"""The Dockerfile as its stages and instructions, so tests can check it and replay its build steps."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Instruction:
    keyword: str
    args: str
    line: int

    def exec_form(self) -> list[str] | None:
        """The JSON array of `CMD ["a", "b"]`, or None for the shell form."""
        if not self.args.startswith("["):
            return None
        value = json.loads(self.args)
        return value if isinstance(value, list) else None


@dataclass(slots=True)
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def env(self) -> dict[str, str]:
        """ENV key=value pairs in order; `$PATH`-style references are kept for the caller to expand."""
        values: dict[str, str] = {}
        for instruction in self.all("ENV"):
            for token in shlex.split(instruction.args):
                key, sep, value = token.partition("=")
                assert sep, f"line {instruction.line}: use ENV key=value, not the legacy form"
                values[key] = value
        return values


@dataclass(frozen=True, slots=True)
class Dockerfile:
    stages: tuple[Stage, ...]

    @property
    def runtime(self) -> Stage:
        return self.stages[-1]

    def stage(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)


def parse_dockerfile(text: str) -> Dockerfile:
    """Instructions with their line continuations joined; comments and parser directives dropped."""
    stages: list[Stage] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        keyword, _, args = " ".join(p for p in pending if p).partition(" ")
        pending = []
        instruction = Instruction(keyword.upper(), args.strip(), start)
        if instruction.keyword == "FROM":
            parts = instruction.args.split()
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(parts[0], name))
        else:
            assert stages, f"line {start}: {instruction.keyword} before FROM"
            stages[-1].instructions.append(instruction)
    assert not pending, "Dockerfile ends inside a line continuation"
    return Dockerfile(tuple(stages))
