"""Prices, currencies and ratings as shops print them: ``$1,299.99``, ``1.299,99 €``, ``4,5 de 5``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shopsim.page import Price
from shopsim.translators.dom import collapse

__all__ = ["PriceInfo", "parse_price", "parse_rating", "price_json"]


@dataclass(frozen=True)
class PriceInfo:
    """A parsed price: value (number or displayed range), its currency, and the text it came from."""

    value: Price
    currency: str | None
    text: str


_CURRENCY_MARKS: list[tuple[str, str]] = [
    ("US $", "USD"), ("US$", "USD"), ("USD", "USD"), ("C $", "CAD"), ("CA $", "CAD"), ("C$", "CAD"),
    ("CAD", "CAD"), ("AU $", "AUD"), ("A $", "AUD"), ("AU$", "AUD"), ("AUD", "AUD"), ("NZ $", "NZD"),
    ("HK$", "HKD"), ("S$", "SGD"), ("R$", "BRL"), ("MX$", "MXN"), ("EUR", "EUR"), ("€", "EUR"),
    ("GBP", "GBP"), ("£", "GBP"), ("JPY", "JPY"), ("円", "JPY"), ("¥", "JPY"), ("CNY", "CNY"),
    ("RMB", "CNY"), ("INR", "INR"), ("₹", "INR"), ("Rs.", "INR"), ("CHF", "CHF"), ("SEK", "SEK"),
    ("PLN", "PLN"), ("zł", "PLN"), ("kr", "SEK"), ("₩", "KRW"), ("KRW", "KRW"), ("TRY", "TRY"),
    ("₺", "TRY"), ("MXN", "MXN"), ("BRL", "BRL"), ("$", "USD"),
]
_NUM_RE = re.compile(r"\d{1,3}(?:[.,\u00a0\u202f' ]\d{3})+(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d{1,2})?(?!\d)")
_RANGE_SEP_RE = re.compile(r"^\s*(?:-|–|—|~|～|to|bis|à|a|a partire da)\s*$", re.IGNORECASE)
_PRICE_HINT_RE = re.compile(r"\d")


def _number(token: str) -> float | None:
    """One displayed number in any locale: '1,299.99', '1.299,99', '3,858', '10,00', '1 299'."""
    t = token.replace("\u00a0", " ").replace("\u202f", " ").replace("'", " ")
    t = t.replace(" ", "")
    dots, commas = t.count("."), t.count(",")
    if dots and commas:
        dec = "." if t.rfind(".") > t.rfind(",") else ","
        t = t.replace("," if dec == "." else ".", "").replace(dec, ".")
    elif dots or commas:
        sep = "." if dots else ","
        head, _, tail = t.rpartition(sep)
        grouped = (dots + commas) > 1 or len(tail) == 3  # '1,299' / '1.299.000' are thousands
        t = t.replace(sep, "") if grouped else head.replace(sep, "") + "." + tail
    try:
        return float(t)
    except ValueError:
        return None


def _currency(text: str) -> str | None:
    for mark, code in _CURRENCY_MARKS:
        if mark in text:
            return code
    return None


def parse_price(text: str | None) -> PriceInfo:
    """Parse a displayed price; '$10.99 - $15.99' / '£1 to £2' / '3,858 円 ～ 13,507 円' give ranges.

    Only the first price (or the first two when joined by a range word) counts, so trailing unit
    prices such as '($1.16/Fl Oz)' are ignored. No digits -> value None.
    """
    s = collapse(text)
    if not s or not _PRICE_HINT_RE.search(s):
        return PriceInfo(None, _currency(s) if s else None, s)
    matches = list(_NUM_RE.finditer(s))
    if not matches:
        return PriceInfo(None, _currency(s), s)
    low = _number(matches[0].group())
    value: Price = low
    if len(matches) >= 2 and low is not None:
        between = s[matches[0].end() : matches[1].start()]
        between_clean = re.sub(r"[^\w\-–—~～]+", " ", between)
        for mark, _code in _CURRENCY_MARKS:
            between_clean = between_clean.replace(mark, " ")
        between_clean = re.sub(r"\b(?:US|CA|AU|C|A|EUR|GBP|JPY|USD)\b", " ", between_clean)
        if _RANGE_SEP_RE.match(between_clean) or (between_clean.strip() == "" and "-" in between):
            high = _number(matches[1].group())
            if high is not None and high >= low:
                value = (low, high)
    return PriceInfo(value, _currency(s), s)


def price_json(value: Price) -> float | list[float] | None:
    """A Price as the answer-key JSON wants it: float, [low, high] or null."""
    if isinstance(value, tuple):
        return [value[0], value[1]]
    return value


_RATING_RE = re.compile(r"(\d(?:[.,]\d+)?)\D{1,30}?\b5\b")  # '4.5 out of 5', '4,5 de un máximo de 5'
_RATING_JA_RE = re.compile(r"5つ星のうち\s*(\d(?:[.,]\d+)?)")


def parse_rating(text: str | None) -> float | None:
    """'4.5 out of 5 stars' / '4,5 von 5 Sternen' / '5つ星のうち4.5' / '5.0' -> float in 0..5, else None."""
    s = collapse(text)
    if not s:
        return None
    m = _RATING_JA_RE.search(s) or _RATING_RE.match(s) or _RATING_RE.search(s)
    raw = m.group(1) if m else (s if re.fullmatch(r"\d(?:[.,]\d+)?", s) else None)
    if raw is None:
        return None
    value = float(raw.replace(",", "."))
    return value if 0.0 <= value <= 5.0 else None
