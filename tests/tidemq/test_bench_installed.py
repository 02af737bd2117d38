"""`tidemq bench` from the installed wheel, with no source checkout in sight.

The wheel is built from this repository and installed into a folder of its own
(`pip install --target`); every command then runs under `python -S -P` from a folder
outside the repository, with PYTHONPATH naming only that folder and the interpreter's
site-packages (for the third-party packages). -S skips the site-packages' .pth files, so
the editable install of the checkout is not on the path; -P (and PYTHONSAFEPATH for the
children) keeps the current folder off it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tidemq.redis_server import free_port

REPO = Path(__file__).resolve().parents[2]
BENCH_MODULES = {
    "ceiling",
    "cli",
    "disk_probe",
    "e2e",
    "http_client",
    "load",
    "redis_peer",
    "report",
    "runs",
    "servers",
    "workloads",
    "ws",
}
TIMEOUT_S = 300
# Imports every module of tidemq.bench and says where each came from, and whether the
# checkout's loadtests/ can be imported.
IMPORT_ALL = """
import importlib, importlib.util, json, pkgutil
import tidemq.bench
names = [m.name for m in pkgutil.iter_modules(tidemq.bench.__path__) if m.name != "__main__"]
files = {name: importlib.import_module("tidemq.bench." + name).__file__ for name in names}
files["tidemq.cli"] = importlib.import_module("tidemq.cli").__file__
print(json.dumps({"files": files, "loadtests": importlib.util.find_spec("loadtests") is not None}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, installed alone into a folder."""
    # hatchling comes with the test extra; the build below needs it in this interpreter.
    wheels = tmp_path_factory.mktemp("wheel")
    _check(_pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(REPO)), wheels)
    (wheel,) = wheels.glob("tidemq-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {f"tidemq/bench/{module}.py" for module in BENCH_MODULES} <= names
    assert "tidemq/bench/__main__.py" in names
    target = tmp_path_factory.mktemp("installed")
    _check(_pip("install", "--no-deps", "--target", str(target), str(wheel)), wheels)
    return target


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working folder outside the repository."""
    assert not tmp_path.resolve().is_relative_to(REPO)
    return tmp_path


def _env(installed: Path) -> dict[str, str]:
    site_packages = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TIDEMQ_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(installed), *site_packages])
    env["PYTHONSAFEPATH"] = "1"
    return env


def _pip(*args: str) -> list[str]:
    return [sys.executable, "-m", "pip", "--quiet", *args]


def _python(*args: str) -> list[str]:
    return [sys.executable, "-S", "-P", *args]


def _check(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}{done.stderr}"
    return done.stdout


@pytest.mark.slow
def test_every_bench_module_imports_from_the_installed_copy(installed: Path, outside: Path) -> None:
    out = _check(_python("-c", IMPORT_ALL), outside, _env(installed))
    found = json.loads(out)
    assert not found["loadtests"], "the checkout is on the path: the test proves nothing"
    assert set(found["files"]) == BENCH_MODULES | {"tidemq.cli"}
    for name, file in found["files"].items():
        assert Path(file).is_relative_to(installed), (name, file)


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [["bin/tidemq", "bench", "--help"], ["-m", "tidemq.bench", "--help"]],
    ids=["tidemq-bench", "python-m-tidemq.bench"],
)
def test_bench_help_lists_its_flags_from_the_installed_copy(
    installed: Path, outside: Path, command: list[str]
) -> None:
    if command[0] == "bin/tidemq":  # the entry point script pip wrote
        command = [str(installed / command[0]), *command[1:]]
    out = _check(_python(*command), outside, _env(installed))
    for flag in ("--endpoint", "--workloads", "--rate", "--messages", "--json"):
        assert flag in out, out


@pytest.mark.slow
def test_the_everyday_commands_run_on_the_sdk_the_wheel_carries(
    installed: Path, outside: Path
) -> None:
    where = "import json, tidemq_client; print(json.dumps(tidemq_client.__file__))"
    sdk_file = json.loads(_check(_python("-c", where), outside, _env(installed)))
    assert Path(sdk_file).is_relative_to(installed), sdk_file
    env = {**_env(installed), "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "x"}
    endpoint = f"http://127.0.0.1:{free_port()}"
    listed = subprocess.run(
        _python(str(installed / "bin/tidemq"), "queue", "list", "--endpoint", endpoint),
        cwd=outside,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    # Exit code 3: the command got as far as asking the endpoint, and nothing answered.
    assert listed.returncode == 3, listed.stderr
    assert f"cannot connect to TideMQ at {endpoint}" in listed.stderr


@pytest.mark.slow
def test_the_ceiling_app_serves_from_the_installed_copy(installed: Path, outside: Path) -> None:
    port = free_port()
    log_path = outside / "ceiling.log"
    with (
        log_path.open("wb") as log,
        subprocess.Popen(
            _python("-m", "tidemq.bench.ceiling", "--port", str(port)),
            cwd=outside,
            env=_env(installed),
            stdout=log,
            stderr=subprocess.STDOUT,
        ) as server,
    ):
        try:
            deadline = time.monotonic() + 60
            while "ceiling ready" not in log_path.read_text():
                assert server.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.05)
            request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/queues/q", b"{}")
            with urllib.request.urlopen(request, timeout=10) as response:
                assert response.read() == b"{}"
        finally:
            server.terminate()
            server.wait(30)


@pytest.mark.slow
def test_a_tiny_bench_runs_from_the_installed_copy(installed: Path, outside: Path) -> None:
    """Its children (`tidemq up`, the ceiling) start from the installed copy too."""
    out = outside / "bench.json"
    _check(
        _python(
            str(installed / "bin" / "tidemq"),
            "bench",
            "--workloads", "publish_batch_rest",
            "--messages", "200",
            "--seconds", "2",
            "--warmup", "0",
            "--connections", "2",
            "--batch-size", "20",
            "--dir", str(outside),
            "--json", str(out),
        ),
        outside,
        _env(installed),
    )  # fmt: skip
    (row,) = json.loads(out.read_text())
    assert row["workload"] == "publish_batch_rest"
    assert row["msgs_per_s"] > 0
    assert row["ceiling_msgs_per_s"] > 0
