"""ragmon's sources load on every Python its pyproject admits (>= 3.11), where the suite runs on one."""

from __future__ import annotations

import ast
from pathlib import Path

import ragmon

PACKAGE = Path(ragmon.__file__).parent
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def test_no_docstring_holds_a_lone_surrogate() -> None:
    # Python 3.13 refuses to compile a module, class or function whose docstring holds one (it encodes the
    # cleaned docstring as UTF-8; other strings may): ragmon.judges.claude_prompt's "caf\udce9.txt", an
    # escape in a docstring meant to show it, made `import ragmon.serve_config` fail there, and with it
    # `ragmon serve`.
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            docstring = ast.get_docstring(node, clean=False) if isinstance(node, DOCUMENTED) else None
            if docstring is not None and not encodes(docstring):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 1)}")
    assert found == []


def encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
