"""Example jobs over the archive, each `python -m spark.jobs.NAME --help`:

- hourly_counts  hourly message counts by queue and a message attribute, to Parquet
- replay         a time window of one queue sent again into another, over the SQS API
"""
