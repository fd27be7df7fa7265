"""`SCORING_RULES` names the figures a build gives (ragmon.rules): a baseline or a capture scored with
another value was scored otherwise, and the comparison says so. So every build since the commit that set
the value must score the corpus (tests/scoring_corpus.py, the cases the scoring tests pin among it) as that
commit's code does, and a change that moves a figure must raise it. The commit's code is read from git and
run in a subprocess: a fingerprint kept in the repo would miss a change whose test is new, which the old
code scores otherwise but the fingerprint never saw."""

from __future__ import annotations

import ast
import functools
import json
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

import pytest
import scoring_corpus

from ragmon import Example
from ragmon.rules import PER_EXAMPLE_RULES, SCORING_RULES

REPO = Path(__file__).parents[1]
RULES = "ragmon/rules.py"


def _git(*args: str, repo: Path = REPO, given: bytes | None = None) -> bytes:
    done = subprocess.run(["git", *args], cwd=repo, input=given, capture_output=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()} (this test reads "
                    "the commit that set ragmon.rules.SCORING_RULES from the repository's history)")
    return done.stdout


def assigned(source: bytes) -> int | None:
    """SCORING_RULES as a ragmon/rules.py assigns it, however it is spelled (annotated, commented, the file
    saved with a byte-order mark, which Python's import reads and ast reads only from bytes); None for a
    file that assigns it no whole number (another file a move or copy came from)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, given = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, given = [node.target], node.value
        else:
            continue
        if any(isinstance(target, ast.Name) and target.id == "SCORING_RULES" for target in targets):
            value = ast.literal_eval(given)
            return value if isinstance(value, int) and not isinstance(value, bool) else None
    return None


def history(repo: Path = REPO) -> tuple[dict[str, int | None], dict[str, list[str]]]:
    """The value of SCORING_RULES at every commit of HEAD's history (None where none is assigned), read at
    ragmon/rules.py or a name it was moved from, and each commit's parents. Every commit, merges too: a log
    of the commits that changed the file lists no merge (a merge resolving a conflict to another value, an
    octopus), and one following the file's moves tracks one path, missing a branch that kept the old
    name; either way no commit was found at the value, and nothing was compared."""
    if _git("rev-parse", "--is-shallow-repository", repo=repo).strip() == b"true":
        pytest.fail("a shallow clone: the commit that set SCORING_RULES may be past its history (git fetch "
                    "--unshallow)")
    names = [RULES, *(line.split("\t")[1] for line in _git(
        "log", "--follow", "-M", "--diff-filter=R", "--name-status", "--format=", "--", RULES,
        repo=repo).decode().splitlines() if line.startswith("R"))]
    parents = {commit: rest for commit, *rest in (line.split() for line in _git(
        "rev-list", "--parents", "HEAD", repo=repo).decode().splitlines())}
    asked = [(commit, name) for commit in parents for name in names]
    read = _git("cat-file", "--batch", repo=repo, given="".join(f"{c}:{n}\n" for c, n in asked).encode())
    values: dict[str, int | None] = dict.fromkeys(parents)
    at = 0
    for commit, _ in asked:
        end = read.index(b"\n", at)
        header = read[at:end].split()
        if header[-1] == b"missing":
            at = end + 1
            continue
        size = int(header[2])
        if values[commit] is None:
            values[commit] = assigned(read[end + 1:end + 1 + size])
        at = end + 2 + size
    return values, parents


def setting_commits(rules: int, values: dict[str, int | None], parents: dict[str, list[str]]) -> list[str]:
    """The commits that set SCORING_RULES to `rules`: at `rules`, and none of their parents at it. A merge
    of a branch that left another value, or a commit that only reworded the file, sets nothing; a merge
    resolving two raises to a third value does."""
    return [commit for commit, value in values.items()
            if value == rules and all(values.get(parent) != rules for parent in parents.get(commit, []))]


def code_of(commit: str, into: Path) -> Path:
    """The `ragmon` package as `commit` has it, unpacked under `into`."""
    archive = _git("archive", "--format=tar", commit, "ragmon")
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def scored_by(code: Path, examples: list[Example], tmp_path: Path) -> subprocess.Popen[str]:
    """Scoring `examples` with the ragmon under `code`, in a process of its own, started at once: it scores
    while this one does."""
    given = tmp_path / "examples.json"
    given.write_text(scoring_corpus.to_json(examples), encoding="utf-8")
    return subprocess.Popen([sys.executable, str(Path(scoring_corpus.__file__)), str(given)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                            env={"PYTHONPATH": str(code), "PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"})


def figures_of(process: subprocess.Popen[str]) -> dict[str, object]:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err[-2000:]
    return dict(json.loads(out))


def per_example(figures: dict[str, object]) -> dict[str, object]:
    """What of the corpus's figures `PER_EXAMPLE_RULES` vouches for: every example's, and the aggregates'
    means and counts, not their intervals."""
    return {key: {metric: found[:2] for metric, found in value.items()}
            if key.startswith("aggregates:") and isinstance(value, dict) else value
            for key, value in figures.items()}


def differences(before: dict[str, object], after: dict[str, object]) -> list[str]:
    return [f"{example_id}: {before.get(example_id)!r:.300} -> {after[example_id]!r:.300}"
            for example_id in after if before.get(example_id) != after[example_id]]


def test_the_corpus_is_scored_as_the_commit_that_set_the_scoring_rules_scored_it(
        corpus: tuple[list[Example], dict[str, object]],
        scored_at: Callable[[str], dict[str, object]]) -> None:
    values, parents = history()
    higher = {commit: value for commit, value in values.items()
              if value is not None and value > SCORING_RULES}
    newest = next(iter(higher), "")
    assert not higher, (f"SCORING_RULES = {SCORING_RULES}, but {newest[:12]} left it at "
                        f"{higher.get(newest)}: a value names one way of scoring, so it is only ever "
                        f"raised (to {max(higher.values(), default=0) + 1})")
    setting = setting_commits(SCORING_RULES, values, parents)
    committed = values[_git("rev-parse", "HEAD").decode().strip()]
    if not setting:
        # Only a value raised in the working tree, above HEAD's, has no commit to compare with. A HEAD whose
        # value this test cannot read (a symlink, a tuple assignment) had passed here without comparing.
        assert committed is not None and committed < SCORING_RULES, (
            f"HEAD's {RULES} assigns SCORING_RULES no whole number this test reads: assign it as "
            f"`SCORING_RULES = {SCORING_RULES}`")
        return
    examples, figures = corpus
    for commit in setting:  # one, unless two branches raised it alike
        moved = differences(scored_at(commit), figures)
        assert not moved, (
            f"{len(moved)} of {len(examples):,} examples are scored otherwise than by {commit[:12]}, which "
            f"set SCORING_RULES = {SCORING_RULES}: raise it to {SCORING_RULES + 1} in {RULES} (reports, "
            f"captures and baselines then say their figures are not comparable). First: "
            + "; ".join(moved[:3]))


def test_each_example_is_scored_as_the_commit_that_set_the_per_example_rules_scored_it(
        corpus: tuple[list[Example], dict[str, object]],
        scored_at: Callable[[str], dict[str, object]]) -> None:
    """Baselines and captures from rules PER_EXAMPLE_RULES on are compared without a caveat (ragmon.rules),
    so that commit's code must give every per-example figure this build gives: a change that moves one
    (and so raises SCORING_RULES, above) must set PER_EXAMPLE_RULES to the raised value too."""
    assert 1 <= PER_EXAMPLE_RULES <= SCORING_RULES
    values, parents = history()
    setting = setting_commits(PER_EXAMPLE_RULES, values, parents)
    if not setting:  # both raised together in the working tree: no commit scored examples so yet
        assert PER_EXAMPLE_RULES == SCORING_RULES, (
            f"no commit of HEAD's history set SCORING_RULES = {PER_EXAMPLE_RULES} (PER_EXAMPLE_RULES)")
        return
    examples, figures = corpus
    for commit in setting:
        moved = differences(per_example(scored_at(commit)), per_example(figures))
        assert not moved, (
            f"{len(moved)} of {len(examples):,} examples are scored otherwise than by {commit[:12]}, which "
            f"set SCORING_RULES = {PER_EXAMPLE_RULES}: set PER_EXAMPLE_RULES in {RULES} to the raised "
            f"SCORING_RULES (baselines and captures of older rules then get their caveat). First: "
            + "; ".join(moved[:3]))


@pytest.fixture(scope="module")
def corpus() -> tuple[list[Example], dict[str, object]]:
    """The corpus and this build's figures of it, scored once for the tests below."""
    examples = scoring_corpus.every_example()
    return examples, scoring_corpus.scored(examples)


