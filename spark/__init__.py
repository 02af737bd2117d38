"""The Spark reader over tiered segments (`spark.read.format("tidemq")`).

It will import only the segment format and the object-store reader of `storage_nodes`.
"""
