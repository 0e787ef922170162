"""Calls of the cluster-operation commands (features, quorum, brokers, replica log dirs) on the sync client.

Why a bridge: the sync client (kadmin/client.py) is generated from kadmin/aio.py by scripts/gen_sync.py, and the
methods of issue #26 exist in aio.py first.  Until the file is regenerated, the async method runs on the sync
client's own loop, exactly as a generated method would run it; once it is regenerated the sync method is used
and this module is a plain ``getattr``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kadmin.client import AdminClient


def call(admin: AdminClient, name: str, *args: Any, **kwargs: Any) -> Any:
    """``admin.<name>(*args, **kwargs)``, from the async client when the sync one lacks the method."""
    method = getattr(admin, name, None)
    if method is not None:
        return method(*args, **kwargs)
    coro = getattr(admin._aio, name)(*args, **kwargs)
    return admin._call(coro, kwargs.get("timeout"))


__all__ = ["call"]
