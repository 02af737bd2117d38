"""The embedded launcher's admin credentials.

Taken from the settings (`TIDEMQ_ACCESS_KEY_ID` / `TIDEMQ_SECRET_ACCESS_KEY`) when given;
otherwise made once and kept in `<data dir>/credentials.json` (mode 0600), so clients
configured with them keep working across restarts.
"""

from __future__ import annotations

import os
import secrets
import string
from dataclasses import dataclass
from pathlib import Path

import orjson

from control_plane.access_keys import generate_secret

_KEY_ID_ALPHABET = string.ascii_uppercase + string.digits


@dataclass(frozen=True, slots=True)
class Credentials:
    access_key_id: str
    secret_access_key: str


def admin_credentials(
    data_dir: Path, access_key_id: str | None, secret_access_key: str | None
) -> Credentials:
    if access_key_id and secret_access_key:
        return Credentials(access_key_id, secret_access_key)
    if access_key_id or secret_access_key:
        raise ValueError("set both TIDEMQ_ACCESS_KEY_ID and TIDEMQ_SECRET_ACCESS_KEY, or neither")
    path = data_dir / "credentials.json"
    if path.exists():
        stored = orjson.loads(path.read_bytes())
        return Credentials(stored["access_key_id"], stored["secret_access_key"])
    made = Credentials(
        access_key_id="TQ" + "".join(secrets.choice(_KEY_ID_ALPHABET) for _ in range(18)),
        secret_access_key=generate_secret(),
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(
            orjson.dumps(
                {"access_key_id": made.access_key_id, "secret_access_key": made.secret_access_key}
            )
        )
    return made
