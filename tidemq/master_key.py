"""The master key that access-key secrets are sealed under (control_plane/secret_box.py).

`TIDEMQ_MASTER_KEY` (base64 of 32 bytes) when set; otherwise `<data dir>/master.key`
(the same base64 text), made once by `tidemq up` with mode 0600 and read by `tidemq keys`.
Every gateway of one deployment needs the same key. Losing it makes every stored secret
unreadable (the keys must then be created again): back it up with the data directory,
or keep it in TIDEMQ_MASTER_KEY.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from control_plane.secret_box import decode_master_key, encode_master_key, new_master_key
from tidemq.settings import SettingsError

log = logging.getLogger(__name__)

MASTER_KEY_FILE = "master.key"
_MAKE_ONE = (
    "make one with: python -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())'"
)


def load_master_key(configured: str | None, data_dir: Path) -> bytes | None:
    """The configured key, else the data directory's; None if neither exists."""
    if configured:
        try:
            return decode_master_key(configured)
        except ValueError as exc:
            raise SettingsError(f"TIDEMQ_MASTER_KEY is not usable: {exc}; {_MAKE_ONE}") from exc
    path = data_dir / MASTER_KEY_FILE
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"cannot read the master key {path}: {exc.strerror}") from exc
    try:
        return decode_master_key(text)
    except ValueError as exc:
        raise SettingsError(
            f"the master key {path} is damaged ({exc}); restore it from a backup"
        ) from exc


def ensure_master_key(configured: str | None, data_dir: Path) -> bytes:
    """The configured key, else the data directory's, made there (mode 0600) if absent."""
    existing = load_master_key(configured, data_dir)
    if existing is not None:
        return existing
    path = data_dir / MASTER_KEY_FILE
    key = new_master_key()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        # Made meanwhile by another process: use that one.
        made = load_master_key(None, data_dir)
        assert made is not None
        return made
    except OSError as exc:
        raise SettingsError(f"cannot create the master key {path}: {exc.strerror}") from exc
    with os.fdopen(fd, "w") as file:
        file.write(encode_master_key(key) + "\n")
        file.flush()
        os.fsync(file.fileno())
    log.info("made a new master key in %s; back it up with the data directory", path)
    return key
