"""The native JSON vocabulary that the REST API and the WebSocket API share.

Both native APIs carry messages in the same snake_case shapes (common.py, messages.py),
converted to and from the core's values in one place (conversions.py), so a message sent
on one and received on the other looks the same, and the OpenAPI and AsyncAPI documents
describe one set of schemas. This is not a protocol: it imports only the core, and both
protocols import it.
"""

# The version of the native APIs, as their OpenAPI and AsyncAPI documents state it.
API_VERSION = "1.0.0"
