"""The README's library examples run as written and print what their comments say they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from ragmon import Context, Example, evaluate

README = Path(__file__).resolve().parent.parent / "README.md"
_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
_PRINTS = re.compile(r"^print\(.*\)\s+# (.+)$", re.M)


def library_blocks() -> list[str]:
    """The Python blocks of the "As a library" section (the sidecar's need an app and a network)."""
    text = README.read_text(encoding="utf-8")
    section = text.split("### As a library", 1)[1].split("\n### ", 1)[0]
    return _BLOCK.findall(section)


def test_the_library_examples_run_and_print_what_they_say() -> None:
    blocks = library_blocks()
    assert len(blocks) == 2  # the evaluate() example, then the loop over unsupported sentences
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(blocks[0], namespace)
    # Each `print(...)  # value` line documents its output; the example's one answer is fully supported.
    assert out.getvalue().splitlines() == _PRINTS.findall(blocks[0]) == ["1.0 1 (1.0, 1.0)"]
    # The loop prints nothing for a supported answer; with an invented sentence it names it, where it
    # starts (after "The warranty lasts 2 years. ", 28 characters) and why.
    example = Example(id="q2", question="How long is the warranty?",
                      contexts=(Context("doc-1", "The warranty lasts 2 years."),),
                      answer="The warranty lasts 2 years. It also covers water damage.")
    namespace["report"] = evaluate([example])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(blocks[1], namespace)
    line = out.getvalue().strip()
    assert line.startswith("q2 'It also covers water damage.' 28 no single context supports it")
