"""An ASGI app served by a real uvicorn on a free loopback port, in a thread, for tests
that need a small app of their own rather than the whole gateway."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from tidemq.redis_server import free_port


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serves `app` until the block ends; yields its base URL `http://127.0.0.1:<port>`."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"served-app-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the app did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        assert not thread.is_alive(), "the app did not shut down"
