"""The node protocol: frames, the node server and its client (docs/cluster.md)."""
