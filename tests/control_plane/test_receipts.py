from __future__ import annotations

import base64
import hmac

import pytest

from control_plane.errors import ReceiptHandleIsInvalid
from control_plane.receipts import Receipt, ReceiptSigner, new_signing_key


def test_a_signed_receipt_verifies_to_what_was_signed() -> None:
    signer = ReceiptSigner(new_signing_key())
    receipt = Receipt("0123abcd", partition=3, offset=2**40, delivery_seq=17)
    assert signer.verify(signer.sign(receipt)) == receipt


@pytest.mark.parametrize("key_bytes", [16, 32, 64, 65, 200])
def test_the_mac_is_hmac_sha256_truncated(key_bytes: int) -> None:
    # The layout in receipts.py: handles made by any gateway of a cluster, of any
    # version, verify on every other.
    key = bytes(range(256))[:key_bytes]
    handle = ReceiptSigner(key).sign(Receipt("0123abcd", 1, 2, 3))
    raw = base64.urlsafe_b64decode(handle + "=" * (-len(handle) % 4))
    assert raw[-16:] == hmac.digest(key, raw[:-16], "sha256")[:16]


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
