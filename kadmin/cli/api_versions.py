"""``kadmin api-versions``: what each broker speaks, what kadmin speaks, and the version kadmin will use.

Why per node: during a rolling upgrade brokers differ, and the interesting output is exactly where they do.
The guessed release ("looks like Kafka 2.8") is a hint from the advertised ranges, not something a broker
reports; it is labelled as a guess.

APIs kadmin speaks that a node does not advertise are listed too (node range null, used version null):
"this node cannot do DescribeClientQuotas" is the most useful line of this command on an old broker.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.cli.output import Column, JsonDict

if TYPE_CHECKING:
    from kadmin.cli.main import Context
    from kadmin.types import NodeApiVersions

COMMAND = "api-versions"


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(COMMAND, parents=[common], help="per broker: API version ranges and what kadmin uses",
                       description="For every broker: each API with the broker's version range, kadmin's range "
                                   "and the version kadmin negotiates, plus the guessed Kafka release.")
    p.add_argument("--kadmin-only", action="store_true",
                   help="only the APIs kadmin itself uses (hide the broker's other APIs)")
    p.set_defaults(run=run)


def _our_ranges() -> dict[int, tuple[int, int]]:
    """What kadmin's client sends per API: its schemas' range, capped where kadmin does not handle a newer
    version yet (kadmin.protocol.client_versions says why, per API)."""
    from kadmin.protocol.client_versions import client_ranges

    return client_ranges()


def node_json(nv: NodeApiVersions, ours: dict[int, tuple[int, int]], kadmin_only: bool) -> JsonDict:
    from kadmin.protocol import api_name

    apis: list[JsonDict] = []
    for key in sorted(set(nv.apis) | set(ours)):
        r = nv.apis.get(key)
        mine = ours.get(key)
        if kadmin_only and mine is None:
            continue
        apis.append({
            "api_key": key,
            "name": r.name if r is not None else api_name(key),
            "node_min": r.node_min if r is not None else None,
            "node_max": r.node_max if r is not None else None,
            "kadmin_min": mine[0] if mine else None,
            "kadmin_max": mine[1] if mine else None,
            "negotiated": r.negotiated if r is not None else None,
        })
    n = nv.node
    return {"node_id": n.node_id, "host": n.host, "port": n.port, "rack": n.rack,
            "release_guess": nv.release_guess, "apis": apis}


def _range(lo: int | None, hi: int | None) -> str | None:
    if lo is None or hi is None:
        return None
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _used(api: JsonDict) -> str | None:
    if api["kadmin_min"] is None:
        return None  # not an API kadmin sends
    if api["negotiated"] is not None:
        return str(api["negotiated"])
    return "none" if api["node_min"] is not None else "n/a"


def run(ctx: Context) -> int:
    with ctx.admin() as admin:
        result = admin.api_versions()
    ours = _our_ranges()
    nodes = [node_json(result[n], ours, ctx.args.kadmin_only) for n in sorted(result)]
    p = ctx.printer
    if p.json:
        p.emit(COMMAND, {"nodes": nodes})
        return 0
    guesses = {n["node_id"]: n["release_guess"] for n in nodes}
    if len(set(guesses.values())) > 1:
        p.lines(["mixed versions: " + ", ".join(
            f"node {k} looks like {v or 'an unknown release'}" for k, v in sorted(guesses.items())), ""])
    cols = [Column("KEY", right=True), Column("API", flex=True), Column("NODE"), Column("KADMIN"),
            Column("USED")]
    for i, n in enumerate(nodes):
        if i:
            p.lines([""])
        guess = f"looks like Kafka {n['release_guess']}" if n["release_guess"] else "release not recognised"
        rack = f", rack {n['rack']}" if n["rack"] else ""
        p.lines([f"node {n['node_id']} at {n['host']}:{n['port']}{rack} ({guess})"])
        p.table(cols, [[a["api_key"], a["name"], _range(a["node_min"], a["node_max"]) or "absent",
                        _range(a["kadmin_min"], a["kadmin_max"]), _used(a)] for a in n["apis"]])
    p.lines(["", "NODE/KADMIN: version ranges.  USED: the version kadmin sends to that node",
             "(none: no version in common; n/a: the node lacks the API; -: kadmin does not use it)."])
    return 0