@pytest.fixture(scope="module")
def pinned() -> tuple[list[Example], dict[str, object]]:
    """The cases the scoring tests pin, the shipped examples and their bent copies, with this build's
    figures of them: enough to show each rule's change below, in a quarter of the corpus's time (the
    corpora's long pages are what takes it)."""
    examples = [*scoring_corpus.harvested(), *scoring_corpus.shipped(), *scoring_corpus.metric_cases()]
    return examples, scoring_corpus.scored(examples)


@pytest.fixture(scope="module")
def shipped() -> tuple[list[Example], dict[str, object]]:
    """The shipped examples and their bent copies alone (512, against 11,991 with the pinned cases), with
    this build's figures of them: enough to show a change of the threshold, of a retrieval metric or of an
    interval (the three such tests below: ~42 -> ~23 s of CPU with the number word's, measured)."""
    examples = [*scoring_corpus.shipped(), *scoring_corpus.metric_cases()]
    return examples, scoring_corpus.scored(examples)


@pytest.fixture(scope="module")
def scored_at(tmp_path_factory: pytest.TempPathFactory, corpus: tuple[list[Example], dict[str, object]]
              ) -> Callable[[str], dict[str, object]]:
    """A commit's figures of the corpus, scored by its code once for the two tests above: while
    PER_EXAMPLE_RULES = SCORING_RULES one commit set both, and each test had scored the corpus with it
    (~15 s each)."""
    examples, _ = corpus

    @functools.cache
    def figures_at(commit: str) -> dict[str, object]:
        where = tmp_path_factory.mktemp(commit[:12])
        return figures_of(scored_by(code_of(commit, where / commit), examples, where))

    return figures_at


