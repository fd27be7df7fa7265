"""JSON from outside read with every lone surrogate made U+FFFD, so any UTF-8 writer can write it."""

from __future__ import annotations

import pytest

from ragmon.jsontext import loads


@pytest.mark.parametrize("data", [
    b'["a\\ud800", "\\udfff"]', '["a\\ud800", "\\udfff"]',  # escaped, in bytes and in text
    b'["a\xed\xa0\x80", "\\udfff"]',  # U+D800 as UTF-8-style bytes, which json.loads lets through
])
def test_lone_surrogates_become_replacement_characters(data: str | bytes) -> None:
    # U+D800 and U+DFFF alone: one U+FFFD each.
    assert loads(data) == ["a\ufffd", "\ufffd"]


def test_an_escaped_pair_is_one_character_and_other_text_is_untouched() -> None:
    # "\ud83d\ude00" is the pair for U+1F600; Hangul (ED bytes in UTF-8) is no surrogate.
    assert loads('{"t": "ok \\ud83d\\ude00"}') == {"t": "ok \U0001f600"}
    assert loads('{"t": "\ud55c\uad6d"}'.encode()) == {"t": "\ud55c\uad6d"}
