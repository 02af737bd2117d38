"""Static checks of the Terraform tree, with no Terraform binary and no provider registry.

Every `.tf` and `.tftest.hcl` file is parsed with python-hcl2; references are read from
the parsed expressions (`var.x`, `local.x`, `module.m.o`). What `check` finds, as one
line per problem naming the directory:

- a module or example without its files (main, variables, outputs, versions, README);
- a variable without a type or a description, an output without a description;
- a variable declared and never used, a `var.x` or `local.x` that is not declared;
- a module call that gives an input the module does not declare, or leaves out one it
  requires; a `module.m.o` whose module `m` has no output `o`;
- a Terraform or provider version that is not pinned (a constraint without an upper
  bound), a provider used by a resource but not required;
- a `templatefile` call whose variables differ from those its template uses;
- a README without a table row for each input and output;
- a directory without a `tests/*.tftest.hcl`, or whose test files do not mock every
  provider (they must plan without credentials) or do not give every required variable.

What it does not do: evaluate expressions or types (`terraform validate` does); the
`.tftest.hcl` files exercise those for users who have Terraform.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import hcl2
from hcl2 import SerializationOptions

TERRAFORM = Path(__file__).resolve().parents[2] / "terraform"

_OPTIONS = SerializationOptions(
    strip_string_quotes=True, with_comments=False, explicit_blocks=False
)
_FILES = ("main.tf", "variables.tf", "outputs.tf", "versions.tf", "README.md")
# Arguments of a module block that are Terraform's, not the module's inputs.
_META_ARGUMENTS = frozenset({"source", "version", "count", "for_each", "providers", "depends_on"})

_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_VAR_REF = re.compile(rf"(?<![\w.])var\.({_NAME})")
_LOCAL_REF = re.compile(rf"(?<![\w.])local\.({_NAME})")
_MODULE_REF = re.compile(rf"(?<![\w.])module\.({_NAME})(?:\[[^\]]*\])?\.({_NAME})")
# A version constraint with an upper bound: `< 7.0`, `<= 2.1`, or a pessimistic `~> 6.0`.
_UPPER_BOUND = re.compile(r"(<|~>)")
# templatefile("${path.module}/<file>", { name = ..., ... }), as python-hcl2 prints it.
_TEMPLATEFILE = re.compile(r'templatefile\("\$\{path\.module\}/([^"]+)", \{(.*?)\}\)')
_TEMPLATE_KEY = re.compile(rf"(?:^|, )({_NAME}) = ")
_TEMPLATE_EXPRESSION = re.compile(r"[$%]\{~?(.*?)~?\}")
_TEMPLATE_LOOP = re.compile(rf"^\s*for ({_NAME})(?:, ({_NAME}))? in ")
_TEMPLATE_WORDS = frozenset({"for", "in", "if", "else", "endif", "endfor", "true", "false", "null"})


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    typed: bool
    described: bool
    required: bool


@dataclass(frozen=True, slots=True)
class ModuleCall:
    name: str
    source: str
    inputs: frozenset[str]


@dataclass(frozen=True, slots=True)
class Directory:
    """The Terraform configuration of one directory (its `*.tf` files, not below)."""

    path: Path
    variables: dict[str, Variable]
    outputs: dict[str, bool]  # name -> has a description
    locals: frozenset[str]
    module_calls: dict[str, ModuleCall]
    resource_types: frozenset[str]
    expressions: tuple[str, ...]
    terraform_blocks: tuple[dict[str, Any], ...]


def parse(path: Path) -> dict[str, Any]:
    parsed: dict[str, Any] = hcl2.loads(path.read_text(), serialization_options=_OPTIONS)
    return parsed


def terraform_directories(root: Path = TERRAFORM) -> list[Path]:
    """Every module and example under `root`."""
    return sorted(p for p in (*root.glob("modules/*"), *root.glob("examples/*")) if p.is_dir())


@cache
def load(path: Path) -> Directory:
    blocks: dict[str, list[Any]] = {}
    for file in sorted(path.glob("*.tf")):
        for kind, entries in parse(file).items():
            blocks.setdefault(kind, []).extend(entries)
    variables = {
        name: Variable(
            name=name,
            typed="type" in body,
            described=bool(body.get("description")),
            required="default" not in body,
        )
        for name, body in _labelled(blocks.get("variable", []))
    }
    calls = {
        name: ModuleCall(
            name=name,
            source=str(body.get("source", "")),
            inputs=frozenset(body) - _META_ARGUMENTS,
        )
        for name, body in _labelled(blocks.get("module", []))
    }
    return Directory(
        path=path,
        variables=variables,
        outputs={
            name: bool(body.get("description"))
            for name, body in _labelled(blocks.get("output", []))
        },
        locals=frozenset(name for entry in blocks.get("locals", []) for name in entry),
        module_calls=calls,
        resource_types=frozenset(kind for entry in blocks.get("resource", []) for kind in entry)
        | frozenset(kind for entry in blocks.get("data", []) for kind in entry),
        expressions=tuple(_strings(blocks)),
        terraform_blocks=tuple(blocks.get("terraform", [])),
    )


def check(path: Path) -> list[str]:
    """Every problem of the module or example at `path`, one line each."""
    directory = load(path)
    problems = [
        *_missing_files(directory),
        *_undocumented(directory),
        *_references(directory),
        *_module_calls(directory),
        *_versions(directory),
        *_templates(directory),
        *_readme(directory),
        *_tests(directory),
    ]
    return [f"{path.parent.name}/{path.name}: {problem}" for problem in problems]


def _labelled(entries: list[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for entry in entries:
        yield from entry.items()


def _required_providers(directory: Directory) -> dict[str, Any]:
    providers: dict[str, Any] = {}
    for block in directory.terraform_blocks:
        for entry in block.get("required_providers", []):
            providers.update(entry)
    return providers


def _strings(node: Any, key: str = "") -> Iterator[str]:
    """Every string value, keys of objects included (they may be expressions), but not
    descriptions, whose prose may name what it documents."""
    if key == "description":
        return
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for child_key, child in node.items():
            yield child_key
            yield from _strings(child, child_key)
    elif isinstance(node, list):
        for child in node:
            yield from _strings(child, key)


def _references(directory: Directory) -> Iterator[str]:
    used_vars = {m for text in directory.expressions for m in _VAR_REF.findall(text)}
    used_locals = {m for text in directory.expressions for m in _LOCAL_REF.findall(text)}
    for name in sorted(set(directory.variables) - used_vars):
        yield f"variable {name} is declared but never used"
    for name in sorted(used_vars - set(directory.variables)):
        yield f"var.{name} is used but not declared"
    for name in sorted(used_locals - directory.locals):
        yield f"local.{name} is used but not declared"


def _module_calls(directory: Directory) -> Iterator[str]:
    for call in directory.module_calls.values():
        if not call.source.startswith(("./", "../")):
            yield f"module {call.name}: source {call.source!r} is not a local path"
            continue
        target_path = (directory.path / call.source).resolve()
        if not (target_path / "variables.tf").is_file():
            yield f"module {call.name}: no module at {call.source}"
            continue
        target = load(target_path)
        for name in sorted(call.inputs - set(target.variables)):
            yield f"module {call.name}: input {name} is not a variable of {call.source}"
        required = {v.name for v in target.variables.values() if v.required}
        for name in sorted(required - call.inputs):
            yield f"module {call.name}: required input {name} is not given"
    for text in directory.expressions:
        for module, output in _MODULE_REF.findall(text):
            call = directory.module_calls.get(module)
            if call is None:
                yield f"module.{module}.{output}: there is no module {module}"
                continue
            target_path = (directory.path / call.source).resolve()
            if (target_path / "outputs.tf").is_file() and output not in load(target_path).outputs:
                yield f"module.{module}.{output}: {call.source} has no output {output}"


def _undocumented(directory: Directory) -> Iterator[str]:
    for variable in directory.variables.values():
        if not variable.typed:
            yield f"variable {variable.name} has no type"
        if not variable.described:
            yield f"variable {variable.name} has no description"
    for name, described in directory.outputs.items():
        if not described:
            yield f"output {name} has no description"


def _versions(directory: Directory) -> Iterator[str]:
    if not directory.terraform_blocks:
        yield "no terraform block (versions.tf)"
        return
    required_version = " ".join(
        str(b.get("required_version", "")) for b in directory.terraform_blocks
    )
    if not _UPPER_BOUND.search(required_version):
        yield f"required_version {required_version.strip()!r} has no upper bound"
    providers = _required_providers(directory)
    for name, spec in sorted(providers.items()):
        if not isinstance(spec, dict) or not spec.get("source"):
            yield f"provider {name} has no source"
        elif not _UPPER_BOUND.search(str(spec.get("version", ""))):
            yield f"provider {name} version {spec.get('version')!r} has no upper bound"
    for provider in sorted({kind.split("_", 1)[0] for kind in directory.resource_types}):
        if provider not in providers:
            yield f"provider {provider} is used but not in required_providers"


def _templates(directory: Directory) -> Iterator[str]:
    for text in directory.expressions:
        for file, arguments in _TEMPLATEFILE.findall(text):
            template = directory.path / file
            if not template.is_file():
                yield f"templatefile {file} does not exist"
                continue
            given = set(_TEMPLATE_KEY.findall(arguments))
            used = _template_variables(template.read_text())
            for name in sorted(given - used):
                yield f"templatefile {file}: variable {name} is given but not used"
            for name in sorted(used - given):
                yield f"templatefile {file}: variable {name} is used but not given"


def _template_variables(text: str) -> set[str]:
    """The names a Terraform template reads: the first name of each `${...}` and `%{...}`
    expression's terms, less its loops' own variables. Escaped `$${` and `%%{` are text."""
    text = text.replace("$${", "").replace("%%{", "")
    names: set[str] = set()
    loop_variables: set[str] = set()
    for expression in _TEMPLATE_EXPRESSION.findall(text):
        loop = _TEMPLATE_LOOP.match(expression)
        if loop:
            loop_variables.update(name for name in loop.groups() if name)
        terms = expression[loop.end() :] if loop else expression
        without_strings = re.sub(r'"[^"]*"', "", terms)
        names.update(re.findall(rf"(?<![\w.]){_NAME}", without_strings))
    return names - loop_variables - _TEMPLATE_WORDS


def _missing_files(directory: Directory) -> Iterator[str]:
    for name in _FILES:
        if not (directory.path / name).is_file():
            yield f"{name} is missing"


def _readme(directory: Directory) -> Iterator[str]:
    readme = directory.path / "README.md"
    if not readme.is_file():
        return
    text = readme.read_text()
    for kind, names in (("input", directory.variables), ("output", directory.outputs)):
        for name in sorted(names):
            if f"| `{name}` |" not in text:
                yield f"README.md has no table row for {kind} `{name}`"


def _tests(directory: Directory) -> Iterator[str]:
    files = sorted((directory.path / "tests").glob("*.tftest.hcl"))
    if not files:
        yield "no tests/*.tftest.hcl"
        return
    providers = set(_required_providers(directory))
    required = {v.name for v in directory.variables.values() if v.required}
    for file in files:
        test = parse(file)
        mocked = {name for entry in test.get("mock_provider", []) for name in entry}
        for name in sorted(providers - mocked):
            yield f"{file.name} does not mock provider {name}"
        given = {name for entry in test.get("variables", []) for name in entry}
        for name in sorted(required - given):
            yield f"{file.name} does not give required variable {name}"
        if not test.get("run"):
            yield f"{file.name} has no run block"
