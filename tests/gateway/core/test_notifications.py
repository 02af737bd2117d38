"""SNS's envelopes: SNS's members in SNS's order, and signatures that a receiver following
SNS's documentation verifies with the certificate it fetches from the SigningCertURL."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from starlette.applications import Starlette
from starlette.routing import Route

from control_plane.signing_keys import SigningKey, generate
from gateway.core.notifications import (
    Confirmation,
    EnvelopeAttribute,
    Notification,
    Signature,
    iso_timestamp,
    sign,
    signing_cert_url,
    subscribe_url,
    subscription_confirmation,
    unsubscribe_confirmation,
    unsubscribe_url,
    verify,
)
from gateway.sns.certificate import ROUTE_PATH, signing_certificate
from tests.served_apps import serve

TOPIC_ARN = "arn:aws:sns:us-east-1:123456789012:MyTopic"
SUBSCRIPTION_ARN = f"{TOPIC_ARN}:c9135db0-26c4-47ec-8998-413945fb5a96"
BASE_URL = "http://127.0.0.1:9324"


@pytest.fixture(scope="module")
def key() -> SigningKey:
    return generate()


@pytest.fixture(scope="module")
def gateway_url(key: SigningKey) -> Iterator[str]:
    """A real HTTP server that serves the certificate as the gateway will."""
    app = Starlette(routes=[Route(ROUTE_PATH, signing_certificate)])
    app.state.signing_key = key
    with serve(app) as url:
        yield url


def a_notification(**changes: Any) -> Notification:
    fields: dict[str, Any] = {
        "message_id": "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
        "topic_arn": TOPIC_ARN,
        "message": "Hello world!",
        "timestamp": "2012-05-02T00:54:06.655Z",
        "subject": "My First Message",
        "attributes": {
            "tone": EnvelopeAttribute("String.Array", '["cheerful","serious"]'),
            "n": EnvelopeAttribute("Number", "5"),
        },
    }
    return Notification(**(fields | changes))


def a_confirmation() -> Confirmation:
    return subscription_confirmation(
        message_id="165545c9-2a5c-472c-8df2-7ff2be2b3b1b",
        token="2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92",
        topic_arn=TOPIC_ARN,
        timestamp="2012-04-26T20:45:04.751Z",
        base_url=BASE_URL,
    )


def receiver_verifies(body: bytes, certificate_pem: bytes) -> bool:
    """A receiver's check, written from SNS's documentation alone."""
    message = json.loads(body)
    if message["Type"] == "Notification":
        names = ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
    else:
        names = ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"]
    string_to_sign = "".join(f"{n}\n{message[n]}\n" for n in names if n in message)
    algorithm = hashes.SHA1() if message["SignatureVersion"] == "1" else hashes.SHA256()
    public_key = x509.load_pem_x509_certificate(certificate_pem).public_key()
    assert isinstance(public_key, rsa.RSAPublicKey)
    try:
        public_key.verify(
            base64.b64decode(message["Signature"]),
            string_to_sign.encode(),
            padding.PKCS1v15(),
            algorithm,
        )
    except InvalidSignature:
        return False
    return True


async def fetch(url: str) -> tuple[int, bytes]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.read()


def test_a_notification_has_snss_members_in_snss_order_and_layout() -> None:
    signature = Signature("1", "EXAMPLE==", signing_cert_url(BASE_URL, "abc"))
    body = a_notification().envelope(unsubscribe_url(BASE_URL, SUBSCRIPTION_ARN), signature)
    assert body.decode() == (
        "{\n"
        '  "Type" : "Notification",\n'
        '  "MessageId" : "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",\n'
        '  "TopicArn" : "arn:aws:sns:us-east-1:123456789012:MyTopic",\n'
        '  "Subject" : "My First Message",\n'
        '  "Message" : "Hello world!",\n'
        '  "Timestamp" : "2012-05-02T00:54:06.655Z",\n'
        '  "SignatureVersion" : "1",\n'
        '  "Signature" : "EXAMPLE==",\n'
        '  "SigningCertURL" : "http://127.0.0.1:9324/SimpleNotificationService-abc.pem",\n'
        '  "UnsubscribeURL" : "http://127.0.0.1:9324/?Action=Unsubscribe&SubscriptionArn='
        'arn:aws:sns:us-east-1:123456789012:MyTopic:c9135db0-26c4-47ec-8998-413945fb5a96",\n'
        '  "MessageAttributes" : {\n'
        '    "tone" : {"Type":"String.Array","Value":"[\\"cheerful\\",\\"serious\\"]"},\n'
        '    "n" : {"Type":"Number","Value":"5"}\n'
        "  }\n"
        "}"
    )


def test_subject_and_attributes_are_left_out_when_the_message_has_none() -> None:
    signature = Signature("2", "EXAMPLE==", signing_cert_url(BASE_URL, "abc"))
    body = a_notification(subject=None, attributes={}).envelope("u", signature)
    assert list(json.loads(body)) == [
        "Type",
        "MessageId",
        "TopicArn",
        "Message",
        "Timestamp",
        "SignatureVersion",
        "Signature",
        "SigningCertURL",
        "UnsubscribeURL",
    ]


def test_a_fifo_topics_notification_has_its_sequence_number_and_no_signature() -> None:
    notification = a_notification(sequence_number="10000000000000003000", attributes={})
    body = notification.envelope("u", None)
    assert list(json.loads(body)) == [
        "Type",
        "MessageId",
        "SequenceNumber",
        "TopicArn",
        "Subject",
        "Message",
        "Timestamp",
        "UnsubscribeURL",
    ]
    assert json.loads(body)["SequenceNumber"] == "10000000000000003000"


def test_confirmations_have_snss_members_words_and_links(key: SigningKey) -> None:
    confirmation = a_confirmation()
    body = json.loads(confirmation.envelope(sign(confirmation.string_to_sign(), key, "1", "b")))
    assert list(body) == [
        "Type",
        "MessageId",
        "Token",
        "TopicArn",
        "Message",
        "SubscribeURL",
        "Timestamp",
        "SignatureVersion",
        "Signature",
        "SigningCertURL",
    ]
    assert body["Type"] == "SubscriptionConfirmation"
    assert body["Message"] == (
        "You have chosen to subscribe to the topic arn:aws:sns:us-east-1:123456789012:MyTopic."
        "\nTo confirm the subscription, visit the SubscribeURL included in this message."
    )
    assert body["SubscribeURL"] == (
        "http://127.0.0.1:9324/?Action=ConfirmSubscription"
        "&TopicArn=arn:aws:sns:us-east-1:123456789012:MyTopic"
        "&Token=2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92"
    )

    goodbye = unsubscribe_confirmation(
        message_id="47138184-6831-46b8-8f7c-afc488602d7d",
        token="ab12",
        topic_arn=TOPIC_ARN,
        subscription_arn=SUBSCRIPTION_ARN,
        timestamp="2012-04-26T20:06:41.581Z",
        base_url=BASE_URL + "/",
    )
    assert goodbye.type == "UnsubscribeConfirmation"
    assert goodbye.message == (
        f"You have chosen to deactivate subscription {SUBSCRIPTION_ARN}.\nTo cancel this "
        "operation and restore the subscription, visit the SubscribeURL included in this message."
    )
    assert goodbye.subscribe_url == (
        f"{BASE_URL}/?Action=ConfirmSubscription&TopicArn={TOPIC_ARN}&Token=ab12"
    )


def test_links_escape_everything_but_the_arns_colons() -> None:
    assert subscribe_url(BASE_URL, TOPIC_ARN, "a+b/c=") == (
        f"{BASE_URL}/?Action=ConfirmSubscription&TopicArn={TOPIC_ARN}&Token=a%2Bb%2Fc%3D"
    )
    assert unsubscribe_url(BASE_URL, "arn:aws:sns:r:1:t x") == (
        f"{BASE_URL}/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:r:1:t%20x"
    )


def test_the_strings_to_sign_are_snss_documented_examples() -> None:
    notification = Notification(
        message_id="4d4dc071-ddbf-465d-bba8-08f81c89da64",
        topic_arn="arn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P",
        message="My Test Message",
        timestamp="2019-01-31T04:37:04.321Z",
        subject="My subject",
    )
    assert notification.string_to_sign() == (
        b"Message\nMy Test Message\n"
        b"MessageId\n4d4dc071-ddbf-465d-bba8-08f81c89da64\n"
        b"Subject\nMy subject\n"
        b"Timestamp\n2019-01-31T04:37:04.321Z\n"
        b"TopicArn\narn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P\n"
        b"Type\nNotification\n"
    )
    confirmation = Confirmation(
        type="SubscriptionConfirmation",
        message_id="3d891288-136d-417f-bc05-901c108273ee",
        token="233",
        topic_arn="arn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P",
        message="My Test Message",
        subscribe_url="https://sns.us-east-2.amazonaws.com/?Action=ConfirmSubscription",
        timestamp="2019-01-31T19:25:13.719Z",
    )
    assert confirmation.string_to_sign() == (
        b"Message\nMy Test Message\n"
        b"MessageId\n3d891288-136d-417f-bc05-901c108273ee\n"
        b"SubscribeURL\nhttps://sns.us-east-2.amazonaws.com/?Action=ConfirmSubscription\n"
        b"Timestamp\n2019-01-31T19:25:13.719Z\n"
        b"Token\n233\n"
        b"TopicArn\narn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P\n"
        b"Type\nSubscriptionConfirmation\n"
    )
    assert b"Subject" not in a_notification(subject=None).string_to_sign()


@pytest.mark.parametrize("version", ["1", "2"])
async def test_signed_envelopes_verify_with_the_certificate_served_at_their_url(
    key: SigningKey, gateway_url: str, version: str
) -> None:
    # Control characters and non-ASCII text: the JSON escapes them, the signature covers
    # the text itself.
    notification = a_notification(message='Line one\nline "two"\ttabbed — ünïcode ✓')
    signature = sign(notification.string_to_sign(), key, version, gateway_url)
    confirmation = a_confirmation()
    envelopes = [
        notification.envelope(unsubscribe_url(gateway_url, SUBSCRIPTION_ARN), signature),
        confirmation.envelope(sign(confirmation.string_to_sign(), key, version, gateway_url)),
    ]
    for body in envelopes:
        cert_url = json.loads(body)["SigningCertURL"]
        assert cert_url == f"{gateway_url}/SimpleNotificationService-{key.key_id}.pem"
        status, certificate_pem = await fetch(cert_url)
        assert status == 200
        assert json.loads(body)["SignatureVersion"] == version
        assert receiver_verifies(body, certificate_pem)
        assert verify(body, certificate_pem)


@pytest.mark.parametrize("version", ["1", "2"])
@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("Message", "Hello world?"),
        ("MessageId", "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf325"),
        ("Subject", "My Second Message"),
        ("Timestamp", "2012-05-02T00:54:06.656Z"),
        ("TopicArn", "arn:aws:sns:us-east-1:123456789012:OtherTopic"),
        ("Type", "SubscriptionConfirmation"),
    ],
)
def test_changing_a_signed_member_fails_verification(
    key: SigningKey, version: str, member: str, value: str
) -> None:
    notification = a_notification()
    signature = sign(notification.string_to_sign(), key, version, BASE_URL)
    message = json.loads(notification.envelope("u", signature))
    assert verify(message, key.certificate_pem)
    tampered = message | {member: value}
    assert not verify(tampered, key.certificate_pem)
    assert not verify(json.dumps(tampered), key.certificate_pem)
    assert not receiver_verifies(json.dumps(tampered).encode(), key.certificate_pem)


def test_removing_the_subject_or_changing_the_version_fails_verification(
    key: SigningKey,
) -> None:
    notification = a_notification()
    message = json.loads(
        notification.envelope("u", sign(notification.string_to_sign(), key, "1", BASE_URL))
    )
    assert not verify({k: v for k, v in message.items() if k != "Subject"}, key.certificate_pem)
    assert not verify(message | {"SignatureVersion": "2"}, key.certificate_pem)
    # Unsigned members may change (as with SNS): the UnsubscribeURL names the receiver's
    # own subscription, which the signature leaves out so that it serves them all.
    assert verify(message | {"UnsubscribeURL": "http://elsewhere/"}, key.certificate_pem)


def test_another_certificate_does_not_verify(key: SigningKey) -> None:
    confirmation = a_confirmation()
    body = confirmation.envelope(sign(confirmation.string_to_sign(), key, "2", BASE_URL))
    assert verify(body, key.certificate_pem)
    assert not verify(body, generate().certificate_pem)


@pytest.mark.parametrize(
    "envelope",
    [
        b"not json",
        b"[1, 2]",
        b"{}",
        b'{"Type": "Notification", "SignatureVersion": "3"}',
        b'{"Type": "Notification", "SignatureVersion": "1", "Message": "x"}',
    ],
)
def test_verify_is_false_for_what_is_no_signed_envelope(key: SigningKey, envelope: bytes) -> None:
    assert not verify(envelope, key.certificate_pem)


def test_verify_is_false_for_an_unsigned_or_badly_encoded_signature(key: SigningKey) -> None:
    notification = a_notification()
    assert not verify(notification.envelope("u", None), key.certificate_pem)
    good = json.loads(
        notification.envelope("u", sign(notification.string_to_sign(), key, "2", BASE_URL))
    )
    assert not verify(good | {"Signature": "%%% not base64 %%%"}, key.certificate_pem)
    assert not verify(good | {"Message": 5}, key.certificate_pem)


def test_an_unknown_signature_version_is_refused_when_signing(key: SigningKey) -> None:
    with pytest.raises(ValueError, match="SignatureVersion"):
        sign(b"x", key, "3", BASE_URL)


@pytest.mark.parametrize(
    ("timestamp_ms", "text"),
    [
        (1335920046655, "2012-05-02T00:54:06.655Z"),
        (1335920046005, "2012-05-02T00:54:06.005Z"),
        (0, "1970-01-01T00:00:00.000Z"),
    ],
)
def test_timestamps_are_iso_8601_with_milliseconds_in_utc(timestamp_ms: int, text: str) -> None:
    assert iso_timestamp(timestamp_ms) == text
