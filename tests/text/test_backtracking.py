"""Answers shaped to make a pattern backtrack, each split at once: an LLM's answer on the scoring path, where
one that takes minutes stalls every trace behind it. Each is run apart with a timeout, so that a relapse
fails rather than hangs the suite; sizes are set where the old patterns took minutes or more."""

from __future__ import annotations

import subprocess
import sys

import pytest


def printed(program: str) -> str:
    """What `program` prints, run in a process of its own within 20 s (its texts are built in it: they are
    too long for a command line)."""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=20,
                          check=True)
    return done.stdout


def claim_spans(text: str) -> str:
    """What `split_claims` prints for the answer the expression `text` builds."""
    return printed("from ragmon.text.claims import split_claims\n"
                   f"text = {text}\n"
                   "print([(claim.start, claim.end) for claim in split_claims(text)])")


@pytest.mark.parametrize(("text", "spans"), [
    # A run of emoji before no space: each was tried as a sentence's end from every one of them, reading
    # the rest of the run again (10,000 took 0.1 s, 100,000 over 10 s). One sentence: 1 + 300,000 + 1.
    ('"a" + "😀" * 300_000 + "A"', [(0, 300_002)]),
    # A refusal and a contrast ("but") after a long run of spaces, where each space began a try of the
    # contrast that read the rest of the run (16,000 took 9 s). A claim, for what it asserts beside the
    # refusal: 37 characters, the spaces, then 26.
    ('"The documents do not mention shipping" + " " * 100_000 + "x but refunds take 5 days."',
     [(0, 100_063)]),
    # A greeting's name before spaces and no mark, the spaces split between three runs every way (1,000
    # took 0.25 s, cubic). No salutation: a claim of 9 + 20,000 + 1 characters.
    ('"Dear John" + " " * 20_000 + "x"', [(0, 20_010)]),
    # A closing's words before spaces and no name, the spaces split between five runs (1,000 took over
    # 10 s). "Refunds take 30 days." is 21 characters; the line after it, from 22, no closing: a claim of
    # 12 + 20,000 + 2, to 20,036.
    ('"Refunds take 30 days.\\nKind regards" + " " * 20_000 + "x1"', [(0, 21), (22, 20_036)]),
    # A line under a closing of words a hyphen joins, each "-A" a word's tail or a separator (22 took 0.3
    # s, twice that for each 2 more). No name line ("!" ends none) and no claim (its one word, "a", is a
    # function word): the refund sentence alone.
    ('"Refunds take 30 days.\\nKind regards,\\nA" + "-A" * 60 + "!"', [(0, 21)]),
    # A mail app's line before spaces and a digit, the spaces split between two runs (10,000 took 0.4 s,
    # quadratic). A number makes the line a claim: from 36 ("Kind regards," 13 characters from 22, then a
    # newline) over 19 + 100,000 + 1 characters, to 100,056.
    ('"Refunds take 30 days.\\nKind regards,\\nSent from my iPhone" + " " * 100_000 + "1"',
     [(0, 21), (36, 100_056)]),
    # A cue naming no one refusing, again and again with no refuser (a draft that looked for one at each cue
    # read the sentence again each time): a claim, 16 x 10,000 + 2 characters. With "given" at its end, the
    # answerer's sources: a refusal, no claim. And a run of marks before a terse refusal's opening, and
    # long openings before "cannot be confirmed", no pronoun for what was asked right before it: claims.
    ('"No data is sold " * 10_000 + "x."', [(0, 160_002)]),
    ('"No data is sold " * 10_000 + "as given."', []),
    ('"Aucune information n\'est vendue " * 5_000 + "x."', [(0, 160_002)]),
    ('"," * 100_000 + "insufficient information is x."', [(0, 100_030)]),
    ('"It " * 30_000 + "cannot be confirmed."', [(0, 90_020)]),
    ('"Whether " + "a " * 50_000 + "cannot be confirmed."', [(0, 100_028)]),
    # Nor a subject with "the", a topic or a reason too long before it, nor where it cannot be too long
    # after it (`_OPENER`, `_ENDS_THERE`).
    ('"The " + "a " * 50_000 + "cannot be confirmed."', [(0, 100_024)]),
    ('"Regarding " + "a " * 50_000 + ", that cannot be confirmed."', [(0, 100_037)]),
    ('"a, so " * 20_000 + "it cannot be confirmed."', [(0, 120_023)]),
    ('"X cannot be determined from what " + "a " * 50_000 + "."', [(0, 100_034)]),
    # "No information about" and a topic read to its end for a verb, and many short openings and commas
    # before it: claims, a verb after the topic ("is x") and no refusal where the opening is too long.
    ('"No information about " + "the fee " * 20_000 + "is x."', [(0, 160_026)]),
    ('"a," * 50_000 + " no data on x."', [(0, 100_014)]),
])
def test_an_answer_shaped_to_backtrack_is_split_at_once(text: str, spans: list[tuple[int, int]]) -> None:
    assert claim_spans(text) == f"{spans}\n"


