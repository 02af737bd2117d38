"""Makes `spark.read.format("tidemq")` work with no registration call.

PySpark 4 looks, once per session, for importable top-level modules whose names start
with `pyspark_`, and registers the `DefaultSource` data source class of each under its
`name()` (pyspark/sql/worker/lookup_data_sources.py). TideMQ's reader lives in the
`spark` package, which that lookup does not consider; this module is the hook.
"""

from spark.datasource import TideMQDataSource as DefaultSource

__all__ = ["DefaultSource"]
