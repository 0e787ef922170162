"""The fake brokers' API handlers: one module per Kafka API key, each registering itself.

Why discovery and not an import list: adding an API to the fake is one new file here whose top-level code
calls :func:`~kadmin.testing.handlers.base.register` with its key (as franz-go's kfake registers one file per
key).  Importing this package imports every module in it, so the file is served as soon as it exists; no
list, no ``__all__`` to keep in step.  Modules that register nothing (``base``, ``*_common``, ``topic_rules``)
are the helpers handlers share.  A few keys that truly behave as one (the ZooKeeper inter-broker refusals,
the two KRaft voter changes) share one module and one handler.
"""

from __future__ import annotations

import importlib
import pkgutil

from kadmin.testing.handlers.base import HANDLERS, ApiHandler, RequestContext, SaslState


def _import_every_module() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{info.name}")


_import_every_module()

__all__ = ["HANDLERS", "ApiHandler", "RequestContext", "SaslState"]
