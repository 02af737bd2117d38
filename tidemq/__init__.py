"""TideMQ's composition root: the `tidemq` command, settings and the embedded launcher."""

__version__ = "0.1.0"
