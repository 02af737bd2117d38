"""A smoke test through the real AWS CLI, configured the way `tidemq up` tells users to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import TidemqUp

AWS = str(Path(sys.executable).with_name("aws"))


def test_the_aws_cli_sends_receives_and_deletes(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    up = tidemq_up()
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": up.banner["access key id"],
        "AWS_SECRET_ACCESS_KEY": up.banner["secret access key"],
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
    }

    def aws(*args: str) -> Any:
        result = subprocess.run(
            [AWS, "--endpoint-url", up.endpoint, "--output", "json", "sqs", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout) if result.stdout.strip() else {}

    url = aws("create-queue", "--queue-name", "from-cli")["QueueUrl"]
    assert aws("list-queues")["QueueUrls"] == [url]
    sent = aws("send-message", "--queue-url", url, "--message-body", "hello from the CLI")
    [message] = aws("receive-message", "--queue-url", url, "--wait-time-seconds", "5")["Messages"]
    assert (message["MessageId"], message["Body"]) == (sent["MessageId"], "hello from the CLI")
    aws("delete-message", "--queue-url", url, "--receipt-handle", message["ReceiptHandle"])
    attributes = aws("get-queue-attributes", "--queue-url", url, "--attribute-names", "All")
    assert attributes["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "0"
