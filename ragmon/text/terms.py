"""Words as terms: the one tokeniser and the term cache every judge and metric reads text through.

Everything here is deterministic and offline, and sits on the scoring hot path (thousands of examples a
second), so regexes are compiled once, stems are cached, and per-text work is done in C-level set and
regex operations rather than Python loops over characters.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from ragmon.text import european, literals, units
from ragmon.text.cache import text_cache, wide
from ragmon.text.deferred import deferred
from ragmon.text.numbers import (
    COUPLE,
    MONTH_WORDS,
    NO_NUMBERS,
    NUMBER_MARKS,
    NUMBER_WORDS,
    OTHER_DIGITS,
    SPELLED,
    SPELLED_NUMBER,
    ascii_digits,
    chinese_numerals,
    counts_a_couple,
    european_numbers,
    number_words,
    numbers_in,
    spelled_numbers,
)
from ragmon.text.porter import porter


def wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


STOPWORDS: frozenset[str] = wordset(
    """
    a about above after again against all almost also although am among an and any are aren't around as at
    be because been before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each either else etc even ever every few for from further get gets
    got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself
    his how how's however i i'd i'll i'm i've if in into is isn't it it's its itself just let's may me might
    more most much must mustn't my myself neither no nor not of off often on once only or other ought our ours
    ourselves out over own per quite rather really same shall shan't she she'd she'll she's should shouldn't
    since so some such than that that's the their theirs them themselves then there there's therefore these
    they they'd they'll they're they've this those though through thus to too under unless until up upon us
    very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's whether
    which while who who's whom whose why why's will with within without won't would wouldn't yet you you'd
    you'll you're you've your yours yourself yourselves one s t d ll m re ve st nd rd th yes many
    """
)
"""Function words: they carry no checkable content, so they neither make a sentence a claim nor count
toward support. Among them what is left of a contraction or an ordinal once its digits are read ("15th" is
15 and "th")."""
FUNCTION_WORDS = STOPWORDS | european.FUNCTION_WORDS
"""What no term is made of: English's function words and those of the European languages ragmon reads.
Telling where a sentence opens (`ragmon.text.claims`) asks English's alone: "La" or "Le" in a name is
no sentence's first word."""
_ELIDED = deferred(r"(?:l|d|qu|n|s|c|j|m|t|dell|all|dall|nell|sull|coll|un|quell|quest|nessun|lorsqu|"
                     r"puisqu|jusqu)'([^\W\d_']+)")
"""A French or Italian word after an elided article, pronoun or preposition ("l'article", "d'Allemagne",
"qu'il", "dell'ordine", "nell'app"): the word is the term, so "l'article" is "les articles"' term."""

