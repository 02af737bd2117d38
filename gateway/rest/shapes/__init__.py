"""The REST API's request and response bodies, declared once as msgspec Structs.

The same declarations decode and validate requests (types, ranges, lengths, patterns,
unknown fields refused), encode responses, and generate the schemas of the OpenAPI
document (gateway/rest/openapi.py), so the document cannot drift from what the code does.
Wire names are snake_case; times are milliseconds since the Unix epoch.
"""
