"""Who may import whom (DESIGN.md sections 2 and 6), checked on the source with `ast`.

Every import counts: top-level, under `if TYPE_CHECKING:`, and inside functions (a lazy
import is still a dependency). Relative imports are resolved; `from pkg import name` is
an import of `pkg.name` when that is a module, else of `pkg` (as import-linter reads it).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = (
    "tidemq",
    "gateway",
    "storage_nodes",
    "control_plane",
    "spark",
    "pyspark_tidemq",
    "loadtests",
)
# The console is a sibling of the protocols: the same rules hold for it.
PROTOCOLS = ("gateway.sqs", "gateway.rest", "gateway.ws", "gateway.sns", "gateway.console")
BELOW_GATEWAY = ("control_plane", "storage_nodes")

# The only gateway packages that may import control_plane / storage_nodes, and which.
# Every other gateway module reaches them through gateway.core.
GATEWAY_MAY_REACH_BELOW: dict[str, tuple[str, ...]] = {
    # The protocol-neutral core: the one place that speaks to Redis and the nodes.
    "gateway.core": BELOW_GATEWAY,
    # Authenticating a request reads the access keys and bearer tokens in the control plane.
    "gateway.auth": ("control_plane",),
}
# All the gateway may see of storage_nodes: the node's interface, never its internals.
NODE_INTERFACE = "storage_nodes.node"
# The one module of control_plane that storage_nodes may use: the shared clock.
SHARED_CLOCK = "control_plane.clock"


@dataclass(frozen=True, order=True)
class Import:
    path: str  # the importing file, relative to the repository
    line: int
    importer: str  # the importing module
    imported: str  # the imported module

    def __str__(self) -> str:
        return f"{self.path}:{self.line} -> {self.imported}"


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def within_any(module: str, packages: Iterable[str]) -> bool:
    return any(within(module, package) for package in packages)


def ours_outside(module: str, *own: str) -> bool:
    """`module` is of our packages, but not of the packages `own`."""
    return within_any(module, OURS) and not within_any(module, own)


def module_name(relative: Path) -> str:
    """`gateway/sqs/__init__.py` -> `gateway.sqs`; `gateway/app.py` -> `gateway.app`."""
    parts = relative.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolve(importer: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module named by a `from` clause (`level` dots, then `name`)."""
    if level == 0:
        assert name is not None
        return name
    parts = importer.split(".") if is_package else importer.split(".")[:-1]
    if level > len(parts):
        raise ImportError(f"relative import beyond the top-level package in {importer}")
    base = parts[: len(parts) - level + 1]
    return ".".join([*base, name] if name else base)


