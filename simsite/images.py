"""Product and option images: drawn as SVG from catalog text, on request, cached, deterministic.

Why generated: the bundled catalog names images that were never drawn, WebShop's real image URLs
(``https://m.media-amazon.com/...``) cannot load offline, and no image files belong in git. Why SVG:
no imaging dependency (PNG would need Pillow, or a hand-written rasteriser with no text), 1-3 KB
an image, crisp at any zoom and in screenshots. Bytes depend only on the product's text (hashed
with blake2b, never Python's salted ``hash``), so every process draws the same image.

URLs (built and read only here): ``/static/img/<asin>/<k>`` is product image ``k`` (1 = main),
``/static/img/<asin>/option/<axis>/<value>`` an option value (0-based indices in catalog order).
The bundled catalog's own names (``/static/img/<asin>-1.jpg``, ``-o3.jpg``) resolve to the same
images. A catalog image that is an existing local file (``file://`` or an absolute path) is served
as is; anything else (remote or missing) gets the generated placeholder.
"""

from __future__ import annotations

import colorsys
import hashlib
import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from shopsim.simsite.models import Product

__all__ = [
    "CACHE_ENTRIES",
    "IMAGE_PREFIX",
    "Image",
    "ImageRef",
    "draw_svg",
    "image_for",
    "option_image_url",
    "original_url",
    "parse_image_path",
    "product_image_url",
]

IMAGE_PREFIX = "/static/img/"
SVG_TYPE = "image/svg+xml"
#: Generated images kept in memory (each at most ~4 KB: every text drawn is cut short).
CACHE_ENTRIES = 2048
#: Local image files larger than this are not served (the placeholder is).
MAX_FILE_BYTES = 10 * 1024 * 1024
#: Local image files served as is: suffix -> (leading bytes they must have, content type).
_FILE_TYPES = {".jpg": (b"\xff\xd8\xff", "image/jpeg"), ".jpeg": (b"\xff\xd8\xff", "image/jpeg"),
               ".png": (b"\x89PNG", "image/png"), ".gif": (b"GIF8", "image/gif"), ".webp": (b"RIFF", "image/webp"),
               ".svg": (b"<", SVG_TYPE)}
_LEGACY = re.compile(r"^(?P<asin>.+)-o?\d{1,4}\.jpg$")  # the bundled catalog's names


@dataclass(frozen=True)
class Image:
    """Bytes to send, their content type and a strong ETag."""

    body: bytes
    media_type: str
    etag: str


@dataclass(frozen=True)
class ImageRef:
    """What an image URL names: product image ``number``, or option ``axis``/``value``, or a legacy name."""

    asin: str
    number: int = 1
    axis: int | None = None
    value: int | None = None
    legacy: str | None = None


# ---- URLs ---------------------------------------------------------------------------------------
@lru_cache(maxsize=1 << 14)  # pure, and asked again for every card and radio of every page
def product_image_url(asin: str, number: int = 1) -> str:
    """The served URL of product image ``number`` (1 = main)."""
    return f"{IMAGE_PREFIX}{quote(asin, safe='')}/{number}"


@lru_cache(maxsize=1 << 14)
def option_image_url(asin: str, axis: int, value: int) -> str:
    """The served URL of option value ``value`` of axis ``axis`` (indices in catalog order)."""
    return f"{IMAGE_PREFIX}{quote(asin, safe='')}/option/{axis}/{value}"


def parse_image_path(segments: list[str]) -> ImageRef | None:
    """The image named by the still-encoded path segments after ``/static/img/``; None if malformed."""
    parts = [unquote(s) for s in segments]
    if not parts or not parts[0] or len(parts[0]) > 200:
        return None
    if len(parts) == 1:
        m = _LEGACY.match(parts[0])
        return ImageRef(m.group("asin"), legacy=IMAGE_PREFIX + parts[0]) if m else None
    if len(parts) == 2 and _small_int(parts[1]) >= 1:
        return ImageRef(parts[0], number=_small_int(parts[1]))
    if len(parts) == 4 and parts[1] == "option" and min(_small_int(parts[2]), _small_int(parts[3])) >= 0:
        return ImageRef(parts[0], axis=_small_int(parts[2]), value=_small_int(parts[3]))
    return None


