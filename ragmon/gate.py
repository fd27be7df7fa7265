"""Deploy gates: `--gate NAME=VALUE` thresholds decided on a Report, `--max-drop NAME=DELTA` changes
against a baseline run, and the exit codes CI acts on.

A gate is a minimum, except for the metrics in LOWER_IS_BETTER, which are maxima; a drop gate bounds how
much worse a metric may get (lower, or higher for LOWER_IS_BETTER). A gated metric that no example could
measure fails, in either run for a drop gate: "undefined" must never pass a deploy by accident.
"""

from __future__ import annotations

import difflib
import math
import re
import shlex
import string
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from ragmon.baseline import ABSTAINED_AS, Comparison, MetricChange, rounded
from ragmon.cli import VariableList, variable
from ragmon.errors import InputError
from ragmon.metrics.aggregate import aggregate
from ragmon.metrics.retrieval import RETRIEVAL_METRICS
from ragmon.model import LOWER_IS_BETTER, METRIC_NAMES, Aggregate, EvalConfig, Report
from ragmon.names import near_miss
from ragmon.options import Flag, NotANumber, as_share, decimal

EXIT_OK = 0
EXIT_BREACHED = 1
EXIT_ERROR = 2

Op = Literal[">=", "<="]
_G = TypeVar("_G", "Gate", "DropGate")


def _op(metric: str) -> Op:
    return "<=" if metric in LOWER_IS_BETTER else ">="


@dataclass(frozen=True, slots=True)
class Gate:
    metric: str
    threshold: float

    @property
    def op(self) -> Op:
        return _op(self.metric)


@dataclass(frozen=True, slots=True)
class DropGate:
    """`--max-drop`: the metric may be worse than the baseline's by `max_drop` at most."""

    metric: str
    max_drop: float

    @property
    def op(self) -> Op:
        return _op(self.metric)


@dataclass(frozen=True, slots=True)
class GateResult:
    """`value` is what was compared (mean or interval bound), None when the metric was never observed.

    A drop gate's (`max_drop` set) `value` is the change, this run's mean minus the baseline's on the
    examples both measured (or the change's pessimistic interval bound), held against a `threshold` of
    -max_drop (+max_drop for a maximum); `baseline` is the baseline's mean on those examples."""

    metric: str
    op: Op
    threshold: float
    value: float | None
    passed: bool
    reason: str
    max_drop: float | None = None
    baseline: float | None = None

    @property
    def label(self) -> str:
        """The gate's name in every report, a JUnit test's name: a drop gate's names no threshold, which
        moves with the baseline and would make each run's test a new one to a CI's test history. Numbers
        in full (`fmt_exact`): 0.4166666667 and 0.41666667 are two gates, two tests."""
        if self.max_drop is None:
            return f"{self.metric} {self.op} {fmt_exact(self.threshold)}"
        return (f"{self.metric} {'rise' if self.op == '<=' else 'drop'} <= {fmt_exact(self.max_drop)} "
                "vs baseline")


GATE = Flag("--gate")
MAX_DROP = Flag("--max-drop")


def parse_gate(text: str, flag: Flag = GATE) -> Gate:
    return Gate(*_metric_value(flag, "threshold", text))


def parse_gates(texts: Sequence[str], flag: Flag = GATE) -> tuple[Gate, ...]:
    """`flag` names the variable too when the values came from RAGMON_GATE (ragmon.options.flag_of)."""
    _refuse_given(flag, texts)
    return _once(flag, tuple(parse_gate(text, flag) for text in texts))


def parse_drop(text: str, flag: Flag = MAX_DROP) -> DropGate:
    return DropGate(*_metric_value(flag, "drop", text))


def parse_drops(texts: Sequence[str], flag: Flag = MAX_DROP) -> tuple[DropGate, ...]:
    _refuse_given(flag, texts)
    return _once(flag, tuple(parse_drop(text, flag) for text in texts))


