"""Receipt handles: opaque, HMAC-signed, and naming exactly one delivery.

A receipt carries the subscription, the message's partition and offset, and the delivery
sequence number the claim script gave that delivery. Deleting checks the sequence number
against the message's current delivery, so an old receipt used after a redelivery deletes
nothing. The signature stops a client from forging a receipt for a message it never got.

Layout before base64url (no padding):

    version   u8      1
    sid_len   u8      length of the subscription id
    sid       bytes   subscription id (ASCII)
    partition u32     big-endian
    offset    u64     big-endian
    seq       u64     big-endian, the delivery sequence number
    mac       16 B    HMAC-SHA256(key, everything above), truncated
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import struct
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from control_plane.errors import ReceiptHandleIsInvalid

_VERSION = 1
_TAIL = struct.Struct(">IQQ")  # partition, offset, delivery seq
_MAC_BYTES = 16
_BLOCK_BYTES = 64  # SHA-256's block size, which HMAC pads its key to
_MAX_ISSUED = 50_000  # about 10 MB of recent handles
_MAX_HANDLE_CHARS = 1024


# Not frozen, for the same reason as Delivery (one per message signed); nothing changes
# one once made, and the signer hands out the same object for a handle it remembers.
@dataclass(slots=True)
class Receipt:
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
        # HMAC-SHA256 with the key's inner and outer pads hashed once, here: each MAC
        # then costs two hash copies, under half of what `hmac.digest` spends keying
        # SHA-256 again for every receipt (two per message received and deleted).
        block = (key if len(key) <= _BLOCK_BYTES else hashlib.sha256(key).digest()).ljust(
            _BLOCK_BYTES, b"\0"
        )
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in block))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in block))
        # Handles this signer made, most recent last: one presented again (to delete or
        # change visibility, usually on the gateway that received it) is authentic by
        # construction, so its MAC need not be checked again.
        # An OrderedDict: evicting a plain dict's first entry again and again is slow (each
        # lookup of the first entry skips every slot deleted before it).
        self._issued: OrderedDict[str, Receipt] = OrderedDict()

    def _mac(self, body: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(body)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()[:_MAC_BYTES]

    def sign(self, receipt: Receipt) -> str:
        return self.signer_for(receipt.subscription_id)(
            receipt.partition, receipt.offset, receipt.delivery_seq
        )

    def signer_for(self, subscription_id: str) -> Callable[[int, int, int], str]:
        """sign(partition, offset, delivery seq) for receipts of one subscription: the
        header is encoded once for a whole claim."""
        sid = subscription_id.encode("ascii")
        head = bytes((_VERSION, len(sid))) + sid
        pack, mac, encode = _TAIL.pack, self._mac, base64.urlsafe_b64encode
        issued = self._issued

        def sign(partition: int, offset: int, delivery_seq: int) -> str:
            body = head + pack(partition, offset, delivery_seq)
            handle = encode(body + mac(body)).rstrip(b"=").decode("ascii")
            if len(issued) >= _MAX_ISSUED:
                issued.popitem(last=False)
            issued[handle] = Receipt(subscription_id, partition, offset, delivery_seq)
            return handle

        return sign

    def verify(self, handle: str) -> Receipt:
        """Returns the receipt a handle names; raises ReceiptHandleIsInvalid otherwise."""
        known = self._issued.get(handle)
        if known is not None:
            return known
        raw = self._decode(handle)
        body, mac = raw[:-_MAC_BYTES], raw[-_MAC_BYTES:]
        if not hmac.compare_digest(mac, self._mac(body)):
            raise invalid_receipt_error(handle)
        sid_len = body[1]
        if body[0] != _VERSION or len(body) != 2 + sid_len + _TAIL.size:
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