def _small_int(text: str) -> int:
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 4 else -1


@lru_cache(maxsize=1 << 14)
def original_url(src: str | None) -> str | None:
    """A catalog image URL worth keeping on the page (``http(s)``/``file``), else None."""
    if src and urlsplit(src).scheme.lower() in ("http", "https", "file"):
        return src
    return None


# ---- resolving ----------------------------------------------------------------------------------
def image_for(product: Product, ref: ImageRef) -> Image | None:
    """The image ``ref`` names for ``product``: its local file when one exists, else drawn; None if absent."""
    value: str | None = None
    axis_name = ""
    number = ref.number
    if ref.legacy is not None:
        if ref.legacy in product.images:
            number = product.images.index(ref.legacy) + 1
        else:
            value = next((v for v, src in product.option_to_image.items() if src == ref.legacy), None)
            if value is None:
                return None
            axis_name = next((a for a, vs in product.options.items() if value in vs), "")
    elif ref.axis is not None and ref.value is not None:
        axes = list(product.options.items())
        if ref.axis >= len(axes) or ref.value >= len(axes[ref.axis][1]):
            return None
        axis_name, value = axes[ref.axis][0], axes[ref.axis][1][ref.value]
    elif number > max(1, len(product.images)):
        return None
    src = product.option_to_image.get(value) if value is not None else (product.images or [""])[number - 1]
    return _local_file(src) or _drawn(product.category, product.title, product.query, number, value or "", axis_name)


def _local_file(src: str | None) -> Image | None:
    """An existing local image file named by ``src`` (``file://`` or absolute path), read and checked."""
    if not src:
        return None
    try:
        parts = urlsplit(src)
        if parts.scheme == "file" and parts.netloc in ("", "localhost"):
            from urllib.request import url2pathname  # http.client and ssl come with it: only for file URLs

            path = Path(url2pathname(parts.path))
        elif src.startswith("/") and not src.startswith(IMAGE_PREFIX):
            path = Path(src)
        else:
            return None
        kind = _FILE_TYPES.get(path.suffix.lower())
        if kind is None or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        body = path.read_bytes()
    except (OSError, ValueError):
        return None
    return Image(body, kind[1], _etag(body)) if body.startswith(kind[0]) else None


def _etag(body: bytes) -> str:
    return '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'


@lru_cache(maxsize=CACHE_ENTRIES)
def _drawn(category: str, title: str, query: str, number: int, value: str, axis: str) -> Image:
    body = draw_svg(category, title, query, number=number, value=value, axis=axis)
    return Image(body, SVG_TYPE, _etag(body))


# ---- drawing ------------------------------------------------------------------------------------
_CATEGORY_HUE = {"beauty": 330, "grocery": 30, "food": 30, "fashion": 225, "garden": 110, "furniture": 35,
                 "electronics": 200, "kitchen": 15, "home": 45}
