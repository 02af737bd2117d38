"""SQS queue attributes: names, ranges and defaults, validated before anything is stored.

Values are kept as SQS keeps them, strings, in a canonical form (numbers without
padding, policies as compact JSON with sorted keys), so GetQueueAttributes returns what
SQS would and CreateQueue can compare attributes exactly. Only the attributes TideMQ
implements are accepted; an unknown name is an InvalidAttributeName error rather than a
setting silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

import orjson

from control_plane.arns import parse_queue_arn
from control_plane.errors import InvalidAttributeName, InvalidAttributeValue
from control_plane.queue_policy import check_policy
from control_plane.text_rules import describe_char, forbidden_char, parse_int


@dataclass(frozen=True, slots=True)
class IntRange:
    low: int
    high: int
    default: int


# SQS's largest message (body and attributes), and its default MaximumMessageSize since
# 2025: 1 MiB.
MAX_MESSAGE_BYTES = 1_048_576
# The ranges and defaults are SQS's.
INTEGER_ATTRIBUTES: Mapping[str, IntRange] = {
    "DelaySeconds": IntRange(0, 900, 0),
    "MaximumMessageSize": IntRange(1024, MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES),
    "MessageRetentionPeriod": IntRange(60, 1_209_600, 345_600),
    "ReceiveMessageWaitTimeSeconds": IntRange(0, 20, 0),
    "VisibilityTimeout": IntRange(0, 43_200, 30),
    # Server-side encryption: TideMQ stores and reports it as SQS does (see below).
    "KmsDataKeyReusePeriodSeconds": IntRange(60, 86_400, 300),
}
POLICY_ATTRIBUTES = frozenset({"RedrivePolicy", "RedriveAllowPolicy"})
# FIFO queues only: name -> allowed values, the first being the default.
FIFO_ATTRIBUTES: Mapping[str, tuple[str, ...]] = {
    "ContentBasedDeduplication": ("false", "true"),
    "DeduplicationScope": ("queue", "messageGroup"),
    "FifoThroughputLimit": ("perQueue", "perMessageGroupId"),
}
# Server-side encryption: SSE-SQS (SqsManagedSseEnabled, on by default as on SQS since
# 2023) or SSE-KMS (KmsMasterKeyId), one at a time. TideMQ keeps and reports the settings
# and encrypts nothing with them (docs/sqs-compatibility.md).
KMS_KEY = "KmsMasterKeyId"
SQS_MANAGED_SSE = "SqsManagedSseEnabled"
KMS_REUSE_PERIOD = "KmsDataKeyReusePeriodSeconds"
MAX_RECEIVE_COUNT = IntRange(1, 1000, 10)
# TideMQ's own: how many partitions the queue's log has, fixed when it is created. Each
# one is a log of its own with its own lease, so the bound keeps a receive (which asks
# every partition for its end offset) and a node's lease count in proportion.
PARTITIONS = "Partitions"
PARTITION_COUNT = IntRange(1, 64, 1)
# TideMQ's own: how a queue's or topic's un-archived tail is kept until it is tiered
# (docs/durability.md): on the owning node's disk only, also on a follower node's, or
# also in the object store, before a send is acknowledged. Fixed at creation; a create
# that does not name it gets the deployment's default (TIDEMQ_REPLICATION).
REPLICATION = "Replication"
ReplicationMode = Literal["none", "replica", "object"]
REPLICATION_MODES: tuple[ReplicationMode, ...] = get_args(ReplicationMode)
REDRIVE_PERMISSIONS = frozenset({"allowAll", "denyAll", "byQueue"})
MAX_ALLOWED_SOURCES = 10


@dataclass(frozen=True, slots=True)
class RedrivePolicy:
    dead_letter_account_id: str
    dead_letter_queue: str
    max_receive_count: int


@dataclass(frozen=True, slots=True)
class RedriveAllowPolicy:
    permission: str  # allowAll | denyAll | byQueue
    source_queue_arns: tuple[str, ...] = ()

    def allows(self, source_arn: str) -> bool:
        if self.permission == "byQueue":
            return source_arn in self.source_queue_arns
        return self.permission == "allowAll"


_NAME_SPACE = " \t\n\r"


def with_names_trimmed(attributes: Mapping[str, str]) -> dict[str, str]:
    """The attributes with spaces around their names taken off (" DelaySeconds" is
    DelaySeconds), as spaces around an integer's digits are; a name given twice that way
    is refused rather than one of its values picked."""
    trimmed: dict[str, str] = {}
    for name, value in attributes.items():
        bare = name.strip(_NAME_SPACE)
        if bare in trimmed:
            raise InvalidAttributeName(f"Attribute {bare} is given more than once.")
        trimmed[bare] = value
    return trimmed


def validate(attributes: Mapping[str, str], fifo: bool) -> dict[str, str]:
    """Checks names and values for a queue of that type; returns the attributes in
    canonical form, names trimmed. `FifoQueue` itself is checked by the caller against
    the name."""
    normalised: dict[str, str] = {}
    for name, value in with_names_trimmed(attributes).items():
        if name == "FifoQueue":
            normalised[name] = _fifo_flag(value)
            continue
        if name == SQS_MANAGED_SSE:
            normalised[name] = _boolean(name, value)
            continue
        if name == KMS_KEY:
            # Any key id, alias or ARN; TideMQ has no KMS to ask. Empty removes it.
            normalised[name] = value.strip()
            continue
        if name in FIFO_ATTRIBUTES and fifo:
            normalised[name] = _choice(name, value, FIFO_ATTRIBUTES[name])
            continue
        if name == "Policy":
            normalised[name] = check_policy(value) if value else ""
            continue
        if name in (PARTITIONS, REPLICATION):
            normalised[name] = _fixed_at_creation(name, value)
            continue
        if name in POLICY_ATTRIBUTES:
            # An empty policy removes it (SetQueueAttributes with "").
            normalised[name] = _canonical_policy(name, value) if value else ""
            continue
        bounds = INTEGER_ATTRIBUTES.get(name)
        if bounds is None:
            raise InvalidAttributeName(f"Unknown Attribute {name}.")
        number = integer_value(value)
        if number is None or not bounds.low <= number <= bounds.high:
            raise InvalidAttributeValue(f"Invalid value for the parameter {name}.")
        normalised[name] = str(number)
    for name, value in normalised.items():
        # After canonicalisation: a policy's JSON may spell a forbidden character as an
        # escape, which the canonical form writes out.
        bad = forbidden_char(value)
        if bad is not None:
            raise InvalidAttributeValue(
                f"Invalid value for the parameter {name}. Reason: character "
                f"{describe_char(bad)} is not allowed."
            )
    return normalised


def partition_count(value: str) -> int:
    """A `Partitions` value: an integer from 1 to 64, as a queue's or a topic's."""
    number = integer_value(value)
    if number is None or not PARTITION_COUNT.low <= number <= PARTITION_COUNT.high:
        raise InvalidAttributeValue(
            f"Invalid value for the parameter {PARTITIONS}. Reason: must be an integer from "
            f"{PARTITION_COUNT.low} to {PARTITION_COUNT.high}."
        )
    return number


def _fixed_at_creation(name: str, value: str) -> str:
    """TideMQ's own attributes, which a queue keeps as it was created with."""
    return str(partition_count(value)) if name == PARTITIONS else replication_mode(value)


