"""Which live node should own a partition: rendezvous (highest-random-weight) hashing.

Every (stream, partition, node) triple gets a pseudo-random weight from a stable hash,
and the partition goes to the live node with the highest weight. Every gateway and node
computes the same answer from the same list of live nodes, with no coordination and no
stored table, and the answer moves as little as possible when the list changes:

- removing a node moves only the partitions it owned (each to its runner-up);
- adding a node moves to it only the partitions it now outweighs, about 1/n of them.

Assignment is advice, not authority: a node acts on a partition only once it holds the
partition's lease (control_plane.leases). While membership changes propagate, two nodes
may both think a partition is theirs; the lease lets exactly one of them write.

The weight is BLAKE2b with an 8-byte digest, not Python's `hash()`, which is salted per
process and would give each process a different answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from hashlib import blake2b


def weight(stream_id: str, partition: int, node_id: str) -> int:
    """The node's 64-bit weight for the partition; the same in every process and release."""
    # NUL separators keep ("a", 1, "2b") and ("a", 12, "b") apart.
    material = f"{stream_id}\x00{partition}\x00{node_id}".encode()
    return int.from_bytes(blake2b(material, digest_size=8).digest(), "big")


def assign(stream_id: str, partition: int, live_node_ids: Iterable[str]) -> str:
    """The node that should own the partition: the one of highest weight.

    Depends only on the set of ids (not their order or repetition). Ties, which need a
    64-bit collision, go to the greater node id so the answer stays deterministic.
    Raises ValueError if there is no live node.
    """
    best: tuple[int, str] | None = None
    for node_id in live_node_ids:
        candidate = (weight(stream_id, partition, node_id), node_id)
        if best is None or candidate > best:
            best = candidate
    if best is None:
        raise ValueError("no live node to assign the partition to")
    return best[1]
