"""Tail copies: the records of a partition's un-archived tail, copied before an append
is acknowledged, so that a new owner can recover them without the node that wrote
them (docs/durability.md). One concept for both replication modes: `replica` (a
follower node's file) and `object` (an object in the archive's store)."""