def test_a_long_word_after_a_number_is_read_for_its_bound_at_once() -> None:
    # A bound after a number may follow two words of what it counts; words side by side with no separator
    # had let one long word be split every way: 16,000 letters took 3 s, 4x each doubling.
    assert printed("from ragmon.text.units import bounds; "
                   "print(sorted(bounds('orders 50 ' + 'a' * 40_000 + ' x', [50.0])))") == "[]\n"


@pytest.mark.parametrize("text", [
    "'1 +' + ' ' * 100_000 + 'x = 2'",  # spaces after an operator, split between two runs (20,000: 7 s)
    "'1' + ' + 1' * 100_000 + ' = x'",  # operators with no result, read again from each figure
    "'1 percent of your ' * 100_000 + 'is 2'",  # percentages of percentages, in words (1.3 s at 100,000)
    "'1% off 2 ab cd ' * 50_000 + ', so that’s 3'",  # words naming a figure, again and again
])
def test_a_sum_with_long_runs_is_read_for_its_result_at_once(text: str) -> None:
    # A worked sum is spaced as people write it: a few spaces and up to eight operators. Neither text has a
    # sum that comes to its result.
    assert printed("from ragmon.text.worked_sums import worked; "
                   f"print(sorted(worked({text}).results))") == "[]\n"


def test_many_sums_that_come_right_are_read_at_once() -> None:
    # Each sum that came right read the rest of the claim again for its total stated elsewhere: 10,000
    # characters of them took 6 s, 100,000 minutes (a third review). Every "€3" is a sum's own total.
    assert printed("from ragmon.text.worked_sums import worked; "
                   "print(sorted(worked('€1 + €2 = €3 and ' * 20_000).results))") == "[3.0]\n"


def test_a_long_list_of_chinese_items_is_read_at_once() -> None:
    # Each "一、" line is looked at with the one below it for a section's title (one match each): 20,000
    # items over 100,000 characters, none a title, each a claim.
    assert printed("from ragmon.text.claims import split_claims\n"
                   "print(len(split_claims('一、退款免费\\n' * 20_000)))") == "20000\n"


@pytest.mark.parametrize(("text", "read"), [
    ("'1:' * 100_000", "[1.0] []"),  # a colon after each digit: no minutes
    ("'12:30:' * 50_000", "[12.0, 30.0] []"),  # a timestamp's pieces, every one
    ("'9:30 ' * 50_000 + '(5 min)'", "[5.0, 50000930.0] []"),  # one time again and again, and a duration
    ("'9h30 ' * 25_000", "[50000930.0] []"),  # a time with "h" (`_MARKED_TIME`)
    ("'9.30 ' * 25_000 + 'uhr'", "[9.3, 50000930.0] []"),  # a full stop's minutes, marked at the end only
    ("'9.30 bis ' * 12_500", "[9.3] []"),  # a range's first number, no second marked
    ("'12 ' * 50_000 + 'pm'", "[12.0, 50001200.0] []"),  # the hour 12 (`_NAMED_HOUR`)
])
def test_times_of_a_day_are_read_at_once(text: str, read: str) -> None:
    # A time of a day is read as one number in every text with a colon before two digits (`CLOCK`), and
    # a claim's times with a duration for those it works out.
    assert printed("from ragmon.text.terms import numbers\n"
                   "from ragmon.text.worked_sums import worked\n"
                   f"text = {text}\n"
                   "print(sorted(numbers(text)), sorted(worked(text).results))") == read + "\n"


