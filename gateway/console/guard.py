"""Who is signed in to the console, and the checks every change passes first.

`signed_in` reads the session cookie and checks that its key still exists. `change`
reads a form posted to the console and lets it through only with a live session and
the session's CSRF token; otherwise nothing is read further and nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from gateway.auth.authenticator import Authenticator
from gateway.auth.console_sessions import COOKIE, ConsoleSessions, Session
from gateway.console.layout import h, page
from gateway.core.errors import CoreError
from gateway.query_form import decode_request
from gateway.request_body import BodyTooLarge, read_body

MAX_FORM_BYTES = 16 * 1024
_MAX_FIELDS = 16
LOGIN = "/console/login"


def sessions(request: Request) -> ConsoleSessions:
    found: ConsoleSessions = request.app.state.console_sessions
    return found


async def signed_in(request: Request) -> Session | None:
    """The request's live session: its cookie verified and its key not revoked."""
    session = sessions(request).verify(request.cookies.get(COOKIE))
    if session is None:
        return None
    authenticator: Authenticator = request.app.state.authenticator
    return session if await authenticator.still_valid(session.principal) else None


def to_login() -> Response:
    return RedirectResponse(LOGIN, status_code=303)


async def form(request: Request) -> dict[str, str] | None:
    """The posted form's fields; None when it is too large or malformed."""
    try:
        body = await read_body(request, MAX_FORM_BYTES)
        return decode_request(b"", body, _MAX_FIELDS)
    except (BodyTooLarge, CoreError):
        return None


@dataclass(frozen=True, slots=True)
class Change:
    session: Session
    fields: dict[str, str]


async def change(request: Request) -> Change | Response:
    """The session and form of a change, or the response refusing it: 303 to the login
    without a session, 403 with a missing or wrong CSRF token, 400 for a bad form."""
    session = await signed_in(request)
    if session is None:
        return to_login()
    fields = await form(request)
    if fields is None:
        return refusal("The form could not be read.", 400)
    if not sessions(request).csrf_ok(session, fields.get("csrf")):
        return refusal(
            "This form has expired or did not come from this console: nothing was changed. "
            "Go back, reload the page and try again.",
            403,
        )
    return Change(session, fields)


def refusal(message: str, status_code: int) -> Response:
    return page(
        "Refused", f'<p class="error">{h(message)}</p><p><a href="/console">Back</a></p>',
        status_code=status_code,
    )  # fmt: skip
