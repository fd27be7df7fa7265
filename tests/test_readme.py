"""The README's examples run as written and print what their comments say they print: the library's
Python blocks, the sidecar's app blocks and the shell blocks marked `<!-- test_readme: NAME -->` against a
real `ragmon serve`. And what it names of the program is what the program has: each command's flags and
`RAGMON_*` variables, and the metric families of a live `/metrics` page, both ways."""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from demo_scores import claims_supported, scored
from fakes.anthropic_server import FakeAnthropic
from polling import wait_metrics
from prometheus_client.parser import text_string_to_metric_families
from yaml_files import safe_load

from ragmon import Context, Example, evaluate
from ragmon.cli import OTHER_VARIABLES, SUBCOMMANDS, build_parser
from ragmon.datasets import load
from ragmon.errors import InputError
from ragmon.metrics.aggregate import aggregate_columns
from ragmon.rules import PER_EXAMPLE_RULES
from ragmon.scrape import total

README = Path(__file__).resolve().parent.parent / "README.md"
UNDER_TEST = "README_UNDER_TEST"
"""A copy of the README to check in its place: an edit is checked before it replaces the real one, and each
check is shown to fail on a copy broken on purpose (a misspelt flag, a metric left out)."""
_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.S | re.M)
_PRINTS = re.compile(r"^print\(.*\)\s+# (.+)$", re.M)
_MARKED = re.compile(r"^<!-- test_readme: (\S+) -->\n```(?:sh|jsonl)\n(.*?)```", re.S | re.M)
_SHOWN = re.compile(r"^# (.+)$", re.M)
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_VARIABLE = re.compile(r"\bRAGMON_[A-Z0-9_]+")
_COMMAND = re.compile(rf"(?:\bragmon |(?<=`))({'|'.join(SUBCOMMANDS)})\b([^`#;|&)\n]*)")
"""A command line running ragmon (or inline code naming a command's flag: `replay --gate ...`), up to the
end of its inline code, a shell comment, or the next command of a pipe or list."""
_OWN_SECTION = re.compile(r"## .*`ragmon (\w+)`")
_EVERY_COMMAND = "RAGMON_<FLAG>"
"""Named by the one paragraph on how every command reads its variables, whose examples are any command's
(`calibrate --judge`, RAGMON_GATE), though it stands in serve's section."""
ANY_COMMAND = frozenset(SUBCOMMANDS)
ELSEWHERE: dict[str, tuple[str | None, str]] = {
    "--phase": ("demo", "the demo app's, in replay's section on replaying against the demo"),
    "--bogus": (None, "replay's example of a command line refused"),
    "--samplerate": (None, "serve's example of a misspelt flag, refused naming --sample-rate"),
    "--preserve-status": (None, "timeout(1)'s: whether `timeout` exits 124 after stopping replay"),
    "--data-binary": (None, "curl's, posting serve's hand-made trace"),
}
"""`--flag`s the commands' sections name that are not the section's command's: whose they are (None: no
ragmon command's), and why."""
MISSPELT = {"RAGMON_SAMPLERATE": "RAGMON_SAMPLE_RATE", "RAGMON_CAPTURE_FILE": "RAGMON_CAPTURE",
            "RAGMON_QUEUE": "RAGMON_QUEUE_SIZE"}
"""serve's examples of variables set wrong: no flag reads them, and serve warns naming the one meant."""
APP_NAMES = textwrap.dedent("""\
    question = "How long does the warranty last?"
    docs = [{"id": "kb-12", "text": "The warranty lasts 2 years from the date of purchase."}]
    answer = "The warranty lasts 2 years."
    """)
"""What the `ragmon.instrument` block takes from the app's own request: the question, the documents its
retriever returned and its model's answer."""


@pytest.fixture
def readme() -> str:
    return Path(os.environ.get(UNDER_TEST, README)).read_text(encoding="utf-8")


