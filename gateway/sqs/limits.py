"""How much of a request the SQS endpoint reads and parses at most, and why.

Every limit is sized to the largest valid request, with room to spare, so that no valid
request is refused and an invalid one costs no more than reading what is refused. The
largest requests are batches: ten entries, each up to the largest message this
deployment allows (body and attributes), each with an id, group and deduplication ids
and up to ten attributes of three parameters each.

- Size: ten of the largest messages, each byte written in the most verbose encoding a
  client may use (JSON may write every character as a `\\u0041` escape: 6 bytes for
  one; a Query form at most 4, percent-encoding base64), plus the parameters' names
  and ids. Checked against Content-Length before the body is read, then while it is.
- Parameters: a Query request has at most MAX_PARAMETERS (the largest batch needs about
  400); a list or map index is 1 to MAX_INDEX. Checked while the form is decoded, before
  anything is built from it.
- JSON: at most MAX_JSON_TOKENS strings, commas and opened objects or arrays (the
  largest batch has about 1,200). Counted on the raw body before it is parsed.
"""

from __future__ import annotations

MAX_BATCH_ENTRIES = 10
MAX_PARAMETERS = 1000
# No list can have more entries than a request has parameters.
MAX_INDEX = MAX_PARAMETERS
MAX_JSON_TOKENS = 4000
ENCODING_EXPANSION = 6
# Parameter names, ids and the queue URL: about 40 KiB in the largest Query batch.
STRUCTURE_BYTES = 64 * 1024


def max_request_bytes(max_message_bytes: int) -> int:
    """The largest body a valid request can need, where messages may have up to
    `max_message_bytes` (the deployment's cap on MaximumMessageSize)."""
    return MAX_BATCH_ENTRIES * max_message_bytes * ENCODING_EXPANSION + STRUCTURE_BYTES
