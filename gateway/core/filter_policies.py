"""SNS subscription filter policies: read and checked once, then matched per message.

    parse_filter_policy(text, scope) -> FilterPolicy      raises FilterPolicyError
    FilterPolicy.matches(attributes, body) -> bool

A policy is read the way SNS reads it (SNS's filtering is AWS's event-ruler engine, and
its error texts are event-ruler's): a JSON object whose keys name message attributes
(MessageAttributes scope, the default) or properties of a JSON message body
(MessageBody scope, where objects nest and a dotted key `"a.b"` is the same as
`{"a": {"b": ...}}`). Each key holds an array of values, ORed: strings, numbers, true,
false, null, and operator objects (prefix, suffix, equals-ignore-case, anything-but,
numeric, exists, cidr); keys are ANDed; `"$or": [{...}, {...}]` ORs whole objects, at
any level. A key's array is read in gateway/core/filter_operators.py; the compiled form
and the matching live in gateway/core/filter_matchers.py.

An empty text, or `{}`, is no filter at all: SNS takes setting FilterPolicy to either as
removing the subscription's filter, and such a policy matches every message.

Limits, as SNS: 256 KiB of policy text; at most 5 keys with values in any one way
through the `$or`s; at most 150 combinations, where a key's array counts its number of
values times how deep the key is nested, keys multiply, and `$or` branches add up.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import orjson

from gateway.core.errors import FilterPolicyError
from gateway.core.filter_matchers import Leaf, Node, match_attributes, match_body
from gateway.core.filter_operators import OPERATOR_NAMES, read_leaf
from storage_nodes.node import MessageAttribute

__all__ = [
    "MAX_COMBINATIONS",
    "MAX_KEYS",
    "MAX_POLICY_BYTES",
    "FilterPolicy",
    "FilterPolicyError",
    "FilterPolicyScope",
    "parse_filter_policy",
    "parse_filter_policy_scope",
]

MAX_POLICY_BYTES: Final = 256 * 1024
MAX_KEYS: Final = 5
MAX_COMBINATIONS: Final = 150
# Deeper than this (objects and `$or`s together), a policy is over MAX_COMBINATIONS
# whatever its values; stopping here also bounds the recursion of reading and matching.
_MAX_NESTING: Final = MAX_COMBINATIONS
_NESTED_IN_ATTRIBUTES: Final = (
    "Filter policy scope MessageAttributes does not support nested filter policy"
)


class FilterPolicyScope(enum.Enum):
    MESSAGE_ATTRIBUTES = "MessageAttributes"
    MESSAGE_BODY = "MessageBody"


@dataclass(frozen=True, slots=True)
class FilterPolicy:
    """A subscription's filter policy, compiled. Two policies are equal when their scope
    and text are; `text` is kept as given, for the subscription's attributes."""

    scope: FilterPolicyScope
    text: str
    root: Node | None = field(compare=False, repr=False)  # None: no filter
    attribute_names: frozenset[str] = field(compare=False, repr=False)

    @property
    def matches_everything(self) -> bool:
        return self.root is None

    def matches(self, attributes: Mapping[str, MessageAttribute], body: bytes) -> bool:
        """Whether a message goes to the subscription. In MessageBody scope the body is
        parsed here, once; a body that is not a JSON object matches nothing."""
        if self.root is None:
            return True
        if self.scope is FilterPolicyScope.MESSAGE_BODY:
            return match_body(self.root, body)
        return match_attributes(self.root, self.attribute_names, attributes)


def parse_filter_policy_scope(text: str) -> FilterPolicyScope:
    for scope in FilterPolicyScope:
        if scope.value == text:
            return scope
    raise FilterPolicyError(
        f"Invalid value [{text}]. Please use either MessageBody or MessageAttributes",
        parameter="FilterPolicyScope",
    )


def parse_filter_policy(text: str, scope: str = "MessageAttributes") -> FilterPolicy:
    """The policy `text` compiled for `scope`, or FilterPolicyError with SNS's reason."""
    policy_scope = parse_filter_policy_scope(scope)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_POLICY_BYTES:
        raise FilterPolicyError("Filter policy can not be larger than 256 KB")
    if not text.strip():
        return FilterPolicy(policy_scope, text, None, frozenset())
    try:
        document = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise FilterPolicyError(f"failed to parse JSON. {exc}") from exc
    if not isinstance(document, dict):
        raise FilterPolicyError("Filter is not an object")
    if not document:
        return FilterPolicy(policy_scope, text, None, frozenset())
    reader = _Reader(policy_scope)
    root = reader.object_node(document, depth=0, nesting=0)
    # After the whole text is read: SNS reports a syntax error anywhere in it first.
    if reader.nested and policy_scope is FilterPolicyScope.MESSAGE_ATTRIBUTES:
        raise FilterPolicyError(_NESTED_IN_ATTRIBUTES, parameter=None)
    if _keys(root) > MAX_KEYS:
        raise FilterPolicyError(f"Filter policy can not have more than {MAX_KEYS} keys")
    if _combinations(root) > MAX_COMBINATIONS:
        raise FilterPolicyError("Filter policy is too complex")
    return FilterPolicy(policy_scope, text, root, _names(root))


