"""Message ids (and request ids): random (version 4) UUIDs, as SQS's are, made a batch at
a time.

`uuid.uuid4()` costs a system call and a UUID object per message, which showed in the
batched-publish profile; one `os.urandom` call for the whole batch and string formatting
give the same RFC 4122 ids (122 random bits, version 4, variant 10).
"""

from __future__ import annotations

import os

_VARIANT = "89ab"  # the first hex digit of the fourth group: variant 10xx


def new_message_ids(count: int) -> list[str]:
    raw = os.urandom(16 * count)
    ids = []
    for i in range(0, 16 * count, 16):
        h = raw[i : i + 16].hex()
        variant = _VARIANT[raw[i + 8] & 3]
        ids.append(f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{variant}{h[17:20]}-{h[20:32]}")
    return ids
