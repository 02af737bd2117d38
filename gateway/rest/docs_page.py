"""The /docs page: the OpenAPI document rendered on the server into one plain HTML page,
with its own small stylesheet, so it needs nothing from the internet (no CDN, no script).

Operations come grouped by tag, each with its parameters, its request body and its
responses; every schema follows as a table of its fields, linked from where it is used.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1f2328; }
code, .path { font-family: ui-monospace, monospace; font-size: 90%; }
.op { border: 1px solid #d0d7de; border-radius: 6px; padding: .5rem 1rem; margin: 1rem 0; }
.method { display: inline-block; min-width: 4.5rem; font-weight: bold; }
.GET { color: #0969da; } .POST { color: #1a7f37; } .PUT, .PATCH { color: #9a6700; }
.DELETE { color: #cf222e; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { text-align: left; padding: .2rem .8rem .2rem 0; vertical-align: top;
         border-bottom: 1px solid #eaeef2; }
h3 { margin: .2rem 0; font-size: 1rem; }
"""
_CODE = re.compile(r"`([^`]+)`")


def render(document: Mapping[str, Any]) -> str:
    info = document["info"]
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(info['title'])}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(info['title'])} <small>{_e(info['version'])}</small></h1>",
        _paragraphs(info.get("description", "")),
        '<p>The machine-readable document: <a href="/openapi.json">/openapi.json</a>.</p>',
    ]
    by_tag: dict[str, list[str]] = {tag["name"]: [] for tag in document.get("tags", [])}
    for path, item in document["paths"].items():
        for method, op in item.items():
            by_tag.setdefault(op["tags"][0], []).append(_operation(method.upper(), path, op))
    for tag, operations in by_tag.items():
        parts.append(f"<h2>{_e(tag)}</h2>")
        parts.extend(operations)
    parts.append("<h2>Schemas</h2>")
    for name, schema in document["components"]["schemas"].items():
        parts.append(f'<div class="op" id="{_e(name)}"><h3>{_e(name)}</h3>')
        parts.append(_paragraphs(schema.get("description", "")))
        parts.append(_fields(schema))
        parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _operation(method: str, path: str, op: Mapping[str, Any]) -> str:
    parts = [
        f'<div class="op" id="{_e(op["operationId"])}">',
        f'<h3><span class="method {method}">{method}</span> <span class="path">{_e(path)}'
        f"</span> — {_e(op['summary'])}</h3>",
        _paragraphs(op.get("description", "")),
    ]
    parameters = op.get("parameters", [])
    if parameters:
        rows = [
            (
                f"<code>{_e(p['name'])}</code>",
                _e(p["in"]) + (", required" if p.get("required") else ""),
                _type(p["schema"]),
                _text(p.get("description", "")),
            )
            for p in parameters
        ]
        parts.append("<p>Parameters:</p>" + _table(("name", "in", "type", ""), rows))
    body = op.get("requestBody")
    if body is not None:
        schema = body["content"]["application/json"]["schema"]
        needed = "required" if body.get("required") else "optional"
        parts.append(f"<p>Request body ({needed}): {_type(schema)}</p>")
    responses = []
    for status, response in op["responses"].items():
        content = response.get("content", {}).get("application/json")
        body_type = _type(content["schema"]) if content else ""
        responses.append((_e(status), _e(response["description"]), body_type))
    parts.append("<p>Responses:</p>" + _table(("status", "", "body"), responses))
    parts.append("</div>")
    return "\n".join(parts)


def _fields(schema: Mapping[str, Any]) -> str:
    properties = schema.get("properties")
    if not properties:
        return f"<p>{_type(schema)}</p>"
    required = set(schema.get("required", []))
    rows = [
        (
            f"<code>{_e(name)}</code>",
            "required" if name in required else "optional",
            _type(prop),
            _text(prop.get("description", "")),
        )
        for name, prop in properties.items()
    ]
    return _table(("field", "", "type", ""), rows)


def _type(schema: Mapping[str, Any]) -> str:
    """A schema in a few words: its type, constraints, and links to named schemas."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return f'<a href="#{_e(name)}">{_e(name)}</a>'
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"] if s.get("type") != "null")
    if "enum" in schema:
        return "one of " + ", ".join(f"<code>{_e(str(v))}</code>" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        text = f"array of {_type(schema.get('items', {}))}"
    elif kind == "object" and "additionalProperties" in schema:
        text = f"map of string to {_type(schema['additionalProperties'])}"
    else:
        text = _e(str(kind))
    limits = [
        _e(f"{word} {schema[key]}")
        for key, word in (
            ("minimum", "≥"),
            ("maximum", "≤"),
            ("minLength", "length ≥"),
            ("maxLength", "length ≤"),
            ("minItems", "items ≥"),
            ("maxItems", "items ≤"),
            ("minProperties", "entries ≥"),
            ("maxProperties", "entries ≤"),
            ("default", "default"),
        )
        if key in schema
    ]
    if "pattern" in schema:
        limits.append(f"matching <code>{_e(schema['pattern'])}</code>")
    return f"{text} ({', '.join(limits)})" if limits else text


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{_text(p)}</p>" for p in text.split("\n\n") if p.strip())


def _text(text: str) -> str:
    """Escaped, with `code` spans kept."""
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", _e(text))


def _e(text: str) -> str:
    return html.escape(text, quote=True)
