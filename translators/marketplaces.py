"""Amazon's and eBay's country sites: domain, currency, UI language, URL shapes and localised labels.

One table for every marketplace, so the translators never hard-code ``amazon.com``: the page's
marketplace is found from its URL, its own canonical link, or what the page says of itself (Amazon's
marketplace id, the domain its links point to), and it decides the currency of ambiguous marks
(``$`` on amazon.ca is CAD) and where ``search[...]`` and ``click[<id>]`` lead. Labels: the words
of each UI language the translators key on (Sponsored / Gesponsert / スポンサー, Next / Weiter / 次へ,
option placeholders, ...), matched in every language because a page may show any UI language
(amazon.co.jp in English, ebay.com in Japanese). ``realsite.MarketTranslator``, the base of the
Amazon and eBay translators, applies all this to each page and each resolved action.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import quote_plus, urlsplit

from selectolax.lexbor import LexborNode

from shopsim.page import PageState
from shopsim.translators.dom import attr, text_of

__all__ = [
    "LABELS",
    "MARKETS",
    "Marketplace",
    "default_market",
    "find_market",
    "is_label",
    "label_words",
    "labelled_link",
    "localise",
    "market_by_domain",
    "market_from_url",
    "state_urls",
    "strip_label_prefix",
    "ui_prefix",
]


@dataclass(frozen=True)
class Marketplace:
    """One country site of Amazon or eBay (``domain`` as the answer keys name the shop)."""

    site: str
    domain: str
    currency: str
    language: str
    marketplace_id: str = ""  # Amazon's obfuscated marketplace id (``ue_mid``)

    @property
    def origin(self) -> str:
        """Scheme and host of this country site (``https://www.<domain>``)."""
        return f"https://www.{self.domain}"

    def home(self, prefix: str = "") -> str:
        """The front page; ``prefix`` is a UI-language path such as ``/-/en``."""
        return f"{self.origin}{prefix}/"

    def search_url(self, query: str, page: int = 1, prefix: str = "") -> str:
        """Both sites use one search URL shape in every country."""
        if self.site == "ebay":
            return f"{self.origin}/sch/i.html?_nkw={quote_plus(query)}&_pgn={page}"
        return f"{self.origin}{prefix}/s?k={quote_plus(query)}&page={page}"

    def product_url(self, item_id: str, prefix: str = "") -> str:
        """The item page URL: ``/itm/<id>`` on eBay, ``<prefix>/dp/<ASIN>`` on Amazon."""
        if self.site == "ebay":
            return f"{self.origin}/itm/{item_id}"
        return f"{self.origin}{prefix}/dp/{item_id.upper()}"


def _m(site: str, domain: str, currency: str, language: str, mid: str = "") -> Marketplace:
    return Marketplace(site, domain, currency, language, mid)


MARKETS: tuple[Marketplace, ...] = (
    _m("amazon", "amazon.com", "USD", "en", "ATVPDKIKX0DER"),
    _m("amazon", "amazon.ca", "CAD", "en", "A2EUQ1WTGCTBG2"),
    _m("amazon", "amazon.com.mx", "MXN", "es", "A1AM78C64UM0Y8"),
    _m("amazon", "amazon.com.br", "BRL", "pt", "A2Q3Y263D00KWC"),
    _m("amazon", "amazon.co.uk", "GBP", "en", "A1F83G8C2ARO7P"),
    _m("amazon", "amazon.de", "EUR", "de", "A1PA6795UKMFR9"),
    _m("amazon", "amazon.fr", "EUR", "fr", "A13V1IB3VIYZZH"),
    _m("amazon", "amazon.it", "EUR", "it", "APJ6JRA9NG5V4"),
    _m("amazon", "amazon.es", "EUR", "es", "A1RKKUPIHCS9HS"),
    _m("amazon", "amazon.nl", "EUR", "nl", "A1805IZSGTT6HS"),
    _m("amazon", "amazon.com.be", "EUR", "fr", "AMEN7PMS3EDWL"),
    _m("amazon", "amazon.se", "SEK", "sv", "A2NODRKZP88ZB9"),
    _m("amazon", "amazon.pl", "PLN", "pl", "A1C3SOZRARQ6R3"),
    _m("amazon", "amazon.com.tr", "TRY", "tr", "A33AVAJ2PDY3EV"),
    _m("amazon", "amazon.ae", "AED", "en", "A2VIGQ35RCS4UG"),
    _m("amazon", "amazon.sa", "SAR", "ar", "A17E79C6D8DWNP"),
    _m("amazon", "amazon.eg", "EGP", "ar", "ARBP9OOSHTCHU"),
    _m("amazon", "amazon.in", "INR", "en", "A21TJRUUN4KGV"),
    _m("amazon", "amazon.co.jp", "JPY", "ja", "A1VC38T7YXB528"),
    _m("amazon", "amazon.com.au", "AUD", "en", "A39IBJ37TRP1C6"),
    _m("amazon", "amazon.sg", "SGD", "en", "A19VAU5U5O7RUS"),
    _m("amazon", "amazon.cn", "CNY", "zh", "AAHKV2X7AFYLW"),
    _m("ebay", "ebay.com", "USD", "en"),
    _m("ebay", "ebay.co.uk", "GBP", "en"),
    _m("ebay", "ebay.de", "EUR", "de"),
    _m("ebay", "ebay.fr", "EUR", "fr"),
    _m("ebay", "ebay.it", "EUR", "it"),
    _m("ebay", "ebay.es", "EUR", "es"),
    _m("ebay", "ebay.at", "EUR", "de"),
    _m("ebay", "ebay.ie", "EUR", "en"),
    _m("ebay", "ebay.nl", "EUR", "nl"),
    _m("ebay", "ebay.be", "EUR", "fr"),
    _m("ebay", "ebay.ch", "CHF", "de"),
    _m("ebay", "ebay.pl", "PLN", "pl"),
    _m("ebay", "ebay.ca", "CAD", "en"),
    _m("ebay", "ebay.com.au", "AUD", "en"),
    _m("ebay", "ebay.com.sg", "SGD", "en"),
    _m("ebay", "ebay.com.my", "MYR", "en"),
    _m("ebay", "ebay.ph", "PHP", "en"),
    _m("ebay", "ebay.com.hk", "HKD", "zh"),
)
_BY_DOMAIN = {m.domain: m for m in MARKETS}
_BY_ID = {m.marketplace_id: m for m in MARKETS if m.marketplace_id}


def market_by_domain(domain: str | None) -> Marketplace | None:
    """The marketplace with exactly this domain (case-insensitive), else None."""
    return _BY_DOMAIN.get((domain or "").lower())


def default_market(site: str) -> Marketplace:
    """The flagship US site: what a page that says nothing of its country is read as."""
    return _BY_DOMAIN["ebay.com" if site == "ebay" else "amazon.com"]


def market_from_url(url: str | None, site: str | None = None) -> Marketplace | None:
    """The marketplace whose domain the URL's host is or ends with (``smile.amazon.com``, ``m.ebay.de``)."""
    try:
        host = (urlsplit(url or "").hostname or "").lower().rstrip(".")
    except ValueError:
        return None
    labels = host.split(".")
    for start in range(len(labels) - 1):  # longest suffix first: amazon.com.br before amazon.com
        found = _BY_DOMAIN.get(".".join(labels[start:]))
        if found is not None and (site is None or found.site == site):
            return found
    return None


#: (the literal each pattern starts with, the pattern): ``str.find`` jumps between the literal's places
#: and the pattern is tried there only; the regex engine's own prefix scan walked the whole page (2 MB:
#: about 1 ms a pattern), and a pattern opening with an alternation is tried at every character.
_MID_RES = (("ue_mid", re.compile(r"""ue_mid\s*=\s*['"]([A-Z0-9]{9,16})['"]""")),
            ('"marketplaceId"', re.compile(r""""marketplaceId"\s*:\s*"([A-Z0-9]{9,16})['"]""")))
_LINK_RE = re.compile(r"//(?:www\.)?(amazon|ebay)\.((?:com?\.)?[a-z]{2,3})(?![a-z0-9.\-])")


def find_market(site: str, urls: Iterable[str | None], html: str = "") -> Marketplace | None:
    """The page's marketplace from its URLs (first that names one), then from the page's own words.

    Amazon pages name their marketplace id (``ue_mid``, ``"marketplaceId"``); every page links mostly
    to its own country site (footers link the others once each), so the most-linked domain decides.
    None when nothing on the page says.
    """
    for url in urls:
        found = market_from_url(url, site)
        if found is not None:
            return found
    if not html:
        return None
    if site == "amazon":
        end = min(len(html), 2_000_000)
        seen = sorted(found for literal, rx in _MID_RES for found in _matches(html, literal, rx, end))
        ids = Counter(mid for _, mid in seen)  # in page order: ties go to the first seen
        for mid, _ in ids.most_common():
            if mid in _BY_ID:
                return _BY_ID[mid]
    counts: Counter[str] = Counter()
    for m in _LINK_RE.finditer(html):
        if m.group(1) == site:
            counts[f"{site}.{m.group(2)}"] += 1
    for domain, _ in counts.most_common():
        if domain in _BY_DOMAIN:
            return _BY_DOMAIN[domain]
    return _nav_locale(html) if site == "amazon" else None


_NAV_LOCALE_RE = re.compile(r"""class=["'][^"']*\b(?:nav-locale|a-m)-([a-z]{2})\b""")
#: Amazon's header and body name the country (``nav-locale-jp``, ``a-m-jp``); where that is not the
#: domain's last label.
_NAV_LOCALE_DOMAIN = {"us": "amazon.com", "jp": "amazon.co.jp", "uk": "amazon.co.uk", "gb": "amazon.co.uk",
                      "mx": "amazon.com.mx", "br": "amazon.com.br", "au": "amazon.com.au", "tr": "amazon.com.tr",
                      "be": "amazon.com.be"}


def _matches(html: str, literal: str, rx: re.Pattern[str], end: int) -> Iterator[tuple[int, str]]:
    """``rx.finditer(html, 0, end)``'s (start, group 1), for a pattern that starts with ``literal``."""
    at = html.find(literal, 0, end)
    while at >= 0:
        m = rx.match(html, at, end)
        if m is not None:
            yield m.start(), m.group(1)
        at = html.find(literal, m.end() if m is not None else at + 1, end)


def _nav_locale(html: str) -> Marketplace | None:
    """The country the header names (a mobile page links relatively and may carry no marketplace id)."""
    m = _NAV_LOCALE_RE.search(html, 0, min(len(html), 400_000))
    if m is None:
        return None
    code = m.group(1)
    return _BY_DOMAIN.get(_NAV_LOCALE_DOMAIN.get(code, f"amazon.{code}"))


_PREFIX_RE = re.compile(r"^/-/([a-z]{2}(?:_[A-Z]{2})?)/")


def ui_prefix(urls: Iterable[str | None]) -> str:
    """Amazon's UI-language path prefix (``/-/en``) when the page's own links use one, else ''."""
    for url in urls:
        if not url:
            continue
        try:
            path = urlsplit(url).path
        except ValueError:
            continue
        m = _PREFIX_RE.match(path)
        if m:
            return f"/-/{m.group(1)}"
    return ""


# ------------------------------------------------------------------------------ labels --
@dataclass(frozen=True)
class Labels:
    """The words of one UI language that the translators key on (all lower case)."""

    sponsored: tuple[str, ...]
    sponsored_ad: tuple[str, ...]  # the screen-reader prefix of an ad card's title
    next: tuple[str, ...]
    prev: tuple[str, ...]
    select: tuple[str, ...]  # option placeholders ('- Select -')
    click_to_select: tuple[str, ...]  # the swatch tooltip before the value
    about_item: tuple[str, ...]  # Amazon's feature-bullet heading
    sold_out: tuple[str, ...]
    see_more: tuple[str, ...]  # breadcrumb links that are no category
    back: tuple[str, ...] = ()  # the breadcrumb bar's link back to the results page


LABELS: dict[str, Labels] = {
    "en": Labels(("sponsored",), ("sponsored ad",), ("next",), ("previous", "prev"),
                 ("select", "- select -", "choose", "please select", "choose an option"),
                 ("click to select", "select"), ("about this item",), ("out of stock", "sold out"),
                 ("see more", "back to", "return to"),
                 back=("back to results", "back to search results")),
    "de": Labels(("gesponsert",), ("gesponserte anzeige",), ("weiter", "nächste"), ("zurück", "vorherige"),
                 ("auswählen", "bitte wählen", "- auswählen -", "wählen"),
                 ("zum auswählen klicken", "klicken sie, um auszuwählen", "auswählen"),
                 ("über diesen artikel", "info zu diesem artikel"), ("ausverkauft", "nicht vorrätig"),
                 ("mehr ansehen", "zurück zu"), back=("zurück zu den ergebnissen",)),
    "fr": Labels(("sponsorisé", "sponsorisée", "commandité"), ("annonce sponsorisée",), ("suivant",),
                 ("précédent",), ("sélectionner", "choisir", "- sélectionner -", "veuillez sélectionner"),
                 ("cliquez pour sélectionner", "sélectionner"), ("à propos de cet article",),
                 ("épuisé", "rupture de stock"), ("voir plus", "retour à"),
                 back=("retour aux résultats",)),
    "it": Labels(("sponsorizzato",), ("annuncio sponsorizzato",), ("successivo", "avanti"), ("precedente",),
                 ("seleziona", "selezionare", "- seleziona -"), ("clicca per selezionare", "seleziona"),
                 ("informazioni su questo articolo",), ("esaurito", "non disponibile"), ("vedi altri", "torna a"),
                 back=("torna ai risultati",)),
    "es": Labels(("patrocinado", "patrocinados"), ("anuncio patrocinado",), ("siguiente",), ("anterior",),
                 ("seleccionar", "selecciona", "- seleccionar -", "elegir"),
                 ("haz clic para seleccionar", "seleccionar"), ("acerca de este producto", "sobre este producto"),
                 ("agotado",), ("ver más", "volver a"), back=("volver a los resultados",)),
    "pt": Labels(("patrocinado",), ("anúncio patrocinado",), ("próximo", "próxima", "seguinte"), ("anterior",),
                 ("selecionar", "selecione", "- selecionar -"), ("clique para selecionar", "selecionar"),
                 ("sobre este item", "sobre este produto"), ("esgotado",), ("ver mais", "voltar para"), back=("voltar aos resultados",)),
    "nl": Labels(("gesponsord",), ("gesponsorde advertentie",), ("volgende",), ("vorige",),
                 ("selecteer", "selecteren", "kies"), ("klik om te selecteren", "selecteer"),
                 ("over dit artikel",), ("uitverkocht",), ("meer bekijken", "terug naar")),
    "sv": Labels(("sponsrad", "sponsrat"), ("sponsrad annons",), ("nästa",), ("föregående",),
                 ("välj",), ("klicka för att välja", "välj"), ("om denna artikel", "om den här produkten"),
                 ("slutsåld",), ("visa fler",)),
    "pl": Labels(("sponsorowane",), ("reklama sponsorowana",), ("dalej", "następna"), ("wstecz", "poprzednia"),
                 ("wybierz",), ("kliknij, aby wybrać", "wybierz"), ("o tym produkcie", "informacje o produkcie"),
                 ("wyprzedane",), ("zobacz więcej",)),
    "tr": Labels(("sponsorlu",), ("sponsorlu reklam",), ("sonraki",), ("önceki",), ("seçin", "seç"),
                 ("seçmek için tıklayın",), ("bu ürün hakkında",), ("tükendi",), ("daha fazla gör",)),
    "ja": Labels(("スポンサー",), ("スポンサー広告",), ("次へ",), ("前へ",), ("選択", "選択してください"),
                 ("クリックして選択",), ("この商品について",), ("在庫切れ", "売り切れ"), ("もっと見る",),
                 back=("結果に戻る",)),
    "zh": Labels(("赞助", "贊助"), ("赞助广告",), ("下一页", "下一頁"), ("上一页", "上一頁"), ("选择", "選擇"),
                 ("点击选择",), ("关于此商品",), ("缺货", "售罄"), ("查看更多",)),
    "ar": Labels(("إعلان ممول", "ممول"), ("إعلان ممول",), ("التالي",), ("السابق",), ("اختر",), ("انقر للاختيار",),
                 ("حول هذه السلعة",), ("غير متوفر",), ("عرض المزيد",)),
}


def _all(field: str) -> tuple[str, ...]:
    """One label kind in every language, longest first (a page may show any UI language)."""
    words = {w for labels in LABELS.values() for w in getattr(labels, field)}
    return tuple(sorted(words, key=len, reverse=True))


_ANY = {field: _all(field) for field in Labels.__dataclass_fields__}


def label_words(kind: str) -> tuple[str, ...]:
    """Every language's ``kind`` labels (lower case, longest first), e.g. for a regex alternation."""
    return _ANY[kind]


def is_label(text: str | None, kind: str, *, exact: bool = True) -> bool:
    """Whether ``text`` is (``exact``) or contains a ``kind`` label of any language (case-insensitive)."""
    low = " ".join((text or "").split()).casefold()
    if not low:
        return False
    if exact:
        return low in _ANY[kind]
    return any(word in low for word in _ANY[kind])


def strip_label_prefix(text: str, kind: str, *, dash: bool = False) -> str:
    """``text`` without a leading ``kind`` label and its separator ('Sponsored Ad - X' -> 'X').

    ``dash``: only when a dash or colon follows the label (a title may start with the word itself).
    """
    low = text.lower()
    for word in _ANY[kind]:
        if not low.startswith(word):
            continue
        rest = text[len(word):]
        body = rest.lstrip(" -–—:")
        sep = rest[: len(rest) - len(body)]
        if (rest and not sep) or (dash and not any(c in sep for c in "-–—:")):
            continue  # the label word is the start of a longer word or of the title itself
        return body
    return text


def labelled_link(box: LexborNode | None, kind: str) -> LexborNode | None:
    """The first link in ``box`` that says ``kind`` ('Next', 'Weiter', '次へ'...) or has ``rel=kind``.

    A fallback for paging markup whose class names the translators do not know: the label is read
    from the link's aria-label, else its text without arrows.
    """
    if box is None:
        return None
    for link in box.css("a[href]"):
        if attr(link, "rel").lower() == kind:
            return link
        said = attr(link, "aria-label") or text_of(link)
        if is_label(said.strip(" →←›‹»«<>"), kind):
            return link
    return None


def state_urls(state: PageState) -> list[str | None]:
    """The URLs a page state holds (its own, paging, cards, variants): where its marketplace shows."""
    urls: list[str | None] = [state.url, state.next_page_url, state.prev_page_url]
    urls += [card.url for card in state.results[:20]]
    if state.product is not None:
        urls += [u for by_value in state.product.option_urls.values() for u in by_value.values()]
    return urls


def localise(state: PageState, market: Marketplace, currency: str | None) -> PageState:
    """``state`` with its shop (the marketplace domain) and the currency its prices are shown in."""
    update: dict[str, object] = {"shop": market.domain, "currency": currency}
    if state.product is not None:
        update["product"] = state.product.model_copy(update={"currency": currency})
    return state.model_copy(update=update)
