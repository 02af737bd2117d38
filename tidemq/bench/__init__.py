"""`tidemq bench`: throughput and latency of TideMQ's hot path, beside a ceiling app.

- cli: the command line, the run and its JSON (`tidemq bench`, `python -m tidemq.bench`)
- report: the table it prints and the targets it checks
- runs: each workload, against TideMQ and then the ceiling
- workloads: the requests, over REST (aiohttp) and SQS (boto3)
- ws: the WebSocket workloads and the ceiling's WebSocket endpoint
- load: closed and open loops, the progress bar, percentiles
- servers: the child processes measured (`tidemq up`, the ceiling app)
- ceiling: the ceiling app (`python -m tidemq.bench.ceiling --port P`)

Only cli and report import nothing beyond the standard library, so that `tidemq --help`
does not load the others' HTTP clients (aiohttp, boto3).
"""
