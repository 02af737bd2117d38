"""What the console changes: signing in and out, purging a queue, redriving a
dead-letter queue to its sources.

A purge or a redrive asks first: its link leads to a page that says what will happen,
whose button posts the change with the session's CSRF token (guard.change). Signing in
takes an access key id and its secret; a wrong pair is refused the same way whichever
half is wrong. The sign-in form has a token of its own, also set as a SameSite=Strict
cookie when the form is shown: a form posted from another site comes without the
cookie and is refused, so no site can sign a visitor in to an account of its choosing.
"""

from __future__ import annotations

import hmac
import secrets

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from gateway.auth.authenticator import Authenticator
from gateway.auth.console_sessions import COOKIE, COOKIE_PATH, SESSION_TTL_MS
from gateway.console.guard import Change, change, form, refusal, sessions, signed_in, to_login
from gateway.console.layout import csrf_field, h, page
from gateway.core.broker import Broker
from gateway.core.errors import CoreError, ErrorKind

LOGIN_COOKIE = "tidemq_console_login"
LOGIN_FORM_TTL_S = 3600

_LOGIN_FORM = """<h1>Sign in</h1>{error}
<form method="post" action="/console/login" id="login">
<input type="hidden" name="login_token" value="{token}">
<label for="access_key_id">Access key id</label>
<input type="text" id="access_key_id" name="access_key_id" autocomplete="username" required>
<label for="secret_access_key">Secret access key</label>
<input type="password" id="secret_access_key" name="secret_access_key"
 autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p>
</form>
<p>With the access key of the account to look at (`tidemq keys create`, or the admin key
`tidemq up` printed).</p>"""


async def login_form(request: Request) -> Response:
    if await signed_in(request) is not None:
        return RedirectResponse("/console", status_code=303)
    return _login_page(request, "", 200)


def _login_page(request: Request, error: str, status_code: int) -> Response:
    token = secrets.token_urlsafe(16)
    response = page(
        "Sign in", _LOGIN_FORM.format(error=error, token=h(token)), status_code=status_code
    )
    response.set_cookie(
        LOGIN_COOKIE,
        token,
        max_age=LOGIN_FORM_TTL_S,
        path=COOKIE_PATH,
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return response


async def login(request: Request) -> Response:
    fields = await form(request)
    expected = request.cookies.get(LOGIN_COOKIE, "")
    given = "" if fields is None else fields.get("login_token", "")
    if not expected or not hmac.compare_digest(expected.encode(), given.encode()):
        return _login_page(
            request,
            '<p class="error">This sign-in form has expired or did not come from this '
            "console. Try again.</p>",
            403,
        )
    assert fields is not None
    authenticator: Authenticator = request.app.state.authenticator
    principal = await authenticator.sign_in(
        fields.get("access_key_id", ""), fields.get("secret_access_key", "")
    )
    if principal is None:
        error = '<p class="error">That access key id and secret do not match a key.</p>'
        return _login_page(request, error, 401)
    session = sessions(request).issue(principal)
    response = RedirectResponse("/console", status_code=303)
    response.delete_cookie(LOGIN_COOKIE, path=COOKIE_PATH, httponly=True, samesite="strict")
    response.set_cookie(
        COOKIE,
        session.cookie,
        max_age=SESSION_TTL_MS // 1000,
        path=COOKIE_PATH,
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return response


async def logout(request: Request) -> Response:
    checked = await change(request)
    if not isinstance(checked, Change):
        return checked
    response = to_login()
    response.delete_cookie(COOKIE, path=COOKIE_PATH, httponly=True, samesite="strict")
    return response


def _confirm(request: Request, what: str, button: str, csrf: str, account_id: str) -> Response:
    name = h(request.path_params["name"])
    body = (
        f"<h1>{h(button)} {name}?</h1><p>{h(what)}</p>"
        f'<form method="post" id="confirm">{csrf_field(csrf)}'
        f'<button type="submit" class="danger">{h(button)}</button> '
        f'<a href="/console/queues/{name}">Cancel</a></form>'
    )
    return page(f"{button} {request.path_params['name']}", body, account_id=account_id, csrf=csrf)


async def purge_confirm(request: Request) -> Response:
    session = await signed_in(request)
    if session is None:
        return to_login()
    what = (
        "Every message sent to the queue so far is deleted, in flight ones included. "
        "This cannot be undone."
    )
    csrf = sessions(request).csrf_token(session)
    return _confirm(request, what, "Purge", csrf, session.principal.account_id)


async def redrive_confirm(request: Request) -> Response:
    session = await signed_in(request)
    if session is None:
        return to_login()
    what = (
        "Every message of this dead-letter queue is moved back to the queue it came from "
        "(a message move task, as SQS's StartMessageMoveTask)."
    )
    csrf = sessions(request).csrf_token(session)
    return _confirm(request, what, "Redrive", csrf, session.principal.account_id)


async def purge(request: Request) -> Response:
    return await _queue_change(request, "purged")


async def redrive(request: Request) -> Response:
    return await _queue_change(request, "redrive")


async def _queue_change(request: Request, done: str) -> Response:
    checked = await change(request)
    if not isinstance(checked, Change):
        return checked
    broker: Broker = request.app.state.broker
    name = request.path_params["name"]
    try:
        queue = await broker.get_queue(checked.session.principal.account_id, name)
        if done == "purged":
            await broker.purge_queue(queue)
        else:
            await broker.start_move_task(queue, None, None)
    except CoreError as exc:
        if exc.kind in (ErrorKind.INTERNAL, ErrorKind.UNAVAILABLE):
            raise
        status = {ErrorKind.NOT_FOUND: 404, ErrorKind.CONFLICT: 409}.get(exc.kind, 400)
        return refusal(exc.message, status)
    return RedirectResponse(f"/console/queues/{name}?done={done}", status_code=303)
