"""What the Spark reader raises on purpose.

    TideMQSparkError          the archive cannot be read as asked; the message says why
     +-- OptionError          an option is missing, unknown or malformed
     +-- StreamNotFound       no archived stream by that account, kind and name (or id)
     +-- StreamDeleted        every stream of that name is marked deleted (deleted.json)
     +-- ArchiveFormatError   an object this reader refuses: a manifest or stream.json of
     |                        an unknown format, or malformed
     +-- CorruptSegment       a listed segment's bytes fail a CRC or structural check, or
                              its object is missing or shorter than the manifest says

All are ValueErrors: bad input (options, or archive contents), never a transient failure.
Object-store errors (`ObjectStoreUnavailable`, ...) pass through unchanged: those may be
worth retrying.
"""

from __future__ import annotations


class TideMQSparkError(ValueError):
    pass


class OptionError(TideMQSparkError):
    pass


class StreamNotFound(TideMQSparkError):
    pass


class StreamDeleted(TideMQSparkError):
    pass


class ArchiveFormatError(TideMQSparkError):
    pass


class CorruptSegment(TideMQSparkError):
    pass
