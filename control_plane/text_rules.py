"""SQS's rules for text a client sends, shared by every layer that checks some.

- Characters: SQS allows in a message body, and in everything else it returns, only
  XML 1.0's characters (#x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF), because
  a Query-protocol response is XML: one forbidden character in an attribute value or a
  tag would make every later response that carries it unreadable.
- Integers: ASCII digits with an optional sign, nothing else. Python's `str.isdigit`
  and `int()` take other digits (`²`, `①`, Arabic-Indic) and surrounding spaces, which SQS
  does not, and `int()` raises on some of what `isdigit` accepts.

Here, below the gateway, because the control plane checks tags and queue attributes
with the same rules the gateway's core checks messages with.
"""

from __future__ import annotations

import re

_FORBIDDEN_CHAR = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# More digits than any SQS integer has (a timestamp in ms has 13): longer is refused
# before int() sees it, which keeps int() far from its 4300-digit limit.
MAX_INTEGER_DIGITS = 18
_INTEGER = re.compile(rf"[+-]?[0-9]{{1,{MAX_INTEGER_DIGITS}}}", re.ASCII)


def forbidden_char(text: str) -> str | None:
    """The first character of `text` that SQS does not allow, or None."""
    # Printable text (nearly all text) has none of them, and `isprintable` is a C loop
    # several times faster than the search, which then looks only at the rest.
    if text.isprintable():
        return None
    found = _FORBIDDEN_CHAR.search(text)
    return found.group() if found else None


def without_forbidden_chars(text: str) -> str:
    """`text` with each forbidden character replaced by U+FFFD, for output only: what
    was stored before these rules were enforced must not make a response unreadable."""
    if text.isprintable():
        return text
    return _FORBIDDEN_CHAR.sub("\ufffd", text)


def describe_char(char: str) -> str:
    """A character as SQS names it in its errors: `#x0`, `#xFFFE`."""
    return f"#x{ord(char):X}"


def parse_int(text: str) -> int | None:
    """The integer `text` writes in ASCII digits (optionally signed), or None."""
    if not _INTEGER.fullmatch(text):
        return None
    return int(text)
