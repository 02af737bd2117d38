"""Receipt handles: opaque, signed, and naming exactly one delivery.

A receipt carries the subscription, the message's partition and offset, and the delivery
sequence number the claim script gave that delivery. Deleting checks the sequence number
against the message's current delivery, so an old receipt used after a redelivery deletes
nothing. The MAC stops a client from forging a receipt for a message it never got, or
changing one it got.

Layout before base64url (no padding), version 2 (issued since round two of speed work):

    version   u8      2
    sid_len   u8      length of the subscription id
    sid       bytes   subscription id (ASCII)
    partition u32     big-endian
    offset    u64     big-endian
    seq       u64     big-endian, the delivery sequence number
    pad       0-2 B   zeros, so that the whole handle is a multiple of 3 bytes long
    mac       16 B    keyed BLAKE2b-128 of everything above, under a key derived from
                      the signing key (HMAC-SHA256(signing key, "tidemq receipt v2"))

The pad makes every handle of a claim the same whole number of base64 quanta, so a
claim's handles are encoded in one call and cut apart; keyed BLAKE2b is a MAC on its own
(no HMAC construction) and costs half of HMAC-SHA256 from a pre-keyed state.

Version 1 (issued before) is the same without the pad, with version 1 and an
HMAC-SHA256 truncated to 16 bytes under the signing key itself. It is still accepted, so
receipts handed out before an upgrade delete what they name after it. A version 2 handle
presented to a gateway of an older release is refused as invalid (that release knows
only version 1): during a rolling upgrade such a delete fails, and the message comes
back after its visibility timeout, as after any failed delete (at least once).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import struct
from collections.abc import Sequence

import msgspec

from control_plane.errors import ReceiptHandleIsInvalid

_VERSION_1 = 1
_VERSION = 2
_TAIL = struct.Struct(">IQQ")  # partition, offset, delivery seq
_MAC_BYTES = 16
_BLOCK_BYTES = 64  # SHA-256's block size, which HMAC pads its key to
_V2_KEY_LABEL = b"tidemq receipt v2"
# Handles this signer made are remembered in two generations of at most this many each
# (about 10 MB in all): one presented again is authentic by construction.
_MAX_ISSUED_PER_GENERATION = 25_000
_MAX_HANDLE_CHARS = 1024
# Standard base64's two extra characters as base64url writes them.
_URLSAFE = bytes.maketrans(b"+/", b"-_")


# A msgspec Struct that the cyclic garbage collector does not track (`gc=False`: it
# holds only strings and numbers, so it can be in no reference cycle). The signer keeps
# every handle it issued, up to 50 000 (a Delivery, which extends this), and as tracked
# objects they were what the collector's young generations kept finding alive: 3 000
# young collections in a four-workload bench, 7 % of the server's CPU. Not frozen, for
# the same reason as Delivery (one per message signed); nothing changes one once made.
class Receipt(msgspec.Struct, gc=False):
    subscription_id: str
    partition: int
    offset: int
    delivery_seq: int

    @property
    def member(self) -> str:
        """The message's member name in the subscription's timers and deliveries."""
        return f"{self.partition}:{self.offset}"


def new_signing_key() -> bytes:
    return secrets.token_bytes(32)


class ReceiptSigner:
    """Signs and verifies receipt handles with one secret key shared by all gateways."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("a receipt signing key needs at least 16 bytes")
        # Version 1: HMAC-SHA256 with the key's inner and outer pads hashed once, here.
        block = (key if len(key) <= _BLOCK_BYTES else hashlib.sha256(key).digest()).ljust(
            _BLOCK_BYTES, b"\0"
        )
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in block))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in block))
        # Version 2: a keyed BLAKE2b state, copied for each MAC.
        v2_key = hmac.digest(key, _V2_KEY_LABEL, "sha256")
        self._keyed = hashlib.blake2b(key=v2_key, digest_size=_MAC_BYTES)
        # Handles this signer made: a plain dict filled until it is full, then kept as
        # the previous generation while a new one fills (no per-handle eviction).
        self._issued: dict[str, Receipt] = {}
        self._previous: dict[str, Receipt] = {}

    def _mac_v1(self, body: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(body)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()[:_MAC_BYTES]

    def _mac(self, body: bytes) -> bytes:
        keyed = self._keyed.copy()
        keyed.update(body)
        return keyed.digest()

    def sign(self, receipt: Receipt) -> str:
        return self.sign_all([receipt])[0]

    def sign_all(self, receipts: Sequence[Receipt]) -> list[str]:
        """The handles of receipts of one subscription (a claim's), in order."""
        if not receipts:
            return []
        sid = receipts[0].subscription_id.encode("ascii")
        head = bytes((_VERSION, len(sid))) + sid
        pad = b"\0" * (-(len(head) + _TAIL.size + _MAC_BYTES) % 3)
        pack, keyed = _TAIL.pack, self._keyed
        parts: list[bytes] = []
        for receipt in receipts:
            body = head + pack(receipt.partition, receipt.offset, receipt.delivery_seq) + pad
            mac = keyed.copy()
            mac.update(body)
            parts += (body, mac.digest())
        text = binascii.b2a_base64(b"".join(parts), newline=False).translate(_URLSAFE)
        chars = (len(head) + _TAIL.size + len(pad) + _MAC_BYTES) // 3 * 4
        joined = text.decode("ascii")
        handles = [joined[i : i + chars] for i in range(0, len(joined), chars)]
        issued = self._issued
        issued.update(zip(handles, receipts, strict=True))
        if len(issued) >= _MAX_ISSUED_PER_GENERATION:
            self._previous, self._issued = issued, {}
        return handles

    def verify(self, handle: str) -> Receipt:
        """Returns the receipt a handle names; raises ReceiptHandleIsInvalid otherwise."""
        known = self._issued.get(handle) or self._previous.get(handle)
        if known is not None:
            return known
        raw = self._decode(handle)
        body, mac = raw[:-_MAC_BYTES], raw[-_MAC_BYTES:]
        version, sid_len = body[0], body[1]
        if version == _VERSION:
            expected = self._mac(body)
            end = 2 + sid_len + _TAIL.size
            layout_ok = len(body) == end + (-(end + _MAC_BYTES) % 3) and not any(body[end:])
        elif version == _VERSION_1:
            expected = self._mac_v1(body)
            layout_ok = len(body) == 2 + sid_len + _TAIL.size
        else:
            raise invalid_receipt_error(handle)
        if not hmac.compare_digest(mac, expected) or not layout_ok:
            raise invalid_receipt_error(handle)
        partition, offset, seq = _TAIL.unpack_from(body, 2 + sid_len)
        sid = body[2 : 2 + sid_len].decode("ascii", errors="replace")
        return Receipt(sid, partition, offset, seq)

    @staticmethod
    def _decode(handle: str) -> bytes:
        if not handle or len(handle) > _MAX_HANDLE_CHARS or not handle.isascii():
            raise invalid_receipt_error(handle)
        try:
            raw = base64.urlsafe_b64decode(handle + "=" * (-len(handle) % 4))
        except (binascii.Error, ValueError) as exc:
            raise invalid_receipt_error(handle) from exc
        if len(raw) < 2 + _TAIL.size + _MAC_BYTES:
            raise invalid_receipt_error(handle)
        return raw


def invalid_receipt_error(handle: str) -> ReceiptHandleIsInvalid:
    """The one error, in SQS's words, for any receipt handle we cannot honour. The handle
    is quoted whole, as SQS does: no longer than the request that carried it."""
    return ReceiptHandleIsInvalid(
        f'The input receipt handle "{handle}" is not a valid receipt handle.'
    )
