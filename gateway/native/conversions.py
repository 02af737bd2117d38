"""Between the native APIs' shapes and the core's values.

A message to send (a SendMessage Struct) is itself a MessageInput for the core, which
checks it by SQS's rules (so every API takes exactly the same messages), with errors
naming the native field names. Digests are
SQS's, so a message sent on one API and received on another has the MD5s an SDK checks.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence

from gateway.core.digests import md5_of_body
from gateway.core.errors import CoreError
from gateway.core.messages import MessageAttribute
from gateway.core.messages import ReceivedMessage as Received
from gateway.core.messages import SentMessage as Sent
from gateway.core.publisher import Published
from gateway.core.validation import FieldNames
from gateway.native.common import (
    MAX_BATCH_ENTRIES,
    EntryResult,
    ErrorDetail,
    MessageAttributeValue,
)
from gateway.native.messages import (
    EntryResults,
    ReceivedMessage,
    SendResult,
    SentMessage,
)

FIELD_NAMES = FieldNames(
    body="body",
    group_id="group_id",
    dedup_id="dedup_id",
    delay_seconds="delay_seconds",
    delay_level="delay_level",
)


def check_batch_size(entries: int) -> None:
    """A batch of the native APIs: 1 to MAX_BATCH_ENTRIES entries."""
    if entries == 0:
        raise CoreError("EmptyBatchRequest", "There should be at least one entry in the request.")
    if entries > MAX_BATCH_ENTRIES:
        raise CoreError(
            "TooManyEntriesInBatchRequest",
            f"Maximum number of entries per request are {MAX_BATCH_ENTRIES}. "
            f"You have sent {entries}.",
        )


def sent_message(sent: Sent) -> SentMessage:
    """What a sender learns of a message sent: SQS's fields, under native names."""
    return SentMessage(
        message_id=sent.message_id,
        md5_of_body=sent.md5_of_body,
        md5_of_attributes=sent.md5_of_attributes,
        sequence_number=sent.sequence_number,
    )


def send_results(results: Sequence[Sent | CoreError]) -> list[SendResult]:
    """A batch send's entries, in request order."""
    return [
        SendResult(index, error=error_detail(result))
        if isinstance(result, CoreError)
        else SendResult(
            index,
            message_id=result.message_id,
            md5_of_body=result.md5_of_body,
            md5_of_attributes=result.md5_of_attributes,
            sequence_number=result.sequence_number,
        )
        for index, result in enumerate(results)
    ]


def publish_results(results: Sequence[Published | CoreError]) -> list[SendResult]:
    """A batch publish's entries, in request order: a topic's messages have no digests."""
    return [
        SendResult(index, error=error_detail(result))
        if isinstance(result, CoreError)
        else SendResult(index, message_id=result.message_id, sequence_number=result.sequence_number)
        for index, result in enumerate(results)
    ]


def entry_results(errors: Sequence[CoreError | None]) -> EntryResults:
    return EntryResults(
        [
            EntryResult(i, None if error is None else error_detail(error))
            for i, error in enumerate(errors)
        ]
    )


def error_detail(exc: CoreError) -> ErrorDetail:
    return ErrorDetail(exc.code, exc.message)


def received_message(received: Received) -> ReceivedMessage:
    # Every message received is built here: the Struct's fields positionally (by keyword
    # it cost twice as much), and no loop over attribute maps a message has none of.
    record, delivery = received.record, received.delivery
    return ReceivedMessage(
        record.message_id,
        delivery.receipt_handle,
        record.body.decode(),
        md5_of_body(record),
        _attribute_values(record.attributes) if record.attributes else {},
        {
            name: value.string_value
            for name, value in record.system_attributes.items()
            if value.string_value is not None
        }
        if record.system_attributes
        else {},
        delivery.receive_count,
        record.timestamp_ms,
        delivery.first_receive_ms,
        record.group_id,
        record.dedup_id,
        received.sequence_number,
    )


def _attribute_values(
    attributes: Mapping[str, MessageAttribute],
) -> dict[str, MessageAttributeValue]:
    values = {}
    for name, attribute in attributes.items():
        if attribute.binary_value is not None:
            values[name] = MessageAttributeValue(
                data_type=attribute.data_type,
                binary_value=base64.b64encode(attribute.binary_value).decode(),
            )
        else:
            values[name] = MessageAttributeValue(
                data_type=attribute.data_type, string_value=attribute.string_value or ""
            )
    return values
