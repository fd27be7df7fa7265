"""The version of ragmon's scoring rules, which reports, baselines and captures record.

A figure moves when ragmon changes how it scores: how an answer is cut into claims, how the lexical judge
decides one, how a metric is computed. `ragmon.__version__` told none of it (it stayed "0.1.0" through
hundreds of such changes), so a baseline written by another build compared its figures with this one's as
if only the candidate had changed, and a capture replayed after an upgrade differed from the dashboard
without a word. `SCORING_RULES` is raised with every change that moves a figure of the deterministic path,
and a comparison across two values says so. tests/test_rules.py scores a corpus (the judge's corpora and
every case the scoring tests pin, metric edge cases, aggregates) with this code and with the commit that
set the value: a change that moves a figure of it and leaves this number alone fails there; one that moves
none of it passes unseen, so raise the number by hand for a change of scoring the corpus does not hold.

The Claude judge's verdicts have their own version (its `prompt_version` setting); this one covers what
every judge shares (claims, metrics) and the lexical judge.
"""

from __future__ import annotations

SCORING_RULES = 2
"""Raised by one for each change that moves any figure; 1 is the first build that recorded it, 2 the first
whose intervals hold the binomial bound (ragmon.metrics.aggregate)."""
