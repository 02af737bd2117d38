"""SQS's rules for text a client sends (control_plane/text_rules.py), for the protocols:
they parse integers and write text with the same rules the core and the control plane
check with, and reach the control plane only through the core."""

from __future__ import annotations

from control_plane.text_rules import (
    describe_char,
    forbidden_char,
    parse_int,
    without_forbidden_chars,
)

__all__ = ["describe_char", "forbidden_char", "parse_int", "without_forbidden_chars"]
