"""SNS's catalogue actions through boto3's `sns` client: topics, subscriptions, tags,
permissions, paging and SNS's errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import TEST_ACCOUNT_ID, RunningGateway

OTHER_ACCOUNT = "111122223333"


@pytest.fixture
def sns(gateway: RunningGateway) -> Any:
    return gateway.sns_client()


def _error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = excinfo.value.response
    return (
        response["Error"]["Code"],
        response["Error"]["Message"],
        response["ResponseMetadata"]["HTTPStatusCode"],
    )


def test_create_topic_is_idempotent_and_names_the_topic_by_arn(sns: Any) -> None:
    arn = sns.create_topic(Name="news")["TopicArn"]
    assert arn == f"arn:aws:sns:us-east-1:{TEST_ACCOUNT_ID}:news"
    assert sns.create_topic(Name="news")["TopicArn"] == arn
    attributes = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert attributes["TopicArn"] == arn
    assert attributes["Owner"] == TEST_ACCOUNT_ID
    assert attributes["SubscriptionsConfirmed"] == "0"
    assert json.loads(attributes["Policy"])["Statement"][0]["Resource"] == arn


def test_topic_attributes_are_set_and_read_back(sns: Any) -> None:
    arn = sns.create_topic(Name="shown", Attributes={"DisplayName": "Shown"})["TopicArn"]
    sns.set_topic_attributes(TopicArn=arn, AttributeName="DisplayName", AttributeValue="Renamed")
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["DisplayName"] == "Renamed"
    with pytest.raises(ClientError) as excinfo:
        sns.create_topic(Name="shown", Attributes={"DisplayName": "Other"})
    assert _error(excinfo)[0] == "InvalidParameter"


def test_fifo_topics_need_the_suffix_and_the_attribute(sns: Any) -> None:
    arn = sns.create_topic(Name="t.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["FifoTopic"] == "true"
    with pytest.raises(ClientError) as excinfo:
        sns.create_topic(Name="u.fifo")
    assert _error(excinfo) == ("InvalidParameter", "Invalid parameter: Topic Name", 400)
    with pytest.raises(ClientError) as excinfo:
        sns.create_topic(Name="plain", Attributes={"FifoTopic": "true"})
    assert _error(excinfo)[0] == "InvalidParameter"


@pytest.mark.parametrize("name", ["", "has space", "x" * 257, "dots.in.name"])
def test_bad_topic_names_are_refused(sns: Any, name: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        sns.create_topic(Name=name)
    code, _, status = _error(excinfo)
    assert (code, status) in {("InvalidParameter", 400), ("ValidationError", 400)}


def test_a_missing_topic_is_not_found(sns: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        sns.get_topic_attributes(TopicArn=f"arn:aws:sns:us-east-1:{TEST_ACCOUNT_ID}:nope")
    assert _error(excinfo) == ("NotFound", "Topic does not exist", 404)
    sns.delete_topic(TopicArn=f"arn:aws:sns:us-east-1:{TEST_ACCOUNT_ID}:nope")


def test_list_topics_pages_by_one_hundred(sns: Any) -> None:
    names = [f"page-{i:03d}" for i in range(105)]
    for name in names:
        sns.create_topic(Name=name)
    first = sns.list_topics()
    assert len(first["Topics"]) == 100
    second = sns.list_topics(NextToken=first["NextToken"])
    assert "NextToken" not in second
    listed = [t["TopicArn"].rsplit(":", 1)[1] for t in first["Topics"] + second["Topics"]]
    assert listed == names


def test_deleting_a_topic_deletes_its_subscriptions(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name="gone")["TopicArn"]
    queue_arn = f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:somewhere"
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn)
    assert len(sns.list_subscriptions()["Subscriptions"]) == 1
    sns.delete_topic(TopicArn=arn)
    assert sns.list_subscriptions()["Subscriptions"] == []
    assert sns.list_topics()["Topics"] == []


def test_subscriptions_are_listed_read_and_changed(sns: Any) -> None:
    arn = sns.create_topic(Name="subs")["TopicArn"]
    queue_arn = f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:q1"
    sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn)["SubscriptionArn"]
    assert sub.startswith(arn + ":")
    # The same endpoint again: the same subscription.
    assert sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn)["SubscriptionArn"] == sub
    [listed] = sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"]
    assert listed == {
        "SubscriptionArn": sub,
        "Owner": TEST_ACCOUNT_ID,
        "Protocol": "sqs",
        "Endpoint": queue_arn,
        "TopicArn": arn,
    }
    policy = json.dumps({"kind": ["a", "b"]})
    sns.set_subscription_attributes(
        SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=policy
    )
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert attributes["FilterPolicy"] == policy
    assert attributes["FilterPolicyScope"] == "MessageAttributes"
    assert attributes["PendingConfirmation"] == "false"
    assert attributes["RawMessageDelivery"] == "false"
    with pytest.raises(ClientError) as excinfo:
        sns.set_subscription_attributes(
            SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue='{"a": "b"}'
        )
    assert _error(excinfo)[0] == "InvalidParameter"
    sns.unsubscribe(SubscriptionArn=sub)
    assert sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"] == []
    with pytest.raises(ClientError) as excinfo:
        sns.get_subscription_attributes(SubscriptionArn=sub)
    assert _error(excinfo) == ("NotFound", "Subscription does not exist", 404)


@pytest.mark.parametrize(
    ("protocol", "endpoint"),
    [("email", "someone@example.com"), ("sms", "+15555550100"), ("application", "arn:x")],
)
def test_protocols_out_of_scope_are_refused_with_a_reason(
    sns: Any, protocol: str, endpoint: str
) -> None:
    arn = sns.create_topic(Name="scoped")["TopicArn"]
    with pytest.raises(ClientError) as excinfo:
        sns.subscribe(TopicArn=arn, Protocol=protocol, Endpoint=endpoint)
    code, message, status = _error(excinfo)
    assert (code, status) == ("InvalidParameter", 400)
    assert "TideMQ does not deliver to" in message


def test_a_standard_topic_cannot_feed_a_fifo_queue(sns: Any) -> None:
    arn = sns.create_topic(Name="std")["TopicArn"]
    with pytest.raises(ClientError) as excinfo:
        sns.subscribe(
            TopicArn=arn,
            Protocol="sqs",
            Endpoint=f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:q.fifo",
        )
    assert _error(excinfo)[0] == "InvalidParameter"


def test_tags_are_added_listed_and_removed(sns: Any) -> None:
    arn = sns.create_topic(Name="tagged", Tags=[{"Key": "team", "Value": "a"}])["TopicArn"]
    sns.tag_resource(ResourceArn=arn, Tags=[{"Key": "env", "Value": "prod"}])
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == [
        {"Key": "env", "Value": "prod"},
        {"Key": "team", "Value": "a"},
    ]
    sns.untag_resource(ResourceArn=arn, TagKeys=["team"])
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "prod"}]
    with pytest.raises(ClientError) as excinfo:
        sns.tag_resource(ResourceArn=arn, Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(50)])
    assert _error(excinfo)[0] == "TagLimitExceeded"


def test_another_account_needs_a_permission(gateway: RunningGateway, sns: Any) -> None:
    arn = sns.create_topic(Name="shared")["TopicArn"]
    issued = gateway.create_key(OTHER_ACCOUNT)
    other = gateway.sns_client(
        access_key_id=issued.key.access_key_id, secret_access_key=issued.secret_access_key
    )
    with pytest.raises(ClientError) as excinfo:
        other.publish(TopicArn=arn, Message="hello")
    assert _error(excinfo)[0:3:2] == ("AuthorizationError", 403)
    sns.add_permission(
        TopicArn=arn, Label="publishers", AWSAccountId=[OTHER_ACCOUNT], ActionName=["Publish"]
    )
    assert other.publish(TopicArn=arn, Message="hello")["MessageId"]
    with pytest.raises(ClientError) as excinfo:
        other.get_topic_attributes(TopicArn=arn)
    assert _error(excinfo)[0] == "AuthorizationError"
    sns.remove_permission(TopicArn=arn, Label="publishers")
    with pytest.raises(ClientError):
        other.publish(TopicArn=arn, Message="hello")
    assert other.list_topics()["Topics"] == []


def test_publish_errors_are_snss(sns: Any) -> None:
    arn = sns.create_topic(Name="strict")["TopicArn"]
    fifo = sns.create_topic(Name="strict.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    cases = [
        (dict(TopicArn=arn, Message="x" * (256 * 1024 + 1)), "Invalid parameter: Message too long"),
        (dict(TopicArn=arn, Message="x", Subject="a\nb"), "Invalid parameter: Subject"),
        (
            dict(TopicArn=arn, Message="{}", MessageStructure="json"),
            "Invalid parameter: Message Structure - No default entry in JSON message body",
        ),
        (
            dict(TopicArn=fifo, Message="x"),
            "Invalid parameter: The MessageGroupId parameter is required for FIFO topics",
        ),
        (
            dict(TopicArn=fifo, Message="x", MessageGroupId="g"),
            "Invalid parameter: The topic should either have ContentBasedDeduplication enabled "
            "or MessageDeduplicationId provided explicitly",
        ),
    ]
    for params, message in cases:
        with pytest.raises(ClientError) as excinfo:
            sns.publish(**params)
        assert _error(excinfo) == ("InvalidParameter", message, 400), params
