"""The partition log engine: record batches in segments with sparse indexes."""
