"""docs/websocket.md matches the code: its example runs as printed, and its table names
every client operation and every server frame."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

from gateway.app import DEFAULT_WS_TOKEN_RECHECK_S
from gateway.ws.frames import OPS, SERVER_FRAMES
from tests.conftest import RunningGateway
from tests.gateway.ws.conftest import NewToken

DOC = Path(__file__).parents[3] / "docs" / "websocket.md"


async def test_the_example_runs_as_printed(
    gateway: RunningGateway, new_token: NewToken, ws_url: str, tmp_path: Path
) -> None:
    [example] = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    gateway.sqs_client().create_queue(QueueName="orders")
    script = tmp_path / "example.py"
    script.write_text(example.replace("ws://127.0.0.1:9324/v1/ws", ws_url))
    result = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(script)],
        env={**os.environ, "TIDEMQ_TOKEN": await new_token()},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "subscribed\nhello\n"


def test_the_doc_names_every_frame_and_the_recheck_interval() -> None:
    text = DOC.read_text()
    for op in OPS:
        assert f"| `{op}` |" in text, op
    for frame in SERVER_FRAMES:
        assert f"`{frame.__struct_config__.tag}`" in text, frame
    assert f"every {DEFAULT_WS_TOKEN_RECHECK_S:g} seconds" in text
