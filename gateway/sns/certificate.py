"""The certificate SNS messages are signed with, at the URL their `SigningCertURL` names:
`/SimpleNotificationService-<key id>.pem`, as SNS serves its own.

Receivers fetch it without credentials, so the route must stay outside authentication.
It answers only for the deployment's current key id: an old or made-up id is a 404, so a
receiver never takes one certificate for another. The key comes from
`app.state.signing_key` (control_plane/signing_keys.py, loaded when the gateway starts).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from gateway.core.notifications import SigningKey

__all__ = ["ROUTE_PATH", "signing_certificate"]

ROUTE_PATH = "/SimpleNotificationService-{key_id}.pem"
# A key id names one certificate for good, so a receiver may cache it as long as it likes.
_CACHE_CONTROL = "public, max-age=31536000, immutable"


async def signing_certificate(request: Request) -> Response:
    key: SigningKey = request.app.state.signing_key
    if request.path_params["key_id"] != key.key_id:
        return PlainTextResponse("No such certificate.", status_code=404)
    return Response(
        key.certificate_pem,
        media_type="application/x-pem-file",
        headers={"Cache-Control": _CACHE_CONTROL},
    )
