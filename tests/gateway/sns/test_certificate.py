"""The signing certificate at `/SimpleNotificationService-<key id>.pem`, over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import aiohttp
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from control_plane.signing_keys import SigningKey, generate
from gateway.sns.certificate import ROUTE_PATH, signing_certificate
from tests.served_apps import serve


@pytest.fixture(scope="module")
def key() -> SigningKey:
    return generate()


@pytest.fixture(scope="module")
def url(key: SigningKey) -> Iterator[str]:
    app = Starlette(routes=[Route(ROUTE_PATH, signing_certificate)])
    app.state.signing_key = key
    with serve(app) as base_url:
        yield base_url


async def test_the_current_key_ids_certificate_is_served_without_credentials(
    key: SigningKey, url: str
) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{url}/SimpleNotificationService-{key.key_id}.pem") as response,
    ):
        assert response.status == 200
        assert await response.read() == key.certificate_pem
        assert response.headers["Content-Type"] == "application/x-pem-file"
        assert "immutable" in response.headers["Cache-Control"]


@pytest.mark.parametrize(
    "path",
    [
        "/SimpleNotificationService-00000000000000000000000000000000.pem",
        "/SimpleNotificationService-{key_id}.pem.bak",
        "/SimpleNotificationService-{key_id}x.pem",
        "/SimpleNotificationService-.pem",
    ],
)
async def test_any_other_key_id_is_not_found(key: SigningKey, url: str, path: str) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(url + path.format(key_id=key.key_id)) as response,
    ):
        assert response.status == 404
        assert key.certificate_pem not in await response.read()
