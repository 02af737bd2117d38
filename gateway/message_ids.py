"""Message ids: random (version 4) UUIDs, as SQS's are, made a batch at a time; and
request ids of the same form.

`uuid.uuid4()` costs a system call and a UUID object per message, which showed in the
batched-publish profile. The bits come from the process's pseudo-random generator (seeded
from the OS at start-up and again in a forked child), a batch at a time, and string
formatting gives the same RFC 4122 ids (122 random bits, version 4, variant 10). Ids must
be unique, not secret: nothing is authorised by knowing one. No system call either: one
(`os.urandom`, releasing the GIL) made each send wait for the log's I/O thread to hand
the GIL back, 4 % of the loop under single-message publishes.
"""

from __future__ import annotations

import random

_VARIANT = "89ab"  # the first hex digit of the fourth group: variant 10xx


def new_message_ids(count: int) -> list[str]:
    raw = random.randbytes(16 * count)
    ids = []
    for i in range(0, 16 * count, 16):
        h = raw[i : i + 16].hex()
        variant = _VARIANT[raw[i + 8] & 3]
        ids.append(f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{variant}{h[17:20]}-{h[20:32]}")
    return ids


def new_request_id() -> str:
    """A version-4 UUID for a request's id header, from the process's pseudo-random
    generator: unique enough to trace a request by, and no system call, which (releasing
    the GIL) would make the event loop wait for a busy worker thread to hand it back."""
    n = random.getrandbits(128)
    n = (n & ~(0xF000 << 64)) | (4 << 76)  # version 4
    n = (n & ~(0xC000 << 48)) | (0x8000 << 48)  # variant 10
    h = f"{n:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
