"""A smoke test through the real AWS CLI, configured the way `tidemq up` tells users to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import TidemqUp


def test_the_aws_cli_sends_receives_and_deletes(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    up = tidemq_up()
    cli = up.aws_cli(tmp_path)

    def aws(*args: str) -> Any:
        return cli("sqs", *args)

    url = aws("create-queue", "--queue-name", "from-cli")["QueueUrl"]
    assert aws("list-queues")["QueueUrls"] == [url]
    sent = aws("send-message", "--queue-url", url, "--message-body", "hello from the CLI")
    [message] = aws("receive-message", "--queue-url", url, "--wait-time-seconds", "5")["Messages"]
    assert (message["MessageId"], message["Body"]) == (sent["MessageId"], "hello from the CLI")
    aws("delete-message", "--queue-url", url, "--receipt-handle", message["ReceiptHandle"])
    attributes = aws("get-queue-attributes", "--queue-url", url, "--attribute-names", "All")
    assert attributes["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "0"
