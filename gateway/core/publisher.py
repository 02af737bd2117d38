"""Publishing to a topic: check as SNS does, append once to the topic's log, answer.

A publish is acknowledged once it is durable in the topic's own log; nothing is done per
subscription on this path. Delivery runs behind it (gateway/core/dispatcher.py), so a
publish costs the same with one subscription or a hundred.

The record keeps what delivery needs: the message as published (for MessageStructure
`json`, the whole JSON document, marked so), the subject, the message attributes, and
for FIFO topics the group and the deduplication id (the body's SHA-256 when the topic
deduplicates by content), which is what SNS passes on to FIFO queues.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import orjson

from control_plane.plane import ControlPlane
from control_plane.topics import TopicInfo
from gateway import metrics
from gateway.core import partitioning, validation
from gateway.core.errors import CoreError, invalid_parameter
from gateway.core.messages import AttributeInput, MessageAttribute, MessageInput
from gateway.core.topic_attributes import invalid
from gateway.message_ids import new_message_ids
from storage_nodes.node import Node, RecordIn

# SNS's limit: message and attributes together.
MAX_PUBLISH_BYTES = 256 * 1024
MAX_SUBJECT_CHARS = 100
MAX_BATCH_ENTRIES = 10
SUBJECT = "Subject"
MESSAGE_STRUCTURE = "MessageStructure"


@dataclass(frozen=True, slots=True)
class PublishInput:
    message: str
    subject: str | None = None
    message_structure: str | None = None
    attributes: Mapping[str, AttributeInput] | None = None
    group_id: str | None = None
    dedup_id: str | None = None


@dataclass(frozen=True, slots=True)
class Published:
    message_id: str
    sequence_number: str | None  # FIFO topics (gateway/core/partitioning.py)


class Publisher:
    def __init__(self, control: ControlPlane, storage: Node) -> None:
        self._control = control
        self._storage = storage

    async def publish(
        self, topic: TopicInfo, messages: Sequence[PublishInput]
    ) -> list[Published | CoreError]:
        """Per message, in order, what was published or why that one was refused; the
        valid ones are appended in one batch and are durable when this returns."""
        results: list[Published | CoreError | None] = [None] * len(messages)
        valid: list[tuple[int, RecordIn]] = []
        now_ms = self._control.clock.now_ms()
        message_ids = new_message_ids(len(messages))
        for index, message in enumerate(messages):
            try:
                valid.append((index, _record(topic, message, now_ms, message_ids[index])))
            except CoreError as exc:
                results[index] = exc
        if valid:
            records = [record for _, record in valid]
            places = await self._append(topic, records)
            counters = metrics.topics.of(topic.account_id, topic.name)
            counters.published.inc(len(records))
            counters.published_bytes.inc(sum(len(record.body) for record in records))
            published = await self._published(topic, records, places)
            for (index, _), one in zip(valid, published, strict=True):
                results[index] = one
            self._control.wakeups.notify(topic.stream_id)
        return [r for r in results if r is not None]

    async def _append(self, topic: TopicInfo, records: Sequence[RecordIn]) -> list[tuple[int, int]]:
        """Appends the records, a standard topic's to one partition, a FIFO topic's to
        their groups' partitions (gateway/core/partitioning.py); their (partition, offset)."""
        if not topic.fifo:
            partition, base = await partitioning.append_anywhere(
                self._storage, topic.stream_id, topic.partitions, records, topic.replication
            )
            return [(partition, base + i) for i in range(len(records))]
        by_partition: dict[int, list[int]] = {}
        for i, record in enumerate(records):
            assert record.group_id is not None, "FIFO publishes are checked to have a group"
            partition = partitioning.group_partition(record.group_id, topic.partitions)
            by_partition.setdefault(partition, []).append(i)
        places: list[tuple[int, int]] = [(0, 0)] * len(records)

        async def append(partition: int, indexes: list[int]) -> None:
            batch = [records[i] for i in indexes]
            base = await self._storage.append(
                topic.stream_id, partition, batch, replication=topic.replication
            )
            for k, i in enumerate(indexes):
                places[i] = (partition, base + k)

        await asyncio.gather(*(append(p, indexes) for p, indexes in by_partition.items()))
        return places

    async def _published(
        self, topic: TopicInfo, records: Sequence[RecordIn], places: Sequence[tuple[int, int]]
    ) -> list[Published]:
        if not topic.fifo:
            return [Published(r.message_id, None) for r in records]
        entries = []
        for record, (partition, offset) in zip(records, places, strict=True):
            assert record.dedup_id is not None, "FIFO publishes are checked to have one"
            key = dedup_key(topic, record.group_id, record.dedup_id)
            entries.append((partition, offset, key, record.message_id))
        known = await self._control.deliveries.deduplicate(topic.stream_id, entries)
        return [
            Published(
                k.message_id,
                partitioning.sequence_number(k.partition, k.offset, topic.partitions),
            )
            for k in known
        ]