@dataclass(slots=True)
class _NodeBuilder:
    leaf: Leaf | None = None
    children: dict[str, _NodeBuilder] = field(default_factory=dict)
    alternatives: list[tuple[Node, ...]] = field(default_factory=list)

    def at(self, path: list[str]) -> _NodeBuilder:
        builder = self
        for segment in path:
            builder = builder.children.setdefault(segment, _NodeBuilder())
        return builder

    def built(self) -> Node:
        children = tuple((name, child.built()) for name, child in self.children.items())
        return Node(self.leaf, children, tuple(self.alternatives))


class _Reader:
    """Reads a policy's JSON into Nodes, checking it in document order as SNS does."""

    def __init__(self, scope: FilterPolicyScope) -> None:
        self.body_scope = scope is FilterPolicyScope.MESSAGE_BODY
        self.nested = False  # an object under a key: refused in MessageAttributes scope

    def object_node(self, obj: dict[str, object], depth: int, nesting: int) -> Node:
        if nesting > _MAX_NESTING:
            raise FilterPolicyError("Filter policy is too complex")
        if not obj:
            raise FilterPolicyError("Empty objects are not allowed")
        builder = _NodeBuilder()
        for key, value in obj.items():
            if key == "$or" and _is_or(value):
                assert isinstance(value, list)
                branches = tuple(self.object_node(b, depth, nesting + 1) for b in value)
                builder.alternatives.append(branches)
                continue
            # SNS matches a body's "a.b" as a.b; an attribute's name is only a name.
            path = key.split(".") if self.body_scope else [key]
            if isinstance(value, dict):
                self.nested = True
                nested = self.object_node(value, depth + 1, nesting + 1)
                _graft(builder.at(path), nested)
            elif isinstance(value, list):
                # A key given twice (as "a.b" and as {"a": {"b"}}): the last one counts,
                # as in event-ruler.
                builder.at(path).leaf = read_leaf(value, depth + 1)
            else:
                raise FilterPolicyError(f'"{key}" must be an object or an array')
        return builder.built()


def _graft(target: _NodeBuilder, node: Node) -> None:
    """Puts a read object's keys under `target`, merging with what a dotted key put there."""
    if node.leaf is not None:
        target.leaf = node.leaf
    for name, child in node.children:
        _graft(target.children.setdefault(name, _NodeBuilder()), child)
    target.alternatives.extend(node.alternatives)


def _is_or(value: object) -> bool:
    """SNS reads `"$or"` as OR only when it holds at least two objects and none of them
    has an operator's name (a reserved keyword) as a key; otherwise `$or` is an ordinary
    key."""
    return (
        isinstance(value, list)
        and len(value) >= 2
        and all(isinstance(item, dict) and not OPERATOR_NAMES.intersection(item) for item in value)
    )


def _keys(node: Node) -> int:
    """The keys with values along the largest way through the node's `$or`s."""
    count = 1 if node.leaf is not None else 0
    count += sum(_keys(child) for _, child in node.children)
    return count + sum(max(_keys(branch) for branch in branches) for branches in node.alternatives)


def _combinations(node: Node) -> int:
    """SNS's complexity: values times depth for each key, multiplied across keys, summed
    across `$or` branches. Capped just past the limit, so it stays a small number."""
    total = 1 if node.leaf is None else node.leaf.value_count * node.leaf.depth
    for _, child in node.children:
        total = min(total * _combinations(child), MAX_COMBINATIONS + 1)
    for branches in node.alternatives:
        branch_total = sum(_combinations(branch) for branch in branches)
        total = min(total * branch_total, MAX_COMBINATIONS + 1)
    return total


def _names(node: Node) -> frozenset[str]:
    """The top-level names a policy reads (attribute scope: the attributes it needs)."""
    names = {name for name, _ in node.children}
    for branches in node.alternatives:
        for branch in branches:
            names |= _names(branch)
    return frozenset(names)
