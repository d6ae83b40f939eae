"""Lucene's ``StandardTokenizer``: Unicode word boundaries (UAX #29) as its JFlex grammar reads them.

A token is one of: a *word* (runs of letters and digits that UAX #29 keeps together: ``don't``,
``e.g``, ``3.5``, ``1,000``, ``28x28``, ``snake_case``, Katakana runs, Hangul); a run of
South-East-Asian script; a single Han ideograph or Hiragana character; or an emoji sequence.
Everything else (spaces, punctuation, symbols that are not emoji) separates tokens and is dropped.
Characters are classed by their Unicode ``Word_Break`` property through the ``regex`` module, and
a format, extend or joiner character continues whatever precedes it (UAX #29's rule WB4).
Tokens longer than 255 characters are split into 255-character pieces, as Lucene does.
"""

from __future__ import annotations

import re
from functools import cache

import regex

__all__ = ["MAX_TOKEN_LENGTH", "longest_match", "standard_tokens"]

MAX_TOKEN_LENGTH = 255

_FEZ = r"[\p{WB=Format}\p{WB=Extend}\p{WB=ZWJ}]*"


def _ex(cls: str) -> str:
    return f"(?:{cls}{_FEZ})"


_ALETTER = _ex(r"[\p{WB=ALetter}\p{WB=Hebrew_Letter}]")
_HEBREW = _ex(r"\p{WB=Hebrew_Letter}")
_NUMERIC = _ex(r"[\p{WB=Numeric}\uFF10-\uFF19]")
_KATAKANA = _ex(r"\p{WB=Katakana}")
_EXTEND_NUM_LET = _ex(r"\p{WB=ExtendNumLet}")
_MID_LETTER = _ex(r"[\p{WB=MidLetter}\p{WB=MidNumLet}\p{WB=Single_Quote}]")
_MID_NUMERIC = _ex(r"[\p{WB=MidNum}\p{WB=MidNumLet}\p{WB=Single_Quote}]")
_SINGLE_QUOTE = _ex(r"\p{WB=Single_Quote}")
_DOUBLE_QUOTE = _ex(r"\p{WB=Double_Quote}")

# One "word body": Katakana runs, or letters and numbers chained by UAX #29's rules WB5-WB13b.
_BODY = (
    rf"(?:{_KATAKANA}(?:{_EXTEND_NUM_LET}*{_KATAKANA})*"
    rf"|(?:(?:{_HEBREW}(?:{_SINGLE_QUOTE}|{_DOUBLE_QUOTE}{_HEBREW})"
    rf"|{_NUMERIC}+(?:(?:{_EXTEND_NUM_LET}+|{_MID_NUMERIC}){_NUMERIC}+)*"
    rf"|{_ALETTER}+(?:(?:{_EXTEND_NUM_LET}+|{_MID_LETTER}|(?<={_HEBREW}){_DOUBLE_QUOTE}(?={_HEBREW})){_ALETTER}+)*)"
    # a run ending in a Hebrew letter keeps a quote after it (WB7a), wherever the run came from
    rf"(?:(?<={_HEBREW}){_SINGLE_QUOTE})?)+)"
)
_WORD = rf"{_EXTEND_NUM_LET}*{_BODY}(?:{_EXTEND_NUM_LET}+{_BODY})*{_EXTEND_NUM_LET}*"

# Unicode's Extended_Pictographic property as Emoji 11.0 (Lucene 8's emoji data) defines it: wide
# ranges, reserved code points included, so that later emoji are covered. The regex module's
# property of that name is narrower (only characters that are emoji today), hence the table.
_PICTOGRAPHIC_RANGES = (
    "A9 AE 203C 2049 2122 2139 2194-2199 21A9-21AA 231A-231B 2328 2388 23CF 23E9-23F3 23F8-23FA "
    "24C2 25AA-25AB 25B6 25C0 25FB-25FE 2600-2605 2607-2612 2614-2685 2690-2705 2708-2712 2714 "
    "2716 271D 2721 2728 2733-2734 2744 2747 274C 274E 2753-2755 2757 2763-2767 2795-2797 27A1 "
    "27B0 27BF 2934-2935 2B05-2B07 2B1B-2B1C 2B50 2B55 3030 303D 3297 3299 1F000-1F0FF "
    "1F10D-1F10F 1F12F 1F16C-1F171 1F17E-1F17F 1F18E 1F191-1F19A 1F1AD-1F1E5 1F201-1F20F 1F21A "
    "1F22F 1F232-1F23A 1F23C-1F23F 1F249-1F3FA 1F400-1F53D 1F546-1F64F 1F680-1F6FF 1F774-1F77F "
    "1F7D5-1F7FF 1F80C-1F80F 1F848-1F84F 1F85A-1F85F 1F888-1F88F 1F8AE-1F8FF 1F90C-1F93A "
    "1F93C-1F945 1F947-1FFFD"
)


