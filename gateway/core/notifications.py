"""SNS's JSON envelopes, as HTTP/S endpoints and queues receive them, and their signatures.

Three kinds, each a JSON object whose members come in SNS's order (receivers that
compare bytes, or log them, see what SNS would send):

    Notification              Type, MessageId, [SequenceNumber], TopicArn, [Subject],
                              Message, Timestamp, [SignatureVersion, Signature,
                              SigningCertURL], UnsubscribeURL, [MessageAttributes]
    SubscriptionConfirmation  Type, MessageId, Token, TopicArn, Message, SubscribeURL,
    UnsubscribeConfirmation   Timestamp, SignatureVersion, Signature, SigningCertURL

Subject and MessageAttributes appear only when the message has them. A FIFO topic's
notification (to a FIFO queue) carries its SequenceNumber and no signature, as SNS's do.
SNS writes the object one member a line (`"Name" : value`, two spaces of indent, each
message attribute compact on a line of its own); so does this module.

The signature ("Verifying the signatures of Amazon SNS messages") is RSA PKCS#1 v1.5
over the string to sign: for each signed member, in byte order of the names, the name, a
newline, the value, a newline. Signed members:

    Notification              Message, MessageId, Subject (if present), Timestamp,
                              TopicArn, Type
    the two confirmations     Message, MessageId, SubscribeURL, Timestamp, Token,
                              TopicArn, Type

SignatureVersion "1" hashes with SHA-1 (SHA1withRSA), "2" with SHA-256; the signature is
base64. Neither the subscription nor the UnsubscribeURL is signed, so one signature of a
message serves every subscription of its topic: sign once per message, not per delivery.
The certificate is the deployment's (control_plane/signing_keys.py), served at
`<base url>/SimpleNotificationService-<key id>.pem` (gateway/sns/certificate.py).
"""

from __future__ import annotations

import base64
import binascii
import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote

import orjson
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from control_plane.signing_keys import SigningKey

__all__ = [
    "NOTIFICATION",
    "SIGNATURE_VERSIONS",
    "SUBSCRIPTION_CONFIRMATION",
    "UNSUBSCRIBE_CONFIRMATION",
    "Confirmation",
    "EnvelopeAttribute",
    "Notification",
    "Signature",
    "SigningKey",
    "iso_timestamp",
    "sign",
    "signing_cert_url",
    "subscribe_url",
    "subscription_confirmation",
    "unsubscribe_confirmation",
    "unsubscribe_url",
    "verify",
]

NOTIFICATION = "Notification"
SUBSCRIPTION_CONFIRMATION = "SubscriptionConfirmation"
UNSUBSCRIBE_CONFIRMATION = "UnsubscribeConfirmation"

_HASHES: dict[str, type[hashes.SHA1 | hashes.SHA256]] = {"1": hashes.SHA1, "2": hashes.SHA256}
SIGNATURE_VERSIONS = frozenset(_HASHES)

# The signed members of each kind, in byte order; Subject only when present.
_SIGNED = {
    NOTIFICATION: ("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"),
    SUBSCRIPTION_CONFIRMATION: (
        "Message",
        "MessageId",
        "SubscribeURL",
        "Timestamp",
        "Token",
        "TopicArn",
        "Type",
    ),
}
_SIGNED[UNSUBSCRIBE_CONFIRMATION] = _SIGNED[SUBSCRIPTION_CONFIRMATION]
_OPTIONAL_SIGNED = frozenset({"Subject"})


def iso_timestamp(timestamp_ms: int) -> str:
    """`2012-05-02T00:54:06.655Z`: ISO 8601 in UTC with milliseconds, as SNS writes it."""
    seconds, millis = divmod(timestamp_ms, 1000)
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{millis:03d}Z"


def signing_cert_url(base_url: str, key_id: str) -> str:
    return f"{base_url.rstrip('/')}/SimpleNotificationService-{key_id}.pem"


