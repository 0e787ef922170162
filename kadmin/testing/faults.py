"""Fault rules: what a broker does wrong, to which API, how many times.

A rule is consumed one request at a time, so ``count=2`` means "the next two matching requests".  Rules are
matched and decremented under the cluster lock by the broker that received the request, which makes
"next N" exact even when several clients race.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("error", "delay", "drop_before", "drop_after", "throttle")


@dataclass
class FaultRule:
    kind: str
    node_id: int | None  # None: any broker
    api_key: int | None  # None: any API
    remaining: int
    error_code: int = 0
    seconds: float = 0.0
    throttle_ms: int = 0

    def matches(self, node_id: int, api_key: int) -> bool:
        return (self.remaining > 0 and (self.node_id is None or self.node_id == node_id)
                and (self.api_key is None or self.api_key == api_key))


@dataclass
class Faults:
    """The faults that apply to one request (at most one of each kind)."""

    error_code: int | None = None
    delay_s: float = 0.0
    drop_before: bool = False
    drop_after: bool = False
    throttle_ms: int | None = None


def take(rules: list[FaultRule], node_id: int, api_key: int) -> Faults:
    """Consume the first matching rule of each kind and say what to do; drops used-up rules."""
    out = Faults()
    seen: set[str] = set()
    for rule in rules:
        if rule.kind in seen or not rule.matches(node_id, api_key):
            continue
        seen.add(rule.kind)
        rule.remaining -= 1
        if rule.kind == "error":
            out.error_code = rule.error_code
        elif rule.kind == "delay":
            out.delay_s = rule.seconds
        elif rule.kind == "drop_before":
            out.drop_before = True
        elif rule.kind == "drop_after":
            out.drop_after = True
        elif rule.kind == "throttle":
            out.throttle_ms = rule.throttle_ms
    rules[:] = [r for r in rules if r.remaining > 0]
    return out
