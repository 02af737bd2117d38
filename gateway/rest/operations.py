"""The route table: every REST operation, declared once, with what it takes and returns.

An `Operation` names its method and path, its handler, the Struct its JSON body (or its
query string) decodes into, the Struct it answers with and the status of a success, and
the error statuses it may answer with besides those every operation may (400, 401, 503).
The Starlette routes (gateway/rest/routes.py) and the OpenAPI document
(gateway/rest/openapi.py) are both built from this one table.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from gateway.rest.context import RestContext

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
Handler = Callable[[RestContext, Any], Awaitable[Any]]
_PATH_PARAM = re.compile(r"{([a-z_]+)}")


@dataclass(frozen=True, slots=True)
class Operation:
    method: Method
    path: str
    handler: Handler
    tag: str
    body: type | None = None  # Struct of the JSON request body
    body_required: bool = True
    query: type | None = None  # Struct of the query string
    response: type | None = None  # Struct of a success's body; None: 204, no body
    status: int = 200
    errors: tuple[int, ...] = ()

    @property
    def operation_id(self) -> str:
        words = self.handler.__name__.split("_")
        return words[0] + "".join(w.title() for w in words[1:])

    @property
    def summary(self) -> str:
        return self.description.split("\n", 1)[0].rstrip(".")

    @property
    def description(self) -> str:
        return inspect.getdoc(self.handler) or ""

    @property
    def path_params(self) -> list[str]:
        return _PATH_PARAM.findall(self.path)

    @property
    def statuses(self) -> list[int]:
        """Every status the operation answers with, success first."""
        common = [400, 401, 503]
        if self.body is not None:
            common.append(413)
        if self.path_params:
            common.append(404)
        return [self.status, *sorted(set(common) | set(self.errors))]


OPERATIONS: list[Operation] = []


def operation(
    method: Method,
    path: str,
    *,
    tag: str,
    body: type | None = None,
    body_required: bool = True,
    query: type | None = None,
    response: type | None = None,
    status: int = 200,
    errors: tuple[int, ...] = (),
) -> Callable[[Handler], Handler]:
    """Registers the decorated handler as the operation `method path`."""

    def register(handler: Handler) -> Handler:
        OPERATIONS.append(
            Operation(
                method, path, handler, tag, body, body_required, query, response, status, errors
            )
        )
        return handler

    return register
