"""The modules set only settings TideMQ reads (tests/terraform/setting_names.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.terraform.setting_names import READ_ELSEWHERE, ROOT, known_names, unknown_names
from tests.terraform.wiring import TERRAFORM


def test_every_tidemq_name_under_terraform_is_a_setting() -> None:
    assert unknown_names(TERRAFORM) == []


def test_the_names_read_elsewhere_are_read_there() -> None:
    for name, reader in READ_ELSEWHERE.items():
        assert name in (ROOT / reader).read_text(), f"{reader} does not read {name}"


def test_the_cluster_settings_are_known() -> None:
    """What the storage_nodes and gateway modules rely on, by name."""
    assert {
        "TIDEMQ_NODE_PORT",
        "TIDEMQ_NODE_ADDRESS",
        "TIDEMQ_LEASE_TTL_MS",
        "TIDEMQ_NODE_REQUEST_TIMEOUT_MS",
        "TIDEMQ_MASTER_KEY",
        "TIDEMQ_LOG_FORMAT",
        "TIDEMQ_REPLICATION",
    } <= known_names()


def test_a_misspelled_setting_fails(tmp_path: Path) -> None:
    copy = tmp_path / "terraform"
    shutil.copytree(TERRAFORM, copy)
    main = copy / "modules" / "storage_nodes" / "main.tf"
    text = main.read_text()
    assert text.count("TIDEMQ_LEASE_TTL_MS ") == 1
    main.write_text(text.replace("TIDEMQ_LEASE_TTL_MS ", "TIDEMQ_LEASE_TTL "))
    gateway = copy / "modules" / "gateway" / "main.tf"
    gateway.write_text(gateway.read_text().replace("TIDEMQ_LOG_FORMAT", "TIDEMQ_LOGFORMAT", 1))
    assert unknown_names(copy) == [
        "modules/gateway/main.tf: TIDEMQ_LOGFORMAT",
        "modules/storage_nodes/main.tf: TIDEMQ_LEASE_TTL",
    ]
