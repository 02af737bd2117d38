"""The endpoint SQS and SNS share: `POST /` and `GET /`, as on AWS, where both APIs take
their requests at the root of their hosts. Each request goes to one protocol, picked
from its headers and URL before its body is read:

1. `X-Amz-Target: AmazonSQS.<Action>`: SQS (its JSON protocol).
2. Else the service its SigV4 credential scope names (the Authorization header's
   `Credential=<key id>/<date>/<region>/<service>/aws4_request`, or a presigned URL's
   `X-Amz-Credential`): `sns` to SNS, any other to SQS.
3. Else an unsigned GET of one of the links SNS puts in its messages (SubscribeURL,
   UnsubscribeURL: gateway/sns/links.py): SNS.
4. Anything else to SQS, so that unsigned and malformed requests get SQS's errors, as
   they did before SNS shared the endpoint.

Routing reads a claim only; each endpoint then verifies the signature for its own
service, so a request signed for one service is never served by the other's actions.
Like gateway/app.py, this module knows both AWS protocols; neither knows the other.
"""

from __future__ import annotations

from typing import Literal

from starlette.requests import Request
from starlette.responses import Response

from gateway.auth import sigv4
from gateway.sns import links
from gateway.sns.endpoint import sns_endpoint
from gateway.sqs.endpoint import sqs_endpoint

Protocol = Literal["sqs", "sns"]
_SQS_TARGET = "AmazonSQS."


async def aws_endpoint(request: Request) -> Response:
    if protocol_of(request) == "sns":
        return await sns_endpoint(request)
    return await sqs_endpoint(request)


def protocol_of(request: Request) -> Protocol:
    """Which protocol serves the request, by the rules above."""
    if request.headers.get("x-amz-target", "").startswith(_SQS_TARGET):
        return "sqs"
    service = sigv4.claimed_service(request)
    if service is not None:
        return "sns" if service == "sns" else "sqs"
    return "sns" if links.is_link(request) else "sqs"
