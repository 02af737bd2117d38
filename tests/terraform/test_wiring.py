"""The Terraform tree is wired: `wiring.check` finds nothing in the real tree, and finds
each kind of mistake in a deliberately broken copy of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.terraform.wiring import TERRAFORM, check, parse, terraform_directories

MODULES = {"object_store", "control_plane", "storage_nodes", "gateway", "observability"}
EXAMPLES = {"complete", "minimal"}


def test_the_tree_has_every_module_and_example() -> None:
    found = {(p.parent.name, p.name) for p in terraform_directories()}
    assert found == {("modules", m) for m in MODULES} | {("examples", e) for e in EXAMPLES}


@pytest.mark.parametrize(
    "path", sorted(TERRAFORM.rglob("*.tf")) + sorted(TERRAFORM.rglob("*.tftest.hcl")), ids=str
)
def test_every_file_parses(path: Path) -> None:
    assert parse(path), f"{path} is empty"


@pytest.mark.parametrize("directory", terraform_directories(), ids=lambda p: p.name)
def test_directory_is_wired(directory: Path) -> None:
    assert check(directory) == []


@pytest.fixture
def broken_tree(tmp_path: Path) -> Path:
    """A copy of terraform/ to break; the examples find the modules by relative path."""
    copy = tmp_path / "terraform"
    shutil.copytree(TERRAFORM, copy)
    return copy


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} is not once in {path}"
    path.write_text(text.replace(old, new))


# Each case: the file to break, the text replaced, its replacement, and the problem found.
BREAKAGES = {
    "missing_module_input": (
        "examples/complete/main.tf",
        "  redis_url_secret_arn            = module.control_plane.connection_secret_arn\n\n"
        "  archive_bucket_arn",
        "\n  archive_bucket_arn",
        "complete: module storage_nodes: required input redis_url_secret_arn is not given",
    ),
    "unknown_module_input": (
        "examples/complete/main.tf",
        "  kms_key_arn    = aws_kms_key.this.arn\n  node_role_arns",
        "  kms_key        = aws_kms_key.this.arn\n  node_role_arns",
        "complete: module object_store: input kms_key is not a variable of "
        "../../modules/object_store",
    ),
    "missing_module_output": (
        "examples/complete/main.tf",
        "module.observability.node_log_group_name",
        "module.observability.nodes_log_group",
        "complete: module.observability.nodes_log_group: ../../modules/observability "
        "has no output nodes_log_group",
    ),
    "example_leaves_out_a_new_required_variable": (
        "modules/object_store/variables.tf",
        'variable "tags" {',
        'variable "owner" {\n  description = "Owner."\n  type        = string\n}\n\n'
        'variable "tags" {',
        "minimal: module object_store: required input owner is not given",
    ),
    "unused_variable": (
        "modules/gateway/variables.tf",
        'variable "tags" {',
        'variable "unused" {\n  description = "Unused."\n  type        = string\n'
        '  default     = ""\n}\n\nvariable "tags" {',
        "gateway: variable unused is declared but never used",
    ),
    "undeclared_variable": (
        "modules/control_plane/main.tf",
        "port                 = var.port",
        "port                 = var.redis_port",
        "control_plane: var.redis_port is used but not declared",
    ),
    "untyped_variable": (
        "modules/observability/variables.tf",
        "  type        = list(string)\n  default     = []\n\n  validation {\n"
        "    condition     = alltrue([for queue",
        "  default     = []\n\n  validation {\n    condition     = alltrue([for queue",
        "observability: variable dead_letter_queues has no type",
    ),
    "undescribed_output": (
        "modules/storage_nodes/outputs.tf",
        '  description = "TIDEMQ_LEASE_TTL_MS of the nodes: give the gateways the same (the '
        "gateway module's lease_ttl_ms).\"\n",
        "",
        "storage_nodes: output lease_ttl_ms has no description",
    ),
    "unpinned_provider": (
        "modules/control_plane/versions.tf",
        'version = ">= 3.6, < 4.0"',
        'version = ">= 3.6"',
        "control_plane: provider random version '>= 3.6' has no upper bound",
    ),
    "template_variable_not_given": (
        "modules/storage_nodes/main.tf",
        "    deployment                  = var.name\n",
        "",
        "storage_nodes: templatefile templates/user_data.sh.tftpl: variable deployment is used "
        "but not given",
    ),
    "undocumented_input": (
        "modules/gateway/README.md",
        "| `idle_timeout_s` |",
        "| `idle_timeout` |",
        "gateway: README.md has no table row for input `idle_timeout_s`",
    ),
    "test_without_a_required_variable": (
        "modules/object_store/tests/object_store.tftest.hcl",
        '  bucket_name    = "tidemq-archive-test"\n',
        "",
        "object_store: object_store.tftest.hcl does not give required variable bucket_name",
    ),
}


@pytest.mark.parametrize("case", BREAKAGES)
def test_a_broken_copy_fails_the_check(broken_tree: Path, case: str) -> None:
    file, old, new, problem = BREAKAGES[case]
    _replace(broken_tree / file, old, new)
    # Only the directory the problem is reported in is checked: parsing is the slow part.
    [directory] = [
        d for d in terraform_directories(broken_tree) if problem.startswith(f"{d.name}:")
    ]
    assert problem in [p.split("/", 1)[1] for p in check(directory)]
