"""The reader's options, parsed once (spark/options.py)."""

from __future__ import annotations

import pytest

from spark.bounds import Bounds
from spark.errors import OptionError
from spark.options import DEFAULT_MAX_SPLIT_BYTES, parse_options


def test_defaults() -> None:
    options = parse_options({"path": "file:///a", "queue": "orders"})

    assert (options.url, options.account_id, options.kind, options.name) == (
        "file:///a", "123456789012", "queue", "orders",
    )  # fmt: skip
    assert options.bounds == Bounds()
    assert options.max_split_bytes == DEFAULT_MAX_SPLIT_BYTES
    assert options.starting_position == "earliest"
    assert options.s3.endpoint_url is None


def test_every_option() -> None:
    options = parse_options(
        {
            "Path": "s3://bucket/prefix",
            "account": "111122223333",
            "topic": "events",
            "stream_id": "00112233aabbccdd",
            "include_deleted": "true",
            "partitions": "0, 2",
            "start_offset": "5",
            "end_offset": "50",
            "start_timestamp_ms": "1000",
            "end_timestamp_ms": "2000",
            "max_split_bytes": "1048576",
            "s3_endpoint_url": "http://127.0.0.1:9000",
            "s3_region": "eu-west-1",
            "s3_access_key_id": "AK",
            "s3_secret_access_key": "SK",
            "s3_path_style": "false",
            "starting_position": "latest",
            "max_segments_per_trigger": "3",
        }
    )

    assert options.kind == "topic"
    assert options.include_deleted
    assert options.bounds == Bounds(frozenset({0, 2}), 0, None, 5, 50, 1000, 2000)
    assert options.s3.endpoint_url == "http://127.0.0.1:9000"
    assert options.s3.secret_access_key == "SK"
    assert not options.s3.path_style
    assert options.max_segments_per_trigger == 3
    assert "SK" not in repr(options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"queue": "q"}, 'option "path" is required'),
        ({"path": "/a"}, 'option "queue"'),
        ({"path": "/a", "queue": "q", "topic": "t"}, "not both"),
        ({"path": "/a", "queue": "q", "start_offset": "-1"}, "start_offset must be at least 0"),
        ({"path": "/a", "queue": "q", "end_offset": "ten"}, "end_offset must be an integer"),
        ({"path": "/a", "queue": "q", "partitions": "-1"}, "numbered from 0"),
        (
            {"path": "/a", "queue": "q", "include_deleted": "maybe"},
            'include_deleted must be "true"',
        ),
        ({"path": "/a", "queue": "q", "starting_position": "now"}, "starting_position must be"),
        ({"path": "/a", "queue": "q", "startoffset": "1"}, "unknown option"),
    ],
)
def test_bad_options_name_what_is_wrong(options: dict[str, str], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        parse_options(options)
