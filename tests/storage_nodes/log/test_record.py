"""What a record is as a value: compared by its fields but not by the MD5 it may carry,
hashable with its attribute maps, frozen, and left alone by the garbage collector."""

from __future__ import annotations

import gc
from collections.abc import Callable

import pytest

from storage_nodes.log.record import MessageAttribute, Record, RecordIn

DIGEST = "b2c1f8d5e4c3a2b1f0e9d8c7b6a5f4e3"


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: RecordIn("id-1", 1_000, b"body", **kw),
        lambda **kw: Record(7, "id-1", 1_000, b"body", **kw),
    ],
    ids=["RecordIn", "Record"],
)
def test_records_are_values_of_their_fields(make: Callable[..., Record | RecordIn]) -> None:
    attributes = {"colour": MessageAttribute("String", "blue")}
    plain, digested = make(attributes=attributes), make(attributes=attributes, body_md5=DIGEST)
    # The MD5 is derived from the body: no part of equality or the hash.
    assert plain == digested
    assert hash(plain) == hash(digested)
    # The attribute maps (dicts) are compared, though left out of the hash.
    other = make(attributes={"colour": MessageAttribute("String", "red")})
    assert plain != other
    assert hash(plain) == hash(other)
    assert plain != make(attributes=attributes, group_id="g")
    assert len({plain, digested, other}) == 2
    with pytest.raises(AttributeError):
        plain.body = b"changed"  # type: ignore[misc]
    assert not gc.is_tracked(plain)


def test_a_record_and_the_record_in_it_came_from_are_not_equal() -> None:
    assert Record(0, "id-1", 1_000, b"body") != RecordIn("id-1", 1_000, b"body")
    assert Record(0, "id-1", 1_000, b"body") != Record(1, "id-1", 1_000, b"body")