@pytest.mark.parametrize(("text", "found"), [
    ("'sorry that ' + 'a ' * 50_000 + 'x'", "False False"),  # a clause's words, no verb of `_THAT_CLAUSE`
    ("'i am sorry that ' + 'a' * 100_000 + ' is void'", "True False"),  # one long word before its verb
    ("'sorry that the fee is ' + 'x ' * 50_000 + 'void'", "True False"),  # a long predicate (`_POLICY_WORDS`)
    ("'sorry that the fee is x' + ' -' * 50_000", "False False"),  # the predicate's end (`_CLAUSE_END`)
    ("'that ' * 50_000", "False False"),
    ("'two ' * 50_000 + 'x'", "False False"),  # number words, none before a unit (`_SPELLED_COUNT`)
    ("'enjoy two ' + 'a' * 100_000 + ' nights'", "True True"),
    ("'counting on us ' * 20_000", "False False"),  # "on us" after words it is no thing of (`_GRANTED`)
    ("'whether ' * 50_000 + 'waived'", "False False"),  # asked about (`_grants`)
    ("'if ' * 50_000 + \"isn't covered\"", "False False"),  # a denial asked after (`_denies_a_verdict`)
    ("'over the past two days ' * 20_000", "False False"),  # the user's own time (`_SPELLED_COUNT`)
    ("'covered ' * 50_000 + 'here'", "False False"),  # what the answer holds (`_ABOUT_THE_ANSWER`)
    ('"won\'t " * 50_000', "False False"),  # denials with no verdict after them
    ("'not covered in the ' + 'a ' * 50_000 + 'faq'", "True False"),  # a source too far from "in the"
])
def test_what_a_courtesy_takes_for_granted_is_read_at_once(text: str, found: str) -> None:
    # `carries_a_fact` runs on courtesies and on the wrapper model's sentences, `takes_for_granted` on
    # offers and questions of any length: each of these took under 0.2 s a pattern.
    assert printed("from ragmon.text.abstention import carries_a_fact, takes_for_granted; "
                   f"text = {text}; print(carries_a_fact(text), takes_for_granted(text))") == f"{found}\n"


@pytest.mark.parametrize(("text", "found"), [
    ("'- ' * 50_000", "False"),  # separators, no use after them (`_USE_OF_SOURCE`)
    ("'- used for ' + 'free ' * 20_000", "True"),  # a use cut at 200 characters, the rest read
    ("'the relevant ' * 30_000 + 'part is'", "False"),  # "the relevant" again and again, the part cited
    ("'this ' * 50_000 + 'x'", "False"),
])
def test_what_a_source_was_used_for_is_read_at_once(text: str, found: str) -> None:
    # `_states_beside_source` runs on every line of a list of sources.
    assert printed("from ragmon.text.claims import _states_beside_source; "
                   f"text = {text}; print(_states_beside_source(text))") == f"{found}\n"


def test_a_page_is_searched_for_a_fortnight_at_once() -> None:
    # Asked of the pages a claim's "a fortnight" is looked for in (`states_a_fortnight`): 100,000
    # characters of numbers and spans that never pair, then one that does.
    assert printed("from ragmon.text.numbers import states_a_fortnight\n"
                   "print(states_a_fortnight('2 days 14 weeks ' * 6_000), "
                   "states_a_fortnight('2 days ' * 12_000 + '14 days'))") == "False True\n"


def test_a_page_of_many_percentages_is_read_for_their_rows_at_once() -> None:
    # Each place of the claim's worked percentage was read against every other's: 2,000 of each took 30 s.
    assert printed("from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate\n"
                   "page = 'Gold members get 20% off; Silver members get 10% off. ' * 2_000\n"
                   "asked = 'I am a Silver member buying an £80 book.'\n"
                   "example = Example('q', asked, (Context('p', page),), '10% of £80 = £8.')\n"
                   "result = evaluate([example], LexicalJudge(), EvalConfig(k=1)).results[0]\n"
                   "print(result.verdicts[0].supported)") == "True\n"
