"""The Spark reader over TideMQ's archive (`spark.read.format("tidemq")`).

- datasource.py         the data source, its batch reader, `register(spark)`
- stream_reader.py      the streaming reader (`spark.readStream.format("tidemq")`)
- options.py, bounds.py the options, and the bounds (options and pushed filters) they set
- archive_reader.py     finding the stream, its manifests, the slices of segments to read
- segment_partition.py  one input partition, and how a task reads it
- segment_walk.py       where a slice's batches and records start (CRCs checked)
- arrow_decode.py       segment bytes -> Arrow batches
- schema.py             the columns
- jobs/                 example jobs (`python -m spark.jobs.NAME --help`)

It imports only the archive (storage_nodes.archive) and the segment format
(storage_nodes.log.record_batch) of TideMQ. docs/spark.md is the user's guide.
"""
