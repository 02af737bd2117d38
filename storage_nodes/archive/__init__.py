"""The archive: sealed segments in object storage, listed by a manifest per partition.

- object_store.py  the small interface every backend implements, and its errors
- local_store.py   a local directory (the embedded default, `<data dir>/archive`)
- s3_store.py      S3 through boto3: any S3-compatible endpoint
- s3_options.py    how to reach it (endpoint, region, credentials)
- stores.py        open_store(url): a store from s3://bucket/prefix or file:///dir
- layout.py        where each object lives under the store's prefix
- manifest.py      a partition's manifest: its JSON, and replacing it under fencing

docs/formats.md ("The archive") is the reference for the keys and the manifest's schema.
"""