_COLOURS = {
    "black": "#222222", "white": "#f4f4f0", "ivory": "#f3ecd8", "cream": "#efe3c2", "beige": "#d9c6a0",
    "grey": "#8c8c8c", "gray": "#8c8c8c", "charcoal": "#3c4146", "silver": "#c0c4c8", "gold": "#d4a83a",
    "rose gold": "#d99a8e", "white gold": "#e6dfc8", "champagne": "#e8d3a8", "bronze": "#9c6b30",
    "copper": "#b8693a", "red": "#c8322d", "wine red": "#7b1e2b", "wine": "#7b1e2b", "burgundy": "#7a1f35",
    "maroon": "#6e1e24", "pink": "#ef8fb0", "blush": "#f2b8bf", "coral": "#f07b62", "orange": "#ee8430",
    "yellow": "#f2cf3a", "mustard": "#d1a21e", "green": "#3f9a4b", "sage green": "#9bb08e", "sage": "#9bb08e",
    "olive": "#7d7f3a", "mint": "#9fe0c0", "teal": "#2a8f8f", "turquoise": "#3cc2c0", "blue": "#3566c8",
    "navy": "#22335e", "light blue": "#9cc6ea", "sky blue": "#8cc8ee", "royal blue": "#2c4fb8",
    "purple": "#7b4bb3", "lavender": "#b9a4dc", "plum": "#7c3b6a", "violet": "#8a4fd0", "brown": "#7a5233",
    "dark brown": "#4e3322", "tan": "#c9a67a", "khaki": "#b9aa7a", "camel": "#c19a6b", "taupe": "#8f8173",
    "wheat": "#e0c98f", "natural": "#d8c3a0", "walnut": "#6b4a2f", "oak": "#b88b55", "marble": "#e8e6e1",
    "terracotta": "#c8623e", "clear": "#dfeef2", "transparent": "#dfeef2", "multicolor": "#c06bd0",
    "chocolate": "#5a3624", "vanilla": "#f1e2b5", "strawberry": "#e0475f", "cherry": "#b3122e",
    "lemon": "#f3e25a", "lime": "#8cc63f", "berry": "#8e2f6e", "blueberry": "#4b4f9e", "coconut": "#f1ece0",
    "caramel": "#c68642", "cinnamon": "#a0522d", "honey": "#e0a526", "coffee": "#6f4e37", "espresso": "#3b2418",
    "peanut butter": "#c99a5a", "cheddar": "#f0a830", "cucumber": "#9ccc65", "ocean": "#3b8fc4",
    "tea tree": "#5c8a4a", "rose": "#e07a8c", "peach": "#f6b48f", "almond": "#e8cfa8",
}
_COLOUR_RE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _COLOURS), key=len, reverse=True)) + r")\b")
_SIZE_LIKE = re.compile(r"size|\d|count|pack|small|medium|large|\bx+[sl]\b")
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

Shape = Callable[[str, str], str]