@pytest.mark.parametrize(("path", "rule", "changed", "cases"), [
    # A claim of 5 content terms with 3 in a context (0.6) is still supported; one of 7 with 4 (0.571) no
    # longer is: the default every user scores with.
    ("judges/lexical.py", "DEFAULT_THRESHOLD = 0.56\n", "DEFAULT_THRESHOLD = 0.6\n", "shipped"),
    # "fourteen" no longer read as 14: a test pins it with the claim in a variable and the page in a call.
    ("text/numbers.py", '"fourteen": 14, ', "", "pinned"),
    # Precision over the documents retrieved, not over k. (A document retrieved twice counted as a second
    # hit puts recall over 1, which aggregating now refuses, naming the metric: no figure to compare.)
    ("metrics/retrieval.py", "    return sum(hits) / k\n", "    return sum(hits) / max(len(hits), 1)\n",
     "shipped"),
    # Every interval read by the nearest rank rather than between the two (moves --confidence gates).
    ("metrics/aggregate.py", "    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)",
     "    return ordered[round(pos)]", "shipped"),
], ids=["default-threshold", "number-word", "precision-over-retrieved", "interval"])
def test_a_small_change_of_one_rule_moves_figures_of_the_corpus(
        tmp_path: Path, request: pytest.FixtureRequest, path: str, rule: str, changed: str, cases: str
) -> None:
    """The comparison above can fail, for a change in each part of scoring: this build's code with one
    rule changed scores some of the corpus otherwise, some of the cases the tests pin already (`cases`: the
    fixture of the examples it is shown on)."""
    code = tmp_path / "ragmon"
    shutil.copytree(REPO / "ragmon", code, ignore=shutil.ignore_patterns("__pycache__"))
    source = (code / path).read_text(encoding="utf-8")
    assert source.count(rule) == 1, f"ragmon/{path} no longer has {rule!r}: name another rule of it here"
    (code / path).write_text(source.replace(rule, changed), encoding="utf-8")
    examples, figures = request.getfixturevalue(cases)
    changed_figures = figures_of(scored_by(tmp_path, examples, tmp_path))
    assert differences(figures, changed_figures)
    # And the per-example comparison sees it, but for an interval's change, which it must let pass.
    moves_examples = path != "metrics/aggregate.py"
    assert bool(differences(per_example(figures), per_example(changed_figures))) == moves_examples


