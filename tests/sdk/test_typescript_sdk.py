"""The TypeScript SDK (sdk/typescript): `tsc --noEmit` passes, and against a real
`tidemq up` its own tests (`npm test`: Node's test runner) pass and the README's example
runs with `node`. Nothing here reaches the network: `make` installed the packages
(`npm ci`) before."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.conftest import TEST_ACCOUNT_ID
from tests.sdk.conftest import SdkServer

TYPESCRIPT = Path(__file__).parents[2] / "sdk" / "typescript"
README = Path(__file__).parents[2] / "sdk" / "README.md"


def _run(command: list[str], env: dict[str, str] | None = None, cwd: Path = TYPESCRIPT) -> str:
    assert (TYPESCRIPT / "node_modules" / ".package-lock.json").exists(), (
        "sdk/typescript/node_modules is missing: run `make sdk` (or `npm ci` in sdk/typescript)"
    )
    result = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_it_type_checks() -> None:
    _run(["npm", "run", "--silent", "typecheck"])


def test_its_tests_and_the_readme_example_pass_against_tidemq_up(
    sdk_server: SdkServer, tmp_path: Path
) -> None:
    output = _run(["npm", "test"], env=sdk_server.env())
    passed = re.search(r"^# pass (\d+)$", output, re.MULTILINE)
    assert passed is not None, output
    assert int(passed.group(1)) >= 7, output
    assert re.search(r"^# fail 0$", output, re.MULTILINE), output

    # The example imports the package by its name, as a user's code does.
    [example] = re.findall(r"```js\n(.*?)```", README.read_text(), re.DOTALL)
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "tidemq-client").symlink_to(TYPESCRIPT)
    (tmp_path / "example.mjs").write_text(example)
    printed = _run(["node", "example.mjs"], env=sdk_server.env(), cwd=tmp_path)
    assert printed == (
        f"{sdk_server.endpoint}/{TEST_ACCOUNT_ID}/orders\nhello\nworld\nQueueDoesNotExist\npushed\n"
    )
