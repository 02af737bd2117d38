"""Storage nodes: partition logs on local disk, tiered to object storage."""
