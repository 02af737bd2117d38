"""The README's example runs as printed against `tidemq up`, with the variables it prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import TidemqUp

README = Path(__file__).parent.parent / "README.md"


def test_the_boto3_example_works_as_printed(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    [example] = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    up = tidemq_up()
    [export] = [line for line in up.output[0].splitlines() if "export AWS_" in line]
    printed_env = dict(item.split("=", 1) for item in export.split()[1:])
    (tmp_path / "example.py").write_text(example.replace("http://127.0.0.1:9324", up.endpoint))
    result = subprocess.run(
        [sys.executable, str(tmp_path / "example.py")],
        env={**os.environ, "AWS_CONFIG_FILE": "/dev/null", **printed_env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello\n"
