"""The links SNS puts in what it delivers, which are followed without a signature.

A subscription's confirmation carries a SubscribeURL (`GET /?Action=ConfirmSubscription
&TopicArn=...&Token=...`) and every notification an UnsubscribeURL (`GET /?Action=
Unsubscribe&SubscriptionArn=...`). Whoever receives the message follows them as they
are, with no credentials, so they are served without a signature: the action runs with
no account (SnsContext.account_id is None) and decides by what the link itself carries
(the confirmation token, the subscription ARN) whether to do anything.

Only these two actions, only by GET, with no body, and only when the request makes no
claim of a signature: a request with an Authorization header or a presigned URL's
parameters is verified like any other.
"""

from __future__ import annotations

from starlette.requests import Request

from gateway.auth import sigv4
from gateway.core.errors import CoreError
from gateway.query_form import decode_request
from gateway.sns.limits import MAX_PARAMETERS

UNSIGNED_ACTIONS = frozenset({"ConfirmSubscription", "Unsubscribe"})


def may_be_unsigned(request: Request) -> bool:
    """A GET that claims no signature at all: the only form a link can take."""
    return request.method == "GET" and sigv4.is_unsigned(request)


def is_link(request: Request) -> bool:
    """An unsigned GET whose URL's Action is one of UNSIGNED_ACTIONS. Reads the method,
    the headers and the URL only, so it can be asked before the body is read."""
    if not may_be_unsigned(request):
        return False
    try:
        form = decode_request(request.scope.get("query_string", b""), b"", MAX_PARAMETERS)
    except CoreError:
        return False  # not a link SNS wrote
    return form.get("Action") in UNSIGNED_ACTIONS
