"""The key SNS messages are signed with: one RSA key and its self-signed X.509 certificate
for the whole deployment, shared by every gateway.

SNS signs each HTTP/S notification and confirmation (and each envelope it copies into a
queue), and receivers verify the signature with the certificate served at the message's
`SigningCertURL` (gateway/core/notifications.py, gateway/sns/certificate.py). Every
gateway must sign with the same key, or a receiver that cached one certificate would
reject the messages of another gateway.

Stored once under `tq:sns-signing-key` (control_plane/redis_keys.py) as JSON:

    v             1
    certificate   the certificate, PEM
    private_key   base64 of the private key (PKCS#8 DER) sealed under the master key
                  (control_plane/secret_box.py, purpose SNS_SIGNING_KEYS), with the key
                  id as associated data: a sealed key moved beside another certificate
                  does not open

The first gateway to start makes the key and writes it with SET NX; one that loses that
race reads the winner's, so every gateway ends up with the same key:

    gateway A: GET -> none; makes key A   gateway B: GET -> none; makes key B
    gateway A: SET NX key A -> written    gateway B: SET NX key B -> refused
    gateway A: signs with A               gateway B: GET -> key A; signs with A

The key id is derived from the certificate (the first 32 hex digits of the SHA-256 of
its DER bytes, as long as SNS's own ids), so it names one certificate and stays the
same across restarts. To replace the key, delete `tq:sns-signing-key` and restart the
gateways: the next one to start makes a new key, under a new certificate URL.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import datetime
import hashlib
from dataclasses import dataclass, field

import orjson
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from control_plane.errors import SecretUnreadable, redis_boundary
from control_plane.redis_client import RedisClient
from control_plane.redis_keys import SNS_SIGNING_KEY
from control_plane.redis_values import as_bytes
from control_plane.secret_box import SNS_SIGNING_KEYS, SecretBox

__all__ = ["SigningKey", "generate", "load_or_create"]

RSA_KEY_BITS = 2048
CERTIFICATE_VALID_DAYS = 3650  # ten years
# A day of slack before "now", so a receiver whose clock runs behind still finds the
# certificate valid.
_VALID_BEFORE_NOW = datetime.timedelta(days=1)
COMMON_NAME = "sns.tidemq.local"
_KEY_ID_HEX_DIGITS = 32
_FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class SigningKey:
    """The private key, its certificate (PEM), and the certificate's id in its URL."""

    private_key: rsa.RSAPrivateKey = field(repr=False)
    certificate_pem: bytes
    key_id: str


def generate(now: datetime.datetime | None = None) -> SigningKey:
    """A new RSA key and a self-signed certificate valid for ten years from `now`."""
    now = now or datetime.datetime.now(datetime.UTC)
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=RSA_KEY_BITS)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, COMMON_NAME),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "TideMQ"),
        ]
    )
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - _VALID_BEFORE_NOW)
        .not_valid_after(now + datetime.timedelta(days=CERTIFICATE_VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(private_key.public_key()), critical=False
        )
        .sign(private_key, hashes.SHA256())
    )
    return _signing_key(private_key, certificate)


async def load_or_create(redis: RedisClient, master_key: bytes) -> SigningKey:
    """The deployment's signing key: the stored one, else a new one stored now (or, if
    another gateway stored one meanwhile, that one).

    SecretUnreadable if the stored key was sealed under another master key or is
    damaged; ControlPlaneUnavailable if Redis cannot be reached.
    """
    box = SecretBox(master_key, SNS_SIGNING_KEYS)
    with redis_boundary():
        stored = await redis.get(SNS_SIGNING_KEY)
    if stored is None:
        # Making an RSA key takes tens of milliseconds of CPU: not on the event loop.
        made = await asyncio.to_thread(generate)
        with redis_boundary():
            written = await redis.set(SNS_SIGNING_KEY, _stored(made, box), nx=True)
            if written:
                return made
            stored = await redis.get(SNS_SIGNING_KEY)
        if stored is None:  # written by another gateway, then deleted at once by hand
            raise SecretUnreadable("the SNS signing key vanished while it was being made")
    return _loaded(as_bytes(stored), box)


def _signing_key(private_key: rsa.RSAPrivateKey, certificate: x509.Certificate) -> SigningKey:
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    return SigningKey(private_key, pem, _key_id(certificate))


def _key_id(certificate: x509.Certificate) -> str:
    der = certificate.public_bytes(serialization.Encoding.DER)
    return hashlib.sha256(der).hexdigest()[:_KEY_ID_HEX_DIGITS]


def _stored(key: SigningKey, box: SecretBox) -> bytes:
    private_der = key.private_key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    sealed = box.seal(private_der, key.key_id.encode())
    return orjson.dumps(
        {
            "v": _FORMAT_VERSION,
            "certificate": key.certificate_pem.decode(),
            "private_key": base64.b64encode(sealed).decode(),
        }
    )


def _loaded(stored: bytes, box: SecretBox) -> SigningKey:
    try:
        document = orjson.loads(stored)
        if document["v"] != _FORMAT_VERSION:
            raise ValueError(f"format version {document['v']}")
        certificate = x509.load_pem_x509_certificate(document["certificate"].encode())
        sealed = base64.b64decode(document["private_key"], validate=True)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise SecretUnreadable(f"the stored SNS signing key is damaged ({exc})") from exc
    private_der = box.open(sealed, _key_id(certificate).encode())
    private_key = serialization.load_der_private_key(private_der, password=None)
    if not isinstance(private_key, rsa.RSAPrivateKey):
        raise SecretUnreadable("the stored SNS signing key is not an RSA key")
    return _signing_key(private_key, certificate)