_COMPARED = re.compile(r"\s*([^\s=<>≥≤]+)\s*(>=|<=|=>|=<|==|>|<|≥|≤)\s*(.*)", re.DOTALL)
"""NAME, a comparison and VALUE: `groundedness>=0.85`, the way a threshold is often written (`≥` as it is
pasted from a document)."""
_SUGGEST_CUTOFF = 0.75
"""How close (difflib's ratio) an unknown metric name must be to a valid one for it to be suggested when
it is no near miss: `hallucination` (0.84), `Recall@5` (0.86), `ndcg@5` (0.8); not `citation` (0.64),
which could be either citation metric, nor `context_recall` (0.6), which is not `recall`."""
METRIC_SYNONYMS = {"faithfulness": "groundedness", "response_relevancy": "answer_relevance",
                   "mean_reciprocal_rank": "mrr"}
"""Other tools' names (ragas's, DeepEval's) for a metric ragmon measures, which spelling alone does not
lead back to. Only names that can mean nothing else: ragas's `context_precision` and `context_recall`
judge the contexts against the reference answer, which ragmon's `precision` and `recall` do not."""
_KNOWN = (*METRIC_NAMES, *METRIC_SYNONYMS)
_LISTED = r"([^\s,;=<>≥≤]+)\s*(>=|<=|=>|=<|==|=|>|<|≥|≤)\s*([^\s,;=<>≥≤]+)"
"""One gate of a list (`_refuse_list`): NAME=VALUE, or NAME, a comparison and VALUE as `_COMPARED` reads
one; neither holds a list's separator."""
_ONE_LISTED = re.compile(_LISTED)
_ALL_LISTED = re.compile(rf"\s*{_LISTED}(?:(?:\s*[,;]\s*|\s+){_LISTED})*[\s,;]*")
_Listed = tuple[str, str, str]
"""A listed gate's NAME, comparison (`=` for none) and VALUE."""
_BEGUN_LETTERS = 3
_BARE_NAME = re.compile(r"[A-Za-z][\w@]*")
"""A metric's name alone, as `--gate groundedness 0.85` gives the flag (`ndcg@10`, `recall_at_5` too)."""
_AT_K = re.compile(r"(.+?)(?:@|_at_)([0-9]+|k)", re.IGNORECASE)
"""A metric's name with a cut-off: `ndcg@10`, `Recall@k`, `precision_at_5`."""


def _form(flag: Flag) -> str:
    return "NAME=DELTA" if flag.option == MAX_DROP.option else "NAME=VALUE"


def _metric_value(flag: Flag, what: str, text: str) -> tuple[str, float]:
    """NAME=VALUE with a known metric name and a value in [0, 1], as every metric is."""
    form = _form(flag)
    given = flag.given(repr(text))
    _refuse_list(flag, [text])
    name, sep, raw = _read(text)
    if sep not in ("", "="):
        # Read as NAME=VALUE, `groundedness>=0.85` was an "unknown metric 'groundedness>'"; its direction is
        # not the user's to choose (a minimum, or a maximum for LOWER_IS_BETTER), so it is not taken.
        _check_metric(given, name)
        raise InputError(f"{given}: write {form}, without a comparison ({name}={_as_share(raw)}): "
                         f"{_direction(flag, name)}")
    if not sep or not name:
        raise InputError(f"{flag} expects NAME=VALUE, got {text!r}{_redirected(flag, name, form)}")
    _check_metric(given, name)
    try:
        value = decimal(raw) + 0.0  # "-0" is 0.0, not a -0.0 that every report would print as "-0"
    except NotANumber as exc:
        # Stripped only of the white space the number rule takes (ASCII): a no-break space pasted with the
        # value is what was refused, and quoted without it the message read "'0.85' is not a number".
        raise InputError(f"{given}: {what} {raw.strip(string.whitespace)!r} is not a number{exc.hint}"
                         f"{as_share(raw)}") from None
    if not 0.0 <= value <= 1.0:
        raise InputError(f"{given}: {what} must be between 0 and 1{as_share(raw)}")
    return name, value


def split_gate(option: str, value: str, after: str) -> str | None:
    """Why a gate typed as two arguments (`--gate groundedness 0.85`) is refused, or None for anything
    else: argparse took the number for a dataset or an unrecognized argument, and the errors named neither
    the flag nor the fix (ragmon.cli.SPLIT_CHECK). An unknown name is told too, so one fix does it."""
    if _BARE_NAME.fullmatch(value) is None or not _is_number(after):
        return None
    unknown = _unknown([value])
    return (f"{option} {value} {after}: write it as one argument, {option} {value}={_as_share(after)}"
            f"{'; ' + unknown if unknown else ''}")


