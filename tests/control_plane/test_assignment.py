"""Rendezvous assignment: deterministic, balanced, and stable as nodes come and go."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from control_plane.assignment import assign, weight

node_ids = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1)
node_sets = st.sets(node_ids, min_size=2, max_size=8)
PARTITIONS = range(64)


def test_weights_are_fixed_across_processes_and_releases() -> None:
    # A change here reassigns every partition of every cluster on upgrade.
    assert weight("5ea3c0de", 0, "node-a") == 0x48352F0B5ACAB093
    assert assign("5ea3c0de", 0, ["node-a", "node-b", "node-c"]) == "node-a"


def test_no_live_node_is_an_error() -> None:
    with pytest.raises(ValueError, match="no live node"):
        assign("s", 0, [])


def test_partitions_spread_evenly_over_nodes() -> None:
    nodes = [f"node-{i}" for i in range(4)]
    owners = Counter(assign("stream", partition, nodes) for partition in range(4_000))
    assert set(owners) == set(nodes)
    assert all(800 <= count <= 1_200 for count in owners.values()), owners


@settings(max_examples=50, deadline=None)
@given(stream_id=st.text(), nodes=node_sets, seed=st.randoms(use_true_random=False))
def test_assignment_depends_only_on_the_set_of_nodes(
    stream_id: str, nodes: set[str], seed: random.Random
) -> None:
    ordered = sorted(nodes)
    shuffled = list(ordered)
    seed.shuffle(shuffled)
    for partition in PARTITIONS:
        owner = assign(stream_id, partition, ordered)
        assert owner in nodes
        assert assign(stream_id, partition, shuffled + ordered[:1]) == owner


@settings(max_examples=50, deadline=None)
@given(stream_id=st.text(), nodes=node_sets, data=st.data())
def test_removing_a_node_moves_only_its_own_partitions(
    stream_id: str, nodes: set[str], data: st.DataObject
) -> None:
    gone = data.draw(st.sampled_from(sorted(nodes)))
    before = {p: assign(stream_id, p, nodes) for p in PARTITIONS}
    after = {p: assign(stream_id, p, nodes - {gone}) for p in PARTITIONS}
    for partition in PARTITIONS:
        if before[partition] != gone:
            assert after[partition] == before[partition]
        else:
            assert after[partition] != gone


@settings(max_examples=50, deadline=None)
@given(stream_id=st.text(), nodes=node_sets, newcomer=node_ids)
def test_adding_a_node_moves_partitions_only_to_it(
    stream_id: str, nodes: set[str], newcomer: str
) -> None:
    before = {p: assign(stream_id, p, nodes) for p in PARTITIONS}
    after = {p: assign(stream_id, p, nodes | {newcomer}) for p in PARTITIONS}
    moved = [p for p in PARTITIONS if after[p] != before[p]]
    assert all(after[p] == newcomer for p in moved)


def test_adding_a_node_moves_about_one_in_n() -> None:
    nodes = {f"node-{i}" for i in range(9)}
    partitions = range(10_000)
    before = {p: assign("stream", p, nodes) for p in partitions}
    moved = sum(assign("stream", p, nodes | {"node-9"}) != before[p] for p in partitions)
    assert 800 <= moved <= 1_200  # 1/10 of 10 000, give or take
