"""`sdk_server`: a real `tidemq up` and the credentials an SDK user has for it, the
access key it prints and a bearer token made by `tidemq keys token`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REGION, TidemqUp


@dataclass(frozen=True)
class SdkServer:
    endpoint: str
    access_key_id: str
    secret_access_key: str
    token: str

    def env(self) -> dict[str, str]:
        """The environment an SDK reads its endpoint and credentials from."""
        return {
            "TIDEMQ_ENDPOINT": self.endpoint,
            "TIDEMQ_TOKEN": self.token,
            "AWS_ACCESS_KEY_ID": self.access_key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret_access_key,
            "AWS_DEFAULT_REGION": REGION,
        }


def make_token(data_dir: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIDEMQ_")}
    made = subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "keys", "token", "--data-dir", str(data_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    token = re.search(r"^  token\s+(tqb_\S+)$", made.stdout, re.MULTILINE)
    assert token is not None, made.stdout
    return token.group(1)


@pytest.fixture(scope="module")
def sdk_server(module_tidemq_up: TidemqUp, tmp_path_factory: pytest.TempPathFactory) -> SdkServer:
    """One server for a test module's tests: each names its own queues."""
    data_dir = tmp_path_factory.mktemp("sdk-server")
    up = module_tidemq_up(data_dir=data_dir)
    return SdkServer(
        endpoint=up.endpoint,
        access_key_id=up.banner["access key id"],
        secret_access_key=up.banner["secret access key"],
        token=make_token(data_dir),
    )