def _is_number(text: str) -> bool:
    try:
        decimal(text.strip().removesuffix("%"))
    except NotANumber:
        return False
    return True


def _refuse_given(flag: Flag, texts: Sequence[str]) -> None:
    """What is wrong with the values as a whole, before each gate is read on its own and refused for the
    first fault found."""
    _refuse_list(flag, texts)
    _refuse_unknown(flag, texts)


def _refuse_unknown(flag: Flag, texts: Sequence[str]) -> None:
    """The unknown metrics of several gates, all in one message: read one gate at a time,
    `RAGMON_GATE='faithfulness=0.8,hallucination=0.1'` was refused for faithfulness, and on the next run
    for hallucination. Quoted is what holds them: a variable's whole value, as the user set it, or each
    flag naming one, as typed on the command line. One unknown name is left to its gate, which quotes that
    gate alone."""
    holding: dict[str, str] = {}
    for text in texts:
        name = _named(text)
        if name and name not in METRIC_NAMES:
            holding.setdefault(name, text)
    if len(holding) < 2:
        return
    if flag.variable is not None:
        given = flag.given(repr(_as_set(texts)))
    else:
        given = " ".join(flag.given(repr(text)) for text in holding.values())
    _check_metrics(given, list(holding))


def _named(text: str) -> str:
    """The metric one gate names (`_read`); empty for a text that is no gate, which is refused as such."""
    name, sep, _ = _read(text)
    return name if sep else ""


def _read(text: str) -> tuple[str, str, str]:
    """One gate's NAME, what separates it from its VALUE (a comparison, `=`, or "" when nothing does) and
    VALUE, as every reading of a gate takes them."""
    compared = _COMPARED.fullmatch(text)
    if compared is not None:
        return compared[1], compared[2], compared[3]
    name, sep, raw = text.partition("=")
    return name.strip(), sep, raw


def _refuse_list(flag: Flag, texts: Sequence[str]) -> None:
    """Several gates in one value. Only a variable's value is a list, split at commas (ragmon.cli): the
    command line repeats the flag. Separated by spaces or semicolons, as many tools' list variables are
    (`RAGMON_GATE="groundedness=0.85 hallucination_rate=0.1"`), the rest had been read as the first's value
    and refused as "threshold '0.85 hallucination_rate=0.1' is not a number". A variable's `texts` are its
    comma-separated parts, judged and suggested whole: told of one part alone, a user who copied the
    suggestion lost the other parts' gates, and CI passed on fewer."""
    listed = [_listed(text) for text in texts]
    if flag.variable is not None:
        _refuse_variable_list(flag, texts, listed)
        return
    for text, gates in zip(texts, listed, strict=True):
        if len(gates) > 1:
            given = flag.given(repr(text))
            _check_listed(given, gates)
            one_each = " ".join(f"{flag.option} {shlex.quote(_normalised(gate))}" for gate in gates)
            raise InputError(f"{given}: give one {_form(flag)} per {flag.option} "
                             f"({one_each}); a comma-separated list is for {variable('replay', flag.option)}"
                             f"{_uncompared(flag, gates)}")


def _refuse_variable_list(flag: Flag, texts: Sequence[str], listed: Sequence[list[_Listed]]) -> None:
    """The variable's whole value as it is to be written: commas between every gate, each NAME=VALUE. A
    comma-separated list written with comparisons or percentages had been refused one part per run, and
    told of the first part alone. A part that is no gate is kept as written, for its own error once the
    rest are right; a blank one is left out, as the split leaves out an empty one. Quoted for a shell, as
    the value is pasted into one."""
    gates = [gate for part in listed for gate in part]
    if any(len(part) > 1 for part in listed):
        told = "separate them with commas"
    elif sum(bool(text.strip()) for text in texts) > 1 and (rewritten := _rewritten(flag, gates)):
        told = rewritten
    else:
        return
    given = flag.given(repr(_as_set(texts)))
    _check_listed(given, gates)
    parts = [",".join(map(_normalised, gates)) if gates else text.strip() for text, gates in
             zip(texts, listed, strict=True) if text.strip()]
    raise InputError(f"{given}: {told} "
                     f"({flag.variable}={shlex.quote(','.join(parts))}){_uncompared(flag, gates)}")


