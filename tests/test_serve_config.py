"""`ragmon serve`'s flags and RAGMON_* variables read into its settings, through the real CLI parser.

Bad values, which the CLI turns into one line and exit 2, are tested on the CLI itself (e.g. in
tests/test_service_pipelines.py).
"""

from __future__ import annotations

from ragmon.cli import build_parser
from ragmon.serve_config import ServeConfig


def test_pipelines_flag_repeated_comma_separated_or_from_the_environment() -> None:
    def config(argv: list[str], environ: dict[str, str] | None = None) -> ServeConfig:
        return ServeConfig.from_args(build_parser("serve", environ or {}).parse_args(["serve", *argv]))

    repeated = config(["--pipelines", "a,b", "--pipelines", " c ", "--pipelines", "a"])
    assert repeated.pipelines == ("a", "b", "c")            # in order, blanks trimmed, each name once
    assert config([], {"RAGMON_PIPELINES": "a,b"}).pipelines == ("a", "b")
    assert config(["--pipelines", "c"], {"RAGMON_PIPELINES": "a,b"}).pipelines == ("c",)   # the flag wins
    unset = config([])
    assert (unset.pipelines, unset.max_pipelines) == (None, 20)       # DESIGN §5: default 20
    assert config(["--max-pipelines", "3"]).max_pipelines == 3
