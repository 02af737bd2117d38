"""Batch actions: up to ten entries, each succeeding or failing on its own.

The request as a whole is refused (nothing done) when the batch itself is wrong: no
entries, more than ten, an id repeated or malformed, or a send batch longer than the
queue's MaximumMessageSize in total. Otherwise every valid entry is carried out in one
call to the broker (one log append, one Redis script), and each invalid one is reported
in `Failed` with its own error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gateway.core.errors import CoreError
from gateway.core.messages import MessageDraft
from gateway.sqs.actions.context import Response, SqsContext, action
from gateway.sqs.actions.messages import FIELD_NAMES, message_draft, sent_fields, visibility_ms
from gateway.sqs.errors import SqsError, from_core, invalid_parameter, visibility_refused
from gateway.sqs.limits import MAX_BATCH_ENTRIES
from gateway.sqs.params import Params, required_str

_ENTRY_ID = re.compile(r"^[A-Za-z0-9_-]{1,80}\Z")


@action("SendMessageBatch")
async def send_message_batch(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    entries = _entries(params, "SendMessageBatchRequestEntry")
    refusals: list[SqsError | None] = []  # per entry: why the wire refused it, or None
    drafts: list[MessageDraft] = []
    for entry in entries:
        try:
            drafts.append(message_draft(entry))
            refusals.append(None)
        except SqsError as exc:
            refusals.append(exc)
        except CoreError as exc:
            refusals.append(from_core(exc))
    results = iter(await ctx.broker.send_batch(queue, drafts, FIELD_NAMES))
    successful: list[Response] = []
    failed: list[Response] = []
    for entry, refusal in zip(entries, refusals, strict=True):
        result = next(results) if refusal is None else refusal
        if isinstance(result, SqsError):
            failed.append(_failure(entry["Id"], result))
        elif isinstance(result, CoreError):
            failed.append(_failure(entry["Id"], from_core(result)))
        else:
            successful.append({"Id": entry["Id"], **sent_fields(result)})
    return {"Successful": successful, "Failed": failed}


@action("DeleteMessageBatch")
async def delete_message_batch(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    entries = _entries(params, "DeleteMessageBatchRequestEntry")
    failed, valid = _with_handles(entries)
    errors = await ctx.broker.delete_messages(queue, [handle for _, handle, _ in valid])
    return _outcome(valid, errors, failed, lambda error, _handle: from_core(error))


@action("ChangeMessageVisibilityBatch")
async def change_message_visibility_batch(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    entries = _entries(params, "ChangeMessageVisibilityBatchRequestEntry")
    failed, valid = _with_handles(entries, with_visibility=True)
    errors = await ctx.broker.change_visibility(queue, [(h, ms) for _, h, ms in valid])
    return _outcome(valid, errors, failed, visibility_refused)


def _entries(params: Params, entry_name: str) -> list[Mapping[str, Any]]:
    entries = params.get("Entries")
    if entries is None or entries == []:
        raise SqsError(
            "EmptyBatchRequest", f"There should be at least one {entry_name} in the request."
        )
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise invalid_parameter("Value for parameter Entries must be a list of objects.")
    if len(entries) > MAX_BATCH_ENTRIES:
        raise SqsError(
            "TooManyEntriesInBatchRequest",
            f"Maximum number of entries per request are {MAX_BATCH_ENTRIES}. "
            f"You have sent {len(entries)}.",
        )
    seen: set[str] = set()
    for entry in entries:
        entry_id = entry.get("Id")
        if not isinstance(entry_id, str) or not _ENTRY_ID.match(entry_id):
            raise SqsError(
                "InvalidBatchEntryId",
                "A batch entry id can only contain alphanumeric characters, hyphens and "
                "underscores. It can be at most 80 letters long.",
            )
        if entry_id in seen:
            raise SqsError("BatchEntryIdsNotDistinct", f"Id {entry_id} repeated.")
        seen.add(entry_id)
    return entries


def _with_handles(
    entries: Sequence[Mapping[str, Any]], with_visibility: bool = False
) -> tuple[list[Response], list[tuple[str, str, int]]]:
    """(failures, valid entries as (id, receipt handle, visibility ms))."""
    failed: list[Response] = []
    valid: list[tuple[str, str, int]] = []
    for entry in entries:
        try:
            handle = required_str(entry, "ReceiptHandle")
            timeout_ms = visibility_ms(entry) if with_visibility else 0
        except SqsError as exc:
            failed.append(_failure(entry["Id"], exc))
            continue
        valid.append((entry["Id"], handle, timeout_ms))
    return failed, valid


def _outcome(
    valid: Sequence[tuple[str, str, int]],
    errors: Sequence[CoreError | None],
    failed: list[Response],
    worded: Callable[[CoreError, str], SqsError],
) -> Response:
    """The batch's result; `worded` gives an entry's error (and its receipt handle) the
    words its single action would."""
    successful = []
    for (entry_id, handle, _), error in zip(valid, errors, strict=True):
        if error is None:
            successful.append({"Id": entry_id})
        else:
            failed.append(_failure(entry_id, worded(error, handle)))
    return {"Successful": successful, "Failed": failed}


def _failure(entry_id: str, exc: SqsError) -> Response:
    return {
        "Id": entry_id,
        "SenderFault": exc.sender_fault,
        "Code": exc.code,
        "Message": exc.message,
    }