def _check_listed(given: str, gates: Sequence[_Listed]) -> None:
    """Each listed gate's metric, before the list is rewritten: a suggestion of `hallucination=0.1` failed
    on the next run as an unknown metric, gave a direction to a metric ragmon does not have, and lost the
    hint a single gate gets (ragmon's name for `faithfulness`, `--k` for `ndcg@10`). Refused rather than
    renamed in the suggestion: a typo's name is a guess, and a cut-off belongs to `--k`, not the list. All
    at once: told of the first alone, a list naming two was refused again on the next run for the second."""
    _check_metrics(given, [name for name, _, _ in gates])


def _rewritten(flag: Flag, gates: Sequence[_Listed]) -> str:
    """What of a comma-separated list's gates `_normalised` changes, told as what to write; empty when
    nothing."""
    told = [f"each gate as {_form(flag)}"] if any(comparison != "=" for _, comparison, _ in gates) else []
    if any(as_share(raw) for *_, raw in gates):
        told.append("each percentage as its share")
    return f"write {' and '.join(told)}" if told else ""


def _as_set(texts: Sequence[str]) -> str:
    """The variable's value as the user set it, empty parts and all (ragmon.cli.VariableList)."""
    return texts.value if isinstance(texts, VariableList) else ",".join(texts)


def _listed(text: str) -> list[_Listed]:
    """The gates `text` wholly consists of, separated by commas, semicolons or white space; none for a text
    that is anything else. Written with a comparison (`groundedness>=0.85 hallucination_rate<0.1`), a list
    had been read as one gate and told to write "groundedness=0.85 hallucination_rate<0.1"."""
    if _ALL_LISTED.fullmatch(text) is None:
        return []
    return [(found[1], found[2], found[3]) for found in _ONE_LISTED.finditer(text)]


def _normalised(gate: _Listed) -> str:
    """NAME=VALUE, as a gate is given: without a comparison, a percentage as its share (`_as_share`). So
    no `>` is suggested unquoted, which a shell would read as sending the output to a file."""
    name, _, raw = gate
    return f"{name}={_as_share(raw)}"


def _uncompared(flag: Flag, gates: Sequence[_Listed]) -> str:
    """Why the suggestion dropped the comparisons a list was written with: the flag decides each metric's
    direction (`_direction`)."""
    compared = dict.fromkeys(name for name, comparison, _ in gates if comparison != "=")
    if not compared:
        return ""
    return f"; without a comparison: {'; '.join(_direction(flag, name) for name in compared)}"


def _as_share(raw: str) -> str:
    """VALUE as NAME=VALUE takes it: one written as a percentage (`85%`, or `85`, as `as_share` reads one)
    as its share. `groundedness>=85%` was told to write `groundedness=85%`, which is refused in turn."""
    text = raw.strip()
    if not as_share(text):
        return text
    return f"{decimal(text.removesuffix('%').strip()) / 100:g}"


def _check_metric(given: str, name: str) -> None:
    _check_metrics(given, [name])


def _check_metrics(given: str, names: Sequence[str]) -> None:
    if unknown := _unknown(names):
        raise InputError(f"{given}: {unknown}")


def _unknown(names: Sequence[str]) -> str:
    """Unknown names told with the valid ones, each with the one likeliest meant (`_guess`); a name listed
    twice is told once. Empty when every name is known."""
    unknown = list(dict.fromkeys(name for name in names if name not in METRIC_NAMES))
    if not unknown:
        return ""
    told = ", ".join(f"{name!r}{_guess(name)}" for name in unknown)
    return f"unknown metric{'s' if len(unknown) > 1 else ''} {told}; valid names: {', '.join(METRIC_NAMES)}"