def replication_mode(value: str) -> ReplicationMode:
    """A `Replication` value: none, replica or object, as a queue's or a topic's."""
    for mode in REPLICATION_MODES:
        if value == mode:
            return mode
    raise InvalidAttributeValue(
        f"Invalid value for the parameter {REPLICATION}. Reason: must be one of "
        f"{', '.join(REPLICATION_MODES)}."
    )


def integer_value(value: str) -> int | None:
    """An integer attribute's value, or None. Spaces around the digits have always been
    taken (" 45" is 45), and still are; the digits themselves must be ASCII."""
    return parse_int(value.strip(" \t\n\r"))


def check_combination(attributes: Mapping[str, str]) -> None:
    """Rules across attributes, checked on the whole set a queue would have."""
    if (
        attributes.get("FifoThroughputLimit") == "perMessageGroupId"
        and attributes.get("DeduplicationScope") != "messageGroup"
    ):
        raise InvalidAttributeValue(
            "Invalid value for the parameter FifoThroughputLimit. Reason: "
            "perMessageGroupId needs DeduplicationScope messageGroup."
        )


def check_encryption(changes: Mapping[str, str]) -> None:
    """One request may not ask for both kinds of server-side encryption."""
    if changes.get(KMS_KEY) and changes.get(SQS_MANAGED_SSE) == "true":
        raise InvalidAttributeValue(
            "You can use one type of server-side encryption (SSE) at one time. You can "
            "either enable KMS SSE or SQS SSE."
        )


def with_encryption_changes(
    current: Mapping[str, str], changes: Mapping[str, str]
) -> dict[str, str]:
    """`current` with `changes` applied, where turning one kind of server-side encryption
    on turns the other off, as SQS does: a KMS key turns SSE-SQS off; SSE-SQS removes the
    KMS key (and its reuse period, unless given); removing the key turns SSE-SQS back on
    unless the same change says otherwise. Empty values are removals."""
    merged = {**current, **changes}
    if changes.get(KMS_KEY):
        merged[SQS_MANAGED_SSE] = "false"
    elif KMS_KEY in changes and SQS_MANAGED_SSE not in changes:
        merged.pop(SQS_MANAGED_SSE, None)
    if changes.get(SQS_MANAGED_SSE) == "true":
        merged.pop(KMS_KEY, None)
        if KMS_REUSE_PERIOD not in changes:
            merged.pop(KMS_REUSE_PERIOD, None)
    # Kept only where it says more than the key does (SSE off altogether), so a queue
    # created with the default spelled out is the same as one created without it.
    if merged.get(KMS_KEY) or merged.get(SQS_MANAGED_SSE) == "true":
        merged.pop(SQS_MANAGED_SSE, None)
    return {name: value for name, value in merged.items() if value}