def section_of(text: str, heading: str) -> str:
    """The text under `heading` up to the next heading of level 2 or 3."""
    return re.split(r"^#{2,3} ", text.split(heading + "\n", 1)[1], maxsplit=1, flags=re.M)[0]


def python_blocks(text: str, section: str = "") -> list[str]:
    """The Python blocks of the text after the heading `section` up to the next one, as a user copies them
    (those inside a list item without the item's indentation)."""
    if section:
        text = section_of(text, section)
    return [textwrap.dedent(block) for _, block in _BLOCK.findall(text)]


def test_the_library_examples_run_and_print_what_they_say(readme: str) -> None:
    blocks = python_blocks(readme, "### As a library")
    assert len(blocks) == 2  # the evaluate() example, then the loop over unsupported sentences
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(blocks[0], namespace)
    # Each `print(...)  # value` line documents its output; the example's one answer is fully supported.
    assert out.getvalue().splitlines() == _PRINTS.findall(blocks[0]) == ["1.0 1 (0.025, 1.0)"]
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


def app_blocks(text: str) -> tuple[str, str]:
    """The sidecar section's two blocks an app runs: the OTel SDK set-up, then `ragmon.instrument`'s
    request. Every Python block of the README is one of these or the library's, so none goes unrun."""
    blocks = python_blocks(text)
    library = python_blocks(text, "### As a library")
    app = [block for block in blocks if block not in library]
    assert len(app) == 2 and "TracerProvider" in app[0] and "instrument.rag_span" in app[1], \
        "a Python block of the README that no test runs"
    return app[0], app[1]


