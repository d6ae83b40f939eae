"""Product and option images: deterministic, one for everything in the bundled catalog, served with
the right headers, shown on results and item pages (and in a real Chromium screenshot), and hostile
image URLs answered with a clean 4xx."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, urlsplit
from xml.etree import ElementTree

import httpx
import numpy as np
import pytest
from conftest import ROOT, ServerThread
from selectolax.lexbor import LexborHTMLParser

from shopsim.adapters.screenshots import decode_png
from shopsim.render import render_rich, render_simple
from shopsim.simsite import images
from shopsim.simsite.html import render_html
from shopsim.simsite.images import ImageRef, draw_svg, image_for, option_image_url, product_image_url
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.web import create_app
from shopsim.translators.sim_pages import SimsiteTranslator

SVG = "image/svg+xml"


@pytest.fixture(scope="module")
def client(web_server):
    with httpx.Client(base_url=web_server.base_url, timeout=30) as c:
        yield c


def _with_options(shop: Shop, imaged: bool = True):
    """A product with two option axes, the first of which has catalog images (when ``imaged``)."""
    return next(p for p in shop.product_list if len(p.options) > 1
                and (not imaged or any(p.option_to_image.get(v) for v in next(iter(p.options.values())))))


# ---- determinism and coverage -----------------------------------------------------------------------
_DIGESTS = """
import hashlib, json, sys
from shopsim.simsite.images import draw_svg
from shopsim.simsite.shop import Shop, ShopConfig
shop = Shop.from_config(ShopConfig())
out = []
for p in shop.product_list[:40]:
    out.append(hashlib.sha256(draw_svg(p.category, p.title, p.query)).hexdigest())
    for axis, values in p.options.items():
        out += [hashlib.sha256(draw_svg(p.category, p.title, p.query, value=v, axis=axis)).hexdigest() for v in values]
