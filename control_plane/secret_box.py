"""Encryption of secrets kept in Redis, under a master key that Redis never sees.

Access-key secrets cannot be hashed: verifying an AWS Signature V4 needs the secret
itself (the signing key chain starts from "AWS4" + secret), so they are stored encrypted
and decrypted when a request is verified (docs/auth.md). The private key that SNS
messages are signed with is sealed the same way (control_plane/signing_keys.py).

The master key (32 random bytes) lives outside Redis: `TIDEMQ_MASTER_KEY`, or the
embedded launcher's `<data dir>/master.key`. A Redis dump or replica alone reveals no
secret. The key that encrypts is derived from the master key with HKDF-SHA256 under a
purpose label (`ACCESS_KEY_SECRETS`, `SNS_SIGNING_KEYS`), so one master key protects
several things without two uses ever sharing a key.

A sealed value, as stored:

    version   1 B     1
    nonce     12 B    random, never reused under one key (2^96 space, random choice)
    sealed    n+16 B  AES-256-GCM ciphertext of the secret, then the 16-byte tag

The associated data (for access keys, the key id) is authenticated but not stored: a
sealed secret copied to another key id fails to open, so one key's secret cannot be
moved under another id by whoever can write to Redis.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from control_plane.errors import SecretUnreadable

MASTER_KEY_BYTES = 32
_VERSION = 1
_NONCE_BYTES = 12
_TAG_BYTES = 16
# The HKDF label of each use of the master key: two uses never share a derived key.
ACCESS_KEY_SECRETS = b"tidemq access-key secrets v1"
SNS_SIGNING_KEYS = b"tidemq sns signing keys v1"


def new_master_key() -> bytes:
    return secrets.token_bytes(MASTER_KEY_BYTES)


def encode_master_key(master_key: bytes) -> str:
    return base64.b64encode(master_key).decode()


def decode_master_key(text: str) -> bytes:
    """The master key from its base64 text; ValueError unless it is 32 bytes."""
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except binascii.Error as exc:
        raise ValueError("the master key is not valid base64") from exc
    if len(key) != MASTER_KEY_BYTES:
        raise ValueError(f"the master key must be {MASTER_KEY_BYTES} bytes, not {len(key)}")
    return key


def fingerprint(secret: str) -> str:
    """SHA-256 of the secret in hex: shown to tell keys apart, never used to verify.

    Anyone holding the secret can check it: `printf %s "$SECRET" | sha256sum`.
    """
    return hashlib.sha256(secret.encode()).hexdigest()


class SecretBox:
    """Seals and opens secrets with AES-256-GCM under a key derived from the master key
    for one purpose (access-key secrets unless told otherwise).

    Thread-safe (it holds no state besides the derived key).
    """

    def __init__(self, master_key: bytes, purpose: bytes = ACCESS_KEY_SECRETS) -> None:
        if len(master_key) != MASTER_KEY_BYTES:
            raise ValueError(f"the master key must be {MASTER_KEY_BYTES} bytes")
        derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(
            master_key
        )
        self._aead = AESGCM(derived)

    def seal(self, plaintext: bytes, associated_data: bytes) -> bytes:
        nonce = secrets.token_bytes(_NONCE_BYTES)
        return bytes([_VERSION]) + nonce + self._aead.encrypt(nonce, plaintext, associated_data)

    def open(self, sealed: bytes, associated_data: bytes) -> bytes:
        """The plaintext; SecretUnreadable if the value was sealed under another master
        key, for other associated data, or altered."""
        if len(sealed) < 1 + _NONCE_BYTES + _TAG_BYTES or sealed[0] != _VERSION:
            raise SecretUnreadable("the stored secret is not in a format this version reads")
        nonce, body = sealed[1 : 1 + _NONCE_BYTES], sealed[1 + _NONCE_BYTES :]
        try:
            return self._aead.decrypt(nonce, body, associated_data)
        except InvalidTag as exc:
            raise SecretUnreadable(
                "the stored secret cannot be decrypted with this master key"
            ) from exc
