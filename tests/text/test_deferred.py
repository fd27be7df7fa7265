"""The text modules' patterns are compiled at first use: each must then match as `re.compile` would, and
every process importing the judge (each `ragmon` command) must not pay for the long multilingual ones it
never uses."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys

import pytest

from ragmon.text import deferred


def _module(source: str) -> dict[str, object]:
    """A module's namespace made from `source`, as an import makes one."""
    namespace: dict[str, object] = {"__name__": "made_for_a_test"}
    exec(compile(source, "made_for_a_test.py", "exec"), namespace)
    return namespace


def test_a_pattern_matches_at_first_use_and_then_its_module_holds_the_compiled_one() -> None:
    made = _module("import re\nfrom ragmon.text.deferred import deferred\n"
                   "WORD = deferred(r'\\bre(fund)s?\\b', re.IGNORECASE)\nSOURCE = WORD.pattern\n")
    held = made["WORD"]
    assert not isinstance(held, re.Pattern)  # building SOURCE from it compiled nothing
    assert made["SOURCE"] == r"\bre(fund)s?\b"
    assert held.search("Full REFUNDS within 30 days").group(1) == "FUND"  # type: ignore[attr-defined]
    assert isinstance(made["WORD"], re.Pattern) and made["WORD"].flags & re.IGNORECASE
    # A name bound to it before (another module's import) goes on working through it.
    assert held.sub("x", "a refund, two refunds") == "a x, two x"  # type: ignore[attr-defined]
    assert [m.span() for m in held.finditer("refund")] == [(0, 6)]  # type: ignore[attr-defined]


def test_a_pickled_pattern_arrives_compiled() -> None:
    made = _module("from ragmon.text.deferred import deferred\nDAYS = deferred(r'(\\d+) days')\n")
    arrived = pickle.loads(pickle.dumps(made["DAYS"]))
    assert isinstance(arrived, re.Pattern)
    assert arrived.findall("30 days, 2 days") == ["30", "2"]


def test_a_mistyped_pattern_is_found_by_compiling_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deferred, "_MADE", [])
    _module("from ragmon.text.deferred import deferred\nFINE = deferred('days?')\n"
            "BROKEN = deferred('(days')\n")
    with pytest.raises(re.error, match="missing \\)"):
        deferred.compile_all()


def test_every_pattern_of_the_judge_compiles() -> None:
    import ragmon.judges.lexical  # noqa: F401 -- imports every text module
    from ragmon.text import abstention, european

    made = deferred.compile_all()
    assert made > 150
    assert isinstance(european.DECLINES, re.Pattern) and isinstance(abstention._FILLER, re.Pattern)


def test_starting_a_command_compiles_none_of_the_multilingual_patterns() -> None:
    # Compiled at import, the refusal, courtesy and European patterns cost each `ragmon` command ~0.3 s of
    # CPU before it read its arguments.
    code = ("import re, ragmon.cli, ragmon.replay, ragmon.service\n"
            "from ragmon.text import abstention, european, european_courtesy\n"
            "print(sum(isinstance(p, re.Pattern) for p in (european.DECLINES, european_courtesy.REFERRAL, "
            "abstention._FILLER, european_courtesy.ABLE)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "0\n"


def test_no_pattern_is_held_where_its_compiled_one_cannot_take_its_place() -> None:
    # A deferred pattern bound at import to a default argument, a tuple or a dataclass stays there once
    # compiled, and every call through it pays an attribute lookup more: such a pattern is compiled at import.
    code = ("import gc, pkgutil, importlib, ragmon.text, ragmon.cli, ragmon.service, ragmon.replay, "
            "ragmon.judges.lexical\n"
            "for module in pkgutil.iter_modules(ragmon.text.__path__): importlib.import_module("
            "'ragmon.text.' + module.name)\n"
            "from ragmon.text import deferred\n"
            "deferred.compile_all()\n"
            "print([p.pattern[:60] for p in deferred._MADE if [r for r in gc.get_referrers(p) "
            "if r is not deferred._MADE]])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"
