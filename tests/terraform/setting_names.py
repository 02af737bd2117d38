"""Every `TIDEMQ_*` name under terraform/ is one TideMQ reads, so that a typo or a renamed
setting fails `make test` instead of being ignored by the process at `apply` time.

A name is real when it is a field of tidemq/settings.py's `Settings` (`TIDEMQ_` and the
field's name in capitals, as `Settings.load` reads the environment), or one of the few
read elsewhere, each listed with the file that reads it (and checked to be in it).
"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from tidemq.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
_NAME = re.compile(r"\bTIDEMQ_[A-Z0-9_]*[A-Z0-9]\b")
# The files Terraform reads or renders, and the READMEs that document them.
_SUFFIXES = (".tf", ".tftpl", ".hcl", ".md")

# Read by something other than Settings: name -> the file that reads it.
READ_ELSEWHERE = {
    "TIDEMQ_CONFIG": "tidemq/settings.py",  # the TOML file Settings.load reads first
    "TIDEMQ_REDIS_SERVER": "tidemq/redis_server.py",  # the Redis binary `tidemq up` runs
    "TIDEMQ_ENDPOINT": "tidemq/cli/connection.py",  # the client commands' endpoint
    "TIDEMQ_TOKEN": "tidemq/cli/connection.py",  # the client commands' bearer token
}


def known_names() -> frozenset[str]:
    return frozenset(f"TIDEMQ_{f.name.upper()}" for f in fields(Settings)) | frozenset(
        READ_ELSEWHERE
    )


def unknown_names(terraform: Path) -> list[str]:
    """`<file>: <name>` for each name under `terraform` that TideMQ does not read."""
    known = known_names()
    found = []
    for path in sorted(p for p in terraform.rglob("*") if p.suffix in _SUFFIXES):
        for name in sorted(set(_NAME.findall(path.read_text())) - known):
            found.append(f"{path.relative_to(terraform)}: {name}")
    return found
