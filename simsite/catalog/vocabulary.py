"""Word lists and templates for the synthetic catalog.

Kept apart from the generator so the generator stays about logic. Every list in these modules
is ordered (tuples), never a set, so that picking from them with a seeded ``random.Random``
gives the same catalog on every machine and Python build.

Attribute phrases are split by how they read in a sentence, because the generator has to
put them into titles, bullets and shopper requests grammatically:

* ``adj``  -- goes before the noun: "sulfate free shampoo"
* ``for_`` -- follows "for": "shampoo for dry hair"
* ``with_`` -- follows "with": "shampoo with argan oil"

The tables live in modules named for what they describe (:mod:`option_pools`,
:mod:`product_types`, :mod:`category_text`, shapes in :mod:`vocabulary_shapes`); this module
holds the category-independent sentence templates.
"""

from __future__ import annotations

from shopsim.simsite.catalog.vocabulary_shapes import (
    split,
)

__all__ = [
    "ACRONYMS", "BULLET_ADJ", "BULLET_FOR", "BULLET_HEADERS", "BULLET_WITH", "HUMAN_MANY", "HUMAN_ONE",
    "INSTRUCTION_MANY", "INSTRUCTION_ONE", "OPTION_SPEECH", "REVIEW_ATTR", "REVIEW_BAD", "REVIEW_MID",
    "REVIEW_OPENERS", "REVIEW_TITLES_BAD", "REVIEW_TITLES_GOOD", "REVIEW_TITLES_MID", "SMALL_WORDS"
]

ACRONYMS: dict[str, str] = {
    w: w.upper() for w in split("usb|hd|led|bpa|gmo|uv|hdmi|pfoa|rgb|dpi|spf|hdr|usda|sls|gps|pc|ph|xl")
}
ACRONYMS.update({"4k": "4K", "1080p": "1080P", "3.0": "3.0", "2.4g": "2.4G"})
SMALL_WORDS = frozenset(split("and|for|with|of|in|a|the|on|to|or"))

# Bullet sentences by attribute kind; {attr} is the phrase as written, {benefit} a category benefit.
BULLET_HEADERS = ("{Attr}: ", "{ATTR} - ", "【{Attr}】", "✔ {Attr}: ", "{ATTR}: ")
BULLET_ADJ = ("{This} {noun} {is} {attr}, {benefit}.", "Every {Brand} product is {attr}, {benefit}.",
              "Proudly {attr} and made with care, {benefit}.")
BULLET_FOR = ("Specially designed for {attr}, {benefit}.", "A smart choice for {attr}, {benefit}.",
              "Made with {attr} in mind, {benefit}.")
BULLET_WITH = ("Features {attr}, {benefit}.", "Upgraded with {attr}, {benefit}.",
               "Comes with {attr}, {benefit}.")

# Shopper requests for the synthetic goals (items_ins_v2.json); {a} is "a"/"an" + the phrase.
INSTRUCTION_ONE = ("i need {a}", "i am looking for {a}", "i want to buy {a}", "find me {a}",
                   "i'd like {a}, please", "Find me {a}")
INSTRUCTION_MANY = ("i need {p}", "i'm looking for {p}", "Find me {p}", "show me some {p}", "i want {p}")
# Human-style requests with options; {opts} is the spoken option list.
HUMAN_ONE = ("i want {a}, {opts}", "i need {a} in {opts}", "hi, i'm looking for {a}. i'd like it in {opts}, please",
             "i am shopping for {a} that comes in {opts}", "can you find me {a}? i want {opts}",
             "looking for {a}, preferably {opts}")
HUMAN_MANY = ("i want {p} in {opts}", "i need some {p}, {opts}", "i'm looking for {p} that come in {opts}",
              "find me {p} please, {opts}")
OPTION_SPEECH: dict[str, str] = {
    "color": "{v} color", "size": "size {v}", "fit type": "{v} fit", "scent": "{v} scent",
    "flavor name": "{v} flavor", "item package quantity": "pack of {v}", "capacity": "{v} capacity",
    "style": "the {v} style", "material type": "{v} material", "pattern name": "{v} pattern",
}

REVIEW_TITLES_GOOD = split("Love it!|Works great|Exactly as described|Great value|Five stars|Would buy again|"
                            "Highly recommend|So happy with this|Better than expected")
REVIEW_TITLES_MID = split("It's okay|Decent for the price|Does the job|Good but not great|Mixed feelings")
REVIEW_TITLES_BAD = split("Disappointed|Not as pictured|Would not buy again|Returned it|Save your money")
REVIEW_OPENERS = ("I've been using {this} {noun} for {n} weeks now and {good}.", "Bought this as a gift and {good}.",
                  "Honestly {good}.", "Second time ordering; {good}.")
REVIEW_MID = ("It's fine overall, but {bad}.", "Does what it says, although {bad}.",
              "Not bad for the price; {good}, but {bad}.")
REVIEW_BAD = ("Unfortunately {bad}.", "Really wanted to like {this} {noun}, but {bad}.", "{bad_cap}. Returned it.")
REVIEW_ATTR: dict[str, tuple[str, ...]] = {
    "adj": ("It really is {attr}.", "Love that it is {attr}."),
    "for": ("Great for {attr}.", "I use it for {attr} and it works."),
    "with": ("Love the {attr}.", "Also, the {attr} made a real difference."),
}
