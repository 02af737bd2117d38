"""Registering the embedded launcher's admin credentials as an access key.

`tidemq up` prints its credentials; registering them at every start (for the default
account) is what makes them work. Changing TIDEMQ_ACCESS_KEY_ID revokes the admin key
registered under the previous id, so old admin credentials stop working.
"""

from __future__ import annotations

from control_plane.access_keys import DEFAULT_ACCOUNT_ID, AccessKey, AccessKeys
from control_plane.clock import SystemClock
from control_plane.redis_client import open_redis
from control_plane.secret_box import SecretBox
from tidemq.credentials import Credentials


async def register_admin_key(
    redis_url: str,
    master_key: bytes,
    credentials: Credentials,
    account_id: str = DEFAULT_ACCOUNT_ID,
) -> AccessKey:
    """Raises ControlPlaneError if Redis cannot be reached or the credentials are malformed."""
    redis = open_redis(redis_url)
    try:
        keys = AccessKeys(redis, SystemClock(), SecretBox(master_key))
        return await keys.put_admin(
            account_id, credentials.access_key_id, credentials.secret_access_key
        )
    finally:
        await redis.aclose()
