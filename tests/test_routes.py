"""The route table: both spellings of every page's URL, byte for byte, and the parser reading them back."""

from __future__ import annotations

import pytest

from shopsim.routes import (
    ROUTE_NAMES,
    ROUTES,
    BadRequest,
    done_path,
    done_url,
    index_path,
    index_url,
    item_path,
    item_url,
    item_url_parts,
    parse_route,
    raw_segments,
    results_path,
    results_url,
    results_url_parts,
    split_state_url,
    sub_page_path,
    sub_page_url,
)

OPTS = {"color": "a/b #1", "size": "x-large"}


def test_raw_urls_are_webshops_spelling() -> None:
    base = "http://h:1"
    assert index_url(base, "s1") == "http://h:1/s1"
    assert results_url(base, "s1", ["red", "mug"], 2) == "http://h:1/search_results/s1/red+mug/2"
    assert item_url(base, "s1", "B01", ["red"], 1, OPTS) == (
        'http://h:1/item_page/s1/B01/red/1/{"color": "a/b #1", "size": "x-large"}')
    assert sub_page_url(base, "s1", "B01", ["red"], 1, "Features", OPTS) == (
        "http://h:1/item_sub_page/s1/B01/red/1/Features/{'color': 'a/b #1', 'size': 'x-large'}")
    assert done_url(base, "s1", "B01", {}) == "http://h:1/done/s1/B01/{}"


def test_paths_are_percent_encoded_per_segment() -> None:
    assert index_path("s 1") == "/s%201"
    assert results_path("s1", ["a/b", "c+d"], 3) == "/search_results/s1/a%2Fb+c%2Bd/3"
    assert item_path("s1", "B/1", ["x"], 1, OPTS) == (
        "/item_page/s1/B%2F1/x/1/%7B%22color%22:%20%22a%2Fb%20%231%22,%20%22size%22:%20%22x-large%22%7D")
    assert sub_page_path("s1", "B1", ["x"], 1, "Reviews", {"c": "d"}) == (
        "/item_sub_page/s1/B1/x/1/Reviews/%7B%27c%27:%20%27d%27%7D")
    assert done_path("s1", "B1", {}) == "/done/s1/B1/%7B%7D"


@pytest.mark.parametrize("path", [
    results_path("s1", ["a/b", "c"], 3),
    item_path("s1", "B/1", ["x", "y"], 2, OPTS),
    sub_page_path("s1", "B1", ["x"], 4, "Attributes", OPTS),
    done_path("s1", "B1", OPTS),
])
def test_every_encoded_path_reads_back(path: str) -> None:
    route = path.split("/")[1]
    parts = parse_route(route, raw_segments(path, route))
    assert parts["sid"] == "s1" and parts["page"] == route
    assert parts.get("options", OPTS) == OPTS
    assert parts.get("keywords") in (None, ["a/b", "c"], ["x", "y"], ["x"])


def test_raw_urls_read_back_and_split() -> None:
    url = sub_page_url("http://h:1", "s1", "B1", ["x", "y"], 2, "Features", {"c": "d"})
    base, route, sid, _ = split_state_url(url)
    assert (base, route, sid) == ("http://h:1", "item_sub_page", "s1")
    assert parse_route("item_sub_page", raw_segments(url[len(base):], "item_sub_page")) == {
        "sid": "s1", "page": "item_sub_page", "asin": "B1", "keywords": ["x", "y"], "page_num": 2,
        "sub_page": "Features", "options": {"c": "d"}}
    assert split_state_url(index_url("http://h:1", "s1")) == ("http://h:1", None, "s1", [])


def test_the_table_names_each_route_once() -> None:
    assert ROUTE_NAMES == ("search_results", "item_page", "item_sub_page", "done")
    assert ROUTES["index"].parse(["s1"]) == {"sid": "s1", "page": "index"}


@pytest.mark.parametrize(("route", "segs", "says"), [
    ("search_results", ["s1", "x", "0"], "page number"),
    ("item_sub_page", ["s1", "B1", "x", "1", "Nope", "{}"], "sub-page must be one of"),
    ("done", ["bad id!", "B1", "{}"], "session id"),
    ("done", ["s1", "B1", "[1]"], "options"),
    ("nowhere", ["s1"], "unknown route"),
])
def test_bad_urls_say_why(route: str, segs: list[str], says: str) -> None:
    with pytest.raises(BadRequest, match=says):
        parse_route(route, segs)


@pytest.mark.parametrize("keywords", [["red", "mug"], ["a/b", "%", '"q"', "x#y"], [""], []])
@pytest.mark.parametrize("options", [{}, OPTS, {"size": 'l "x"'}])
def test_url_parts_spell_the_urls_they_stand_for(keywords: list[str], options: dict[str, str]) -> None:
    """A results page builds its links from parts spelled once; they must give the routes' own URLs."""
    head, tail = item_url_parts("http://h:1", "s1", keywords, 3, options)
    for asin in ("B01", "", "a/b{"):
        assert head + asin + tail == item_url("http://h:1", "s1", asin, keywords, 3, options)
    at, after = results_url_parts("http://h:1", "s1", keywords)
    for page in (1, 2, 100):
        assert f"{at}{page}{after}" == results_url("http://h:1", "s1", keywords, page)
    with pytest.raises(ValueError):
        ROUTES["item_page"].build_around("options", {})
