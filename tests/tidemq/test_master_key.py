"""The master key: TIDEMQ_MASTER_KEY, or made once in the data directory and kept."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from control_plane.secret_box import encode_master_key, new_master_key
from tidemq.master_key import ensure_master_key, load_master_key
from tidemq.settings import Settings, SettingsError


def test_it_is_made_once_with_mode_0600_and_kept(tmp_path: Path) -> None:
    assert load_master_key(None, tmp_path) is None
    made = ensure_master_key(None, tmp_path)
    assert len(made) == 32
    assert (tmp_path / "master.key").stat().st_mode & 0o777 == 0o600
    assert ensure_master_key(None, tmp_path) == made
    assert load_master_key(None, tmp_path) == made


def test_the_environment_wins_and_writes_nothing(tmp_path: Path) -> None:
    key = new_master_key()
    settings = Settings.load(env={"TIDEMQ_MASTER_KEY": encode_master_key(key)})
    assert ensure_master_key(settings.master_key, tmp_path) == key
    assert not (tmp_path / "master.key").exists()
    assert encode_master_key(key) not in repr(settings)


@pytest.mark.parametrize("bad", ["not base64!", base64.b64encode(b"16 bytes is less").decode()])
def test_a_bad_key_is_reported_with_how_to_make_one(tmp_path: Path, bad: str) -> None:
    with pytest.raises(SettingsError, match=r"os\.urandom\(32\)"):
        ensure_master_key(bad, tmp_path)


def test_a_damaged_key_file_is_reported_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "master.key").write_text("damaged")
    with pytest.raises(SettingsError, match="damaged"):
        ensure_master_key(None, tmp_path)
    assert (tmp_path / "master.key").read_text() == "damaged"