def publish_input(draft: MessageInput, names: validation.FieldNames) -> PublishInput:
    """A message the native APIs send to a topic, as SNS's Publish would take it. What
    only a queue takes (delays, system attributes) is refused, naming the field."""
    for given, name in (
        (draft.delay_seconds, names.delay_seconds),
        (draft.delay_level, names.delay_level),
    ):
        if given is not None:
            raise invalid_parameter(f"Topics deliver at once: a message to one takes no {name}.")
    if draft.system_attributes:
        raise invalid_parameter("A message to a topic takes no system attributes.")
    return PublishInput(
        message=draft.body,
        subject=draft.subject,
        attributes=draft.attributes,
        group_id=draft.group_id,
        dedup_id=draft.dedup_id,
    )


def dedup_key(topic: TopicInfo, group_id: str | None, dedup_id: str | None) -> str:
    """The key a FIFO topic deduplicates a record by (per group when the topic's
    FifoThroughputScope is MessageGroup, as SNS)."""
    if topic.attributes.get("FifoThroughputScope") == "MessageGroup":
        return f"{group_id}\0{dedup_id}"
    return str(dedup_id)


def _record(topic: TopicInfo, message: PublishInput, now_ms: int, message_id: str) -> RecordIn:
    body = _body(message)
    attributes = _attributes(message.attributes)
    size = len(body) + validation.attributes_size(attributes)
    if size > MAX_PUBLISH_BYTES:
        raise invalid("Message too long")
    system: dict[str, MessageAttribute] = {}
    if message.subject is not None:
        _check_subject(message.subject)
        system[SUBJECT] = MessageAttribute("String", message.subject)
    if message.message_structure is not None:
        system[MESSAGE_STRUCTURE] = MessageAttribute("String", "json")
    group_id, dedup_id = _fifo_ids(topic, message, body)
    return RecordIn(
        message_id=message_id,
        timestamp_ms=now_ms,
        body=body,
        group_id=group_id,
        dedup_id=dedup_id,
        attributes=attributes,
        system_attributes=system,
    )


def _body(message: PublishInput) -> bytes:
    if not message.message:
        raise invalid("Empty message")
    if message.message_structure is None:
        return message.message.encode()
    if message.message_structure != "json":
        raise invalid("MessageStructure: the only structure is json")
    try:
        document = orjson.loads(message.message)
    except orjson.JSONDecodeError:
        raise invalid("Message Structure - JSON message body failed to parse") from None
    if not isinstance(document, dict) or not isinstance(document.get("default"), str):
        raise invalid("Message Structure - No default entry in JSON message body")
    if not all(isinstance(v, str) for v in document.values()):
        raise invalid("Message Structure - every entry of the JSON message body must be a string")
    return message.message.encode()


def _attributes(given: Mapping[str, AttributeInput] | None) -> Mapping[str, MessageAttribute]:
    checked = validation.message_attributes(given)
    for name, attribute in checked.items():
        if attribute.data_type == "String.Array":
            _check_array(name, attribute.string_value or "")
    return checked


def _check_array(name: str, text: str) -> None:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, list) or any(isinstance(v, dict | list) for v in value):
        raise CoreError(
            "InvalidParameterValue",
            f"The message attribute '{name}' with type 'String.Array' has an invalid value: "
            "it must be a JSON array of strings, numbers, true, false or null.",
        )


def _check_subject(subject: str) -> None:
    if (
        not subject
        or len(subject) > MAX_SUBJECT_CHARS
        or not subject.isascii()
        or not subject.isprintable()
    ):
        raise invalid("Subject")


def _fifo_ids(
    topic: TopicInfo, message: PublishInput, body: bytes
) -> tuple[str | None, str | None]:
    if not topic.fifo:
        if message.dedup_id is not None:
            raise invalid(
                "MessageDeduplicationId Reason: The request includes MessageDeduplicationId "
                "parameter that is not valid for this topic type"
            )
        if message.group_id is not None:
            raise invalid(
                "MessageGroupId Reason: The request includes MessageGroupId parameter that "
                "is not valid for this topic type"
            )
        return None, None
    if message.group_id is None:
        raise invalid("The MessageGroupId parameter is required for FIFO topics")
    validation.check_fifo_id("MessageGroupId", message.group_id)
    dedup_id = message.dedup_id
    if dedup_id is None:
        if topic.attributes.get("ContentBasedDeduplication") != "true":
            raise invalid(
                "The topic should either have ContentBasedDeduplication enabled or "
                "MessageDeduplicationId provided explicitly"
            )
        dedup_id = hashlib.sha256(body).hexdigest()
    validation.check_fifo_id("MessageDeduplicationId", dedup_id)
    return message.group_id, dedup_id
