"""The columns of `spark.read.format("tidemq")`, as a Spark schema and as the Arrow schema
that `read()` yields (the two must agree exactly, nullability included: PySpark compares
them before it accepts a batch).

    account           string, not null   the stream's account id
    queue             string, not null   the queue's (or topic's) name
    partition         int, not null
    offset            bigint, not null   dense per partition, from 0
    timestamp         timestamp, not null  when TideMQ stored the message (ms precision)
    message_id        string, not null
    group_id          string             FIFO message group id, null if none
    deduplication_id  string             null if none
    attributes        map<string, struct<data_type: string not null,
                          string_value: string, binary_value: binary>>, not null
                                         the SQS MessageAttributes (empty map if none)
    body              binary, not null
"""

from __future__ import annotations

import functools
from json import loads as _loads

import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import (
    BinaryType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

ATTRIBUTE_VALUE = StructType(
    [
        StructField("data_type", StringType(), nullable=False),
        StructField("string_value", StringType()),
        StructField("binary_value", BinaryType()),
    ]
)

SCHEMA = StructType(
    [
        StructField("account", StringType(), nullable=False),
        StructField("queue", StringType(), nullable=False),
        StructField("partition", IntegerType(), nullable=False),
        StructField("offset", LongType(), nullable=False),
        StructField("timestamp", TimestampType(), nullable=False),
        StructField("message_id", StringType(), nullable=False),
        StructField("group_id", StringType()),
        StructField("deduplication_id", StringType()),
        StructField(
            "attributes",
            MapType(StringType(), ATTRIBUTE_VALUE, valueContainsNull=False),
            nullable=False,
        ),
        StructField("body", BinaryType(), nullable=False),
    ]
)
_COLUMNS = {field.name: field for field in SCHEMA}

ARROW_ATTRIBUTE_VALUE = pa.struct(
    [
        pa.field("data_type", pa.string(), nullable=False),
        pa.field("string_value", pa.string()),
        pa.field("binary_value", pa.binary()),
    ]
)
ARROW_ATTRIBUTES = pa.map_(
    pa.field("key", pa.string(), nullable=False),
    pa.field("value", ARROW_ATTRIBUTE_VALUE, nullable=False),
)
# Spark hands Python UTC microseconds for a TimestampType column.
ARROW_TIMESTAMP = pa.timestamp("us", tz="UTC")

ARROW_SCHEMA = pa.schema(
    [
        pa.field("account", pa.string(), nullable=False),
        pa.field("queue", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("offset", pa.int64(), nullable=False),
        pa.field("timestamp", ARROW_TIMESTAMP, nullable=False),
        pa.field("message_id", pa.string(), nullable=False),
        pa.field("group_id", pa.string()),
        pa.field("deduplication_id", pa.string()),
        pa.field("attributes", ARROW_ATTRIBUTES, nullable=False),
        pa.field("body", pa.binary(), nullable=False),
    ]
)


def check_projection(schema: StructType) -> None:
    """Accepts a user-given schema made of some of the columns, with their types, in any
    order (`.schema("offset bigint, body binary")`: the reader then builds only those);
    raises ValueError otherwise."""
    for field in schema:
        ours = _COLUMNS.get(field.name)
        if ours is None:
            raise ValueError(
                f"the tidemq format has no column {field.name!r}; its columns are "
                f"{SCHEMA.simpleString()}"
            )
        if field.dataType.simpleString() != ours.dataType.simpleString():
            raise ValueError(
                f"column {field.name} is {ours.dataType.simpleString()}, not "
                f"{field.dataType.simpleString()}"
            )


@functools.lru_cache(maxsize=16)
def _arrow_schema(schema_json: str) -> pa.Schema:
    return to_arrow_schema(StructType.fromJson(_loads(schema_json)), timezone="UTC")


def arrow_schema(schema: StructType) -> pa.Schema:
    """The Arrow schema PySpark expects of batches for `schema` (as it computes it)."""
    if schema == SCHEMA:
        return ARROW_SCHEMA
    return _arrow_schema(schema.json())
