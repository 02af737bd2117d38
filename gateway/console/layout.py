"""The console's HTML: the page shell, escaping, and the headers every page gets.

Every value shown is escaped here (`h`), attributes and text alike. The Content
Security Policy allows only the console's own script and style sheet: no inline
script, no other origin, no framing.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from starlette.responses import HTMLResponse

STATIC = "/console/static"
_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


def h(value: object) -> str:
    return html.escape(str(value), quote=True)


def page(
    title: str,
    body: str,
    *,
    account_id: str | None = None,
    csrf: str | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    """A whole page; with an account, the header shows it and a sign-out button."""
    signed_in = ""
    if account_id is not None and csrf is not None:
        signed_in = (
            f'<span class="account">account {h(account_id)}</span>'
            f'<form method="post" action="/console/logout" class="inline">'
            f'{csrf_field(csrf)}<button type="submit">Sign out</button></form>'
        )
    document = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{h(title)} · TideMQ</title>
<link rel="stylesheet" href="{STATIC}/console.css">
<script src="{STATIC}/console.js" defer></script>
</head>
<body>
<header><a href="/console" class="brand">TideMQ</a>{signed_in}</header>
<main>
{body}
</main>
</body>
</html>
"""
    return HTMLResponse(document, status_code=status_code, headers=_HEADERS)


def csrf_field(token: str) -> str:
    return f'<input type="hidden" name="csrf" value="{h(token)}">'


def table(headings: Iterable[str], rows: Iterable[str], *, attributes: str = "") -> str:
    head = "".join(f"<th>{h(heading)}</th>" for heading in headings)
    body = "".join(rows) or '<tr><td colspan="99" class="empty">none</td></tr>'
    return f"<table {attributes}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def age(seconds: float | None) -> str:
    """`3.2 s`, `4 min`, `2.5 h`; an em dash for none."""
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def chart(chart_id: str, caption: str) -> str:
    """An empty chart the script draws into, over the minutes the page is open."""
    return (
        f'<figure class="chart"><figcaption>{h(caption)}</figcaption>'
        f'<svg id="{h(chart_id)}" viewBox="0 0 300 80" preserveAspectRatio="none" '
        f'role="img" aria-label="{h(caption)}"></svg>'
        f'<div class="scale" data-scale-for="{h(chart_id)}"></div></figure>'
    )