def _guess(name: str) -> str:
    """The same name in another case or spelling, or a typo of one (a field's near miss), else the closest;
    of a metric's own name or of another tool's for it (METRIC_SYNONYMS), named as such. A retrieval
    metric written with its cut-off (`ndcg@10`, as BEIR and ranx name them) is told that the cut-off is
    `--k`: told only "did you mean 'ndcg'?", `ndcg@10` was gated at the default top 5."""
    at_k = _AT_K.fullmatch(name)
    if at_k is not None and (base := _meant(at_k[1])) in RETRIEVAL_METRICS:
        cut = f"--k {at_k[2]}" if at_k[2].isdigit() else "--k"
        return f" (did you mean {base!r} with {cut}? retrieval metrics are read at the top --k, default 5)"
    meant = near_miss(name, _KNOWN) or _begun(name) or next(
        iter(difflib.get_close_matches(name.lower(), _KNOWN, n=1, cutoff=_SUGGEST_CUTOFF)), None)
    if meant in METRIC_SYNONYMS:
        return f" (ragmon calls it {METRIC_SYNONYMS[meant]!r})"
    return f" (did you mean {meant!r}?)" if meant else ""


def _begun(name: str) -> str | None:
    """The one name `name` is the start of (`ground`, `halluc`): a name cut short is too far from the whole
    for a typo's closeness. None for a start several names share (`citation`, `answer`), which could be
    either, and for one under three letters."""
    if len(name) < _BEGUN_LETTERS:
        return None
    begun = [known for known in _KNOWN if known.startswith(name.lower())]
    return begun[0] if len(begun) == 1 else None


def _meant(name: str) -> str | None:
    """The metric `name` spells in another case or way, by ragmon's name or another tool's."""
    meant = near_miss(name, _KNOWN)
    return METRIC_SYNONYMS.get(meant, meant) if meant else None


def _direction(flag: Flag, name: str) -> str:
    """Which way the number bounds the metric: the flag decides that, never the user."""
    if flag.option == MAX_DROP.option:  # the most a metric may worsen: a maximum, whichever way it goes
        moved = "rise above" if name in LOWER_IS_BETTER else "fall below"
        return f"a --max-drop DELTA is always a maximum, the most {name} may {moved} the baseline's"
    return f"{name} is always {'a maximum' if name in LOWER_IS_BETTER else 'a minimum'}"


def _redirected(flag: Flag, name: str, form: str) -> str:
    """For a metric's name alone on the command line, what a shell made of an unquoted
    `groundedness>=0.85`: the name, with the output sent to a file named `=0.85` (an unquoted `<=` reads a
    file instead, and the shell stops there)."""
    if name not in METRIC_NAMES or flag.variable is not None:
        return ""
    value = form.partition("=")[2]
    return (f" (if you typed {name}>={value} unquoted, the shell passed {name} alone and sent the output to "
            f"a file named '={value}'): write {name}={value}, as {_direction(flag, name)}; quote any "
            f"argument holding > or <")


def _once(flag: Flag, gates: tuple[_G, ...]) -> tuple[_G, ...]:
    names = [gate.metric for gate in gates]
    for name in names:
        if names.count(name) > 1:
            raise InputError(f"{flag.given(name)} is given {names.count(name)} times; give each metric once")
    return gates


def decide(report: Report, gates: Sequence[Gate], confidence: float | None = None) -> tuple[GateResult, ...]:
    """Compare on the mean or, given `confidence`, on the interval bound least favourable to a pass."""
    return tuple(_decide_one(report, gate, confidence) for gate in gates)


def _decide_one(report: Report, gate: Gate, confidence: float | None) -> GateResult:
    aggregate = report.aggregates.get(gate.metric) or Aggregate(None, 0)
    if aggregate.mean is None or aggregate.n == 0:
        return GateResult(gate.metric, gate.op, gate.threshold, None, False, "undefined: 0 observations")
    label = ""
    value = aggregate.mean
    if confidence is not None:
        interval = (aggregate.ci if confidence == report.config.confidence
                    else _interval(report, gate.metric, confidence))
        percent = f"{confidence * 100:g}%"
        if interval is None:
            reason = f"no {percent} interval from {aggregate.n} observations"
            return GateResult(gate.metric, gate.op, gate.threshold, None, False, reason)
        value = interval[0] if gate.op == ">=" else interval[1]
        label = f"{'lower' if gate.op == '>=' else 'upper'} {percent} bound "
    # Rounded as a drop gate's change is: a mean is a sum of floats, and three examples at 0, 0 and 0.6
    # average to 0.19999999999999998, which would breach `groundedness=0.2` by rounding alone. The
    # threshold is rounded the same way: one written with more decimals (0.2000000000000004) would
    # otherwise be breached by a mean at or above it, once that mean is rounded to 0.2.
    value, threshold = rounded(value), rounded(gate.threshold)
    passed = value >= threshold if gate.op == ">=" else value <= threshold
    shown = gate.op if passed else {">=": "<", "<=": ">"}[gate.op]
    shown_value, shown_threshold = fmt_pair(value, threshold)
    reason = f"{label}{shown_value} {shown} {shown_threshold}"
    return GateResult(gate.metric, gate.op, threshold, value, passed, reason)


