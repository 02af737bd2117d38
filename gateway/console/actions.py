"""What the console changes: signing in and out, purging a queue, redriving a
dead-letter queue to its sources.

A purge or a redrive asks first: its link leads to a page that says what will happen,
whose button posts the change with the session's CSRF token (guard.change). Signing in
takes an access key id and its secret; a wrong pair is refused the same way whichever
half is wrong.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from gateway.auth.authenticator import Authenticator
from gateway.auth.console_sessions import COOKIE, COOKIE_PATH, SESSION_TTL_MS
from gateway.console.guard import Change, change, form, refusal, sessions, signed_in, to_login
from gateway.console.layout import csrf_field, h, page
from gateway.core.broker import Broker
from gateway.core.errors import CoreError, ErrorKind

_LOGIN_FORM = """<h1>Sign in</h1>{error}
<form method="post" action="/console/login" id="login">
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
    return page("Sign in", _LOGIN_FORM.format(error=""))


async def login(request: Request) -> Response:
    fields = await form(request)
    authenticator: Authenticator = request.app.state.authenticator
    principal = None
    if fields is not None:
        principal = await authenticator.sign_in(
            fields.get("access_key_id", ""), fields.get("secret_access_key", "")
        )
    if principal is None:
        error = '<p class="error">That access key id and secret do not match a key.</p>'
        return page("Sign in", _LOGIN_FORM.format(error=error), status_code=401)
    session = sessions(request).issue(principal)
    response = RedirectResponse("/console", status_code=303)
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
