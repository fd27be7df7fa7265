"""`pip install ragmon` is the offline gate and no more: in a fresh venv holding only the core dependencies,
`ragmon replay` (ragmon JSONL, gzipped, OTLP/JSON through the protobuf decoder) and `ragmon calibrate` with
the lexical judge give a full install's JSON, figure for figure; `ragmon.instrument` runs on the OTel API
alone; and each feature left out stops with one line and exit 2 naming the extra that brings it.

Installed as test_entrypoint.py has the Dockerfile install the image: a wheel built by `pip wheel
--no-deps` from a copy of the sources, then `pip install` of that wheel into a `python -m venv` (no system
site packages) with its dependencies from pip's configured index and no cache, so a dependency the core
lacks shows up here as a failure. About 10 s: the core is ~4 MB.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "examples" / "golden.jsonl"
GATE = ["--gate", "groundedness=0.8"]
UNSUPPORTED = "Most banks show the credit within 24 hours of that."
"""The one sentence of golden example ref-001 that its documents do not back (they say 3 to 10 days)."""

ABSENT = ("anthropic", "grpcio", "aiohttp", "pydantic", "prometheus-client", "opentelemetry-sdk")
"""The audit's heavy packages, none of which the gate imports: a core install must not bring them."""

pytestmark = pytest.mark.timeout(180)


@dataclass(frozen=True, slots=True)
class Venv:
    bin: Path

    def run(self, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(a) for a in args], cwd=cwd, env=_environment(self.bin),
                              capture_output=True, text=True, timeout=60, check=False)


def _environment(bin_dir: Path | None = None) -> dict[str, str]:
    """This process's environment (pip's index settings) without RAGMON_* settings, which would change
    what a run does; a venv's bin first on PATH, as its activation puts it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_") and k != "PYTHONPATH"}
    env.pop("VIRTUAL_ENV", None)
    if bin_dir is not None:
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    work = tmp_path_factory.mktemp("core-install")
    source = work / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "ragmon", source / "ragmon", ignore=shutil.ignore_patterns("__pycache__"))
    steps = [[sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(work / "wheels"),
              str(source)],
             [sys.executable, "-m", "venv", str(work / "venv")]]
    for step in steps:
        done = subprocess.run(step, env=_environment(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{step}\n{done.stdout}\n{done.stderr}"
    (wheel,) = (work / "wheels").glob("ragmon-*.whl")
    venv = Venv(work / "venv" / "bin")
    done = venv.run(venv.bin / "python", "-m", "pip", "install", "-q", "--no-cache-dir", wheel, cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    # Core only, or every test here would prove nothing: none of the heavy packages came along.
    code = ("import importlib.metadata as m, json; "
            "print(json.dumps([d.name.lower() for d in m.distributions()]))")
    listed = venv.run(venv.bin / "python", "-c", code, cwd=work)
    installed = {re.sub(r"[-_.]+", "-", name) for name in json.loads(listed.stdout)}  # PEP 503 names
    assert {"ragmon", "opentelemetry-api", "opentelemetry-proto", "protobuf"} <= installed
    assert installed.isdisjoint(ABSENT), sorted(installed & set(ABSENT))
    return venv


def _full_install(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The same command in this test's own environment, which has every extra."""
    return subprocess.run([sys.executable, "-m", "ragmon.cli", *map(str, args)], cwd=cwd, env=_environment(),
                          capture_output=True, text=True, timeout=60, check=False)