print(json.dumps(out))
"""


@pytest.mark.slow
def test_same_bytes_twice_and_in_other_processes(bundled_shop: Shop) -> None:
    mine = []
    for p in bundled_shop.product_list[:40]:
        first = draw_svg(p.category, p.title, p.query)
        assert draw_svg(p.category, p.title, p.query) == first
        mine.append(first)
        for axis, values in p.options.items():
            mine += [draw_svg(p.category, p.title, p.query, value=v, axis=axis) for v in values]
    expected = [hashlib.sha256(b).hexdigest() for b in mine]
    for seed in ("0", "12345"):  # Python's salted str hash must play no part
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", _DIGESTS], capture_output=True, text=True, env=env, cwd=ROOT,
                             timeout=120, check=True)
        assert json.loads(out.stdout) == expected, f"PYTHONHASHSEED={seed}"
    assert len(set(expected)) > len(expected) * 0.9, "images should differ between products and values"


@pytest.mark.slow
def test_every_bundled_product_and_option_value_has_an_image(bundled_shop: Shop) -> None:
    count, biggest = 0, 0
    for p in bundled_shop.product_list:
        refs = [ImageRef(p.asin, number=k) for k in range(1, len(p.images) + 1)]
        refs += [ImageRef(p.asin, axis=a, value=v) for a, vals in enumerate(p.options.values()) for v in range(len(vals))]
        # the catalog's own names (what PageState.images carries) resolve too
        refs += [ImageRef(p.asin, legacy=src) for src in [*p.images, *p.option_to_image.values()] if src]
        for ref in refs:
            img = image_for(p, ref)
            assert img is not None and img.media_type == SVG, (p.asin, ref)
            ElementTree.fromstring(img.body)  # well-formed XML
            biggest = max(biggest, len(img.body))
            count += 1
    assert count > 3000
    assert biggest <= 4096, "the cache's memory bound assumes images of at most 4 KB"
    assert image_for(bundled_shop.product_list[0], ImageRef("x", number=99)) is None


def test_option_images_follow_the_value(bundled_shop: Shop) -> None:
    p = next(p for p in bundled_shop.product_list if "red" in p.options.get("color", []))
    red = draw_svg(p.category, p.title, p.query, value="red", axis="color")
    assert b"#c8322d" in red and b">red</text>" in red  # a colour value tints the product and is written on it
    assert red != draw_svg(p.category, p.title, p.query, value="navy", axis="color")
    assert draw_svg(p.category, p.title, p.query, number=2) != draw_svg(p.category, p.title, p.query)


def test_hostile_text_still_draws_well_formed_svg() -> None:
    nasty = "<script>alert(1)</script> & \x00\x1b\ud800 \"'\u202e" + "W" * 5000
    body = draw_svg(nasty, nasty, nasty, number=7, value=nasty, axis=nasty)
    root = ElementTree.fromstring(body)
    assert root.tag.endswith("svg") and b"<script" not in body and len(body) <= 4096


def test_cache_is_bounded() -> None:
    info = images._drawn.cache_info()
    assert info.maxsize == images.CACHE_ENTRIES
    assert images.CACHE_ENTRIES * 4096 <= 16 * 1024 * 1024


# ---- serving ------------------------------------------------------------------------------------------
def test_served_with_type_etag_and_cache_headers(client: httpx.Client, bundled_shop: Shop) -> None:
    p = _with_options(bundled_shop)
    r = client.get(product_image_url(p.asin))
    assert r.status_code == 200 and r.headers["content-type"] == SVG
    assert r.headers["cache-control"] == "public, max-age=3600" and r.headers["x-content-type-options"] == "nosniff"
    etag = r.headers["etag"]
    assert etag.startswith('"') and r.content.startswith(b"<svg")
    again = client.get(product_image_url(p.asin), headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert client.get(product_image_url(p.asin), headers={"If-None-Match": f'W/{etag}, "x"'}).status_code == 304
    head = client.head(product_image_url(p.asin))
    assert head.status_code == 200 and head.headers["etag"] == etag
    assert client.post(product_image_url(p.asin)).status_code == 405
    # the catalog's own paths (PageState.images, option_to_image) are the same images
    legacy = client.get(p.images[0])
    assert legacy.status_code == 200 and legacy.headers["etag"] == etag
    value = next(v for v in next(iter(p.options.values())) if p.option_to_image.get(v))
    by_name = client.get(p.option_to_image[value] or "")
    by_index = client.get(option_image_url(p.asin, 0, next(iter(p.options.values())).index(value)))
    assert by_name.status_code == by_index.status_code == 200 and by_name.content == by_index.content
    assert by_name.headers["content-type"] == SVG


def _raw_get(base_url: str, target: bytes) -> tuple[int, bytes]:
    """Send a request line as is (no client-side normalisation of ``..`` or encoding)."""
    host = urlsplit(base_url)
    with socket.create_connection((host.hostname, host.port), timeout=10) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1]), data


@pytest.mark.parametrize("target", [
    b"/static/img/../../../../etc/passwd", b"/static/img/..%2f..%2f..%2fetc%2fpasswd", b"/static/img/%2e%2e/%2e%2e/1",
    b"/static/img/..%2F..%2Fsimsite%2Fweb.py/1", b"/static/img/%00/1", b"/static/img/B00XR59RSZ%00/1",
    b"/static/img/%E2%98%83/1", b"/static/img/%ED%A0%80/1", b"/static/img/%FF%FE/1", b"/static/img/\xe2\x98\x83-1.jpg",
    b"/static/img/B00XR59RSZ/0", b"/static/img/B00XR59RSZ/-1", b"/static/img/B00XR59RSZ/99999999999999999999",
    b"/static/img/B00XR59RSZ/option/0/x", b"/static/img/B00XR59RSZ/option/999/0", b"/static/img/B00XR59RSZ/1/2/3",
    b"/static/img/B00XR59RSZ/%D9%A3", b"/static/img/", b"/static/img", b"/static/img/" + b"A" * 8000 + b"/1",
    b"/static/img/" + b"B" * 60000 + b"-1.jpg", b"/static/img/%25%25%25/1", b"/static/img/B00XR59RSZ-1.jpg/../x",
])
def test_hostile_image_urls_are_clean_4xx(web_server, target: bytes) -> None:
    status, data = _raw_get(web_server.base_url, target)
    assert 400 <= status < 500, (target[:80], status)
    assert b"root:" not in data and b"Traceback" not in data and b"def create_app" not in data


# ---- pages -------------------------------------------------------------------------------------------
def test_results_page_shows_an_image_per_card(client: httpx.Client, bundled_shop: Shop) -> None:
    r = client.get("/search_results/fixed_3/shirt/1")
    tree = LexborHTMLParser(r.text)
    cards = tree.css(".list-group-item")  # WebShop's row: the image beside the .searched-product text
    assert cards
    for card in cards:
        text = card.css_first(".searched-product")
        asin = (text.attributes["data-asin"] if text is not None else "") or ""
        img = card.css_first("img.result-img")
        assert img is not None and img.attributes["src"] == product_image_url(asin)
        assert img.attributes["alt"] == bundled_shop.products[asin].title
        got = client.get(img.attributes["src"] or "")
        assert got.status_code == 200 and got.headers["content-type"] == SVG


def test_item_page_main_image_follows_the_chosen_option(client: httpx.Client, bundled_shop: Shop) -> None:
    p = _with_options(bundled_shop)
    (axis, values), (size_axis, sizes) = list(p.options.items())[:2]
    value = next(v for v in values if p.option_to_image.get(v))

    def page(options: dict[str, str]) -> LexborHTMLParser:
        r = client.get(f"/item_page/fixed_3/{p.asin}/shirt/1/{quote(json.dumps(options), safe='')}")
        assert r.status_code == 200
        return LexborHTMLParser(r.text)

    main = page({}).css_first("#product-image")
    assert main is not None and main.attributes["src"] == product_image_url(p.asin)
    assert main.attributes["alt"] == p.title
    tree = page({axis: value})
    main = tree.css_first("#product-image")
    assert main is not None and main.attributes["src"] == option_image_url(p.asin, 0, values.index(value))
    assert main.attributes["data-option"] == value and value in (main.attributes["alt"] or "")
    # every option value has a swatch, and every image on the page loads
    swatches = [i.attributes["src"] for i in tree.css(".radio-toolbar label img.swatch")]
    assert len(swatches) == sum(len(v) for v in p.options.values())
    for src in [main.attributes["src"], *swatches]:
        assert client.get(src or "").status_code == 200
    if not any(p.option_to_image.get(s) for s in sizes):  # a value without its own image keeps the main one
        main = page({size_axis: sizes[0]}).css_first("#product-image")
        assert main is not None and main.attributes["src"] == product_image_url(p.asin)


def test_translator_reads_pages_with_images(bundled_shop: Shop) -> None:
    tr = SimsiteTranslator()
    p = _with_options(bundled_shop)
    session = ShopSession(bundled_shop, bundled_shop.goal(5), "fixed_5")
    states = [session.step("search[" + p.query + "]").state]
    states.append(session.show("item_page", keywords=["x"], page_num=1, asin=p.asin).state)
    for value in next(iter(p.options.values()))[:2]:
        states.append(session.step(f"click[{value}]").state)
    block = re.compile(r'<script type="application/json" id="shopsim-state">.*?</script>', re.S)
    for state in states:
        html = render_html(state, bundled_shop.products)
        assert "<img" in html and tr.parse(html) == state
        bare = tr.parse(block.sub("", html))
        assert render_simple(bare) == render_simple(state) and render_rich(bare) == render_rich(state)
        assert bare.valid_actions() == state.valid_actions()


# ---- WebShop-format catalogs: remote URLs get the placeholder, local files are served -----------------
_PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
        b"\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82")


def _catalog(folder: Path) -> Path:
    folder.mkdir()
    (folder / "real.png").write_bytes(_PNG)
    (folder / "fake.png").write_bytes(b"not an image at all")
    remote = "https://m.media-amazon.com/images/I/51Y1zY1ZdZL.jpg"
    items = [{"asin": f"B0IMG0000{i}", "name": f"steel lunch box {i}", "full_description": "d",
              "small_description": ["b"], "pricing": "$12.99", "images": [img],
              "customization_options": {"color": [{"value": "red", "image": remote},
                                                  {"value": "blue", "image": (folder / "real.png").as_uri()}]},
              "product_category": "Home › Kitchen", "category": "kitchen", "query": "lunch box",
              "average_rating": "", "page": 1}
             for i, img in enumerate([remote, (folder / "real.png").as_uri(), str(folder / "real.png"),
                                      str(folder / "fake.png"), "/no/such/file.png", "relative/x.png"])]
    attrs = {it["asin"]: {"attributes": ["steel"], "instruction_attributes": ["steel"],
                          "instruction": "i want a steel lunch box"} for it in items}
    (folder / "items_shuffle_img.json").write_text(json.dumps(items), encoding="utf-8")
    (folder / "items_ins_v2_img.json").write_text(json.dumps(attrs), encoding="utf-8")
    return folder


def test_webshop_catalog_images(tmp_path: Path) -> None:
    shop = Shop.from_config(ShopConfig(data_dir=_catalog(tmp_path / "data")))
    with ServerThread(create_app(shop)) as srv, httpx.Client(base_url=srv.base_url, timeout=30) as c:
        kinds = [c.get(product_image_url(f"B0IMG0000{i}")) for i in range(6)]
        assert [r.headers["content-type"] for r in kinds] == [SVG, "image/png", "image/png", SVG, SVG, SVG]
        assert kinds[1].content == kinds[2].content == _PNG and kinds[1].headers["etag"]
        # the remote original stays on the page, the image shown is the local placeholder
        tree = LexborHTMLParser(c.get("/item_page/fixed_0/B0IMG00000/x/1/{}").text)
        main = tree.css_first("#product-image")
        assert main is not None and main.attributes["src"] == product_image_url("B0IMG00000")
        assert main.attributes["data-original-src"] == "https://m.media-amazon.com/images/I/51Y1zY1ZdZL.jpg"
        red = LexborHTMLParser(c.get("/item_page/fixed_0/B0IMG00000/x/1/%7B%22color%22%3A%22red%22%7D").text)
        main = red.css_first("#product-image")
        assert main is not None and main.attributes["src"] == option_image_url("B0IMG00000", 0, 0)
        assert (main.attributes["data-original-src"] or "").startswith("https://m.media-amazon.com/")
        assert c.get(option_image_url("B0IMG00000", 0, 0)).headers["content-type"] == SVG
        assert c.get(option_image_url("B0IMG00000", 0, 1)).content == _PNG
        results = LexborHTMLParser(c.get("/search_results/fixed_0/lunch+box/1").text)
        originals = {i.attributes.get("data-original-src") for i in results.css("img.result-img")}
        assert "https://m.media-amazon.com/images/I/51Y1zY1ZdZL.jpg" in originals


# ---- a real browser ---------------------------------------------------------------------------------
@pytest.mark.browser
def test_screenshot_shows_the_item_image(web_server, chromium_path, browser_shutdown, bundled_shop: Shop) -> None:
    from shopsim.adapters.browser_source import _Browser

    p = _with_options(bundled_shop)
    context = _Browser.get(chromium_path, True).browser.new_context(viewport={"width": 1000, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{web_server.base_url}/search_results/fixed_3/{quote(p.query)}/1")
        broken = page.evaluate("() => [...document.images].filter(i => !i.complete || !i.naturalWidth).length")
        assert broken == 0 and page.locator("img.result-img").count() > 0
        page.goto(f"{web_server.base_url}/item_page/fixed_3/{p.asin}/x/1/{{}}")
        image = page.locator("#product-image")
        assert image.evaluate("i => i.complete && i.naturalWidth > 0")
        shot = image.screenshot()
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "test-artifacts" / "item_page_with_image.png"))
    finally:
        context.close()
    pixels = decode_png(shot)
    assert pixels.shape[0] >= 200 and pixels.shape[1] >= 200
    colours, counts = np.unique(pixels.reshape(-1, 3), axis=0, return_counts=True)
    assert len(colours) > 50, "the image region is (nearly) one colour"
    assert counts.max() < 0.6 * counts.sum()
    assert pixels.std() > 10
