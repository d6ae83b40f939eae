"""OpenAPI ``paths`` from a table of operations: path parameters read from the path, bodies and
responses named by their pydantic models (whose schemas go under ``components``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

__all__ = ["Operation", "component_schemas", "json_ref", "openapi_paths"]


def json_ref(name: str) -> dict[str, Any]:
    """A JSON content object pointing at ``#/components/schemas/{name}``."""
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}}


@dataclass(frozen=True)
class Operation:
    """One method on one path: what the document says that a route cannot (summary, body, responses)."""

    path: str
    method: str
    summary: str
    responses: dict[str, Any]
    body: str | None = None  # the request model's name
    body_required: bool = True
    operation_id: str | None = None
    param_docs: dict[str, str] = field(default_factory=dict)  # path parameter -> its description


def _parameters(path: str, docs: dict[str, str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in re.findall(r"\{(\w+)\}", path):
        param: dict[str, Any] = {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        if name in docs:
            param["description"] = docs[name]
        out.append(param)
    return out


def openapi_paths(operations: list[Operation]) -> dict[str, Any]:
    """The ``paths`` object, operations grouped by path in table order."""
    out: dict[str, dict[str, Any]] = {}
    for op in operations:
        doc: dict[str, Any] = {"operationId": op.operation_id} if op.operation_id else {}
        doc["summary"] = op.summary
        params = _parameters(op.path, op.param_docs)
        if params:
            doc["parameters"] = params
        if op.body is not None:
            doc["requestBody"] = {"required": op.body_required, **json_ref(op.body)}
        doc["responses"] = op.responses
        out.setdefault(op.path, {})[op.method] = doc
    return out


def component_schemas(models: list[type[BaseModel]]) -> dict[str, Any]:
    """Each model's JSON schema by name, nested models lifted beside them."""
    schemas: dict[str, Any] = {}
    for m in models:
        schema = m.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[m.__name__] = schema
    return schemas
