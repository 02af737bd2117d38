from __future__ import annotations

import pytest

from control_plane.errors import InvalidAttributeName, InvalidAttributeValue
from control_plane.queue_attributes import validate, with_defaults


def test_values_are_normalised_and_defaults_filled_in() -> None:
    assert validate({"VisibilityTimeout": " 0045"}) == {"VisibilityTimeout": "45"}
    merged = with_defaults({"VisibilityTimeout": "45"})
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
        validate({name: value})


def test_unknown_names_are_refused() -> None:
    with pytest.raises(InvalidAttributeName, match="Unknown Attribute Colour"):
        validate({"Colour": "blue"})
