"""Sealing secrets under the master key: AES-256-GCM, bound to its associated data."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from control_plane.errors import SecretUnreadable
from control_plane.secret_box import (
    ACCESS_KEY_SECRETS,
    SNS_SIGNING_KEYS,
    SecretBox,
    decode_master_key,
    encode_master_key,
    new_master_key,
)

BOX = SecretBox(bytes(range(32)))


@given(plaintext=st.binary(max_size=200), associated=st.binary(max_size=40))
def test_what_is_sealed_opens_to_itself(plaintext: bytes, associated: bytes) -> None:
    sealed = BOX.seal(plaintext, associated)
    assert BOX.open(sealed, associated) == plaintext


def test_sealing_twice_gives_different_bytes() -> None:
    assert BOX.seal(b"secret", b"id") != BOX.seal(b"secret", b"id")


@pytest.mark.parametrize(
    "alter",
    [
        lambda sealed: sealed[:-1] + bytes([sealed[-1] ^ 1]),  # the tag
        lambda sealed: sealed[:20] + bytes([sealed[20] ^ 1]) + sealed[21:],  # the ciphertext
        lambda sealed: bytes([2]) + sealed[1:],  # a version this one does not read
        lambda sealed: sealed[:10],  # cut short
    ],
)
def test_altered_values_do_not_open(alter: Callable[[bytes], bytes]) -> None:
    sealed = BOX.seal(b"a secret of some length", b"id")
    with pytest.raises(SecretUnreadable):
        BOX.open(alter(sealed), b"id")


def test_other_associated_data_or_master_key_do_not_open() -> None:
    sealed = BOX.seal(b"secret", b"KEY1")
    with pytest.raises(SecretUnreadable):
        BOX.open(sealed, b"KEY2")
    with pytest.raises(SecretUnreadable):
        SecretBox(new_master_key()).open(sealed, b"KEY1")


def test_master_keys_are_32_bytes_of_base64() -> None:
    key = new_master_key()
    assert decode_master_key(encode_master_key(key) + "\n") == key
    with pytest.raises(ValueError, match="32 bytes"):
        decode_master_key(base64.b64encode(b"short").decode())
    with pytest.raises(ValueError, match="base64"):
        decode_master_key("not base64 at all!")
    with pytest.raises(ValueError, match="32 bytes"):
        SecretBox(b"short")


def test_a_box_of_another_purpose_does_not_open_what_one_purpose_sealed() -> None:
    sealed = BOX.seal(b"secret", b"id")
    with pytest.raises(SecretUnreadable):
        SecretBox(bytes(range(32)), SNS_SIGNING_KEYS).open(sealed, b"id")
    assert SecretBox(bytes(range(32)), ACCESS_KEY_SECRETS).open(sealed, b"id") == b"secret"
