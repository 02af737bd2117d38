"""SNS's Publish and PublishBatch."""

from __future__ import annotations

import re
from typing import Any

from gateway.core.errors import CoreError
from gateway.core.publisher import MAX_BATCH_ENTRIES, MAX_PUBLISH_BYTES, Published, PublishInput
from gateway.core.topic_attributes import invalid
from gateway.sns.actions.context import SnsContext
from gateway.sns.params import message_attributes, required

Result = dict[str, Any]
_BATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,80}\Z")


async def publish(ctx: SnsContext, params: dict[str, Any]) -> Result:
    if params.get("PhoneNumber"):
        raise invalid("PhoneNumber: TideMQ does not send SMS messages")
    arn = params.get("TopicArn") or params.get("TargetArn")
    if not arn:
        raise invalid("TopicArn or TargetArn Reason: no value for required parameter")
    topic = await ctx.topic(arn, "Publish")
    [outcome] = await ctx.broker.topics.publish(topic, [_input(params)])
    if isinstance(outcome, CoreError):
        raise outcome
    return _published(outcome)


async def publish_batch(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "TopicArn"), "Publish")
    entries = params.get("PublishBatchRequestEntries") or []
    _check_batch(entries)
    outcomes = await ctx.broker.topics.publish(topic, [_input(e) for e in entries])
    successful, failed = [], []
    for entry, outcome in zip(entries, outcomes, strict=True):
        if isinstance(outcome, CoreError):
            failed.append(
                {
                    "Id": entry["Id"],
                    "Code": outcome.code,
                    "Message": outcome.message,
                    "SenderFault": outcome.sender_fault,
                }
            )
        else:
            successful.append({"Id": entry["Id"], **_published(outcome)})
    return {"Successful": successful, "Failed": failed}


def _check_batch(entries: list[dict[str, Any]]) -> None:
    if not entries:
        raise CoreError("EmptyBatchRequest", "The batch request doesn't contain any entries")
    if len(entries) > MAX_BATCH_ENTRIES:
        raise CoreError(
            "TooManyEntriesInBatchRequest",
            "The batch request contains more entries than permissible.",
        )
    ids = [str(e.get("Id") or "") for e in entries]
    if not all(_BATCH_ID.match(i) for i in ids):
        raise CoreError(
            "InvalidBatchEntryId",
            "A batch entry id can only contain alphanumeric characters, hyphens and "
            "underscores. It can be at most 80 letters long.",
        )
    if len(set(ids)) != len(ids):
        raise CoreError(
            "BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id."
        )
    total = sum(len(str(e.get("Message") or "").encode()) for e in entries)
    if total > MAX_PUBLISH_BYTES:
        raise CoreError(
            "BatchRequestTooLong",
            "The length of all the messages put together is more than the limit.",
        )


def _input(params: dict[str, Any]) -> PublishInput:
    return PublishInput(
        message=params.get("Message") or "",
        subject=params.get("Subject"),
        message_structure=params.get("MessageStructure"),
        attributes=message_attributes(params.get("MessageAttributes")),
        group_id=params.get("MessageGroupId"),
        dedup_id=params.get("MessageDeduplicationId"),
    )


def _published(outcome: Published) -> Result:
    result: Result = {"MessageId": outcome.message_id}
    if outcome.sequence_number is not None:
        result["SequenceNumber"] = outcome.sequence_number
    return result