def _interval(report: Report, metric: str, confidence: float) -> tuple[float, float] | None:
    """The Report's own resampling (same seed, same rounds), read at another level."""
    config = report.config
    column = [result.metrics.get(metric) for result in report.results]
    return aggregate(column, samples=config.bootstrap_samples, confidence=confidence, seed=config.seed,
                     metric=metric, unit=True).ci


def decide_drops(comparison: Comparison, drops: Sequence[DropGate], confidence: float | None,
                 config: EvalConfig) -> tuple[GateResult, ...]:
    """Compare on the change of the means over the examples both runs measured or, given `confidence`,
    on the bound of a paired bootstrap interval of that change least favourable to a pass (resampling
    examples with `config`'s rounds and seed).

    Paired, because the question is whether the same questions are answered worse. Either run's own
    interval holds the spread between easy and hard questions, which both runs share: the candidate's
    pessimistic bound held against the baseline's mean would fail an unchanged candidate whenever the
    interval is wider than the allowed drop, as on any golden set of a few dozen examples. The per-example
    differences cancel that spread: an unchanged run has an interval of [0, 0], and one answer gone wrong
    among 15 widens it as far as resampling that one answer allows. An example one run alone measured (an
    answer abstaining in one of them) has no difference: it is counted in the reason, not compared; but
    one that abstained in the baseline and makes claims now is compared as ABSTAINED_AS there (it made no
    unsupported claim), and counted in the reason too."""
    return tuple(_decide_drop(comparison, drop, confidence, config) for drop in drops)


def _decide_drop(comparison: Comparison, drop: DropGate, confidence: float | None,
                 config: EvalConfig) -> GateResult:
    change = comparison.metrics[drop.metric]
    max_drop = rounded(drop.max_drop)  # as the change is, a gate's threshold is (see `_decide_one`)
    threshold = (max_drop if drop.op == "<=" else -max_drop) + 0.0

    def result(value: float | None, passed: bool, reason: str) -> GateResult:
        return GateResult(drop.metric, drop.op, threshold, value, passed, reason, max_drop, change.baseline)

    before, after, value = change.baseline, change.candidate, change.delta
    if before is None or after is None or value is None:
        return result(None, False, _undefined(change, comparison.shared))
    label, means = "", ""
    if confidence is not None:
        percent = f"{confidence * 100:g}%"
        # Named, so drawn worst first as the metric's own interval is: a rise of hallucination_rate bounds
        # as a drop of groundedness does. The bootstrap alone: every example changed alike (none, in an
        # unchanged run) is a change of zero width, which a binomial bound of a proportion cannot say.
        interval = aggregate(change.differences, samples=config.bootstrap_samples, confidence=confidence,
                             seed=config.seed, metric=drop.metric, unit=False).ci
        if interval is None:
            return result(None, False, f"no {percent} interval of the change from "
                                       f"{_counted(change, drop.metric)}")
        value = rounded(interval[0] if drop.op == ">=" else interval[1])
        side = "lower" if drop.op == ">=" else "upper"
        label, means = f" at the {side} {percent} bound of the change", "means "
    worsening = value if drop.op == "<=" else -value
    passed = worsening <= max_drop
    worse, better = ("rose", "fell") if drop.op == "<=" else ("dropped", "rose")
    if worsening > 0:
        amount, limit = fmt_pair(worsening, max_drop)
        moved = f"{worse} {amount} {'<=' if passed else '>'} {limit}"
    else:
        moved = f"{better} {-worsening:.4g}" if worsening else "unchanged"
    return result(value, passed, f"{moved} against the baseline{label}: {means}{before:.4g} -> "
                                 f"{after:.4g} on {_counted(change, drop.metric)}")