def imports_in(
    source: str, importer: str, path: str, is_package: bool, modules: Collection[str]
) -> list[Import]:
    """Every import anywhere in `source`, the file `path` of module `importer`."""
    found: set[Import] = set()
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Import):
            found |= {Import(path, node.lineno, importer, alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = resolve(importer, is_package, node.level, node.module)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(Import(path, node.lineno, importer, child if child in modules else base))
    return sorted(found)


@cache
def all_imports() -> tuple[Import, ...]:
    """Every import in every module of OURS under ROOT (this checkout, not site-packages)."""
    files = {
        module_name(file.relative_to(ROOT)): file
        for package in OURS
        for file in sorted((ROOT / package).rglob("*.py"))
    }
    found: list[Import] = []
    for module, file in files.items():
        path, is_package = str(file.relative_to(ROOT)), file.name == "__init__.py"
        found += imports_in(file.read_text(), module, path, is_package, files.keys())
    return tuple(found)


def forbid(rule: str, package: str, forbidden: Callable[[Import], bool]) -> None:
    """Fail, listing every `forbidden` import made from within `package`."""
    bad = [i for i in all_imports() if within(i.importer, package) and forbidden(i)]
    if bad:
        lines = "\n  ".join(str(i) for i in bad)
        pytest.fail(f"{rule}: {len(bad)} violation(s)\n  {lines}", pytrace=False)


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the strongly connected components of more than one node (the
    cycles), each sorted, in sorted order. A node's edge to itself is not reported."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in graph.get(node, ()):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


# --- the checker checks something --------------------------------------------------------


def test_collector_resolves_relative_lazy_and_type_checking_imports() -> None:
    modules = {"pkg", "pkg.other", "pkg.lazy", "pkg.sub", "pkg.sub.mod", "pkg.sub.sibling"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import sibling\n"
        "from ..other import Thing\n"
        "from pkg import other, NotAModule\n"
        "import pkg.sub.sibling as alias\n"
        "if TYPE_CHECKING:\n"
        "    from .sibling import Hint\n"
        "def later() -> None:\n"
        "    import pkg.lazy\n"
    )
    found = imports_in(source, "pkg.sub.mod", "pkg/sub/mod.py", False, modules)
    assert [(i.line, i.imported) for i in found] == [
        (1, "typing"), (2, "pkg.sub.sibling"), (3, "pkg.other"), (4, "pkg"), (4, "pkg.other"),
        (5, "pkg.sub.sibling"), (7, "pkg.sub.sibling"), (9, "pkg.lazy"),
    ]  # fmt: skip
    package = imports_in("from . import mod\n", "pkg.sub", "pkg/sub/__init__.py", True, modules)
    assert [i.imported for i in package] == ["pkg.sub.mod"]
    assert within("gateway.sqs.md5", "gateway.sqs")
    assert not within("gateway.sqsx", "gateway.sqs")
    assert ours_outside("gateway.sqs", "control_plane")
    assert not ours_outside("boto3", "control_plane")
    assert not ours_outside("control_plane.clock", "control_plane")


def test_cycle_finder_finds_cycles_and_only_cycles() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": ["e"], "e": ["e", "f"], "x": ["d"]}
    assert strongly_connected(graph) == [["a", "b", "c"]]
    two = {"a": ["b"], "b": ["a"], "c": ["d"], "d": ["c", "a"]}
    assert strongly_connected(two) == [["a", "b"], ["c", "d"]]


def test_the_real_tree_is_read_and_violations_reported() -> None:
    importers = {i.importer.split(".")[0] for i in all_imports()}
    assert importers >= {"tidemq", "gateway", "storage_nodes", "control_plane", "loadtests"}
    with pytest.raises(
        pytest.fail.Exception, match=r"1 violation\(s\)\n  gateway/app\.py:\d+ -> gateway\.health$"
    ):
        forbid("app imports health", "gateway.app", lambda i: i.imported == "gateway.health")


# --- the rules ---------------------------------------------------------------------------


def test_control_plane_imports_nothing_of_ours() -> None:
    forbid(
        "control_plane imports another package of ours",
        "control_plane",
        lambda i: ours_outside(i.imported, "control_plane"),
    )


def test_storage_nodes_imports_no_layer_above_it() -> None:
    above = ("gateway", "tidemq", "spark", "loadtests")
    forbid(
        f"storage_nodes imports {above}", "storage_nodes", lambda i: within_any(i.imported, above)
    )


def test_storage_nodes_uses_only_the_clock_of_control_plane() -> None:
    forbid(
        f"storage_nodes imports control_plane beyond {SHARED_CLOCK}",
        "storage_nodes",
        lambda i: within(i.imported, "control_plane") and i.imported != SHARED_CLOCK,
    )


def test_spark_imports_only_storage_nodes_of_ours() -> None:
    forbid(
        "spark imports a package of ours other than storage_nodes",
        "spark",
        lambda i: ours_outside(i.imported, "spark", "storage_nodes"),
    )


def test_the_pyspark_hook_imports_only_spark() -> None:
    forbid(
        "pyspark_tidemq (PySpark's lookup hook) imports a package of ours other than spark",
        "pyspark_tidemq",
        lambda i: ours_outside(i.imported, "pyspark_tidemq", "spark"),
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_protocol_imports_no_other_protocol(protocol: str) -> None:
    others = [p for p in PROTOCOLS if p != protocol]
    forbid(
        f"{protocol} imports another protocol", protocol, lambda i: within_any(i.imported, others)
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_protocol_reaches_below_only_through_the_core(protocol: str) -> None:
    forbid(
        f"{protocol} imports {' or '.join(BELOW_GATEWAY)}",
        protocol,
        lambda i: within_any(i.imported, BELOW_GATEWAY),
    )


@pytest.mark.parametrize("below", BELOW_GATEWAY)
def test_only_the_allowed_gateway_packages_import_below_the_gateway(below: str) -> None:
    allowed = [package for package, to in GATEWAY_MAY_REACH_BELOW.items() if below in to]
    forbid(
        f"gateway outside {allowed} imports {below}",
        "gateway",
        lambda i: within(i.imported, below) and not within_any(i.importer, allowed),
    )


def test_gateway_sees_only_the_node_interface_of_storage_nodes() -> None:
    forbid(
        f"gateway imports storage_nodes beyond {NODE_INTERFACE}",
        "gateway",
        lambda i: within(i.imported, "storage_nodes") and i.imported != NODE_INTERFACE,
    )


def test_no_import_cycles() -> None:
    # Edges are the imports as written, as import-linter (grimp) draws them. A package's
    # __init__ importing its own submodules is an edge like any other (if such a child
    # imports a name back from the package, it runs against a half-initialised package).
    # A submodule gets no implicit edge to its parent packages, though Python runs them
    # first: that is the import machinery, not the child's dependency, and counting it
    # would turn every __init__ that imports a child into a cycle. Self-imports are ignored.
    internal = [i for i in all_imports() if within_any(i.imported, OURS)]
    graph: dict[str, set[str]] = {}
    for i in internal:
        graph.setdefault(i.importer, set()).add(i.imported)
    cycles = strongly_connected(graph)
    if cycles:
        found = []
        for cycle in cycles:
            edges = [str(i) for i in internal if {i.importer, i.imported} <= set(cycle)]
            found.append(" <-> ".join(cycle) + "\n    " + "\n    ".join(edges))
        pytest.fail(f"{len(cycles)} import cycle(s):\n  " + "\n  ".join(found), pytrace=False)
