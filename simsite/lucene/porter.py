"""The Porter stemmer as Lucene's ``PorterStemFilter`` applies it (Porter's reference implementation).

Lucene's stemmer is Martin Porter's own reference code, which departs from the 1980 paper in
three places that change WebShop's index: words of one or two characters are left alone, step 2
maps ``-bli`` to ``-ble`` (the paper has ``-abli`` to ``-able``) and adds ``-logi`` to ``-log``.
Every character outside ``aeiou`` (and ``y`` after a vowel) counts as a consonant, digits and
non-Latin letters included, exactly as the Java code does. Written from the algorithm's
description; results are cached because a catalog repeats its words.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["porter_stem"]

_VOWELS = frozenset("aeiou")

# Step 2 (Lucene's step3): keyed by the penultimate letter; the first suffix that matches decides.
_STEP2 = {
    "a": (("ational", "ate"), ("tional", "tion")),
    "c": (("enci", "ence"), ("anci", "ance")),
    "e": (("izer", "ize"),),
    "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
    "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
    "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
    "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
    "g": (("logi", "log"),),
}
# Step 3 (Lucene's step4): keyed by the last letter.
_STEP3 = {
    "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
    "i": (("iciti", "ic"),),
    "l": (("ical", "ic"), ("ful", "")),
    "s": (("ness", ""),),
}
# Step 4 (Lucene's step5): keyed by the penultimate letter; removed when m > 1.
_STEP4 = {
    "a": ("al",),
    "c": ("ance", "ence"),
    "e": ("er",),
    "i": ("ic",),
    "l": ("able", "ible"),
    "n": ("ant", "ement", "ment", "ent"),
    "o": ("ion", "ou"),
    "s": ("ism",),
    "t": ("ate", "iti"),
    "u": ("ous",),
    "v": ("ive",),
    "z": ("ize",),
}


class _Word:
    """The word being stemmed: ``b[:k + 1]`` is the live part, ``j`` the end of a matched stem."""

    __slots__ = ("b", "j", "k")

    def __init__(self, word: str):
        self.b = list(word)
        self.k = len(word) - 1
        self.j = 0

    def cons(self, i: int) -> bool:
        ch = self.b[i]
        if ch in _VOWELS:
            return False
        if ch == "y":
            return i == 0 or not self.cons(i - 1)
        return True

    def m(self) -> int:
        """The number of vowel-consonant sequences in ``b[:j + 1]`` (Porter's measure)."""
        n, after_vowel = 0, False
        for i in range(self.j + 1):
            consonant = self.cons(i)
            n += consonant and after_vowel
            after_vowel = not consonant
        return n

    def vowel_in_stem(self) -> bool:
        return any(not self.cons(i) for i in range(self.j + 1))

    def doublec(self, i: int) -> bool:
        return i >= 1 and self.b[i] == self.b[i - 1] and self.cons(i)

    def cvc(self, i: int) -> bool:
        if i < 2 or not self.cons(i) or self.cons(i - 1) or not self.cons(i - 2):
            return False
        return self.b[i] not in "wxy"

    def ends(self, s: str) -> bool:
        n = len(s)
        start = self.k - n + 1
        if start < 0 or "".join(self.b[start : self.k + 1]) != s:
            return False
        self.j = self.k - n
        return True

    def setto(self, s: str) -> None:
        del self.b[self.j + 1 :]
        self.b.extend(s)
        self.k = self.j + len(s)

    def r(self, s: str) -> None:
        if self.m() > 0:
            self.setto(s)

    def step1ab(self) -> None:
        b = self.b
        if b[self.k] == "s":
            if self.ends("sses"):
                self.k -= 2
            elif self.ends("ies"):
                self.setto("i")
            elif b[self.k - 1] != "s":
                self.k -= 1
        if self.ends("eed"):
            if self.m() > 0:
                self.k -= 1
        elif (self.ends("ed") or self.ends("ing")) and self.vowel_in_stem():
            self.k = self.j
            if self.ends("at"):
                self.setto("ate")
            elif self.ends("bl"):
                self.setto("ble")
            elif self.ends("iz"):
                self.setto("ize")
            elif self.doublec(self.k):
                self.k -= 1
                if b[self.k + 1] in "lsz":
                    self.k += 1
            elif self.m() == 1 and self.cvc(self.k):
                self.setto("e")

    def step1c(self) -> None:
        if self.ends("y") and self.vowel_in_stem():
            self.b[self.k] = "i"

    def step2(self) -> None:
        if self.k == 0:
            return
        for suffix, repl in _STEP2.get(self.b[self.k - 1], ()):
            if self.ends(suffix):
                self.r(repl)
                return

    def step3(self) -> None:
        for suffix, repl in _STEP3.get(self.b[self.k], ()):
            if self.ends(suffix):
                self.r(repl)
                return

    def step4(self) -> None:
        if self.k == 0:
            return
        for suffix in _STEP4.get(self.b[self.k - 1], ()):
            if self.ends(suffix):
                if suffix == "ion" and not (self.j >= 0 and self.b[self.j] in "st"):
                    continue
                break
        else:
            return
        if self.m() > 1:
            self.k = self.j

    def step5(self) -> None:
        self.j = self.k
        if self.b[self.k] == "e":
            a = self.m()
            if a > 1 or (a == 1 and not self.cvc(self.k - 1)):
                self.k -= 1
        if self.b[self.k] == "l" and self.doublec(self.k) and self.m() > 1:
            self.k -= 1

    def result(self) -> str:
        return "".join(self.b[: self.k + 1])


@lru_cache(maxsize=1 << 18)
def porter_stem(word: str) -> str:
    """Stem one lower-cased token as Lucene's ``PorterStemmer`` does."""
    if len(word) <= 2:
        return word
    w = _Word(word)
    w.step1ab()
    w.step1c()
    w.step2()
    w.step3()
    w.step4()
    w.step5()
    return w.result()