def _counted(change: MetricChange, metric: str) -> str:
    """The examples the means are over. "measured": fewer than the examples both runs scored when one of
    them lacks the metric (an answer gone, or now abstaining), which the reports' count of shared examples
    would otherwise contradict; then those that abstained in the baseline and make claims now, with the
    value they were compared as, which no report of the baseline shows; and those one run alone measured,
    said and not compared: their values have nothing in the other run to be paired with (an answer
    abstaining now, or whose contexts were unknown in one run), and set against the other examples' mean
    they moved the change by how easy their question is, not by what they did."""
    measured = change.n - change.abstained
    parts = [f"{_examples(measured)} measured in both runs"] if measured or not change.abstained else []
    if change.abstained:
        parts.append(f"{_examples(change.abstained)} that abstained in the baseline (counted as {metric} "
                     f"{fmt_exact(ABSTAINED_AS[metric])} there)")
    examples = " and ".join(parts)
    if not change.one_sided:
        return examples
    alone = ", ".join(f"{count} more in {run} only" for count, run in change.one_sided)
    return f"{examples} ({alone}, not compared)"


def _examples(count: int) -> str:
    return f"{count} example{'' if count == 1 else 's'}"


def _undefined(change: MetricChange, shared: int) -> str:
    """Which run lacked the metric: the one to look at."""
    if change.baseline_n == 0 and change.candidate_n == 0:
        return "undefined in both runs: 0 observations"
    if change.baseline_n == 0:
        return "undefined in the baseline: 0 observations"
    if change.candidate_n == 0:
        return "undefined in this run: 0 observations"
    return f"no example measured in both runs ({_examples(shared)} in both)"


def combine(runs: Sequence[Sequence[GateResult]], min_pass_rate: float) -> tuple[GateResult, ...]:
    """For a judge that can disagree with itself: a gate holds when it held in at least that share of runs,
    and in one at least. `--min-pass-rate 0` would otherwise need none, and a gate breached in every run,
    or on a metric no run observed ("undefined: 0 observations", no value at all), held."""
    if len(runs) == 1:
        return tuple(runs[0])
    needed = max(1, math.ceil(min_pass_rate * len(runs) - 1e-9))
    combined = []
    for per_run in zip(*runs, strict=True):
        first = per_run[0]
        held = sum(result.passed for result in per_run)
        values = [result.value for result in per_run if result.value is not None]
        value = sum(values) / len(values) if values else None
        reason = (f"held in {held} of {len(runs)} runs (needs {needed}): "
                  + "; ".join(result.reason for result in per_run))
        combined.append(replace(first, value=value, passed=held >= needed, reason=reason))
    return tuple(combined)


def exit_code(results: Sequence[GateResult]) -> int:
    return EXIT_OK if all(result.passed for result in results) else EXIT_BREACHED


def fmt_pair(value: float, threshold: float) -> tuple[str, str]:
    """Four significant digits, more when needed so that a breach never prints as `0.85 < 0.85`: rounding
    is monotonic, so once the two differ each is shown on its own side of the other. A value equal to its
    threshold is shown as the threshold is in a gate's label (`fmt_exact`), not as `0.4167 >= 0.4167`
    beside `>= 0.41667`."""
    if value == threshold:
        return fmt_exact(value), fmt_exact(threshold)
    for digits in range(4, 17):
        shown = f"{value:.{digits}g}", f"{threshold:.{digits}g}"
        if shown[0] != shown[1]:
            return shown
    return f"{value:.17g}", f"{threshold:.17g}"


def fmt_exact(number: float) -> str:
    """The fewest significant digits that read back as `number` (`:g` style: 0.85, 1, 1e-05): a threshold
    as the user wrote it, where `:g` (six digits) would show 0.4166666667 as 0.416667."""
    return next(shown for digits in range(1, 18) if float(shown := f"{number:.{digits}g}") == number)