def with_defaults(attributes: Mapping[str, str], fifo: bool) -> dict[str, str]:
    """Every implemented attribute that has a value: as set, or its default."""
    merged = {name: str(bounds.default) for name, bounds in INTEGER_ATTRIBUTES.items()}
    if fifo:
        merged["FifoQueue"] = "true"
        merged.update({name: values[0] for name, values in FIFO_ATTRIBUTES.items()})
    # SSE-SQS unless the queue has a KMS key.
    merged[SQS_MANAGED_SSE] = "false" if attributes.get(KMS_KEY) else "true"
    merged.update({name: value for name, value in attributes.items() if value})
    return merged


def _fifo_flag(value: str) -> str:
    if value.lower() not in ("true", "false"):
        raise InvalidAttributeValue("Invalid value for the parameter FifoQueue.")
    return value.lower()


def _boolean(name: str, value: str) -> str:
    if value.lower() not in ("true", "false"):
        raise InvalidAttributeValue(f"Invalid value for the parameter {name}.")
    return value.lower()


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise InvalidAttributeValue(f"Invalid value for the parameter {name}.")
    return value


def redrive_policy(attributes: Mapping[str, str]) -> RedrivePolicy | None:
    text = attributes.get("RedrivePolicy")
    if not text:
        return None
    policy = orjson.loads(text)
    target = parse_queue_arn(policy["deadLetterTargetArn"])
    assert target is not None, "stored policies are validated"
    return RedrivePolicy(target[0], target[1], int(policy["maxReceiveCount"]))


def redrive_allow_policy(attributes: Mapping[str, str]) -> RedriveAllowPolicy:
    text = attributes.get("RedriveAllowPolicy")
    if not text:
        return RedriveAllowPolicy("allowAll")
    policy = orjson.loads(text)
    return RedriveAllowPolicy(policy["redrivePermission"], tuple(policy.get("sourceQueueArns", ())))


def _canonical_policy(name: str, value: str) -> str:
    try:
        policy = orjson.loads(value)
    except orjson.JSONDecodeError:
        policy = None
    if not isinstance(policy, dict):
        raise InvalidAttributeValue(f"Invalid value for the parameter {name}.")
    checked = _redrive(policy) if name == "RedrivePolicy" else _redrive_allow(policy)
    return orjson.dumps(checked, option=orjson.OPT_SORT_KEYS).decode()


def _redrive(policy: dict[str, Any]) -> dict[str, Any]:
    reason = None
    arn = policy.get("deadLetterTargetArn")
    raw_count = policy.get("maxReceiveCount", "")
    # A JSON number or a string of digits, as SQS takes either.
    count = integer_value(str(raw_count)) if isinstance(raw_count, int | str) else None
    if set(policy) - {"deadLetterTargetArn", "maxReceiveCount"}:
        reason = "Only deadLetterTargetArn and maxReceiveCount are allowed."
    elif not isinstance(arn, str) or parse_queue_arn(arn) is None:
        reason = "Invalid value for deadLetterTargetArn."
    elif count is None or not MAX_RECEIVE_COUNT.low <= count <= MAX_RECEIVE_COUNT.high:
        reason = "Value for maxReceiveCount must be between 1 and 1000."
    if reason is not None:
        raise InvalidAttributeValue(
            f"Value {orjson.dumps(policy).decode()} for parameter RedrivePolicy is invalid. "
            f"Reason: {reason}"
        )
    return {"deadLetterTargetArn": arn, "maxReceiveCount": count}


def _redrive_allow(policy: dict[str, Any]) -> dict[str, Any]:
    permission = policy.get("redrivePermission")
    sources = policy.get("sourceQueueArns")
    reason = None
    if permission not in REDRIVE_PERMISSIONS:
        reason = "redrivePermission must be one of allowAll, denyAll, byQueue."
    elif permission == "byQueue" and (
        not isinstance(sources, list)
        or not 1 <= len(sources) <= MAX_ALLOWED_SOURCES
        or not all(isinstance(a, str) and parse_queue_arn(a) for a in sources)
    ):
        reason = "byQueue needs sourceQueueArns: 1 to 10 queue ARNs."
    elif permission != "byQueue" and sources is not None:
        reason = "sourceQueueArns may only be given with byQueue."
    if reason is not None:
        raise InvalidAttributeValue(
            f"Value {orjson.dumps(policy).decode()} for parameter RedriveAllowPolicy is "
            f"invalid. Reason: {reason}"
        )
    return {"redrivePermission": permission, **({"sourceQueueArns": sources} if sources else {})}
