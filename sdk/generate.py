"""Regenerates the SDKs' generated code from sdk/openapi.json and sdk/asyncapi.json.

    python sdk/generate.py [--into DIR]

writes, under DIR (default: this repository), replacing what was there:

    sdk/python/tidemq_client/rest/          openapi-python-client, from openapi.json
    sdk/python/tidemq_client/frames/        openapi-python-client, from asyncapi.json's schemas
    sdk/typescript/src/generated/openapi.ts openapi-typescript, from openapi.json
    sdk/typescript/src/generated/frames.ts  openapi-typescript, from asyncapi.json's schemas

Everything else in sdk/python and sdk/typescript is written by hand. `make sdk` runs this
after `tidemq openapi` and `tidemq asyncapi`; tests/sdk/test_generated_code.py runs it
into a temporary directory and fails when the result differs from what is committed.

Offline and reproducible: both generators are pinned (openapi-python-client and the ruff
that formats its output in pyproject.toml's `sdk` extra, run from this interpreter's
environment; openapi-typescript in sdk/typescript/package-lock.json, installed by
`npm ci`), and neither reads anything but the documents.

The AsyncAPI document's frame schemas are JSON Schema, as OpenAPI 3.1's are: they are
handed to the same generators inside an otherwise empty OpenAPI document, so the
WebSocket frames get the same kind of types as the REST API's bodies.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SDK = Path(__file__).resolve().parent
REPO = SDK.parent
PYTHON_PACKAGE = Path("sdk/python/tidemq_client")
TYPESCRIPT_GENERATED = Path("sdk/typescript/src/generated")
# Every path this script writes, relative to the repository's root.
GENERATED = (
    PYTHON_PACKAGE / "rest",
    PYTHON_PACKAGE / "frames",
    TYPESCRIPT_GENERATED,
)
OPENAPI_TYPESCRIPT = SDK / "typescript/node_modules/openapi-typescript/bin/cli.js"

# openapi-python-client's settings. The post hooks run ruff with --isolated so that the
# output does not depend on which ruff configuration lies above the output directory (the
# stale-code test generates into a temporary one).
PYTHON_GENERATOR_CONFIG = {
    "literal_enums": True,
    # A model's from_dict names its result after the class: the `error` frame's would
    # shadow its own `error` field.
    "class_overrides": {"Error": {"class_name": "ErrorFrame", "module_name": "error_frame"}},
    "post_hooks": [
        "ruff check . --isolated --no-cache --fix-only --extend-select=I",
        "ruff format . --isolated --no-cache",
    ],
}
FRAMES_INIT = '''"""The WebSocket API's frames, generated from sdk/asyncapi.json's schemas:
`Subscribe`, `Deliver`, `Settled`, ... (models/). tidemq_client.websocket uses them."""
'''


def frames_document(asyncapi: dict[str, object]) -> dict[str, object]:
    """An OpenAPI 3.1 document with no paths holding the AsyncAPI document's schemas."""
    components = asyncapi["components"]
    info = asyncapi["info"]
    assert isinstance(components, dict)
    assert isinstance(info, dict)
    return {
        "openapi": "3.1.0",
        "info": {"title": "TideMQ WebSocket frames", "version": info["version"]},
        "paths": {},
        "components": {"schemas": components["schemas"]},
    }


def generate(into: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="tidemq-sdk-") as scratch_name:
        scratch = Path(scratch_name)
        frames = scratch / "frames.json"
        asyncapi = json.loads((SDK / "asyncapi.json").read_bytes())
        frames.write_text(json.dumps(frames_document(asyncapi), indent=1) + "\n")
        config = scratch / "openapi-python-client.json"
        config.write_text(json.dumps(PYTHON_GENERATOR_CONFIG))

        python_out = into / PYTHON_PACKAGE
        _python_client(SDK / "openapi.json", python_out / "rest", config)
        _type_exit_arguments(python_out / "rest" / "client.py")
        _python_client(frames, python_out / "frames", config)
        _keep_models_only(python_out / "frames")

        typescript_out = into / TYPESCRIPT_GENERATED
        _replace_dir(typescript_out)
        _typescript_types(SDK / "openapi.json", typescript_out / "openapi.ts")
        _typescript_types(frames, typescript_out / "frames.ts")


def _python_client(document: Path, output: Path, config: Path) -> None:
    # Made anew: the generator's --overwrite keeps files it no longer writes.
    if output.exists():
        shutil.rmtree(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    # The post hooks find `ruff` on PATH: the one installed beside this interpreter.
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    _run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(document),
            "--config",
            str(config),
            "--meta",
            "none",
            "--output-path",
            str(output),
            "--fail-on-warning",
        ],
        env=env,
    )


# The generated client's context-manager exits hand `*args: object` on to httpx's typed
# __exit__ / __aexit__, which mypy --strict refuses; they are passed through untouched.
_UNTYPED_EXIT = "*args: object, **kwargs: Any"
_EXIT_METHODS = 4  # __exit__ and __aexit__ of Client and AuthenticatedClient


def _type_exit_arguments(client_module: Path) -> None:
    source = client_module.read_text()
    if source.count(_UNTYPED_EXIT) != _EXIT_METHODS:
        raise SystemExit(
            f"{client_module}: expected {_EXIT_METHODS} x `{_UNTYPED_EXIT}` from the pinned "
            "openapi-python-client; the generator changed, review _type_exit_arguments"
        )
    client_module.write_text(source.replace(_UNTYPED_EXIT, "*args: Any, **kwargs: Any"))


def _keep_models_only(package: Path) -> None:
    """A document with no paths still gets an HTTP client and an `api` package: frames
    travel over a WebSocket, so only the models (and the types they use) are kept."""
    shutil.rmtree(package / "api")
    (package / "client.py").unlink()
    (package / "errors.py").unlink()
    (package / "__init__.py").write_text(FRAMES_INIT)


def _typescript_types(document: Path, output: Path) -> None:
    if not OPENAPI_TYPESCRIPT.exists():
        raise SystemExit(
            f"{OPENAPI_TYPESCRIPT} is missing: run `npm ci` in sdk/typescript (`make sdk` does)"
        )
    _run(
        [
            "node",
            str(OPENAPI_TYPESCRIPT),
            str(document),
            # Fields with a default are optional: the server fills them in when absent.
            "--default-non-nullable",
            "false",
            "--output",
            str(output),
        ]
    )


def _replace_dir(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


def _run(command: list[str], env: dict[str, str] | None = None) -> None:
    result = subprocess.run(  # noqa: S603 - the pinned generators, our own arguments
        command, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}{result.stderr}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--into", type=Path, default=REPO, help="the root to write under (default: this repo)"
    )
    args = parser.parse_args(argv)
    generate(args.into.resolve())


if __name__ == "__main__":
    main()
