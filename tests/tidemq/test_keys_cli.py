"""`tidemq keys` against a real `tidemq up`, run as commands the way a user runs them."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from tests.conftest import TidemqUp, sqs_client

IMPORTED_ID = "AKIAIMPORTEDEXAMPLE1"
IMPORTED_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYIMPORTEDKEY"
OTHER_ACCOUNT = "111122223333"


def _keys(data_dir: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIDEMQ_")}
    return subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "keys", *args, "--data-dir", str(data_dir)],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_an_imported_key_signs_lists_and_is_revoked(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    data_dir = tmp_path / "up"
    up = tidemq_up(data_dir=data_dir)
    assert up.banner["account id"] == "123456789012"
    assert (data_dir / "master.key").stat().st_mode & 0o777 == 0o600

    created = _keys(
        data_dir,
        "create",
        "--id",
        IMPORTED_ID,
        "--secret",
        IMPORTED_SECRET,
        "--account",
        OTHER_ACCOUNT,
    )
    assert created.returncode == 0, created.stderr
    assert IMPORTED_ID in created.stdout
    assert IMPORTED_SECRET in created.stdout

    imported = sqs_client(up.endpoint, access_key_id=IMPORTED_ID, secret_access_key=IMPORTED_SECRET)
    url = imported.create_queue(QueueName="imported")["QueueUrl"]
    assert url.endswith(f"/{OTHER_ACCOUNT}/imported")
    assert up.sqs_client().list_queues().get("QueueUrls", []) == []  # the admin's: another

    listed = _keys(data_dir, "list")
    assert listed.returncode == 0, listed.stderr
    fingerprint = hashlib.sha256(IMPORTED_SECRET.encode()).hexdigest()[:16]
    [row] = [line for line in listed.stdout.splitlines() if line.startswith(IMPORTED_ID)]
    assert OTHER_ACCOUNT in row
    assert fingerprint in row
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", row)
    [admin_row] = [
        line for line in listed.stdout.splitlines() if line.startswith(up.banner["access key id"])
    ]
    assert "123456789012" in admin_row
    assert "admin" in admin_row
    assert IMPORTED_SECRET not in listed.stdout
    assert up.banner["secret access key"] not in listed.stdout
    only_other = _keys(data_dir, "list", "--account", OTHER_ACCOUNT)
    assert [line.split()[0] for line in only_other.stdout.splitlines()[1:]] == [IMPORTED_ID]

    revoked = _keys(data_dir, "revoke", IMPORTED_ID)
    assert revoked.returncode == 0, revoked.stderr
    with pytest.raises(ClientError) as caught:
        imported.list_queues()
    assert caught.value.response["Error"]["Code"] == "InvalidClientTokenId"
    assert IMPORTED_ID not in _keys(data_dir, "list").stdout

    again = _keys(data_dir, "revoke", IMPORTED_ID)
    assert again.returncode == 1
    assert "no access key" in again.stderr

    from_stdin = _keys(data_dir, "create", "--id", "FROMSTDIN", "--secret", "-", stdin="s" * 40)
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert sqs_client(
        up.endpoint, access_key_id="FROMSTDIN", secret_access_key="s" * 40
    ).list_queues()

    taken = _keys(data_dir, "create", "--id", up.banner["access key id"], "--secret", "x" * 40)
    assert taken.returncode == 1
    assert "already exists" in taken.stderr

    assert up.stop() == 0
    stopped = _keys(data_dir, "list")
    assert stopped.returncode == 2
    assert "no running `tidemq up`" in stopped.stderr
    assert f"tidemq up --data-dir {data_dir}" in stopped.stderr


def test_a_generated_key_is_printed_once_and_works(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    data_dir = tmp_path / "up"
    up = tidemq_up(data_dir=data_dir)
    up.sqs_client().create_queue(QueueName="shared")

    created = _keys(data_dir, "create")
    assert created.returncode == 0, created.stderr
    key_id = re.search(r"access key id\s+(\S+)", created.stdout)
    secret = re.search(r"secret access key\s+(\S+)", created.stdout)
    assert key_id
    assert secret
    assert re.fullmatch(r"TQ[A-Z2-7]{18}", key_id.group(1))
    assert len(secret.group(1)) == 40

    client = sqs_client(
        up.endpoint, access_key_id=key_id.group(1), secret_access_key=secret.group(1)
    )
    [url] = client.list_queues()["QueueUrls"]  # the default account: the admin's queues
    assert url.endswith("/123456789012/shared")
    assert secret.group(1) not in _keys(data_dir, "list").stdout


def test_without_a_running_tidemq_up_it_says_to_start_one(tmp_path: Path) -> None:
    result = _keys(tmp_path / "never-started", "list")
    assert result.returncode == 2
    assert "Start `tidemq up` first" in result.stderr
    assert "Traceback" not in result.stderr
