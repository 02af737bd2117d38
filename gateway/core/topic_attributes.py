"""Topic names and attributes, checked as SNS checks them.

A topic's attributes are stored as given (control_plane/topics.py); here is what may be
given, on CreateTopic and on SetTopicAttributes, and what GetTopicAttributes shows for
those never set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import orjson

from control_plane.queue_attributes import (
    PARTITION_COUNT,
    PARTITIONS,
    REPLICATION,
    REPLICATION_MODES,
    integer_value,
)
from control_plane.topics import TopicInfo
from gateway.core.delivery_policies import parse_topic_policy
from gateway.core.errors import CoreError

_NAME = re.compile(r"[A-Za-z0-9_-]{1,256}\Z")
_FIFO_NAME = re.compile(r"[A-Za-z0-9_-]{1,251}\.fifo\Z")

# Attributes a topic may be created with, and those SetTopicAttributes may change.
CREATABLE = frozenset(
    {
        "DeliveryPolicy",
        "DisplayName",
        "FifoTopic",
        "Policy",
        "SignatureVersion",
        "TracingConfig",
        "KmsMasterKeyId",
        "ContentBasedDeduplication",
        "ArchivePolicy",
        "FifoThroughputScope",
        PARTITIONS,
        REPLICATION,
    }
)
SETTABLE = CREATABLE - {"FifoTopic", PARTITIONS, REPLICATION}
_FIFO_ONLY = frozenset({"ContentBasedDeduplication", "ArchivePolicy", "FifoThroughputScope"})
MAX_DISPLAY_NAME = 100
MAX_POLICY_BYTES = 30 * 1024


def invalid(what: str) -> CoreError:
    return CoreError("InvalidParameter", f"Invalid parameter: {what}")


def check_topic_name(name: str, attributes: Mapping[str, str]) -> None:
    fifo_wanted = attributes.get("FifoTopic", "false").lower() == "true"
    if fifo_wanted and not _FIFO_NAME.match(name):
        raise invalid(
            "Fifo Topic names must end with .fifo and must be made up of only uppercase and "
            "lowercase ASCII letters, numbers, underscores, and hyphens, and must be between "
            "1 and 256 characters long."
        )
    if not fifo_wanted and not _NAME.match(name):
        raise invalid("Topic Name")


def check_attributes(
    attributes: Mapping[str, str], *, fifo: bool, creating: bool
) -> dict[str, str]:
    """The attributes to store, normalised ("true"/"false" lower case); raises SNS's
    InvalidParameter for an unknown name or a bad value."""
    allowed = CREATABLE if creating else SETTABLE
    checked: dict[str, str] = {}
    for name, value in attributes.items():
        if name == PARTITIONS and not creating:
            raise invalid(
                f"{PARTITIONS}: a topic's partitions cannot be changed after it is created"
            )
        if name == REPLICATION and not creating:
            raise invalid(
                f"{REPLICATION}: a topic's replication cannot be changed after it is created"
            )
        if name not in allowed:
            raise invalid("AttributeName")
        if name in _FIFO_ONLY and not fifo:
            raise invalid(f"{name}: the attribute is only for FIFO topics")
        checked[name] = _checked_value(name, value)
    if checked.get("FifoTopic") == "false":
        del checked["FifoTopic"]  # the default, stored as absent
    if checked.get(PARTITIONS) == "1":
        del checked[PARTITIONS]  # the default too
    return checked


# Attributes that take one of a few values (as given; booleans in any case).
_CHOICES = {
    "SignatureVersion": ("1", "2"),
    "TracingConfig": ("PassThrough", "Active"),
    "FifoThroughputScope": ("Topic", "MessageGroup"),
    REPLICATION: REPLICATION_MODES,
}
_BOOLEANS = frozenset({"FifoTopic", "ContentBasedDeduplication"})


def _checked_value(name: str, value: str) -> str:
    if name in _BOOLEANS:
        if value.lower() not in ("true", "false"):
            raise invalid(
                f"Attributes Reason: {name}: Invalid value [{value}]. Must be true or false."
            )
        return value.lower()
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise invalid(f"{name}: must be {' or '.join(_CHOICES[name])}")
        return value
    if name == PARTITIONS:
        # Kept among the attributes (TopicInfo.partitions reads it), canonical.
        count = integer_value(value)
        if count is None or not PARTITION_COUNT.low <= count <= PARTITION_COUNT.high:
            raise invalid(
                f"{PARTITIONS}: must be an integer from {PARTITION_COUNT.low} to "
                f"{PARTITION_COUNT.high}"
            )
        return str(count)
    if name == "DisplayName" and len(value) > MAX_DISPLAY_NAME:
        raise invalid("DisplayName: must be at most 100 characters")
    if name == "DeliveryPolicy" and value:
        return parse_topic_policy(value).text
    if name in ("Policy", "ArchivePolicy") and value:
        _check_document(name, value)
    return value


def _check_document(name: str, value: str) -> None:
    if len(value.encode()) > MAX_POLICY_BYTES:
        raise invalid(f"{name}: the document is larger than 30 KiB")
    try:
        document = orjson.loads(value)
    except orjson.JSONDecodeError:
        raise invalid(f"{name}: the document is not valid JSON") from None
    if not isinstance(document, dict):
        raise invalid(f"{name}: the document must be a JSON object")


def default_policy(topic: TopicInfo) -> str:
    """The access policy SNS gives a new topic: its owner may do everything with it."""
    return orjson.dumps(
        {
            "Version": "2008-10-17",
            "Id": "__default_policy_ID",
            "Statement": [
                {
                    "Sid": "__default_statement_ID",
                    "Effect": "Allow",
                    "Principal": {"AWS": "*"},
                    "Action": [
                        "SNS:GetTopicAttributes",
                        "SNS:SetTopicAttributes",
                        "SNS:AddPermission",
                        "SNS:RemovePermission",
                        "SNS:DeleteTopic",
                        "SNS:Subscribe",
                        "SNS:ListSubscriptionsByTopic",
                        "SNS:Publish",
                    ],
                    "Resource": topic.arn,
                    "Condition": {"StringEquals": {"AWS:SourceOwner": topic.account_id}},
                }
            ],
        }
    ).decode()
