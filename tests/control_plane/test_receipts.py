from __future__ import annotations

import base64
import hashlib
import hmac
import struct

import pytest

from control_plane.errors import ReceiptHandleIsInvalid
from control_plane.receipts import Receipt, ReceiptSigner, new_signing_key


def test_a_signed_receipt_verifies_to_what_was_signed() -> None:
    signer = ReceiptSigner(new_signing_key())
    receipt = Receipt("0123abcd", partition=3, offset=2**40, delivery_seq=17)
    assert signer.verify(signer.sign(receipt)) == receipt


def _v1_handle(key: bytes, receipt: Receipt) -> str:
    """A handle as releases before version 2 issued it (receipts.py's layout): HMAC-SHA256
    under the signing key, truncated to 16 bytes, no pad."""
    sid = receipt.subscription_id.encode()
    body = bytes((1, len(sid))) + sid
    body += struct.pack(">IQQ", receipt.partition, receipt.offset, receipt.delivery_seq)
    mac = hmac.digest(key, body, "sha256")[:16]
    return base64.urlsafe_b64encode(body + mac).rstrip(b"=").decode()


@pytest.mark.parametrize("key_bytes", [16, 32, 64, 65, 200])
def test_the_mac_is_keyed_blake2b_under_a_derived_key(key_bytes: int) -> None:
    # The layout in receipts.py: handles made by any gateway of a cluster verify on
    # every other of the same release or later.
    key = bytes(range(256))[:key_bytes]
    handle = ReceiptSigner(key).sign(Receipt("0123abcd", 1, 2, 3))
    raw = base64.urlsafe_b64decode(handle + "=" * (-len(handle) % 4))
    assert raw[0] == 2
    assert len(raw) % 3 == 0
    derived = hmac.digest(key, b"tidemq receipt v2", "sha256")
    assert raw[-16:] == hashlib.blake2b(raw[:-16], key=derived, digest_size=16).digest()


@pytest.mark.parametrize("sid", ["s", "ab", "abc", "0123abcd", "q" * 36])
def test_a_version_1_handle_still_verifies(sid: str) -> None:
    # Receipts handed out before an upgrade delete what they name after it.
    key = new_signing_key()
    receipt = Receipt(sid, partition=2, offset=2**40, delivery_seq=99)
    assert ReceiptSigner(key).verify(_v1_handle(key, receipt)) == receipt


def test_a_version_1_handle_under_another_key_is_refused() -> None:
    handle = _v1_handle(new_signing_key(), Receipt("s", 0, 1, 1))
    with pytest.raises(ReceiptHandleIsInvalid):
        ReceiptSigner(new_signing_key()).verify(handle)


@pytest.mark.parametrize("sid", ["s", "ab", "abc", "0123abcd", "q" * 36])
def test_a_claims_handles_are_signed_one_by_one(sid: str) -> None:
    # Encoded in one call and cut apart: each must still verify alone, on a gateway that
    # did not issue it, and name its own receipt.
    key = new_signing_key()
    receipts = [Receipt(sid, p, 10 + p, 100 + p) for p in range(7)]
    handles = ReceiptSigner(key).sign_all(receipts)
    assert len(set(handles)) == len(receipts)
    other = ReceiptSigner(key)
    assert [other.verify(h) for h in handles] == receipts


def test_a_handle_with_a_nonzero_pad_is_refused() -> None:
    # A pad byte outside the MAC's reach would let one receipt have many handles.
    key = new_signing_key()
    handle = ReceiptSigner(key).sign(Receipt("ab", 0, 1, 1))  # 2 + 2 + 20 + 16: 2 pad bytes
    raw = bytearray(base64.urlsafe_b64decode(handle + "=" * (-len(handle) % 4)))
    raw[-17] = 1
    derived = hmac.digest(key, b"tidemq receipt v2", "sha256")
    raw[-16:] = hashlib.blake2b(bytes(raw[:-16]), key=derived, digest_size=16).digest()
    forged = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    with pytest.raises(ReceiptHandleIsInvalid):
        ReceiptSigner(key).verify(forged)


def test_handles_are_remembered_past_a_generation() -> None:
    signer = ReceiptSigner(new_signing_key())
    first = signer.sign(Receipt("s", 0, 0, 0))
    for offset in range(1, 30_000, 100):  # more than one generation's worth
        signer.sign_all([Receipt("s", 0, offset + k, 1) for k in range(100)])
    assert signer.verify(first) == Receipt("s", 0, 0, 0)  # by its MAC, once forgotten


def test_a_receipt_verifies_on_another_gateway_with_the_key() -> None:
    key = new_signing_key()
    receipt = Receipt("0123abcd", partition=0, offset=9, delivery_seq=4)
    handle = ReceiptSigner(key).sign(receipt)
    assert ReceiptSigner(key).verify(handle) == receipt  # checked by its MAC there


def test_a_receipt_signed_with_another_key_is_refused() -> None:
    handle = ReceiptSigner(new_signing_key()).sign(Receipt("s", 0, 1, 1))
    with pytest.raises(ReceiptHandleIsInvalid):
        ReceiptSigner(new_signing_key()).verify(handle)


# Not the last character: its low bits may be padding that decoding ignores.
@pytest.mark.parametrize("position", [0, 5, 10, 20, 30])
def test_a_tampered_receipt_is_refused(position: int) -> None:
    signer = ReceiptSigner(new_signing_key())
    handle = signer.sign(Receipt("abc", 0, 42, 7))
    flipped = "A" if handle[position] != "A" else "B"
    tampered = handle[:position] + flipped + handle[position + 1 :]
    with pytest.raises(ReceiptHandleIsInvalid):
        signer.verify(tampered)


@pytest.mark.parametrize("handle", ["", "not-base64!", "AAAA", "é" * 10, "x" * 5000])
def test_garbage_is_refused_with_the_sqs_error(handle: str) -> None:
    with pytest.raises(ReceiptHandleIsInvalid, match="is not a valid receipt handle"):
        ReceiptSigner(new_signing_key()).verify(handle)