def _shapes() -> list[tuple[str, Shape]]:
    """Keyword patterns (checked against the query, then the title) and the silhouette each draws."""
    def box(f: str, s: str) -> str:
        return (f'<path d="M95 110l55-25 55 25v95l-55 25-55-25z" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<path d="M95 110l55 25 55-25M150 135v95" fill="none" stroke="{s}" stroke-width="3"/>')

    def bottle(f: str, s: str) -> str:
        return (f'<rect x="136" y="62" width="28" height="22" rx="3" fill="{s}"/><rect x="140" y="84" width="20" '
                f'height="22" fill="{f}" stroke="{s}" stroke-width="3"/><rect x="112" y="104" width="76" height='
                f'"126" rx="18" fill="{f}" stroke="{s}" stroke-width="3"/><rect x="122" y="140" width="56" '
                f'height="44" rx="4" fill="#ffffff" opacity=".55"/>')

    def jar(f: str, s: str) -> str:
        return (f'<rect x="100" y="100" width="100" height="22" rx="5" fill="{s}"/><rect x="94" y="120" '
                f'width="112" height="104" rx="16" fill="{f}" stroke="{s}" stroke-width="3"/>')

    def shirt(f: str, s: str) -> str:
        return (f'<path d="M120 75l-45 25 15 35 20-10v100h80V125l20 10 15-35-45-25q-15 15-30 0z" fill="{f}" '
                f'stroke="{s}" stroke-width="3" stroke-linejoin="round"/>')

    def pants(f: str, s: str) -> str:
        return (f'<path d="M110 70h80l12 160h-38l-14-110-14 110H98z" fill="{f}" stroke="{s}" stroke-width="3" '
                f'stroke-linejoin="round"/>')

    def dress(f: str, s: str) -> str:
        return (f'<path d="M130 70h40l-5 45 40 115H95l40-115z" fill="{f}" stroke="{s}" stroke-width="3" '
                f'stroke-linejoin="round"/>')

    def shoe(f: str, s: str) -> str:
        return (f'<path d="M70 200v-45q20 0 35-30h40q10 35 60 45 30 8 35 30z" fill="{f}" stroke="{s}" '
                f'stroke-width="3" stroke-linejoin="round"/><rect x="68" y="200" width="174" height="12" rx="5" '
                f'fill="{s}"/>')

    def chair(f: str, s: str) -> str:
        return (f'<rect x="110" y="60" width="80" height="90" rx="10" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<rect x="100" y="150" width="100" height="22" rx="6" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<path d="M110 172l-8 58M190 172l8 58M150 172v50" stroke="{s}" stroke-width="7"/>')

    def table(f: str, s: str) -> str:
        return (f'<rect x="70" y="120" width="160" height="18" rx="4" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<path d="M85 138v85M215 138v85" stroke="{s}" stroke-width="9"/>')

    def cushion(f: str, s: str) -> str:
        return f'<rect x="70" y="95" width="160" height="120" rx="34" fill="{f}" stroke="{s}" stroke-width="3"/>'

    def lamp(f: str, s: str) -> str:
        return (f'<path d="M115 70h70l22 60h-114z" fill="{f}" stroke="{s}" stroke-width="3"/><path d="M150 130v85" '
                f'stroke="{s}" stroke-width="6"/><rect x="115" y="212" width="70" height="14" rx="6" fill="{s}"/>')

    def device(f: str, s: str) -> str:
        return (f'<rect x="80" y="80" width="140" height="140" rx="16" fill="{s}"/><rect x="92" y="92" width="116"'
                f' height="104" rx="6" fill="{f}"/><circle cx="150" cy="208" r="6" fill="{f}"/>')

    def camera(f: str, s: str) -> str:
        return (f'<rect x="75" y="105" width="150" height="100" rx="14" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<circle cx="150" cy="155" r="34" fill="{s}"/><circle cx="150" cy="155" r="18" fill="{f}"/>')

    def headphones(f: str, s: str) -> str:
        return (f'<path d="M95 170v-30a55 55 0 0 1 110 0v30" fill="none" stroke="{s}" stroke-width="10"/>'
                f'<rect x="80" y="160" width="34" height="56" rx="12" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<rect x="186" y="160" width="34" height="56" rx="12" fill="{f}" stroke="{s}" stroke-width="3"/>')

    def ring(f: str, s: str) -> str:
        return (f'<circle cx="150" cy="150" r="62" fill="none" stroke="{f}" stroke-width="20"/><circle cx="150" '
                f'cy="150" r="62" fill="none" stroke="{s}" stroke-width="3"/><rect x="128" y="60" width="44" '
                f'height="44" rx="8" fill="{f}" stroke="{s}" stroke-width="3"/>')

    def cable(f: str, s: str) -> str:
        return (f'<path d="M80 110q70 -40 70 40t70 40" fill="none" stroke="{s}" stroke-width="9"/>'
                f'<rect x="60" y="95" width="34" height="28" rx="4" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<rect x="206" y="176" width="34" height="28" rx="4" fill="{f}" stroke="{s}" stroke-width="3"/>')

    def pan(f: str, s: str) -> str:
        return (f'<ellipse cx="130" cy="160" rx="68" ry="34" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<rect x="196" y="150" width="70" height="14" rx="7" fill="{s}"/>')

    def plant(f: str, s: str) -> str:
        return (f'<ellipse cx="125" cy="110" rx="18" ry="40" fill="#4f9a4f" transform="rotate(-25 125 110)"/>'
                f'<ellipse cx="175" cy="110" rx="18" ry="40" fill="#4f9a4f" transform="rotate(25 175 110)"/>'
                f'<path d="M105 150h90l-12 75h-66z" fill="{f}" stroke="{s}" stroke-width="3"/>')

    def frame(f: str, s: str) -> str:
        return (f'<rect x="70" y="75" width="160" height="150" fill="{s}"/><rect x="84" y="89" width="132" '
                f'height="122" fill="{f}"/><path d="M84 211l40-55 30 35 25-25 37 45z" fill="{s}" opacity=".45"/>')

    def bed(f: str, s: str) -> str:
        return (f'<rect x="60" y="130" width="180" height="60" rx="10" fill="{f}" stroke="{s}" stroke-width="3"/>'
                f'<rect x="72" y="112" width="60" height="24" rx="10" fill="#ffffff" stroke="{s}" stroke-width="2"/>')

    def watch(f: str, s: str) -> str:
        return (f'<rect x="128" y="60" width="44" height="180" rx="10" fill="{s}"/><circle cx="150" cy="150" '
                f'r="44" fill="{f}" stroke="{s}" stroke-width="6"/><path d="M150 150v-26M150 150l18 10" '
                f'stroke="{s}" stroke-width="4" stroke-linecap="round"/>')

    def snack(f: str, s: str) -> str:
        return (f'<path d="M100 80l8-8 8 8 8-8 8 8 8-8 8 8 8-8 8 8 8-8 8 8 8-8 4 4v150H100z" fill="{f}" '
                f'stroke="{s}" stroke-width="3"/><circle cx="150" cy="160" r="26" fill="#ffffff" opacity=".5"/>')

    return [
        (r"watch", watch), (r"headphone|earbud|earphone|headset", headphones), (r"camera|lens|flash|binocular", camera),
        (r"cable|hdmi|charger|cord|adapter", cable), (r"chair|stool|bench|ottoman|furniture", chair),
        (r"table|desk|vanit|console|book ?case|shel", table), (r"mattress|bed|sheet|blanket|quilt", bed),
        (r"pillow|cushion|sofa|couch", cushion), (r"lamp|light|sconce", lamp), (r"art|mirror|frame|poster|window|curtain|blind", frame),
        (r"planter|plant|garden|pot\b", plant), (r"cookware|pan\b|skillet|pot set", pan),
        (r"shoe|sneaker|boot|sandal|pump|mule|clog|slipper|loafer|sock", shoe), (r"dress|skirt|gown", dress),
        (r"pant|jean|legging|short|trouser", pants),
        (r"shirt|tee|top|hoodie|sweat|jacket|coat|vest|sweater|tank|lingerie|underwear|swim", shirt),
        (r"necklace|ring|bracelet|earring|jewel", ring),
        (r"phone|tablet|laptop|monitor|tv|television|projector|speaker|keyboard|mouse|mice|drive|vcr|"
         r"smart|device|router|console|dryer", device),
        (r"cream|moistur|balm|butter|jar|mask|polish", jar),
        (r"shampoo|conditioner|wash|lotion|serum|oil|sauce|fragrance|perfume|spray|cleanser|remover|"
         r"sunscreen|toothpaste|bottle|beverage|drink|water|wine|lipstick|brush", bottle),
        (r"chip|crisp|snack|jerky|candy|chocolate|nut|seed|bar\b|bars\b", snack),
        (r"box|pack|cereal|tea\b|coffee|pasta|basket|container|kit", box),
    ]