def run_app(blocks: tuple[str, str], http_port: int) -> None:
    """The app blocks run as one app process would run them, exporting to OTEL_EXPORTER_OTLP_ENDPOINT as
    the set-up block's comment says; in a process of their own, as a tracer provider is set once a process.
    The SDK's own exit handler flushes the span."""
    setup, request = blocks
    environ = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{http_port}"}
    done = subprocess.run([sys.executable, "-c", f"{setup}\n{APP_NAMES}\n{request}"], env=environ,
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr


async def test_the_app_blocks_send_a_trace_the_sidecar_scores_and_its_page_is_the_readmes(
        readme: str, serve_process: Any, tmp_path: Path) -> None:
    blocks = app_blocks(readme)
    # Every family the README lists has its series: Claude on (against a fake Messages API on loopback),
    # --capture given, and a trace scored, which gives the per-pipeline series their labels.
    args = ["--quiet", "50ms", "--llm-sample-rate", "1.0", "--capture", str(tmp_path / "capture.jsonl")]
    with FakeAnthropic() as api:
        claude = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": api.url}
        with serve_process(args, claude) as serve:
            run_app(blocks, serve.ready["http_port"])
            metrics = serve.ready["metrics_port"]
            # Scored by the lexical judge and by Claude: an example each.
            samples = await wait_metrics(metrics, lambda s: total(s, "ragmon_examples_scored_total") == 2)
            page = await metrics_page(metrics)
    # One trace, the instrument block's pipeline, scored by both judges: its one sentence is all in kb-12.
    assert {outcome: total(samples, "ragmon_traces_total", pipeline="support", outcome=outcome)
            for outcome in ("scored", "not_rag", "error")} == {"scored": 1, "not_rag": 0, "error": 0}
    assert total(samples, "ragmon_groundedness_ratio", pipeline="support", judge="lexical") == 1.0
    listed = listed_families(readme)
    assert not_on_page(listed, page) == []
    assert not_listed(listed, page) == []


async def metrics_page(port: int) -> dict[str, tuple[str, frozenset[str]]]:
    """The families of a live /metrics page, by the name a query gives (a counter's with `_total`): each
    one's type and label names."""
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/metrics") as got:
        text = await got.text()
    return {family.name + ("_total" if family.type == "counter" else ""):
            (family.type, frozenset(key for s in family.samples for key in s.labels if key != "le"))
            for family in text_string_to_metric_families(text)}


Listed = tuple[tuple[str, ...], str, frozenset[str]]
"""A row of the README's "Metrics exported" table: its names, the type it gives (empty for a row of
another library's families) and its label names."""


def listed_families(text: str) -> list[Listed]:
    section = section_of(text, "### Metrics exported")
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ")]
    assert rows and rows[0] == ["metric", "type", "labels"], "the README's metrics table is gone"
    return [(tuple(names.split(", ")), _type_of(kind), _label_names(labels))
            for names, kind, labels in rows[1:]]


def _type_of(cell: str) -> str:
    match = re.match(r"counter|gauge|histogram", cell)
    return match.group() if match else ""


def _label_names(cell: str) -> frozenset[str]:
    """The names in a labels cell, without what it says of them: `(values)` and `: what is counted`."""
    while (bare := re.sub(r"\([^()]*\)", "", cell)) != cell:
        cell = bare
    names = cell.split(":", 1)[0].replace("`", "").split(",")
    return frozenset(name.strip() for name in names) - {"–", ""}


def _covers(row: tuple[str, ...], name: str) -> bool:
    """Whether a row lists `name`: by name, or by its `...` among names of the same prefix (`process_`)."""
    return name in row or ("..." in row and any(name.startswith(n.split("_")[0] + "_") for n in row))


def not_on_page(listed: list[Listed], page: dict[str, tuple[str, frozenset[str]]]) -> list[str]:
    """What the README says of a family that its page does not bear out: absent, of another type, or with
    other labels (a row of several families lists the labels of each: `judge (queue size)`)."""
    wrong = []
    for names, kind, labels in listed:
        wrong += [f"{name}: not on the page" for name in names if name != "..." and name not in page]
        here = {name: page[name] for name in page if _covers(names, name)}
        wrong += [f"{name}: a {got}, not a {kind}" for name, (got, _) in here.items() if kind and got != kind]
        found = frozenset().union(*(names for _, names in here.values()))
        if found != labels:
            wrong.append(f"{', '.join(names)}: labels {sorted(found)} on the page, {sorted(labels)} listed")
    return wrong


def not_listed(listed: list[Listed], page: dict[str, tuple[str, frozenset[str]]]) -> list[str]:
    return [name for name in page if not any(_covers(names, name) for names, _, _ in listed)]


@functools.cache
def command_parser(command: str, variable: str = "") -> argparse.ArgumentParser:
    """`command`'s own parser, built as `ragmon COMMAND` builds it, in an environment holding `variable`
    alone (set to 1) or nothing."""
    parser = build_parser(command, {variable: "1"} if variable else {})
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return subparsers.choices[command]


def takes(commands: frozenset[str], flag: str) -> bool:
    return any(flag in command_parser(command)._option_string_actions for command in commands)


def reads(commands: frozenset[str], variable: str) -> bool:
    """Whether one of `commands` reads `variable`: as a flag's default (taken, or refused as a value of that
    flag), as the program maps variables to flags, or as a variable of its own."""
    return any(variable in OTHER_VARIABLES.get(command, ()) or _as_default(command_parser(command, variable))
               for command in commands)


def _as_default(parser: Any) -> bool:
    """Whether a parser built in an environment of one variable took it as a flag's default, or refused it
    as one: ragmon.cli's parsers record both."""
    return bool(parser.from_environment or parser.refused)


def command_lines(text: str) -> list[tuple[str, str]]:
    """Each `ragmon COMMAND ...` the README shows run, as the command and the rest of its line (lines
    continued with a backslash joined)."""
    return _COMMAND.findall(text.replace("\\\n", " "))


def paragraphs(text: str) -> Iterator[tuple[frozenset[str] | None, str]]:
    """Each paragraph with the commands it is about: its command, in the command's own section (`## ...
    `ragmon COMMAND``); any, in the paragraph on how every command reads `RAGMON_<FLAG>`; None elsewhere,
    where a `--flag` may be another program's (the benchmarks')."""
    for part in re.split(r"^(?=## )", text.replace("\\\n", " "), flags=re.M):
        own = _OWN_SECTION.match(part)
        for paragraph in re.split(r"\n[ \t]*\n", part):
            about = ANY_COMMAND if _EVERY_COMMAND in paragraph else frozenset({own.group(1)}) if own else None
            yield about, paragraph


def test_every_flag_a_readme_command_line_shows_is_one_its_command_takes(readme: str) -> None:
    shown = command_lines(readme)
    assert {command for command, _ in shown} == set(SUBCOMMANDS)  # every command is shown run
    unknown = [f"ragmon {command} ... {flag}" for command, rest in shown for flag in _FLAG.findall(rest)
               if not takes(frozenset({command}), flag)]
    assert unknown == []


def test_every_flag_a_command_section_names_is_one_its_command_takes(readme: str) -> None:
    about = [(commands, paragraph) for commands, paragraph in paragraphs(readme) if commands is not None]
    sections = {command for commands, _ in about if len(commands) == 1 for command in commands}
    assert sections == {"replay", "serve", "calibrate"}  # the demo has none of its own
    # Command lines are checked with their own command (the demo's, in replay's section), the rest with
    # the section's.
    unknown = [f"{flag} in {'/'.join(sorted(commands))}'s section" for commands, paragraph in about
               for flag in _FLAG.findall(_COMMAND.sub("", paragraph))
               if flag not in ELSEWHERE and not takes(commands, flag)]
    assert unknown == []
    whose = {flag: next((c for c in SUBCOMMANDS if takes(frozenset({c}), flag)), None) for flag in ELSEWHERE}
    assert whose == {flag: command for flag, (command, _) in ELSEWHERE.items()}


HALLUCINATION_FIGURES = {"`RagmonHallucinationRateHigh`": "share of claims",
                         "`ragmon_hallucination_ratio` gauge": "mean over examples",
                         "`replay --gate hallucination_rate=...`": "mean over examples",
                         "capture file": "captured answers alone"}
"""Each hallucination figure the on-call meets for the same traffic, and how it counts."""


def test_two_ways_to_count_says_how_each_hallucination_figure_counts(readme: str) -> None:
    """The alert, the gauge, the gate and a replay of the capture gave three hallucination figures for the
    same traffic, and the paragraph on the two ways to count named groundedness's alone."""
    paragraph = next(p for p in readme.split("\n\n") if p.startswith("Two ways to count"))
    clauses = re.split(r"(?<=[.;])\s", " ".join(paragraph.split()))
    for figure, counted in HALLUCINATION_FIGURES.items():
        assert any(figure in clause and counted in clause for clause in clauses), figure
    rules = README.parent / "deploy" / "prometheus" / "rules.yml"
    alerts = {rule.get("alert"): rule for group in safe_load(rules.read_text(encoding="utf-8"))["groups"]
              for rule in group["rules"]}
    assert "ragmon_claims_unsupported_per_claims" in alerts["RagmonHallucinationRateHigh"]["expr"]



def test_the_scoring_rules_a_warning_begins_at_are_the_ones_ragmon_warns_from(readme: str) -> None:
    """Which captures and baselines are warned of as scored otherwise: the capture section still said "before
    rules 22" once the first rules vouched for were 36, so a user expected no warning for a capture of rules
    22 to 35 and got one. The README names the constant and its value today; each place must agree."""
    told = re.findall(r"`ragmon\.rules\.PER_EXAMPLE_RULES`,\s+(\d+)\s+today", readme)
    assert len(told) >= 2 and set(map(int, told)) == {PER_EXAMPLE_RULES}

def test_every_variable_the_readme_names_is_read_by_its_command(readme: str) -> None:
    named = [(commands or ANY_COMMAND, variable) for commands, paragraph in paragraphs(readme)
             for variable in _VARIABLE.findall(paragraph)]
    assert len({variable for _, variable in named}) > 10
    unread = [f"{variable} by {'/'.join(sorted(commands))}" for commands, variable in named
              if variable not in MISSPELT and not reads(commands, variable)]
    assert unread == []
    for variable, meant in MISSPELT.items():
        assert not reads(ANY_COMMAND, variable)
        warnings = build_parser("serve", {variable: "1"}).variable_warnings
        assert warnings == (f"{variable} is set, and read by no flag: did you mean {meant}? (ignored)",)


def marked_blocks(text: str) -> dict[str, str]:
    """The shell and JSONL blocks the README marks for this file, by name: a marker, not a section, since
    they run against a sidecar or the loader and must be found even if the text around them moves."""
    return dict(_MARKED.findall(text))


def shell(block: str, *ports: tuple[int, int]) -> str:
    """Run `block` as a user pasting it would, each documented port swapped for the test's free one."""
    for documented, port in ports:
        address = f"127.0.0.1:{documented}"
        assert block.count(address) == 1, f"the block no longer uses {address}"
        block = block.replace(address, f"127.0.0.1:{port}")
    done = subprocess.run(["bash", "-c", block], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


async def test_the_otlp_json_trace_of_the_readme_is_scored_as_it_says(readme: str,
                                                                      serve_process: Any) -> None:
    blocks = marked_blocks(readme)
    with serve_process([]) as serve:  # serve's defaults but the ports: --quiet 2s, every trace sampled
        http, metrics = serve.ready["http_port"], serve.ready["metrics_port"]
        assert shell(blocks["otlp-json"], (4318, http)) == "{}"  # an OTLP/JSON success: no span refused
        samples = await wait_metrics(metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") > 0)
        shown = shell(blocks["otlp-metrics"], (9464, metrics))
    assert {outcome: total(samples, "ragmon_traces_total", outcome=outcome)
            for outcome in ("scored", "not_rag", "error")} == {"scored": 1, "not_rag": 0, "error": 0}
    # Each `# line` under the command is what it prints: one scored trace, one of two sentences supported.
    assert shown.splitlines() == _SHOWN.findall(blocks["otlp-metrics"])



def test_the_golden_records_of_the_readme_load_and_feed_the_metrics_it_says(readme: str,
                                                                             tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(marked_blocks(readme)["golden"], encoding="utf-8")
    metrics = {result.example.id: result.metrics for result in evaluate(load([golden])).results}
    q1, q2, q3 = metrics["q1"], metrics["q2"], metrics["q3"]
    # q1: its one sentence is kb-returns' and it cites kb-returns alone; kb-shipping is unused (1 of 2);
    # no relevant ids, so no retrieval figure. SQuAD F1 against "Within 30 days of delivery.": 5 shared of
    # 9 tokens ("an" dropped) and 5, so 2 * (5/9) * 1 / (5/9 + 1) = 10/14.
    assert (q1["groundedness"], q1["citation_accuracy"], q1["citation_coverage"]) == (1.0, 1.0, 1.0)
    assert q1["context_utilisation"] == 0.5 and q1["hit_rate"] is None
    assert q1["answer_correctness"] == pytest.approx(10 / 14)
    # q2: kb-shipping, its one relevant id, is at rank 2 of the top 5: hit, recall 1, mrr 1/2, precision
    # 1/5; no answer, so no groundedness.
    assert (q2["hit_rate"], q2["recall"], q2["mrr"], q2["precision"]) == (1.0, 1.0, 0.5, 0.2)
    assert q2["groundedness"] is None and q2["citation_accuracy"] is None
    # q3: unanswerable and declined: abstention 1, answer_correctness 1 (insufficient_context); its empty
    # relevant ids leave the retrieval metrics undefined, and its answer makes no claim.
    assert (q3["abstention"], q3["answer_correctness"]) == (1.0, 1.0)
    assert q3["hit_rate"] is None and q3["groundedness"] is None
    # The table's required fields are the ones the loader requires: q1 without each.
    record = json.loads(golden.read_text(encoding="utf-8").splitlines()[0])
    required = dict(re.findall(r"^\| `(\w+)` \| (yes|no) \|", readme, re.M))
    assert set(required) == {"id", "question", "contexts", "answer", "relevant_ids", "citations",
                             "ground_truth"}
    assert {field for field in required if not _loads_without(record, field, tmp_path)} == {"id", "question"}
    assert {field for field, said in required.items() if said == "yes"} == {"id", "question"}


def _loads_without(record: dict[str, Any], field: str, tmp_path: Path) -> bool:
    path = tmp_path / f"without-{field}.jsonl"
    path.write_text(json.dumps({key: value for key, value in record.items() if key != field}) + "\n",
                    encoding="utf-8")
    try:
        list(load([path]))
    except InputError:
        return False
    return True


def _lower_bound(grounded: int, not_grounded: int, half: int = 0) -> float:
    """The lower 95% bound of groundedness a Report gives answers each wholly grounded or not, and `half`
    answers half grounded, to 3 places."""
    values = [1.0] * grounded + [0.0] * not_grounded + [0.5] * half
    ci = aggregate_columns({"groundedness": values})["groundedness"].ci
    assert ci is not None
    return round(ci[0], 3)


def test_the_confidence_table_holds_the_bounds_a_gate_reads(readme: str) -> None:
    # Every answer grounded: n successes in n trials have probability p^n, so the lower end of a two-sided
    # 95% interval is 0.025 ** (1 / n). The other columns are ragmon's own bounds, and the sentence after
    # the table names the first n whose bound reaches 0.9.
    section = readme[readme.index("What a `--confidence 0.95` gate can pass"):][:1500]
    rows = re.findall(r"^\| ([\d,]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)(?: \([^)]*\))? \|$", section, re.M)
    assert len(rows) == 5
    for n_text, every, one, five_percent in rows:
        n = int(n_text.replace(",", ""))
        assert float(every) == round(0.025 ** (1 / n), 3) == _lower_bound(n, 0)
        assert float(one) == _lower_bound(n - 1, 1)
        # A mean of 0.95: 5% of 50 answers is 2.5, so two not grounded and one half (it had read 0.863, the
        # bound of 2 of 50 not grounded, a mean of 0.96).
        not_grounded, half = n // 20, int(n % 20 != 0)
        assert n * 0.95 == n - not_grounded - half / 2
        assert float(five_percent) == _lower_bound(n - not_grounded - half, not_grounded, half)
    assert 0.025 ** (1 / 35) < 0.9 <= 0.025 ** (1 / 36)
    assert _lower_bound(52, 1) < 0.9 <= _lower_bound(53, 1)
    assert "needs 36 answers all grounded, or 54 with one not" in section


def test_two_ways_to_count_quotes_the_demos_degraded_phase(readme: str, tmp_path: Path) -> None:
    """The two groundedness figures of the same answers: by claims (the alert's) and by examples (the
    gate's and the gauge's), as `make demo` prints them for its degraded build."""
    quoted = re.search(r"in `make demo`'s degraded phase, ([\d.]+) by claims against ([\d.]+) by examples",
                       " ".join(readme.split()))
    report = scored("degraded", tmp_path)
    assert quoted is not None
    by_examples = report.aggregates["groundedness"].mean
    assert quoted.groups() == (f"{claims_supported(report):.3f}", f"{by_examples:.3f}")


_LOGGED = re.compile(r'\b(?:logs|log:|warning,)[^"]{0,30}"([^"]+)"')
"""A text the README says ragmon logs, as an operator searches the log for it: `logs "..."`, `in the log:
"..."`, `a warning, "..."`."""


def test_the_log_lines_the_readme_quotes_are_ones_ragmon_writes(readme: str) -> None:
    """The sidecar's line on a trace of several requests had been renamed "trace scored with parts left
    out" when it came to name blank ids too, and the README still quoted the old "requests of one trace left
    unscored", which no log holds."""
    quoted = _LOGGED.findall(" ".join(readme.split()))
    assert len(quoted) >= 5
    source = "\n".join(path.read_text(encoding="utf-8") for path in (README.parent / "ragmon").rglob("*.py"))
    assert [text for text in quoted if text not in source] == []
