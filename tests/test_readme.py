"""The README's examples run as written and print what their comments say they print: the library's
Python blocks, and the shell blocks marked `<!-- test_readme: NAME -->` against a real `ragmon serve`."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
from pathlib import Path
from typing import Any

from polling import wait_metrics

from ragmon import Context, Example, evaluate
from ragmon.scrape import total

README = Path(__file__).resolve().parent.parent / "README.md"
_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
_PRINTS = re.compile(r"^print\(.*\)\s+# (.+)$", re.M)
_MARKED = re.compile(r"^<!-- test_readme: (\S+) -->\n```sh\n(.*?)```", re.S | re.M)
_SHOWN = re.compile(r"^# (.+)$", re.M)


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


def marked_blocks() -> dict[str, str]:
    """The shell blocks the README marks for this file, by name: a marker, not a section, since they run
    against a sidecar and must be found even if the text around them moves."""
    return dict(_MARKED.findall(README.read_text(encoding="utf-8")))


def shell(block: str, *ports: tuple[int, int]) -> str:
    """Run `block` as a user pasting it would, each documented port swapped for the test's free one."""
    for documented, port in ports:
        address = f"127.0.0.1:{documented}"
        assert block.count(address) == 1, f"the block no longer uses {address}"
        block = block.replace(address, f"127.0.0.1:{port}")
    done = subprocess.run(["bash", "-c", block], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


async def test_the_otlp_json_trace_of_the_readme_is_scored_as_it_says(serve_process: Any) -> None:
    blocks = marked_blocks()
    with serve_process([]) as serve:  # serve's defaults but the ports: --quiet 2s, every trace sampled
        http, metrics = serve.ready["http_port"], serve.ready["metrics_port"]
        assert shell(blocks["otlp-json"], (4318, http)) == "{}"  # an OTLP/JSON success: no span refused
        samples = await wait_metrics(metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") > 0)
        shown = shell(blocks["otlp-metrics"], (9464, metrics))
    assert {outcome: total(samples, "ragmon_traces_total", outcome=outcome)
            for outcome in ("scored", "not_rag", "error")} == {"scored": 1, "not_rag": 0, "error": 0}
    # Each `# line` under the command is what it prints: one scored trace, one of two sentences supported.
    assert shown.splitlines() == _SHOWN.findall(blocks["otlp-metrics"])
