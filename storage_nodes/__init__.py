"""Storage nodes: partition logs on local disk (tiering to object storage is to come)."""
