"""The OpenAPI documents' paths come from their operation tables and match the apps' routes."""

from __future__ import annotations

from starlette.routing import Route

from shopsim.simsite.api_schema import openapi_spec
from shopsim.simsite.openapi_paths import Operation, openapi_paths
from shopsim.simsite.v8.openapi import v8_openapi_spec
from shopsim.simsite.v8.service import V8_ROUTES
from shopsim.simsite.web_api import API_ROUTES


def _routed(routes: tuple[Route, ...]) -> set[tuple[str, str]]:
    return {(r.path, m.lower()) for r in routes for m in (r.methods or ()) if m != "HEAD"}


def _documented(spec: dict) -> set[tuple[str, str]]:
    return {(path, method) for path, ops in spec["paths"].items() for method in ops}


def test_every_documented_operation_is_a_route_and_back() -> None:
    assert _documented(openapi_spec()) == _routed(API_ROUTES) - {("/api/docs", "get")}
    v8_api = {(p, m) for p, m in _routed(V8_ROUTES) if p.startswith("/api/")}
    assert _documented(v8_openapi_spec()) == v8_api


def test_paths_read_parameters_from_the_path_and_group_methods() -> None:
    ops = [Operation("/a/{x}/b/{y}", "post", "make", {"201": {"description": "made"}}, body="M",
                     operation_id="make", param_docs={"y": "the y"}),
           Operation("/a/{x}/b/{y}", "get", "read", {"200": {"description": "ok"}})]
    paths = openapi_paths(ops)
    assert list(paths) == ["/a/{x}/b/{y}"]
    post = paths["/a/{x}/b/{y}"]["post"]
    assert list(post) == ["operationId", "summary", "parameters", "requestBody", "responses"]
    assert [p["name"] for p in post["parameters"]] == ["x", "y"]
    assert post["parameters"][1]["description"] == "the y" and "description" not in post["parameters"][0]
    assert post["requestBody"] == {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/M"}}}}
    assert list(paths["/a/{x}/b/{y}"]["get"]) == ["summary", "parameters", "responses"]
