"""`tidemq keys token|tokens|revoke-token` against a real `tidemq up`, as a user runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

from tests.conftest import TidemqUp

OTHER_ACCOUNT = "111122223333"


def _keys(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIDEMQ_")}
    return subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "keys", *args, "--data-dir", str(data_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_token_is_made_used_listed_and_revoked(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    data_dir = tmp_path / "up"
    up = tidemq_up(data_dir=data_dir)

    made = _keys(data_dir, "token", "--account", OTHER_ACCOUNT, "--ttl-days", "2")
    assert made.returncode == 0, made.stderr
    token = re.search(r"^  token\s+(tqb_\S+)$", made.stdout, re.MULTILINE)
    token_id = re.search(r"^Created bearer token ([0-9a-f]{16}) ", made.stdout, re.MULTILINE)
    assert token is not None
    assert token_id is not None

    headers = {"Authorization": f"Bearer {token.group(1)}"}
    created = httpx.post(f"{up.endpoint}/v1/queues", json={"name": "mine"}, headers=headers)
    assert created.status_code == 201, created.text
    assert created.json()["url"].endswith(f"/{OTHER_ACCOUNT}/mine")
    assert up.sqs_client().list_queues().get("QueueUrls", []) == []  # the admin's account

    listed = _keys(data_dir, "tokens")
    assert listed.returncode == 0, listed.stderr
    assert token_id.group(1) in listed.stdout
    assert OTHER_ACCOUNT in listed.stdout
    assert token.group(1) not in listed.stdout

    revoked = _keys(data_dir, "revoke-token", token_id.group(1))
    assert revoked.returncode == 0, revoked.stderr
    refused = httpx.get(f"{up.endpoint}/v1/queues", headers=headers)
    assert refused.status_code == 401
    again = _keys(data_dir, "revoke-token", token_id.group(1))
    assert again.returncode == 1
    assert "no such bearer token" in again.stderr
    assert _keys(data_dir, "tokens").stdout.strip() == "No bearer tokens."


def test_token_commands_need_a_running_tidemq_up(tmp_path: Path) -> None:
    result = _keys(tmp_path / "nothing", "token")
    assert result.returncode == 2
    assert "tidemq up" in result.stderr
