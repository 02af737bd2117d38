"""The core's message values: a message to send as a protocol hands it over (a draft),
as the core sends it, and as a receiver gets it.

A draft is what a client wrote, already typed by the protocol's wire format but not yet
checked (gateway/core/validation.py checks it, the same way for every protocol). It is a
Protocol, so a wire type that has the fields already (the native APIs' msgspec Structs)
is a draft as it is, with no copy per message; `MessageDraft` is the plain one, for
wire formats that need building (SQS's parameters).
Records, attributes and deliveries are the storage node's and the control plane's own
values, named here so that protocols take them from the core.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from control_plane.deliveries import Delivery
from gateway.core.partitioning import sequence_number
from storage_nodes.node import MessageAttribute, Record, RecordIn

__all__ = [
    "AttributeDraft",
    "AttributeInput",
    "Delivery",
    "MessageAttribute",
    "MessageDraft",
    "MessageInput",
    "NewMessage",
    "ReceivedMessage",
    "Record",
    "RecordIn",
    "SentMessage",
]

DEAD_LETTER_SOURCE = "DeadLetterQueueSourceArn"


class AttributeInput(Protocol):
    """A message attribute as given: `binary_value` is base64 text."""

    @property
    def data_type(self) -> str: ...

    @property
    def string_value(self) -> str | None: ...

    @property
    def binary_value(self) -> str | None: ...


class MessageInput(Protocol):
    """A message to send as given, before any check."""

    @property
    def body(self) -> str: ...

    @property
    def attributes(self) -> Mapping[str, AttributeInput] | None: ...

    @property
    def system_attributes(self) -> Mapping[str, AttributeInput] | None: ...

    @property
    def delay_seconds(self) -> int | None:
        """None: the queue's DelaySeconds."""

    @property
    def delay_level(self) -> int | None:
        """1-18, instead of delay_seconds (the native APIs)."""

    @property
    def group_id(self) -> str | None: ...

    @property
    def dedup_id(self) -> str | None: ...

    @property
    def subject(self) -> str | None:
        """Topics only (SNS's Subject); a queue refuses a message that has one."""


@dataclass(slots=True)
class AttributeDraft:
    """An AttributeInput built from a wire format."""

    data_type: str
    string_value: str | None = None
    binary_value: str | None = None


# Not frozen: one is made per message sent, and a frozen dataclass's __init__ (one
# object.__setattr__ per field) costs 2.5 times as much. Nothing changes one once made.
@dataclass(slots=True)
class MessageDraft:
    """A MessageInput built from a wire format."""

    body: str
    attributes: Mapping[str, AttributeDraft] | None = None
    system_attributes: Mapping[str, AttributeDraft] | None = None
    delay_seconds: int | None = None  # None: the queue's DelaySeconds
    delay_level: int | None = None  # 1-18, instead of delay_seconds (REST and WebSocket)
    group_id: str | None = None
    dedup_id: str | None = None
    subject: str | None = None  # topics only


@dataclass(slots=True)
class NewMessage:
    """A message checked and ready to append."""

    body: bytes
    attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    system_attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    delay_ms: int | None = None  # None: the queue's DelaySeconds
    group_id: str | None = None  # FIFO queues: required
    dedup_id: str | None = None  # FIFO queues: or the body's SHA-256 (content-based)
    # False for a message moved back from a dead-letter queue: it must not be taken for
    # a duplicate of its own first send.
    deduplicate: bool = True


@dataclass(slots=True)
class SentMessage:
    """A sent message as the sender learns it: for a FIFO duplicate, the first send's id
    and sequence number. Digests are SQS's, which SDKs check on every API."""

    message_id: str
    md5_of_body: str
    md5_of_attributes: str | None
    md5_of_system_attributes: str | None
    sequence_number: str | None  # FIFO queues (gateway/core/partitioning.py)


# Not frozen: one per message received (see control_plane.deliveries.Delivery).
@dataclass(slots=True)
class ReceivedMessage:
    record: Record
    delivery: Delivery
    fifo: bool
    partitions: int = 1  # the queue's, for its sequence numbers

    @property
    def sequence_number(self) -> str | None:
        if not self.fifo:
            return None
        return sequence_number(self.delivery.partition, self.record.offset, self.partitions)
