"""The native REST API under /v1: queues, messages, message move tasks, topics and
subscriptions, JSON in and out.

operations.py   the route table: each operation declared once, by its handler
queues.py, messages.py, tasks.py, archive.py, topics.py, subscriptions.py
                the handlers, by subject
shapes/         request and response bodies as msgspec Structs
endpoint.py     one request: body (capped), auth, decode, handler, encode, errors
auth.py         bearer tokens or SigV4
errors.py       REST errors and the translation of the layers' errors
openapi.py      the OpenAPI 3.1 document built from the table and the Structs
docs_page.py    that document as an HTML page
routes.py       the Starlette routes
"""
