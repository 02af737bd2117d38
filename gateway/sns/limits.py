"""How much of a request the SNS endpoint reads and parses at most, and why.

As on the SQS endpoint (gateway/sqs/limits.py), every limit is sized to the largest valid
request, with room to spare, so that no valid request is refused and an invalid one costs
no more than reading what is refused. The largest request is a PublishBatch: ten entries,
each a message of up to 256 KiB (its body and its attributes, SNS's limit), with an id,
subject, structure, group and deduplication ids, and up to ten attributes of three
parameters each.

- Size: ten of the largest messages, each byte written in the most verbose encoding a
  Query form allows (4 bytes for one: percent-encoded base64 of a binary attribute), plus
  the parameters' names and ids. Checked against Content-Length before the body is
  read, then while it is.
- Parameters: at most MAX_PARAMETERS in a request (the largest batch needs about 370, a
  CreateTopic with 50 tags and every attribute about 150); a list or map index is 1 to
  MAX_INDEX. Checked while the form is decoded, before anything is built from it.
"""

from __future__ import annotations

MAX_BATCH_ENTRIES = 10
MAX_MESSAGE_BYTES = 256 * 1024
MAX_PARAMETERS = 1000
# No list can have more entries than a request has parameters.
MAX_INDEX = MAX_PARAMETERS
ENCODING_EXPANSION = 4
# Parameter names, ids and the topic ARN: about 40 KiB in the largest batch.
STRUCTURE_BYTES = 64 * 1024
MAX_REQUEST_BYTES = MAX_BATCH_ENTRIES * MAX_MESSAGE_BYTES * ENCODING_EXPANSION + STRUCTURE_BYTES