_SHAPES = [(re.compile(r"\b(?:" + pattern + ")"), draw) for pattern, draw in _shapes()]


def _digest(*parts: str) -> bytes:
    text = "\x1f".join(parts).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16, person=b"shopsim-img1").digest()


def _hsl(h: float, s: float, lum: float) -> str:
    r, g, b = colorsys.hls_to_rgb((h % 360) / 360, lum, s)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _shade(colour: str, factor: float) -> str:
    """``colour`` darkened (factor < 1) or lightened toward white (factor > 1)."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    out = [c * factor if factor < 1 else c + (255 - c) * (factor - 1) for c in rgb]
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in out)


def _named_colour(text: str) -> str | None:
    for m in _COLOUR_RE.finditer(text.lower()):
        if _COLOURS[m.group(1)]:
            return _COLOURS[m.group(1)]
    return None


def _clean(text: str, limit: int) -> str:
    """Text safe inside SVG: XML-valid characters only, one line, at most ``limit`` characters, escaped."""
    text = " ".join(_BAD_XML.sub("", text).split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "\u2026"
    return html.escape(text, quote=True)


def draw_svg(category: str, title: str, query: str = "", *, number: int = 1, value: str = "", axis: str = "") -> bytes:
    """The SVG for a product (``value=''``) or one of its option values; same text, same bytes.

    The category picks the background hue, the query/title words the silhouette, a colour, flavour
    or scent word in the option value (else in the title) its tint; the option value is written on
    a badge. ``number`` > 1 draws the product's other views (turned, zoomed).
    """
    seed = _digest(category, title, query)
    vseed = _digest(category, title, query, axis, value) if value else seed
    hue = _CATEGORY_HUE.get(category.strip().lower(), seed[0] * 360 / 255) + (seed[1] % 21 - 10)
    own = _named_colour(title) or _hsl(hue + seed[3] % 40, 0.5, 0.55)
    # a colour word tints; another style-like value (flavour, scent) gets its own hue; sizes keep the product's
    tint = (_named_colour(value) or (own if _SIZE_LIKE.search(f"{axis} {value}".lower()) else
                                     _hsl(vseed[2] * 360 / 255, 0.55, 0.55))) if value else own
    stroke = _shade(tint, 0.55)
    topic = f"{query} {title}".lower()
    draw = next((d for rx, d in _SHAPES if rx.search(query.lower())), None) or next(
        (d for rx, d in _SHAPES if rx.search(topic)), None) or _SHAPES[seed[4] % len(_SHAPES)][1]
    pattern = next((p for p in ("stripe", "plaid", "check", "dot", "floral", "geometric") if p in value.lower()), "")
    turn = 0 if number == 1 else (seed[5 + number % 8] % 50) - 25
    zoom = 1.0 if number == 1 else 1.0 + (number % 3) * 0.12
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300" viewBox="0 0 300 300">'
           f'<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="'
           f'{_hsl(hue, 0.55, 0.94)}"/><stop offset="1" stop-color="{_hsl(hue + 25, 0.45, 0.84)}"/></linearGradient>']
    if pattern:
        mark = ('<path d="M0 0h6v12H0z" fill="#fff" opacity=".45"/>' if pattern == "stripe" else
                '<circle cx="6" cy="6" r="2.5" fill="#fff" opacity=".55"/>' if pattern in ("dot", "floral") else
                '<path d="M0 0h6v6H0zM6 6h6v6H6z" fill="#fff" opacity=".35"/>')
        out.append(f'<pattern id="pt" width="12" height="12" patternUnits="userSpaceOnUse">{mark}</pattern>')
    out.append('</defs><rect width="300" height="300" fill="url(#bg)"/>')
    for i in range(3):
        cx, cy, r = 20 + seed[6 + i] % 260, 20 + seed[9 + i] % 200, 18 + seed[12 + i] % 40
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="#ffffff" opacity=".35"/>')
    out.append(f'<ellipse cx="150" cy="238" rx="{80 * zoom:.0f}" ry="10" fill="#000000" opacity=".12"/>')
    out.append(f'<g transform="translate(150 150) rotate({turn}) scale({zoom:.2f}) translate(-150 -150)">')
    out.append(draw(tint, stroke))
    if pattern:
        out.append(draw("url(#pt)", "none"))
    out.append("</g>")
    caption = _clean(" ".join(title.split()[:3]), 26)
    out.append(f'<rect x="0" y="254" width="300" height="46" fill="#ffffff" opacity=".82"/><text x="150" y="283" '
               f'font-family="system-ui, sans-serif" font-size="16" text-anchor="middle" fill="#333333">'
               f"{caption}</text>")
    if value:
        label = _clean(value, 24)
        out.append(f'<rect x="10" y="10" width="{min(280, 20 + 8.6 * len(html.unescape(label))):.0f}" height="30" '
                   f'rx="15" fill="{stroke}"/><text x="20" y="31" font-family="system-ui, sans-serif" '
                   f'font-size="15" fill="#ffffff">{label}</text>')
    if number > 1:
        out.append(f'<text x="288" y="30" font-family="system-ui, sans-serif" font-size="13" text-anchor="end" '
                   f'fill="#555555">view {number}</text>')
    out.append("</svg>")
    return "".join(out).encode("utf-8")
