from __future__ import annotations

import pytest

from control_plane.errors import InvalidAttributeName, InvalidAttributeValue
from control_plane.queue_attributes import check_combination, validate, with_defaults


def test_values_are_normalised_and_defaults_filled_in() -> None:
    assert validate({"VisibilityTimeout": " 0045"}, fifo=False) == {"VisibilityTimeout": "45"}
    merged = with_defaults({"VisibilityTimeout": "45"}, fifo=False)
    assert merged["VisibilityTimeout"] == "45"
    assert merged["MessageRetentionPeriod"] == "345600"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("VisibilityTimeout", "43201"),
        ("VisibilityTimeout", "-1"),
        ("VisibilityTimeout", "ten"),
        ("VisibilityTimeout", ""),
        ("ReceiveMessageWaitTimeSeconds", "21"),
        ("MaximumMessageSize", "1023"),
        ("MessageRetentionPeriod", "59"),
    ],
)
def test_values_out_of_range_are_refused(name: str, value: str) -> None:
    with pytest.raises(InvalidAttributeValue, match=name):
        validate({name: value}, fifo=False)


def test_unknown_names_are_refused() -> None:
    with pytest.raises(InvalidAttributeName, match="Unknown Attribute Colour"):
        validate({"Colour": "blue"}, fifo=False)


def test_fifo_attributes_belong_to_fifo_queues_only() -> None:
    assert validate({"ContentBasedDeduplication": "true"}, fifo=True) == {
        "ContentBasedDeduplication": "true"
    }
    with pytest.raises(InvalidAttributeName):
        validate({"ContentBasedDeduplication": "true"}, fifo=False)
    with pytest.raises(InvalidAttributeValue):
        validate({"DeduplicationScope": "everywhere"}, fifo=True)
    defaults = with_defaults({}, fifo=True)
    assert (defaults["FifoQueue"], defaults["DeduplicationScope"]) == ("true", "queue")
    assert "FifoQueue" not in with_defaults({}, fifo=False)


def test_per_group_throughput_needs_per_group_deduplication() -> None:
    with pytest.raises(InvalidAttributeValue, match="FifoThroughputLimit"):
        check_combination({"FifoThroughputLimit": "perMessageGroupId"})
    check_combination(
        {"FifoThroughputLimit": "perMessageGroupId", "DeduplicationScope": "messageGroup"}
    )