def _char_class(ranges: str) -> str:
    parts = []
    for item in ranges.split():
        lo, _, hi = item.partition("-")
        parts.append(regex.escape(chr(int(lo, 16))) + ("-" + regex.escape(chr(int(hi, 16))) if hi else ""))
    return "[" + "".join(parts) + "]"


# Emoji (Unicode Technical Standard #51), as Lucene's grammar reads it: a pictographic character
# (or any other emoji that is not a keycap base, regional indicator or modifier) with an optional
# U+FE0F, or a modifier sequence; joined by ZWJ or closed by a tag sequence; keycaps; flag pairs.
_FEZ_SANS_SELECTORS = r"[[\p{WB=Format}\p{WB=Extend}\p{WB=ZWJ}]--[\uFE0E\uFE0F]]*"
_EMOJI_CHAR = (
    rf"(?:(?:{_char_class(_PICTOGRAPHIC_RANGES)}"
    r"|[\p{Emoji}--[0-9#*\p{WB=Regional_Indicator}\p{Emoji_Modifier}\xA9\xAE\u2122\u3030\u303D]])"
    rf"{_FEZ_SANS_SELECTORS})"
)
_EMOJI_MODIFIER_SEQ = (
    rf"(?:(?:\p{{WB=ZWJ}}*\p{{Emoji_Modifier_Base}}{_FEZ_SANS_SELECTORS})?"
    rf"\p{{Emoji_Modifier}}{_FEZ_SANS_SELECTORS})"
)
_EMOJI_ELEMENT = rf"(?:\p{{WB=ZWJ}}*{_EMOJI_CHAR}\uFE0F?|{_EMOJI_MODIFIER_SEQ})"
# A joiner the previous element already took as its extension still joins the next one.
_EMOJI = (
    rf"(?:{_EMOJI_ELEMENT}(?:(?:\p{{WB=ZWJ}}|(?<=\u200D)){_EMOJI_ELEMENT})*"
    rf"(?:[\U000E0020-\U000E007E]+\U000E007F)?"
    rf"|[0-9#*]{_FEZ_SANS_SELECTORS}\uFE0F?\u20E3{_FEZ_SANS_SELECTORS}"
    rf"|(?:\p{{WB=Regional_Indicator}}{_FEZ}){{2}})"
)

_SOUTH_EAST_ASIAN = _ex(r"\p{Line_Break=Complex_Context}")
_HAN = _ex(r"\p{Script=Han}")
_HIRAGANA = _ex(r"\p{Script=Hiragana}")

_PATTERN = rf"{_WORD}|{_EMOJI}|{_SOUTH_EAST_ASIAN}+|{_HAN}|{_HIRAGANA}"


@cache
def _unicode_tokens() -> regex.Pattern[str]:
    """The full grammar, compiled on the first non-ASCII text (compiling costs ~0.2 s of every import)."""
    return regex.compile(_PATTERN, regex.V1)


@cache
def longest_match() -> regex.Pattern[str]:
    """JFlex takes the longest match; this is the reference that the fast patterns are tested against."""
    return regex.compile(_PATTERN, regex.V1 | regex.POSIX)

# The same grammar restricted to ASCII, where it needs only the standard library's engine:
# letters join across ``:``, ``.`` and ``'``; digits across ``,``, ``.``, ``;`` and ``'``;
# letter and digit runs join directly; underscores join anything.
_ASCII_BODY = r"(?:[a-zA-Z]+(?:(?:_+|[:.'])[a-zA-Z]+)*|[0-9]+(?:(?:_+|[,.;'])[0-9]+)*)+"
_ASCII_TOKEN = re.compile(rf"_*{_ASCII_BODY}(?:_+{_ASCII_BODY})*_*")
_NON_ASCII_WORD = re.compile(r"((?<![^ \t\n\r\f\v])[^ \t\n\r\f\v]*[^\x00-\x7f][^ \t\n\r\f\v]*)")


def standard_tokens(text: str) -> list[str]:
    """The tokens Lucene's ``StandardTokenizer`` emits for ``text``, in order (case kept)."""
    if text.isascii():
        tokens = _ASCII_TOKEN.findall(text)
    else:  # tokens never cross ASCII whitespace: only the words holding other characters need regex
        tokens = []
        for i, part in enumerate(_NON_ASCII_WORD.split(text)):
            tokens.extend(_unicode_tokens().findall(part) if i % 2 else _ASCII_TOKEN.findall(part))
    if all(len(tok) <= MAX_TOKEN_LENGTH for tok in tokens):
        return tokens
    out: list[str] = []
    for tok in tokens:
        if len(tok) > MAX_TOKEN_LENGTH:
            out.extend(tok[i : i + MAX_TOKEN_LENGTH] for i in range(0, len(tok), MAX_TOKEN_LENGTH))
        else:
            out.append(tok)
    return out