_INVISIBLE_RANGES = (
    (0x00, 0x08), (0x0E, 0x1B), (0x7F, 0x84), (0x86, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
    (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F),
    (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)
INVISIBLE = "".join(chr(code) for first, last in _INVISIBLE_RANGES for code in range(first, last + 1))
"""Characters that show nothing and are no whitespace: the format characters (Unicode's Cf: zero-width
space, byte order mark, bidi controls, word joiner, soft hyphen...) and the control characters (Cc) that
`str.isspace` leaves out, NUL among them. Text pasted from web pages and chat tools carries them between
sentences and inside words, where a reader sees nothing. Listed, not looked up: finding them in
`unicodedata` means reading all 1.1 million code points at import."""
INVISIBLE_CLASS = "".join(rf"\U{first:08x}-\U{last:08x}" for first, last in _INVISIBLE_RANGES)
"""`INVISIBLE` as ranges, for a regex's character class: listing every character of it made the class's
test four times as slow."""
_CJK_PUNCTUATION_RANGES = ((0x3001, 0x3002), (0x3008, 0x3011), (0x3014, 0x301C), (0x30FB, 0x30FB),
                           (0xFF01, 0xFF0F), (0xFF1A, 0xFF20), (0xFF3B, 0xFF40), (0xFF5B, 0xFF65))
_CJK_PUNCTUATION = "".join(chr(code) for first, last in _CJK_PUNCTUATION_RANGES
                          for code in range(first, last + 1))
"""Chinese and Japanese punctuation (、。「」『』【】〜・) and the full-width forms of ASCII's
(！（），：？)."""
DIGIT = "\x1f"
"""What `SEPARATORS` makes of a digit: a control character `split()` takes for whitespace like a space, so
the words are the same, and a text's translation tells in one C-level search whether it has a digit."""
OTHER_DIGIT = "\x1e"
"""What `SEPARATORS` makes of a character `ascii_digits` reads numbers from ("٢", "½", "⑨"): like `DIGIT`,
whitespace to `split()` and found in one C-level search. The character itself in a text is a space."""
LIGATURES = {0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl", 0xFB05: "st",
             0xFB06: "st", 0x0133: "ij"}
"""The Latin ligatures as their letters: PDF extractors keep the glyph a font set ("o\ufb03ce", "o\ufb00ers"),
which no claim writes ("office", "offers"). Only these: NFKC, which would map them too, also makes "10\u2079"
"109" and "m\u00b2" "m2", which the number rules read otherwise (`ragmon.text.numbers`)."""
SEPARATORS = {code: chr(code) for code in range(128)} | str.maketrans(dict.fromkeys(
    "!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\u201c\u201d\u2018\u2014\u2013\u2026\u2022\u00b7\u00a0\u2212", " ")) \
    | str.maketrans(dict.fromkeys("0123456789", DIGIT)) | {ord(OTHER_DIGIT): " "} \
    | dict.fromkeys(map(ord, OTHER_DIGITS), OTHER_DIGIT) \
    | {ord(c): " " if c < "\xa0" else None for c in INVISIBLE} \
    | str.maketrans(dict.fromkeys(_CJK_PUNCTUATION, " ")) | str.maketrans("ºª", "  ") | LIGATURES
"""Everything but letters and apostrophes becomes whitespace, so `split()` yields the words: a C-level
pass several times faster than a unicode word regex, and this runs over every retrieved passage. The
other ASCII characters map to themselves, which changes nothing but speed: `str.translate` looks each
character up once per call, and a character it does not find costs it a raised and cleared KeyError.
Format characters go, so "war\u00adranty" (a soft hyphen), "warr\u200banty" (a zero-width space) and
"war\u200dranty" are "warranty" as a reader sees them: a zero-width space between two letters shows them
joined ("covers\u200bscreens" reads "coversscreens"), and pasted web text and PDFs put one inside a word
where a line may break; beside a space or a mark it changes nothing. Control characters (NUL) separate
words, as they join nothing. Chinese and Japanese punctuation, and the full-width forms of ASCII's,
separate words too: "受理。标准" is two runs of characters, not one word. So do the ordinal indicators of
Spanish, Portuguese and Italian ("1.º", "2.ª"), letters to Unicode, which a page writing "1 de mayo" or
"01/05" lacks: read as a term, "º" had flagged "1.º de mayo". Ligatures are their letters
(`LIGATURES`), at no cost: the characters are looked up anyway."""
_ASCII = "".join(map(chr, range(128)))
_ASCII_SEPARATORS = bytes.maketrans(_ASCII.encode(), _ASCII.translate(SEPARATORS).encode("ascii"))
"""`SEPARATORS` of ASCII as a table of bytes, for `separated` (each ASCII character must stay one ASCII
character, or making it fails)."""


def separated(low: str) -> str:
    """`low` translated by `SEPARATORS`: the text `split()` reads its words from. An ASCII text (most) goes
    through its bytes, translated by a lookup in a table of 256 where `str.translate` looks each distinct
    character up in the dict again at every call: a passage of 200 words took 27,000 instructions, now
    18,000, a claim 7,300, now 2,900 (callgrind)."""
    if low.isascii():
        return low.encode().translate(_ASCII_SEPARATORS).decode()
    return low.translate(SEPARATORS)


_CJK_LETTERS = "\u3040-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
"""The characters Chinese and Japanese write words in, with no space between words: the CJK ideographs
(Han), hiragana and katakana, full and half width (not the katakana middle dot, which separates words)."""
CJK_CHARACTER = re.compile(f"[{_CJK_LETTERS}]")
_CJK_RUN = deferred(f"[{_CJK_LETTERS}]{{2,}}")


def is_cjk(text: str) -> bool:
    """Whether `text` holds Chinese or Japanese (`_CJK_LETTERS`), to be read in pairs (`words_and_pairs`)
    with its Chinese numbers in digits (`chinese_numerals`). Wide text only (`wide`): a search of every
    text that is not ASCII cost 3-9 us a passage."""
    return wide(text) and CJK_CHARACTER.search(text) is not None


def words_and_pairs(spaced: str) -> tuple[list[str], list[str]]:
    """The words of `spaced` (a text translated by `SEPARATORS`), each run of Chinese or Japanese characters
    as the pairs of characters it holds, one after the other overlapping: "退款受理" -> "退款", "款受",
    "受理". Those languages write no space between words and ragmon has no dictionary to find them with, so
    a claim's run of characters, read as one word, matched only a run of the context that was exactly it,
    and a sentence copied from its source was unsupported. Overlapping pairs are how search engines index
    these scripts (Lucene's CJK bigrams): most words are one or two characters, and a claim's pairs found in
    a context are its words found there. In Chinese a negation makes the pair after it negative
    (`_NEGATION`), in Japanese the pair before a negative ending (`_JAPANESE_NEGATION`). Found by C-level
    searches: a Python call for each run, or a template expanded for each negation, had made a Chinese
    passage cost 15 times an English one a character (now 5 times).

    Returns the other words, to be read as terms (`TERMS`), and the pairs, which are terms as they are
    (a pair of letters is its own term, a negated one its opposite): they skip the stem cache, which
    they would fill and turn over for nothing, a pair new to it at nearly every character of
    open-vocabulary text (1,200 misses an example held Chinese traffic to 80 examples a second, and
    evicted every English word)."""
    found = _PAIR.findall(spaced)
    words = _CJK_RUN.sub(" ", spaced).split()
    no_need = False
    if _KANA.search(spaced) is not None:
        negated = _JAPANESE_NEGATION.findall(spaced) if _JAPANESE_NEGATOR.search(spaced) else []
    else:
        negated = _NEGATION.findall(spaced) if _NEGATOR.search(spaced) else []
        no_need = _NO_NEED.search(spaced) is not None
    if negated:
        # A pair that is only ever negated is no plain pair: "不支持" holds "¬支持", not "支持". Counted once
        # each, both: counting the text for each negation had made "不不不..." quadratic (82 s at 100,000).
        plain = Counter(found)
        only_negated = {pair for pair, times in Counter(negated).items() if plain[pair] <= times}
        kept = [pair for pair in found if pair not in only_negated] if only_negated else found
        found = kept + [_NEGATED + pair for pair in negated]
    if no_need:
        found.append(_NEGATED + _NEED)
    if _NO_LETTER_PAIR.search(spaced) is not None:  # two marks, which make no term (`_term`)
        found = [pair for pair in found if TERMS[pair]]
    if len(_PAIRS) > _PAIRS_HELD:
        _PAIRS.clear()
    return words, list(map(_PAIRS.setdefault, found, found))


_PAIRS: dict[str, str] = {}
"""Each pair read lately, as one str: the passages and profiles that hold a pair in the caches share it,
rather than each its own copy (80 bytes a pair, where a passage's table of terms takes 40 for it: a
process scoring Chinese held 249 MiB with a copy per passage, 184 with pairs shared). A C-level
`setdefault` a pair; emptied when it holds `_PAIRS_HELD` (~10 MB), which costs only copies of pairs made
again."""
_PAIRS_HELD = 1 << 16


_NO_LETTER_PAIR = deferred("[\u3040\u3097-\u309c\u30a0\ufa6e\ufa6f\ufada-\ufaff]{2}")
"""Two of the characters `_CJK_LETTERS` takes in that are no letters (combining sound marks, code points
not assigned): a pair of them is no term, as a symbol is none."""


_NEGATOR = deferred("[不没沒未无無非别別勿并並从從尚]")
_PAIR = deferred(f"(?=([{_CJK_LETTERS}]{{2}}))")
_NEGATION = deferred(
    "(?:(?:并|並)(?:没有|沒有|不)|(?:从|從)(?:不|未)|尚未|(?:没|沒)有?|不(?:能|可以|可|会|會|得|再|要|(?![过過但仅僅论論管断斷久用]))"
    "|(?:无|無)(?:法|(?![论論线線需]))|未(?![来來])|非(?<![除无無莫是].)(?!常)|(?:别|別)(?!人)|勿)"
    f"(?=([{_CJK_LETTERS}][{_CJK_LETTERS}]))")
_NO_NEED = deferred("无需|無需|无须|無須|毋需|不用|不必")
_NEED = "需要"
"""No need: "会员无需支付运费" (members need not pay shipping) holds "¬需要", the opposite of the "需要" of
"会员需要支付运费", as "不需要" does; its pairs alone had shared 4 of 7 with the claim and supported it. Added
beside the text's pairs, never in place of one: unlike "不需要", "无需支付" holds no "需要" it negates, and
counted as one it had cancelled a "需要" stated elsewhere in the text, so "普通会员需要支付运费。VIP会员
无需支付运费。" no longer said that ordinary members pay, and a claim copied from it said the opposite."""
_NEGATED = "\u00ac"
"""`NEGATION`: a Chinese negation makes the pair after it negative, "不支持退款" -> "品不 不支 ¬支持 持退
退款" and "没有使用过" -> "没有 有使 ¬使用 用过", so that "支持退款" (refunds are supported) in a claim is the
opposite of "不支持退款" in a context, as "refundable" is of "non-refundable"; read as pairs alone, 6 of the
claim's 7 were there and it was supported. Both sides are read so, so a negated phrase still matches
itself. Pairs holding a negator that are words of their own negate nothing: "不过" (but), "不仅" (not
only), "无论" (no matter), "不断" (constantly), "不久" (soon), "非常" (very), "未来" (future), "无线"
(wireless), "别人" (others), "除非" (unless); "无需" and "不用" (no need to) negate a need (`_NO_NEED`),
not the verb after them."""
_KANA = deferred("[\u3040-\u30ff]")
"""Japanese: its negation is a verb's ending ("できません"), and its 無, 不, 未 and 非 are prefixes of words
("無料", free of charge), so a text with kana is read for `_JAPANESE_NEGATION` instead."""
_JAPANESE_NEGATOR = deferred("ません|ない|なかった|なく|ず")
_JAPANESE_NEGATION = deferred(f"(?=([{_CJK_LETTERS}]{{2}})(?:ません|ない|なかった|なく))")
"""The pair of characters before a negative ending, made negative: "返品できません" (cannot be returned)
holds "¬でき", the opposite of the "でき" of "返品できます" (can be), where as plain pairs 4 of the
claim's 5 were there and it was supported."""


CJK_SOURCES = ("来源|來源|出处|出處|参考资料|參考資料|参考文献|參考文獻|资料来源|資料來源|出典|参考|參考|"
               "引用元")
"""What Chinese and Japanese answers call their sources ("参考资料：", "（来源：文档1）", "出典："):
`ragmon.text.claims` skips a line or a note naming them, and a note's numbers here are no quantity."""
CITATION_MARK = r"\[[^\[\]\n]{1,64}\]"
FILE_CITATION = r"【[^【】\n]{1,64}】"
"""OpenAI's file search cites in lenticular brackets ("【4:0†source】"): its numbers are no quantity."""
SUPERSCRIPT_CITATION = r"<sup>[^<>\n]{1,16}</sup>"
"""The marks an answer cites its sources with, as patterns: `ragmon.text.claims` lets them follow a full
stop, and here their numbers are read as none."""
_CITATION_MARK = deferred(CITATION_MARK)
_QUOTED_LIST = deferred(r'\s*"[^"\n]*"(?:\s*,\s*"[^"\n]*")+\s*')
"""A JSON list of two or more strings, and nothing else (`["black", "white"]`)."""
_JSON_VALUE = deferred(r'"\s*:\s*\Z')
"""A JSON key before a list, its value (`"ports": [8080, 8443]`): no citation follows one."""
_HEADING_VERSION = deferred(r"[ \t]*#+[ \t]*\[v?[0-9]+(?:\.[0-9]+)+\]")
"""A changelog's heading naming its version (`## [3.2.0] - 2024-05-02`)."""


def _unmarked(bracketed: re.Match[str]) -> str:
    """A citation mark made a space; brackets holding data keep it: a JSON list of strings (`_QUOTED_LIST`), a
    JSON key's value (`_JSON_VALUE`), a changelog heading's version (`_HEADING_VERSION`). Read as a
    citation, a JSON page's `"color_options": ["black", "white", "brass"]` had lost its colours and a
    changelog its versions (a faithful "added in 3.2.0" flagged). Other brackets, a quoted title's
    (`["Refund Policy", p. 4]`), a section's (`[4.2.1]`) or numbers (`[10432, 10433]`), are citations:
    read as data, a review found claims citing so flagged by the dozen."""
    found = bracketed.group()
    text, start = bracketed.string, bracketed.start()
    if (_QUOTED_LIST.fullmatch(found, 1, len(found) - 1) or _JSON_VALUE.search(text, max(0, start - 8), start)
            or _HEADING_VERSION.fullmatch(text, text.rfind("\n", 0, start) + 1, bracketed.end())):
        return f" {found[1:-1]} "
    return " "


_LINK = deferred(r"\[([^\[\]\n]{1,200})\]\([^()\s]{1,2000}\)")
"""A markdown link, read as its text: "[Refund Policy](https://shop.example.com/help/refund-policy)" had
lost its words as a citation mark and kept the address's ("https", "com", "shop")."""
_FILE_CITATION = deferred(FILE_CITATION)
_COUNTRY = deferred(
    r"U(?<![\w.]U)(?:\.S\.(?:A\.)?|\.K\.|SA|S|K|nited (?:States(?: of America)?|Kingdom))(?!\w)")
"""The US and the UK by any of their usual names, read as one word each, so "U.S." in a passage
supports "the United States" in a claim. It starts with a literal, so the regex engine looks for "U"
at C speed."""
def _country(name: re.Match[str]) -> str:
    """Capitals are all a bare "US" has to tell the country from the pronoun, so where the word before it
    is in capitals too (not "THE") the text is shouting and "US" is most likely "us" ("CONTACT US",
    "LET US KNOW")."""
    found = name.group()
    if found == "US" and _shouted_word_before(name.string, name.start()):
        return found
    return " UK " if "K" in found else " USA "


def _shouted_word_before(text: str, at: int) -> bool:
    """Whether spaces or tabs and before them a word of 2 or more capitals other than "THE" end at `at`.
    Walked back letter by letter: a regex cannot search backwards, and searching a window forwards
    cost microseconds a match ("US US US ...")."""
    end = at
    while end and text[end - 1] in " \t":
        end -= 1
    start = end
    while start and "A" <= text[start - 1] <= "Z":
        start -= 1
    return (end < at and end - start >= 2 and not (start and text[start - 1].isalpha())
            and text[start:end] != "THE")


@dataclass(frozen=True, slots=True)
class TextProfile:
    """What the lexical judge and the relevance metric compare: stemmed content terms and numbers, the
    literals (`ragmon.text.literals`) a context must hold as written, and the units numbers are written
    with (`ragmon.text.units`)."""

    terms: frozenset[str]
    numbers: frozenset[float]
    literals: frozenset[str] = frozenset()
    units: frozenset[tuple[float, str]] = frozenset()


SLICE = 1 << 16
"""Characters of a long text read at once where reading it whole would hold many times its size (`slices`)."""


def slices(text: str) -> Iterator[str]:
    """`text` in slices of about `SLICE` characters, each but the last ending with a space: no word holds
    one, and no casing rule looks past one (Greek's final sigma), so what is read from the slices one after
    the other is what the whole would give. For long texts, where the whole costs memory: CPython lowers a
    text other than ASCII into a buffer of 12 bytes a character (one may lower to three), 192 MiB for a
    document of 16 MiB, and the list of a document's words holds ten times it."""
    start = 0
    while start < len(text):
        end = text.find(" ", start + SLICE) + 1 or len(text)
        yield text[start:end]
        start = end


def normalise(text: str) -> str:
    """Lower-case with one apostrophe, so "Don’t" and "don't" are the same token everywhere, and one hyphen:
    chat models write the non-breaking one (U+2011) as often as "-", and "non‑refundable" must be the
    opposite of "refundable" as "non-refundable" is. Full-width punctuation and letters are their ASCII
    forms, as Chinese and Japanese text writes them: "５，０００円" is 5,000 yen (read as 5 and 0 it was
    no number the context held), "（来源：文档1）" a note of the sources as "(Source: doc-1)" is. Full-width
    digits are left to `ascii_digits`, which reads every script's digits.

    Composed (NFC): macOS files and PDF extractors write "café" as "e" and a combining accent (NFD), which
    matched no "café" a claim wrote, and a grounded French answer scored 0. Composed only, not NFKC, which
    would also make "10\u2079" "109", "m\u00b2" "m2" and "2\u00bd" "21\u20442", which the number rules read
    (`ascii_digits`): what a text says is read as it was written, the same text in either form alike. ASCII
    text (most) is spared the check, and composed text (nearly all the rest) the copy."""
    low = text.lower() if len(text) <= SLICE or text.isascii() else "".join(map(str.lower, slices(text)))
    if low.isascii():  # a flag's test: most texts, which none of the replacements can change
        return low
    low = low.replace("\u2019", "'").replace("\u2011", "-").replace("\u2010", "-")
    if not unicodedata.is_normalized("NFC", low):  # a C-level check: 4 ns a character
        low = unicodedata.normalize("NFC", low)
    return full_width_as_ascii(low)


def full_width_as_ascii(text: str) -> str:
    """`text` with its full-width punctuation and letters in their ASCII forms (`normalise`): also the text
    a passage's numbers are looked for in as written, where "１．５公斤" must hold "1.5"."""
    if wide(text) and any(mark in text for mark in _FULL_WIDTH_MARKS):
        if "\uff0c" in text:  # "10，20％" lists two numbers: read as ASCII, "10,20%" is 10.2%
            text = _LISTING_COMMA.sub("\u3001", text)
        return text.translate(_AS_ASCII)  # translating every wide text cost 20 us a passage, a search 3 us
    return text


_FULL_WIDTH_MARKS = "\uff0c\uff0e\uff1a\uff08\uff05"
"""The full-width forms that change what is read: the comma and the period of numbers ("５，０００",
"３．５"), the colon and the parenthesis of a note of the sources ("（来源：文档1）"), the percent sign. Where
one is, the text's full-width forms are all translated."""
_LISTING_COMMA = deferred("(?<=[0-9\uff10-\uff19])\uff0c(?=[0-9\uff10-\uff19])"
                            "(?![0-9\uff10-\uff19]{3}(?![0-9\uff10-\uff19]))")
"""A full-width comma between numbers that separates no thousands ("10，20％", not "５，０００円"): an
enumeration comma, written as the ideographic one that means so."""
_AS_ASCII = {code: code - 0xFEE0 for code in (*range(0xFF01, 0xFF10), *range(0xFF1A, 0xFF5F))}


def prepare(text: str) -> str:
    """The lower-cased text words are read from. Citation markers ("[1]", "[doc-3]") go, or the "1" of
    "[1]" would become a number the context must contain (a link keeps its text); "non-" (or "non" and
    another dash) joins its word, so "non-refundable" is one term, the opposite of "refundable", rather
    than "non" plus "refundable".

    Numbers stay as they are written: a text whose translation by `SEPARATORS` holds `OTHER_DIGIT` has
    some in other digits, and is read again by `with_ascii_digits`. The translation is made for the words
    anyway: searching every text for such numbers instead cost a tenth of the time reading a passage
    takes, and a function doing both, a call more per text, 0.3% of the scoring time on ASCII text."""
    if "U" in text and _COUNTRY.search(text) is not None:
        text = _COUNTRY.sub(_country, text)
    low = normalise(text)
    if "[" in low:
        if "](" in low:
            low = _LINK.sub(r"\1", low)
        low = _CITATION_MARK.sub(_unmarked, low)
    if "【" in low:
        low = _FILE_CITATION.sub(" ", low)
    if "non-" in low:
        low = low.replace("non-", "non")
    if not low.isascii() and "non" in low:  # a flag's test first: a dash other than "-" is no ASCII
        low = _NON_DASHED.sub("non", low)
    return low


_NON_DASHED = deferred("non[\u2012\u2013\u2014\u2015\u2212]")
""""non" written with another dash ("non–refundable", an en dash, as word processors and chat models write
it): joined as "non-" is, or "refundable" was read against a page's "non–refundable"."""


def negations(low: str) -> str | None:
    """`low` (`prepare`d) with its German, French, Spanish, Italian and Portuguese negations marked
    (`european.NEGATION`), or None when it has none. Asked only of a text one of whose terms is one of
    `NEGATION_TERMS`, which a text with a negation has: searching every text for the words had cost an
    English passage 5 us, and calling this for every text 1% of the scoring."""
    marked = european.NEGATION.sub(_negated, low)
    return None if marked == low else marked


def _negated(found: re.Match[str]) -> str:
    """A German, French, Spanish, Italian or Portuguese negation with the word it negates marked: "nicht
    ¬erstattungsfähig", read as the opposite of "erstattungsfähig" (`european.NEGATION`)."""
    return found.group(1) + NEGATION + found.group(2)


def with_ascii_digits(text: str) -> tuple[str, str, str]:
    """`text` with its numbers in ASCII digits (`ascii_digits`), that `prepare`d, and that translated by
    `SEPARATORS`: what words and numbers are read from when the text has numbers in other digits."""
    text = ascii_digits(text)
    low = prepare(text)
    return text, low, separated(low)


def stem(word: str) -> str:
    """Porter (1980) stem of one lower-case word, minus a possessive "'s". Not cached itself: the term
    cache below holds the results where it matters."""
    if word.endswith("'s"):
        word = word[:-2]
    return porter(word) if len(word) > 2 and word.isalpha() else word


_BRITISH = (
    (re.compile(r"([a-z]{3,})our(s|ed|ing|ite|ites|ful|able|ably|al|ally|er|ers|ist|y)?"), r"\1or\2"),
    (re.compile(r"([a-z]{2,}[tb])re(s?)"), r"\1er\2"),
    (re.compile(r"([a-z]{3,}[^aeiou])([iy])s(e|es|ed|ing|ation|ations|er|ers)"), r"\1\2z\3"),
    (re.compile(r"([a-z]{3,})ogue(s?)"), r"\1og\2"),
)
_BRITISH_WORDS = {"defence": "defense", "offence": "offense", "licence": "license", "pretence": "pretense",
                  "programme": "program", "programmes": "programs", "grey": "gray", "tyre": "tire",
                  "tyres": "tires", "cheque": "check", "cheques": "checks", "aluminium": "aluminum"}


def american(word: str) -> str:
    """British spelling as American: "centre" -> "center", "colour" -> "color", "organise" ->
    "organize", "analyse" -> "analyze", "catalogue" -> "catalog". Both sides of every comparison go
    through it, so a rule that also rewrites a word with no American twin ("detour" -> "detor") is
    harmless; only merging two different words would not be, hence the minimum lengths."""
    if word in _BRITISH_WORDS:
        return _BRITISH_WORDS[word]
    # Each pattern needs one of these; most words have none, and substring tests cost less than a match.
    if not ("our" in word or "is" in word or "ys" in word or "re" in word[-3:] or "ogue" in word):
        return word
    for pattern, american_form in _BRITISH:
        match = pattern.fullmatch(word)
        if match is not None:
            return match.expand(american_form)
    return word


_NEGATIVE = deferred(
    r"(?:un|non)([a-z]{4,})"
    r"|(?:in|im|il|ir)([a-z]{3,}(?:able|ible|ent|ant|ate|ete|ite|ive|al|ic|ous|ar|id|ect|ure)(?:ly)?)")
"""A word made negative by its prefix: unlikely, non-refundable, incorrect, impossible, illegal,
irregular. "in-" and its variants also start many words that are not negatives (install, increase), so
they count only before an adjective ending. A word taken for a negative when it is none ("important") is
still matched with itself everywhere, and its made-up base ("portant") never occurs, so it does no harm."""
_NOT_NEGATIVE = frozenset(("invaluable", "inflammable", "immigrant", "immigrants", "immediate",
                           "immediately", "unlike"))
"""Words that look negative but are not the opposite of their base ("unlike" is mostly a preposition)."""
NEGATION = "\u00ac"
"""Prefix of the term of a negative word: "non-refundable" -> "¬refund", the opposite of "refund"."""

_FUNCTION_WORD = ""


def opposite(term: str) -> str:
    """ "refund" <-> "¬refund"."""
    return term[1:] if term.startswith(NEGATION) else NEGATION + term


_NO_LETTER = deferred(r"[\W_]+")


def _term(word: str) -> str:
    if word[0] == NEGATION and len(word) > 1:  # a word `negations` marked
        term = _term(word[1:])
        return opposite(term) if term and term[0] not in (SPELLED_NUMBER, NEGATION) else term
    if word in NUMBER_WORDS:
        return SPELLED_NUMBER + word
    quoted = "'" in word  # most words have no apostrophe, and are spared the tests for quotes and "'s"
    bare = word.strip("'") if quoted else word
    if quoted and bare in NUMBER_WORDS:
        return SPELLED_NUMBER
    if quoted and (elided := _ELIDED.fullmatch(bare)) is not None:
        return _term(elided.group(1))
    if not bare or bare in FUNCTION_WORDS or (not bare.isalpha() and _NO_LETTER.fullmatch(bare)):
        return _FUNCTION_WORD  # a symbol, an emoji ("📦 Return window: 30 days"): no word a context must hold
    if quoted and bare.endswith("'s"):
        bare = bare[:-2]
        if bare in NUMBER_WORDS:
            return SPELLED_NUMBER  # "thousand's": no number word to read, but "0.5 thousand's" is 500
    if bare == "v":  # "v2.3.0": its digits are read apart, and the "v" says "version" as the word does
        return "version"
    bare = american(bare)
    # The first letter first: most words open with none of the prefixes, and a match costs 1,500 instructions.
    negative = _NEGATIVE.fullmatch(bare) if bare[0] in "inu" else None
    if negative is not None and bare not in _NOT_NEGATIVE:
        return NEGATION + porter(american(negative.group(1) or negative.group(2)))
    return porter(bare) if len(bare) > 2 and bare.isalpha() else bare


class _TermCache(dict[str, str]):
    """word -> its term, or a marker for a function word ("") or a number word ("#two"; "#" if in quotes).

    This is the stemming cache. Every word of every passage goes through it by C-level `map`, so it is a
    plain dict that computes only on a miss (a hit costs a third of an `lru_cache` hit). It is bounded by
    generations, as recency bookkeeping on every hit would cost more than it saves: when it holds `limit`
    words they become the old generation and it starts again empty, and a word found in the old
    generation moves back without being stemmed again. So the words in use survive a turnover, and only
    those unused for a whole generation are stemmed again; emptying it all at once made every word a miss
    at the same moment, a stall at each turnover on open-vocabulary traffic. Both generations together
    hold at most 2 x 65,536 words (16 MB measured). Terms are a pure function of the word, so threads
    sharing it can at worst compute one twice.
    """

    limit = 1 << 16

    def __init__(self) -> None:
        super().__init__()
        self.old: dict[str, str] = {}

    def __missing__(self, word: str) -> str:
        term = self.old.get(word)
        if term is None:
            term = _term(word)
        if len(self) >= self.limit:
            self.old = self.copy()
            super().clear()
        self[word] = term
        return term

    def clear(self) -> None:
        super().clear()
        self.old = {}


TERMS = _TermCache()
NEGATION_TERMS = frozenset(filter(None, map(_term, (*european.NEGATION_WORDS, european.NO_LONGER))))
"""The terms of the words a negation `european.NEGATION` reads holds: a text with none is not searched."""
_UNIT_TERMS = frozenset(filter(None, map(_term, units.WORDS)))
"""The terms of the words units are written with ("days" is "dai")."""
_MONTH_TERMS = frozenset(filter(None, map(_term, MONTH_WORDS)))
"""The terms of months' names ("may" is a function word: looked for as text)."""


def numbers(text: str) -> frozenset[float]:
    """Every quantity in `text` as a float: "1,000" -> 1000, "30-day" -> 30, "two years" -> 2,
    "3.50" -> 3.5, "1.5 million" -> 1500000, "45%" -> 45 (a percentage is compared by its number)."""
    return profile(text).numbers


def read_terms(text: str) -> tuple[frozenset[str], bool]:
    """The content terms `read_profile` reads, without its numbers, units and literals, and whether it may
    state a number (a digit or a number word): what a passage's sentences are compared with a claim on
    (`ragmon.text.passage_sentences`), at a quarter of the cost."""
    terms, _, spaced, _ = _read_terms(text)
    return terms, DIGIT in spaced or OTHER_DIGIT in spaced or not terms.isdisjoint(SPELLED)


def _read_terms(text: str) -> tuple[frozenset[str], str, str, bool]:
    """The terms, the prepared text and its words spaced apart, and whether it is Chinese or Japanese."""
    cjk = not text.isascii() and is_cjk(text)  # a flag's test first: most texts are ASCII
    if cjk:
        text = chinese_numerals(text)
    low = prepare(text)
    spaced = separated(low)
    if not low.isascii() and OTHER_DIGIT in spaced:
        _, low, spaced = with_ascii_digits(text)
    if "<" in low or "^" in low:
        low = _MARKUP.sub(" ", low)
        spaced = separated(low)
    if "how " in low:
        low = _HOW_MEASURE.sub("how", low)
        spaced = separated(low)
    if cjk:
        words, pairs = words_and_pairs(spaced)
        terms = frozenset(filter(None, map(TERMS.__getitem__, words))).union(pairs)
    else:
        terms = frozenset(filter(None, map(TERMS.__getitem__, spaced.split())))  # C-level: function words go
    if not cjk and not terms.isdisjoint(NEGATION_TERMS) and (marked := negations(low)) is not None:
        terms = frozenset(filter(None, map(TERMS.__getitem__, separated(marked).split())))
    return terms, low, spaced, cjk


_HOW_MEASURE = deferred(r"\bhow\s+(?:long|far|soon|old)\b(?!-)")
"""A question's measure ("how long", "how far", "how soon", "how old"): asked after "how", the word names
what the answer states as a figure ("5 business days", "2 miles"), not a word it repeats, so "How long do
refunds take?" held its "long" against every answer, which then had 2 of its 3 terms at most. Elsewhere the
word is content and stays ("a long sleeve", "Long Beach", "far from", "how long-lasting"), so it is no
function word; "much", "many" and "often" are in every use. Dropped from claims, questions and answers, not
from passages (`ragmon.text.passages`): there it would cost every page a search (5% of reading one), and a
"long" kept after "how" only lets a claim that writes the word find it."""


def read_profile(text: str) -> TextProfile:
    """Content terms and numbers of a claim, a question or an answer; `profile` is it cached by text, as
    claims and questions recur (a passage's sentences are read uncached: they would crowd claims out). Texts
    of up to `SHORT` characters (nearly all claims and questions) in a C-level LRU of 4,096,
    ~10 KB each at most; longer ones (answers, sentences that never end) in a `LongTextCache` of 8 MiB."""
    terms, low, spaced, cjk = _read_terms(text)
    if ")" in low and DIGIT in spaced:
        low = _LISTED.sub(_unlisted, low)
        if cjk:
            low = _CJK_LISTED.sub(" ", low)
    digits = DIGIT in spaced
    if digits:
        low = european_numbers(low)
    named = literals.read(low) if literals.worth_asking(low, digits) else NO_LITERALS
    words_of_numbers = not terms.isdisjoint(SPELLED)
    if not digits and not words_of_numbers:
        # Most claims state no number: then the number regex, which tests every character, is not run.
        return TextProfile(terms, NO_NUMBERS, named)
    # The unit pattern run on every claim with a number cost 1.5% of the scoring time: a set test spares most.
    unit = not terms.isdisjoint(_UNIT_TERMS) or units.signed(low)
    measured = units.units(low, number_words(terms)) if unit else NO_UNITS
    months = not terms.isdisjoint(_MONTH_TERMS) or "may" in low  # a function word: "15 May, 2024"
    if not words_of_numbers:
        return TextProfile(terms, numbers_in(low, claim=True, months=months), named, measured)
    spelled = spelled_numbers(spaced, terms & NUMBER_MARKS.keys())
    content = terms.difference(SPELLED)
    if COUPLE in terms and not counts_a_couple(spaced):
        content = content | {COUPLE}
    return TextProfile(content, numbers_in(low, spelled, claim=True, months=months), named, measured)


NO_LITERALS: frozenset[str] = frozenset()
NO_UNITS: frozenset[tuple[float, str]] = frozenset()


_MARKUP = deferred(
    SUPERSCRIPT_CITATION + r"|</?[a-z][\w-]{0,30}(?:\s[^<>\n]{0,200})?/?>|(?<![0-9])\^[0-9]{1,3}")
"""HTML tags in a claim ("<b>", "<p>": words no context holds), a footnote in superscript ("<sup>1</sup>")
and a caret's ("sale^1"): its number is no quantity. Only a claim's: a passage's "x^2" keeps its 2."""
_SOURCE = (r"(?:(?:doc(?:ument)?|source|passage|context|chunk|ref(?:erence)?)[ _-]?)?[0-9]{1,3}"
           r"(?: ?[-–] ?[0-9]{1,3})?")
_SOURCES = (r"\((?:(?:see|cf\.?) )?(?:(?:sources?|refs?\.?|references?|citations?|docs?|documents?|passages?|"
            r"contexts?)(?:: ?| ))?" + _SOURCE + r"(?: ?(?:,|;|&|and) ?" + _SOURCE + r")*\)")
_LISTED = deferred(r"(?:^|(?<=[\s:;,])(?<![0-9]:))(?:\(?[0-9]{1,2}\)(?=\s)|" + _SOURCES
                     + r"|\((?:sources?|references?|citations?): [^()\n]{1,120}\))")
_CJK_LISTED = deferred(r"\((?:" + CJK_SOURCES + r"):[^()\n]{1,120}\)")
"""An item's number in a sentence that lists them ("you must (1) keep the receipt and (2) return the box",
"1) keep it, 2) return it"), and a note of the sources in parentheses ("(1)", "(Source: doc-1)", "(see
doc 2)", "(Sources: 1, 3)", "(Source: Refund Policy, p. 3)"): no quantity the claim states, though read
as one it had to be in the context. Only a claim's: a passage's numbers are never asked to be in a claim.
"4(2)" (no space before) is a reference of another kind and stays, as does "(30 days)", and a time's
minutes ("(7:30 to 17:30)": read as an item's "30)", they left "17:30" a 17 no page held). A Chinese or
Japanese note follows its sentence with no space (`_CJK_LISTED`: "（来源：文档1）", full-width forms read
as ASCII), looked for in such text only: one pattern for both cost English claims 13% of its time."""


def _unlisted(listed: re.Match[str]) -> str:
    """A match of `_LISTED` made a space, unless it is a number closing a parenthesis that opens with a
    setting's or a limit's words ("pass `due_days` (defaults to 14) and ...", "(or 45) days", "(max 50)
    or"): a quantity, not a list's "2) return it", and dropped as one, a made-up default passed. After
    any other words it stays a pointer or an item's number ("(see section 4) and", "(steps: 1) pack it,
    2) ...)", "(press 1) for billing"): read as quantities, a review found them flagged by the dozen."""
    found = listed.group()
    if found[0].isdigit():
        low = listed.string
        start = listed.start()
        opened = low.rfind("(", 0, start)
        if opened > low.rfind(")", 0, start) and _LIMIT_OPENING.fullmatch(low, opened + 1, start):
            return found
    return " "


_LIMIT_OPENING = deferred(r"(?:defaults?(?: to| is|:)?|or|up to|max(?:imum)?:?|min(?:imum)?:?|at most|"
                            r"at least|limit:?|default value:?)\s*")
"""What a parenthesis opens with before a number that is a setting's or a limit's value."""


def _held(text: str, read: TextProfile) -> int:
    return (sys.getsizeof(text) + sys.getsizeof(read.terms) + sys.getsizeof(read.numbers)
            + _NUMBER_BYTES * len(read.numbers) + _PROFILE_BYTES)


_NUMBER_BYTES = 24
_PROFILE_BYTES = 48
SHORT = 512
"""At most ~170 words, so ~170 terms: their frozenset takes at most 8 KB. Wide text, at most 128
characters: Chinese or Japanese has a term (a pair) at nearly every character."""
profile, clear_cache = text_cache(read_profile, _held, short=SHORT, wide_short=128, entries=4096,
                                  max_bytes=8 * 2**20)
"""`clear_cache` empties the profile cache; the stemming cache is `TERMS`."""
