"""Errors of request authentication: every one a refusal before anything is read or changed.

    AuthError                        a request whose caller is not proven
     +-- MissingAuthenticationToken  no signature at all
     +-- IncompleteSignature         an Authorization header that is malformed or incomplete,
     |                               or a way of signing TideMQ does not take (presigned URLs)
     +-- InvalidClientTokenId        an access key id that is not registered (or revoked), or
     |                               a session token, which TideMQ never issues
     +-- SignatureDoesNotMatch       a signature other than the one the key's secret makes,
     |                               or a credential scope for another day or service
     +-- RequestExpired              a request date more than 15 minutes from the gateway's
     +-- ExpiredToken                a bearer token past its expiry

Each class carries `code` (the error type the SQS endpoint sends, AWS's own),
`http_status` and `sender_fault`, so an endpoint renders any of them without an isinstance
chain. Every one is 403: the caller is refused, whatever the reason, as AWS's signing
front end does (its older reference pages list 400 for IncompleteSignature and
RequestExpired; docs/auth.md says why TideMQ answers 403 for all).
"""

from __future__ import annotations


class AuthError(Exception):
    code = "AccessDenied"
    http_status = 403
    sender_fault = True


class MissingAuthenticationToken(AuthError):
    code = "MissingAuthenticationToken"


class IncompleteSignature(AuthError):
    code = "IncompleteSignature"


class InvalidClientTokenId(AuthError):
    code = "InvalidClientTokenId"


class SignatureDoesNotMatch(AuthError):
    code = "SignatureDoesNotMatch"


class RequestExpired(AuthError):
    code = "RequestExpired"


class ExpiredToken(AuthError):
    """A bearer token past its expiry."""

    code = "ExpiredToken"