def subscribe_url(base_url: str, topic_arn: str, token: str) -> str:
    """The link that confirms a subscription. The ARN keeps its colons, as in SNS's
    links (a colon needs no escape in a query); anything else is percent-escaped."""
    return (
        f"{base_url.rstrip('/')}/?Action=ConfirmSubscription"
        f"&TopicArn={quote(topic_arn, safe=':')}&Token={quote(token, safe='')}"
    )


def unsubscribe_url(base_url: str, subscription_arn: str) -> str:
    return (
        f"{base_url.rstrip('/')}/?Action=Unsubscribe"
        f"&SubscriptionArn={quote(subscription_arn, safe=':')}"
    )


@dataclass(frozen=True, slots=True)
class EnvelopeAttribute:
    """A message attribute as the envelope shows it: `String`, `Number`, `String.Array`
    (the JSON array as text) or `Binary` (the bytes in base64)."""

    data_type: str
    value: str


@dataclass(frozen=True, slots=True)
class Signature:
    version: str  # "1" or "2"
    signature: str  # base64
    signing_cert_url: str


@dataclass(frozen=True, slots=True)
class Notification:
    """A published message as its envelope shows it."""

    message_id: str
    topic_arn: str
    message: str
    timestamp: str  # iso_timestamp of the publish
    subject: str | None = None
    attributes: Mapping[str, EnvelopeAttribute] = field(default_factory=dict)
    sequence_number: str | None = None  # FIFO topics

    def string_to_sign(self) -> bytes:
        return _string_to_sign(
            [
                ("Message", self.message),
                ("MessageId", self.message_id),
                *([("Subject", self.subject)] if self.subject is not None else []),
                ("Timestamp", self.timestamp),
                ("TopicArn", self.topic_arn),
                ("Type", NOTIFICATION),
            ]
        )

    def envelope(self, unsubscribe_url: str, signature: Signature | None) -> bytes:
        """The JSON body; `signature` None for a FIFO topic's (SNS signs none of those)."""
        members: list[tuple[str, str]] = [("Type", NOTIFICATION), ("MessageId", self.message_id)]
        if self.sequence_number is not None:
            members.append(("SequenceNumber", self.sequence_number))
        members.append(("TopicArn", self.topic_arn))
        if self.subject is not None:
            members.append(("Subject", self.subject))
        members += [("Message", self.message), ("Timestamp", self.timestamp)]
        if signature is not None:
            members += _signature_members(signature)
        members.append(("UnsubscribeURL", unsubscribe_url))
        return _render(members, self.attributes)


@dataclass(frozen=True, slots=True)
class Confirmation:
    """A SubscriptionConfirmation or an UnsubscribeConfirmation."""

    type: str
    message_id: str
    token: str
    topic_arn: str
    message: str
    subscribe_url: str
    timestamp: str

    def string_to_sign(self) -> bytes:
        return _string_to_sign(
            [
                ("Message", self.message),
                ("MessageId", self.message_id),
                ("SubscribeURL", self.subscribe_url),
                ("Timestamp", self.timestamp),
                ("Token", self.token),
                ("TopicArn", self.topic_arn),
                ("Type", self.type),
            ]
        )

    def envelope(self, signature: Signature) -> bytes:
        members = [
            ("Type", self.type),
            ("MessageId", self.message_id),
            ("Token", self.token),
            ("TopicArn", self.topic_arn),
            ("Message", self.message),
            ("SubscribeURL", self.subscribe_url),
            ("Timestamp", self.timestamp),
            *_signature_members(signature),
        ]
        return _render(members, {})


def subscription_confirmation(
    *, message_id: str, token: str, topic_arn: str, timestamp: str, base_url: str
) -> Confirmation:
    """The message that asks an endpoint to confirm its subscription, in SNS's words."""
    return Confirmation(
        type=SUBSCRIPTION_CONFIRMATION,
        message_id=message_id,
        token=token,
        topic_arn=topic_arn,
        message=(
            f"You have chosen to subscribe to the topic {topic_arn}.\n"
            "To confirm the subscription, visit the SubscribeURL included in this message."
        ),
        subscribe_url=subscribe_url(base_url, topic_arn, token),
        timestamp=timestamp,
    )


