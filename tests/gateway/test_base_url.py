from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import HTTPConnection

from gateway.base_url import base_url

_HTTP = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


def _connection(scheme: str, host: bytes | None, public_url: str | None = None) -> HTTPConnection:
    app = SimpleNamespace(state=SimpleNamespace(public_url=public_url))
    headers = [] if host is None else [(b"host", host)]
    scope = {
        "type": "websocket" if scheme.startswith("ws") else "http",
        "scheme": scheme,
        "server": ("127.0.0.1", 9324),
        "path": "/v1/queues/orders/messages",
        "query_string": b"wait=1",
        "headers": headers,
        "app": app,
    }
    return HTTPConnection(scope)


@given(
    scheme=st.sampled_from(sorted(_HTTP)),
    host=st.one_of(
        st.none(),
        st.binary(max_size=40),
        st.from_regex(rb"\A[a-z0-9.:\[\]-]{0,20}(:[0-9]{0,7})?\Z"),
    ),
)
def test_same_as_the_requests_url(scheme: str, host: bytes | None) -> None:
    connection = _connection(scheme, host)
    url = connection.url
    assert base_url(connection) == f"{_HTTP[scheme]}://{url.netloc}"


def test_host_header_and_server() -> None:
    assert base_url(_connection("http", b"sqs.example.com:9324")) == "http://sqs.example.com:9324"
    assert base_url(_connection("wss", b"mq.example.com")) == "https://mq.example.com"
    assert base_url(_connection("http", None)) == "http://127.0.0.1:9324"


def test_public_url_wins() -> None:
    connection = _connection("http", b"internal:9324", public_url="https://mq.example.com")
    assert base_url(connection) == "https://mq.example.com"