@pytest.mark.parametrize(("values", "parents", "found"), [
    # c2 raised it to 2; c3 changed the file's words, at 2 still.
    ({"c3": 2, "c2": 2, "c1": 1}, {"c3": ["c2"], "c2": ["c1"]}, ["c2"]),
    # c2's 2 lowered to 1 by c3: c2 is still the commit that set 2 (a lowered value is refused apart).
    ({"c3": 1, "c2": 2, "c1": 1}, {"c3": ["c2"], "c2": ["c1"]}, ["c2"]),
    # main's a1 raised it to 2; a side branch (b1 reworded the file at 1, b2 changed no line of it) was
    # merged in m at 2: a1 set it, whatever the dates order them by.
    ({"m": 2, "b1": 1, "a1": 2, "c0": 1}, {"m": ["a1", "b2"], "b2": ["b1"], "b1": ["c0"], "a1": ["c0"]},
     ["a1"]),
    ({"c1": 2}, {}, ["c1"]),
    ({"c1": 1}, {}, []),                                 # 2 is the working tree's, not committed
])
def test_the_setting_commits_are_those_at_the_value_whose_parents_were_not(
        values: dict[str, int], parents: dict[str, list[str]], found: list[str]) -> None:
    assert setting_commits(2, values, parents) == found


class ToyRepo:
    """A git repository of ragmon/rules.py alone, to read the history of."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.path), "GIT_AUTHOR_NAME": "t",
               "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
        return subprocess.run(["git", *args], cwd=self.path, env=env, capture_output=True, text=True,
                              check=True).stdout.strip()

    def commit(self, value: int, words: str = "") -> str:
        """A commit leaving SCORING_RULES at `value` (merging first when `git merge` was begun)."""
        rules = self.path / RULES
        rules.parent.mkdir(parents=True, exist_ok=True)
        rules.write_text(f'"""{words}"""\nSCORING_RULES = {value}\n', encoding="utf-8")
        self.git("add", RULES)
        self.git("commit", "-q", "-m", f"{value} {words}")
        return self.git("rev-parse", "HEAD")


def test_the_history_reads_merges_that_set_the_value_and_branches_that_reworded_it(tmp_path: Path) -> None:
    repo = ToyRepo(tmp_path)
    start = repo.commit(1)
    raised = repo.commit(2, "main raises")
    repo.git("checkout", "-q", "-b", "side", start)
    reworded = repo.commit(1, "side rewords")
    also = repo.commit(2, "side raises too")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "-s", "ours", "--no-commit", "side")
    merged = repo.commit(3, "the merge resolves both raises to a third value")
    values, parents = history(tmp_path)
    assert (values[start], values[raised], values[reworded], values[also], values[merged]) == (1, 2, 1, 2, 3)
    assert sorted(parents[merged]) == sorted([raised, also])
    # The merge set 3 (a log of the commits that changed the file lists no merge: nothing was compared);
    # each branch set 2 on its own.
    assert setting_commits(3, values, parents) == [merged]
    assert sorted(setting_commits(2, values, parents)) == sorted([raised, also])


@pytest.mark.parametrize("source", [b"SCORING_RULES = 3\n", b"SCORING_RULES: int = 3  # claims\n",
                                    b'"""Doc."""\nX = 1\nSCORING_RULES = 3\n"""Raised by one."""\n',
                                    b"\xef\xbb\xbf" + b"SCORING_RULES = 3\n"])  # saved with a BOM
def test_the_value_is_read_however_it_is_spelled(source: bytes) -> None:
    assert assigned(source) == 3


def test_the_readme_names_todays_per_example_rules() -> None:
    # It had said "18 today" for twelve raises: a user reading it took a baseline of rules 20 for one that
    # compares without a warning.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"`ragmon.rules.PER_EXAMPLE_RULES`, {PER_EXAMPLE_RULES} today" in readme
    assert f"rules 24 to {PER_EXAMPLE_RULES} as `ragmon/rules.py` lists each" in readme
