"""Tail copies in the archive's object store (replication mode `object`): one object per
round of the copier, `<stream>/<partition>/copies/<epoch>/<first>-<end>.copy`
(layout.py), holding the round's record batches (batches.py). Blocking, as the store is.
"""

from __future__ import annotations

from storage_nodes.archive import layout
from storage_nodes.archive.object_store import ObjectNotFound, ObjectStore
from storage_nodes.copies import batches
from storage_nodes.log.record import Record


def put(store: ObjectStore, stream_id: str, partition: int, lease_epoch: int, data: bytes) -> str:
    """Writes one round's batches; returns the key (ValueError for bytes that are not
    whole batches)."""
    first, end = batches.check(data)
    key = layout.tail_copy(stream_id, partition, lease_epoch, first, end)
    store.put_bytes(key, data)
    return key


def records(store: ObjectStore, stream_id: str, partition: int, lease_epoch: int) -> list[Record]:
    """Every record the tenure copied, in offset order, each once."""
    found: list[Record] = []
    for info in list(store.list(layout.copies_prefix(stream_id, partition, lease_epoch))):
        try:
            data = store.get_bytes(info.key)
        except ObjectNotFound:
            continue  # deleted meanwhile: the archive holds its records
        found.extend(batches.decode(data, source=f"{store.url}/{info.key}"))
    return batches.in_offset_order(found)


def delete_tenure(store: ObjectStore, stream_id: str, partition: int, lease_epoch: int) -> int:
    """Deletes every copy of the tenure; returns how many."""
    keys = [i.key for i in store.list(layout.copies_prefix(stream_id, partition, lease_epoch))]
    for key in keys:
        store.delete(key)
    return len(keys)


def delete_covered(store: ObjectStore, keys: list[str], archived_end: int) -> list[str]:
    """Deletes the copies among `keys` whose records all lie below `archived_end`;
    returns the keys left."""
    left = []
    for key in keys:
        found = layout.tail_copy_range(key)
        if found is not None and found[1] <= archived_end:
            store.delete(key)
        else:
            left.append(key)
    return left
