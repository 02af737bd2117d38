"""The SDKs' generated code is what sdk/generate.py makes of the committed documents:
regenerated into a temporary directory, it must equal what is committed, file for file."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[2]
GENERATED = (
    "sdk/python/tidemq_client/rest",
    "sdk/python/tidemq_client/frames",
    "sdk/typescript/src/generated",
)


def _differences(left: Path, right: Path, under: str = "") -> list[str]:
    """Paths (relative) that are in one tree only, or differ."""
    comparison = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found = [f"{under}{name}" for name in comparison.left_only + comparison.right_only]
    found += [
        f"{under}{name}"
        for name in comparison.common_files
        if (left / name).read_bytes() != (right / name).read_bytes()
    ]
    for name in comparison.common_dirs:
        found += _differences(left / name, right / name, f"{under}{name}/")
    return found


def test_the_committed_sdk_code_is_what_the_documents_generate(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "sdk" / "generate.py"), "--into", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    stale = [
        f"{path}/{difference}"
        for path in GENERATED
        for difference in _differences(REPO / path, tmp_path / path)
    ]
    assert not stale, (
        "the generated SDK code differs from what sdk/openapi.json and sdk/asyncapi.json "
        f"generate; run `make sdk` and commit the result: {', '.join(stale)}"
    )
