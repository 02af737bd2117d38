"""SNS's statuses for the core's errors: one table, agreeing with botocore's SNS model."""

from __future__ import annotations

import botocore.session
import pytest

from control_plane import errors as plane
from gateway.auth import errors as auth
from gateway.core.errors import CoreError, ErrorKind, from_lower_layer
from gateway.sns.errors import from_core, internal_error, missing_parameter

MODEL = botocore.session.get_session().get_service_model("sns")
# SNS's error codes and the statuses its model records for them.
MODEL_STATUS = {
    shape.metadata["error"]["code"]: shape.metadata["error"]["httpStatusCode"]
    for shape in MODEL.error_shapes
    if "error" in shape.metadata
}


def test_every_kind_of_error_has_a_status() -> None:
    statuses = {kind: from_core(CoreError("Code", "m", kind)).http_status for kind in ErrorKind}
    assert statuses == {
        ErrorKind.INVALID: 400,
        ErrorKind.NOT_FOUND: 404,
        ErrorKind.CONFLICT: 400,
        ErrorKind.TOO_LARGE: 400,
        ErrorKind.FORBIDDEN: 403,
        ErrorKind.UNAUTHORIZED: 403,
        ErrorKind.UNAVAILABLE: 503,
        ErrorKind.INTERNAL: 500,
    }
    assert from_core(CoreError("ServiceUnavailable", "m", ErrorKind.UNAVAILABLE)).fault == (
        "Receiver"
    )
    assert from_core(CoreError("InvalidParameter", "m")).fault == "Sender"


@pytest.mark.parametrize(
    "error",
    [
        plane.NotFound("Topic does not exist"),
        plane.InvalidParameter("x"),
        plane.TagLimitExceeded("x"),
    ],
)
def test_the_control_plane_s_sns_errors_get_the_status_sns_s_model_gives(
    error: plane.ControlPlaneError,
) -> None:
    sns = from_core(from_lower_layer(error))
    assert (sns.code, sns.message) == (error.code, str(error))
    assert sns.http_status == MODEL_STATUS[error.code]
    assert sns.sender_fault


@pytest.mark.parametrize(
    "error",
    [
        auth.MissingAuthenticationToken("m"),
        auth.IncompleteSignature("m"),
        auth.InvalidClientTokenId("m"),
        auth.SignatureDoesNotMatch("m"),
        auth.RequestExpired("m"),
    ],
)
def test_authentication_errors_keep_their_codes(error: auth.AuthError) -> None:
    sns = from_core(error)
    assert (sns.code, sns.message, sns.http_status, sns.fault) == (error.code, "m", 403, "Sender")


def test_sns_s_own_errors() -> None:
    internal = internal_error()
    assert (internal.code, internal.http_status, internal.fault) == (
        "InternalError",
        500,
        "Receiver",
    )
    assert MODEL_STATUS["InternalError"] == 500
    missing = missing_parameter("TopicArn")
    assert (missing.code, missing.message, missing.http_status) == (
        "InvalidParameter",
        "Invalid parameter: TopicArn Reason: no value for required parameter",
        400,
    )
