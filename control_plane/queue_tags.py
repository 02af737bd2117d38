"""Queue tags: SQS's rules for them, and its words for what breaks one.

At most 50 tags on a queue (TagQueue counts the ones the queue has, in its script);
keys of 1-128 Unicode letters, digits, whitespace and `_ . : / = + - @`, not starting
"aws:"; values of at most 256 characters of SQS's set (ListQueueTags returns them in
XML). docs/sqs-compatibility.md says which words are AWS's and which TideMQ's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from control_plane.errors import InvalidParameterValue
from control_plane.text_rules import describe_char, forbidden_char

MAX_TAGS = 50
MAX_KEY_CHARS = 128
MAX_VALUE_CHARS = 256
_KEY = re.compile(r"[\w\s.:/=+@-]*")
_KEY_LENGTH = "Tag keys must be between 1 and 128 characters in length."


def check_tags(queue_name: str, tags: Mapping[str, str]) -> None:
    """Tags as CreateQueue and TagQueue take them."""
    if len(tags) > MAX_TAGS:
        raise too_many_tags(queue_name)
    for key, value in tags.items():
        _check_key(key)
        if len(value) > MAX_VALUE_CHARS:
            raise InvalidParameterValue(
                "Tag values must be between 0 and 256 characters in length."
            )
        bad = forbidden_char(value)
        if bad is not None:
            raise InvalidParameterValue(
                f"The tag value {value!r} is invalid: character {describe_char(bad)} "
                "is not allowed."
            )


def check_tag_keys(keys: Sequence[str]) -> None:
    """UntagQueue's keys: at least one (none is, in SQS's words, a key too short), each
    as TagQueue takes it."""
    if not keys:
        raise InvalidParameterValue(_KEY_LENGTH)
    for key in keys:
        _check_key(key)


def too_many_tags(queue_name: str) -> InvalidParameterValue:
    return InvalidParameterValue(f"Too many tags added for queue {queue_name}.")


def _check_key(key: str) -> None:
    if not 1 <= len(key) <= MAX_KEY_CHARS:
        raise InvalidParameterValue(_KEY_LENGTH)
    # \s takes a few control characters XML does not: those are refused too.
    if not _KEY.fullmatch(key) or forbidden_char(key) is not None:
        raise InvalidParameterValue(
            "Tag keys may only contain unicode letters, digits, whitespace, or one of these "
            "symbols: _ . : / = + - @"
        )
    if key.lower().startswith("aws:"):
        raise InvalidParameterValue('Tag keys cannot start with the reserved prefix "aws:".')
