"""The web console at `/console`: server-rendered pages over the core, behind a login
with an access key (docs/operations.md, "The console").

A sibling of the protocols: it reaches the data through the broker only, and knows no
protocol. Pages are plain HTML built here; a small script (assets.py) refreshes the
numbers and draws the charts from the pages' JSON twins every two seconds.
"""