def _report(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _gz(path: Path) -> Path:
    path.write_bytes(gzip.compress(GOLDEN.read_bytes()))
    return path


def _otlp_json(path: Path) -> Path:
    """Golden example ref-001 as one recorded trace, OTLP/JSON as the Collector's file exporter writes it:
    an OpenInference CHAIN span (question, answer) over a RETRIEVER span (the documents)."""
    record = next(r for r in map(json.loads, GOLDEN.read_text(encoding="utf-8").splitlines())
                  if r["id"] == "ref-001")

    def attribute(key: str, value: str | float) -> dict[str, Any]:
        typed = {"doubleValue": value} if isinstance(value, float) else {"stringValue": value}
        return {"key": key, "value": typed}

    def span(span_id: str, parent: str | None, name: str, attributes: dict[str, Any]) -> dict[str, Any]:
        return {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": span_id, "name": name, "kind": 1,
                "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001000000000",
                "attributes": [attribute(k, v) for k, v in attributes.items()],
                **({"parentSpanId": parent} if parent else {})}

    documents: dict[str, str | float] = {"openinference.span.kind": "RETRIEVER"}
    for i, context in enumerate(record["contexts"]):
        documents |= {f"retrieval.documents.{i}.document.id": context["id"],
                      f"retrieval.documents.{i}.document.content": context["text"],
                      f"retrieval.documents.{i}.document.score": float(context["score"])}
    chain = {"openinference.span.kind": "CHAIN", "input.value": record["question"],
             "output.value": record["answer"]}
    spans = [span("00f067aa0ba902b7", None, "rag", chain),
             span("00f067aa0ba902b8", "00f067aa0ba902b7", "retrieve", documents)]
    request = {"resourceSpans": [{"resource": {"attributes": [attribute("service.name", "shop")]},
                                  "scopeSpans": [{"scope": {"name": "tests"}, "spans": spans}]}]}
    path.write_text(json.dumps(request) + "\n", encoding="utf-8")
    return path


def _labelled(path: Path) -> Path:
    """ref-001 labelled by hand: its third sentence, UNSUPPORTED, is the hallucinated span."""
    record = next(r for r in map(json.loads, GOLDEN.read_text(encoding="utf-8").splitlines())
                  if r["id"] == "ref-001")
    start = record["answer"].index(UNSUPPORTED)
    record["labels"] = {"hallucinated": True, "spans": [{"start": start, "end": start + len(UNSUPPORTED)}]}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


# The exit codes, by hand: in the golden set, 15 answers have documents to check, and one sentence is
# unsupported (ref-001's third of three): groundedness (14 + 2/3) / 15 = 0.98 >= 0.8, passed. The OTLP trace
# is ref-001 alone: 2/3 = 0.67 < 0.8, breached (exit 1), in both installs.
@pytest.mark.parametrize(("kind", "exit_code"), [("jsonl", 0), ("gzip", 0), ("otlp-json", 1)])
def test_replay_on_the_core_gives_the_full_install_figures(core: Venv, tmp_path: Path, kind: str,
                                                           exit_code: int) -> None:
    data = {"jsonl": lambda: GOLDEN, "gzip": lambda: _gz(tmp_path / "golden.jsonl.gz"),
            "otlp-json": lambda: _otlp_json(tmp_path / "trace.otlp.jsonl")}[kind]()
    gated = core.run("ragmon", "replay", data, *GATE, "--json", tmp_path / "core.json", cwd=tmp_path)
    full = _full_install("replay", data, *GATE, "--json", tmp_path / "full.json", cwd=tmp_path)
    assert (gated.returncode, full.returncode) == (exit_code, exit_code), gated.stderr + full.stderr
    core_report, full_report = _report(tmp_path / "core.json"), _report(tmp_path / "full.json")
    assert core_report == full_report
    assert core_report["complete"] and core_report["passed"] is (exit_code == 0) and core_report["results"]


def test_calibrate_on_the_core_gives_the_full_install_figures(core: Venv, tmp_path: Path) -> None:
    data = _labelled(tmp_path / "labelled.jsonl")
    calibrated = core.run("ragmon", "calibrate", data, "--json", tmp_path / "core.json", cwd=tmp_path)
    full = _full_install("calibrate", data, "--json", tmp_path / "full.json", cwd=tmp_path)
    assert (calibrated.returncode, full.returncode) == (0, 0), calibrated.stderr + full.stderr
    reports = [_report(tmp_path / name) for name in ("core.json", "full.json")]
    for report in reports:  # wall time is the one figure two runs do not share
        del report["judges"][0]["latency_seconds_per_example"]
    assert reports[0] == reports[1]
    # One labelled unsupported sentence of three (see _labelled), and the lexical judge flags it alone, as
    # the golden report says of ref-001: tp 1, tn 2, so precision, recall, F1 and accuracy are all 1.
    assert reports[0]["judges"][0]["sentence"] == {
        "tp": 1, "fp": 0, "fn": 0, "tn": 2, "precision": 1.0, "recall": 1.0, "f1": 1.0, "accuracy": 1.0}


@pytest.mark.parametrize(("args", "feature", "extra"), [
    ("serve --help", "the serve command", "serve"),
    ("demo --help", "the demo command", "demo"),
    ("replay {golden} --judge claude", "the Claude judge", "claude"),
    # Ports never used: a regression would bind and ask there, on loopback, and fail this test.
    ("replay {golden} --target http://127.0.0.1:{port}/ask --receiver-listen 127.0.0.1:{port}", "--target",
     "target"),
    ("calibrate {labelled} --judge claude", "the Claude judge", "claude"),
], ids=["serve", "demo", "replay-claude", "replay-target", "calibrate-claude"])
def test_a_missing_extra_is_one_line_naming_it(core: Venv, tmp_path: Path, port: int, args: str, feature: str,
                                                 extra: str) -> None:
    argv = args.format(golden=GOLDEN, labelled=_labelled(tmp_path / "labelled.jsonl"), port=port).split()
    result = core.run("ragmon", *argv, cwd=tmp_path)
    expected = (f"ragmon {args.split()[0]}: error: {feature} needs the '{extra}' extra: "
                f"pip install 'ragmon[{extra}]' (No module named '")
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.startswith(expected) and result.stderr.endswith("')\n"), result.stderr
    assert len(result.stderr.splitlines()) == 1
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert extra in extras["optional-dependencies"]


def test_the_library_imports_on_the_core(core: Venv, tmp_path: Path) -> None:
    """An app that instruments itself needs the OTel API alone; `ClaudeJudge` imports, and building one
    says which extra it needs."""
    code = """
from ragmon import ClaudeJudge, LexicalJudge, evaluate, instrument
from ragmon.errors import RagmonError

with instrument.rag_span("How long do refunds take?", pipeline="support") as rag:
    rag.retrieved([{"id": "kb-1", "text": "Refunds take 5 business days.", "score": 0.9}])
    rag.answered("Refunds take 5 business days.", citations=["kb-1"])
try:
    ClaudeJudge()
except ImportError as exc:
    print(isinstance(exc, RagmonError), exc)
"""
    result = core.run(core.bin / "python", "-c", code, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("True the Claude judge needs the 'claude' extra: pip install "
                                    "'ragmon[claude]' (No module named 'anthropic')"), result.stdout
