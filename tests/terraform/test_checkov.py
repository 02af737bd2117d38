"""Checkov finds no failed check in terraform/, and finds a public bucket in a broken copy.

Checkov runs from its own virtualenv, `.venv-checkov`, which `make test` creates: it
depends on a fork of python-hcl2 that installs the same `hcl2` module as the real one,
so the two cannot share the test environment. A check that does not apply to a resource
is skipped on that resource with a written reason (`#checkov:skip=CKV_...:why`).

Checkov runs once (each run costs seconds of start-up), over a directory that holds a
fresh copy of terraform/ beside the broken module, and each test reads its own part of
the results. (Checkov given two `-d` directories scans the first one twice.)
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.terraform.wiring import TERRAFORM

CHECKOV = TERRAFORM.parent / ".venv-checkov" / "bin" / "checkov"

# What a public bucket breaks: the four public access blocks.
PUBLIC_ACCESS_CHECKS = {"CKV_AWS_53", "CKV_AWS_54", "CKV_AWS_55", "CKV_AWS_56"}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What checkov scans: `terraform/` (a copy of the tree) and `broken/object_store`."""
    root = tmp_path_factory.mktemp("checkov")
    shutil.copytree(TERRAFORM, root / "terraform")
    return root


@pytest.fixture(scope="module")
def broken_object_store(scanned: Path) -> Path:
    """A copy of the object_store module whose bucket is made public."""
    copy = scanned / "broken" / "object_store"
    shutil.copytree(TERRAFORM / "modules" / "object_store", copy)
    main = copy / "main.tf"
    text, blocks_turned_off = re.subn(
        r"\b(block_public_acls|block_public_policy|ignore_public_acls|restrict_public_buckets)"
        r"(\s*)= true",
        r"\1\2= false",
        main.read_text(),
    )
    assert blocks_turned_off == 4, "the broken copy must turn every public access block off"
    main.write_text(text)
    return copy


@pytest.fixture(scope="module")
def failed_checks(scanned: Path, broken_object_store: Path) -> list[dict[str, Any]]:
    if not CHECKOV.exists():
        pytest.fail(
            f"checkov is not installed at {CHECKOV}: `make test` creates that virtualenv "
            "(checkov conflicts with python-hcl2, so it has its own)."
        )
    result = subprocess.run(
        [
            str(CHECKOV),
            *("-d", str(scanned)),
            *("--framework", "terraform", "--skip-download", "--quiet", "--compact"),
            *("-o", "json"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    # Exit status 1 means failed checks, which the broken copy has; anything else is an error.
    assert result.returncode in (0, 1), result.stderr
    reports = json.loads(result.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    assert [r["check_type"] for r in reports] == ["terraform"]
    [report] = reports
    assert report["summary"]["parsing_errors"] == 0, report["summary"]
    # Passed checks prove that the tree was scanned at all (--quiet lists only failures).
    assert report["summary"]["passed"] > 100, report["summary"]
    failed: list[dict[str, Any]] = report["results"]["failed_checks"]
    return failed


def test_terraform_tree_has_no_failed_check(
    failed_checks: list[dict[str, Any]], scanned: Path
) -> None:
    failures = [
        f"{c['check_id']} {c['resource']} ({c['file_abs_path']}): {c['check_name']}"
        for c in failed_checks
        if Path(c["file_abs_path"]).is_relative_to(scanned / "terraform")
    ]
    assert failures == []


def test_a_public_bucket_fails_checkov(
    failed_checks: list[dict[str, Any]], broken_object_store: Path
) -> None:
    found = {
        c["check_id"]
        for c in failed_checks
        if Path(c["file_abs_path"]).is_relative_to(broken_object_store)
    }
    assert found >= PUBLIC_ACCESS_CHECKS
