"""Where message classes come from: the schemas kadmin ships (``specs/``) and any schema a user loads.

Classes are built on first use and cached, so importing kadmin does not parse every schema.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kadmin.errors import SchemaError
from kadmin.protocol.message import Message, build_message_class
from kadmin.protocol.schema import parse_schema, read_schema_json


def specs_dir() -> Path:
    """The shipped schemas: ``kadmin/_specs`` (a link to the repository's ``specs/`` in a source tree)."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_specs", here.parent / "specs"):
        if candidate.is_dir():
            return candidate
    raise SchemaError("kadmin's schema folder is missing from this installation")


_lock = threading.RLock()
_by_name: dict[str, type[Message]] = {}
_index: dict[str, Path] | None = None
_by_api: dict[tuple[int, str], str] | None = None


def _load_index() -> tuple[dict[str, Path], dict[tuple[int, str], str]]:
    global _index, _by_api
    with _lock:
        if _index is None or _by_api is None:
            index: dict[str, Path] = {}
            by_api: dict[tuple[int, str], str] = {}
            for path in sorted(specs_dir().glob("*.json")):
                raw = read_schema_json(path)
                name = str(raw.get("name"))
                index[name] = path
                if isinstance(raw.get("apiKey"), int):
                    by_api[(int(raw["apiKey"]), str(raw.get("type")))] = name
            _index, _by_api = index, by_api
        return _index, _by_api


def shipped_names() -> list[str]:
    return sorted(_load_index()[0])


_fast: dict[tuple[str | int, str], type[Message]] = {}


def message_type(name_or_api_key: str | int, kind: str = "request") -> type[Message]:
    """The class of a shipped message, by name (``"FindCoordinatorRequest"``) or by API key and kind."""
    cls = _fast.get((name_or_api_key, kind))  # hot path: every request and response asks
    if cls is not None and type(name_or_api_key) is not bool:
        return cls
    cls = _message_type(name_or_api_key, kind)
    _fast[(name_or_api_key, kind)] = cls
    return cls


def _message_type(name_or_api_key: str | int, kind: str) -> type[Message]:
    index, by_api = _load_index()
    if isinstance(name_or_api_key, int) and not isinstance(name_or_api_key, bool):
        if kind not in ("request", "response"):
            raise ValueError(f"kind must be 'request' or 'response', not {kind!r}")
        name = by_api.get((name_or_api_key, kind))
        if name is None:
            raise KeyError(f"kadmin ships no {kind} schema for API key {name_or_api_key}")
    elif isinstance(name_or_api_key, str):
        name = name_or_api_key
        if name not in index:
            raise KeyError(f"kadmin ships no schema named {name!r}")
    else:
        raise TypeError(f"expected a message name or an API key, got {type(name_or_api_key).__name__}")
    with _lock:
        cls = _by_name.get(name)
        if cls is None:
            cls = build_message_class(parse_schema(index[name]))
            _by_name[name] = cls
        return cls


def load_schema(source: str | Path | Mapping[str, Any]) -> type[Message]:
    """Build a class for any schema in Kafka's format (a path or a dict). Not cached, not registered."""
    return build_message_class(parse_schema(source))


def api_name(api_key: int) -> str:
    """"FindCoordinator" for 10: for messages and errors that name an API."""
    _, by_api = _load_index()
    name = by_api.get((api_key, "request"))
    return name[: -len("Request")] if name else f"api key {api_key}"