def unsubscribe_confirmation(
    *,
    message_id: str,
    token: str,
    topic_arn: str,
    subscription_arn: str,
    timestamp: str,
    base_url: str,
) -> Confirmation:
    """The message that tells an endpoint it was unsubscribed, and how to subscribe again."""
    return Confirmation(
        type=UNSUBSCRIBE_CONFIRMATION,
        message_id=message_id,
        token=token,
        topic_arn=topic_arn,
        message=(
            f"You have chosen to deactivate subscription {subscription_arn}.\n"
            "To cancel this operation and restore the subscription, visit the SubscribeURL "
            "included in this message."
        ),
        subscribe_url=subscribe_url(base_url, topic_arn, token),
        timestamp=timestamp,
    )


def sign(string_to_sign: bytes, key: SigningKey, version: str, base_url: str) -> Signature:
    """The signature of a string to sign under SignatureVersion `version` ("1" or "2")."""
    hash_type = _HASHES.get(version)
    if hash_type is None:
        raise ValueError(f"SignatureVersion is 1 or 2, not {version!r}")
    signed = key.private_key.sign(string_to_sign, padding.PKCS1v15(), hash_type())
    return Signature(
        version, base64.b64encode(signed).decode(), signing_cert_url(base_url, key.key_id)
    )


def verify(envelope: bytes | str | Mapping[str, object], certificate_pem: bytes) -> bool:
    """Whether the envelope's signature is good under the certificate, checked as SNS
    tells receivers to: the string to sign rebuilt from the parsed members, the hash the
    SignatureVersion names. False for anything else (unsigned, malformed, tampered)."""
    try:
        document = orjson.loads(envelope) if isinstance(envelope, bytes | str) else envelope
        string_to_sign, hash_type, signature = _signed_parts(document)
        public_key = x509.load_pem_x509_certificate(certificate_pem).public_key()
        if not isinstance(public_key, rsa.RSAPublicKey):
            return False
        public_key.verify(signature, string_to_sign, padding.PKCS1v15(), hash_type())
    except (orjson.JSONDecodeError, ValueError, binascii.Error, InvalidSignature):
        return False
    return True


def _signed_parts(document: object) -> tuple[bytes, type[hashes.SHA1 | hashes.SHA256], bytes]:
    """The string to sign, the hash and the signature of a parsed envelope; ValueError if
    it is no signed SNS message."""
    if not isinstance(document, Mapping):
        raise ValueError("not a JSON object")
    names = _SIGNED.get(str(document.get("Type")))
    hash_type = _HASHES.get(str(document.get("SignatureVersion")))
    if names is None or hash_type is None:
        raise ValueError("not a signed SNS message")
    pairs = []
    for name in names:
        value = document.get(name)
        if value is None and name in _OPTIONAL_SIGNED:
            continue
        if not isinstance(value, str):
            raise ValueError(f"{name} is not a string")
        pairs.append((name, value))
    signature = document.get("Signature")
    if not isinstance(signature, str):
        raise ValueError("no Signature")
    return _string_to_sign(pairs), hash_type, base64.b64decode(signature, validate=True)


def _string_to_sign(pairs: Iterable[tuple[str, str]]) -> bytes:
    return "".join(f"{name}\n{value}\n" for name, value in pairs).encode()


def _signature_members(signature: Signature) -> list[tuple[str, str]]:
    return [
        ("SignatureVersion", signature.version),
        ("Signature", signature.signature),
        ("SigningCertURL", signature.signing_cert_url),
    ]


def _render(members: list[tuple[str, str]], attributes: Mapping[str, EnvelopeAttribute]) -> bytes:
    lines = [b'  "' + name.encode() + b'" : ' + orjson.dumps(value) for name, value in members]
    if attributes:
        entries = b",\n".join(
            b"    "
            + orjson.dumps(name)
            + b" : "
            + orjson.dumps({"Type": attribute.data_type, "Value": attribute.value})
            for name, attribute in attributes.items()
        )
        lines.append(b'  "MessageAttributes" : {\n' + entries + b"\n  }")
    return b"{\n" + b",\n".join(lines) + b"\n}"
