"""Column views of a trace's events and edges, shared by the validator and the replayer.

A million-event trace is a million small dicts; checking and replaying them one dict at a time
costs several times the parse. Pulling each field out once as a list (with C-level `map` and
`itemgetter`) lets both passes work on columns.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from itertools import count, repeat
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np

from .model import CARRIED, Item

TARGETED = ("spawn", "return", "despawn", "message")  # the events whose target names an agent


def column(items: list[Any], key: str, skip: set[int] | frozenset[int] = frozenset()) -> list[Any]:
    """ITEMS' values under a required KEY, with None at the indexes in SKIP (items that failed
    the schema)."""
    if not skip:
        get = attrgetter(key) if items and isinstance(items[0], Item) else itemgetter(key)
        return list(map(get, items))
    return [None if i in skip else item[key] for i, item in enumerate(items)]


def aligned(items: list[Any], key: str, skip: set[int] | frozenset[int] = frozenset()) -> list[Any]:
    """ITEMS' values under an optional KEY, None where it is absent or the item is in SKIP."""
    if items and isinstance(items[0], Item):
        return list(map(attrgetter(key), items))
    if skip:
        return [None if i in skip else item.get(key) for i, item in enumerate(items)]
    return [item.get(key) for item in items]


class _HashTable:
    """An open-addressing table from 64-bit hashes to positions, built and probed with array
    operations: each round places (or looks up) every pending key at its next slot."""

    def __init__(self, keys: np.ndarray) -> None:
        size = 1 << max(4, (2 * len(keys)).bit_length())  # at most half full
        self.mask = size - 1
        self.keys = np.zeros(size, dtype=np.int64)
        self.positions = np.full(size, -1, dtype=np.int64)
        self.repeated = False
        pending = np.arange(len(keys))
        slot = keys & self.mask
        while pending.size:
            taken = self.positions[slot] >= 0
            if np.any(self.keys[slot[taken]] == keys[pending[taken]]):
                self.repeated = True  # two equal hashes: the caller takes a slower path
                return
            free = ~taken
            self.positions[slot[free]] = pending[free]  # of several claims, one wins
            won = np.zeros(pending.size, dtype=bool)
            won[free] = self.positions[slot[free]] == pending[free]
            self.keys[slot[won]] = keys[pending[won]]
            lost = free & ~won  # claimed the same slot as a winner this round
            if np.any(self.keys[slot[lost]] == keys[pending[lost]]):
                self.repeated = True
                return
            pending, slot = pending[~won], (slot[~won] + 1) & self.mask

    def find(self, probes: np.ndarray) -> np.ndarray:
        """The position stored under each probe, -1 where there is none."""
        found = np.full(probes.size, -1, dtype=np.int64)
        pending = np.arange(probes.size)
        slot = probes & self.mask
        while pending.size:
            position = self.positions[slot]
            hit = (position >= 0) & (self.keys[slot] == probes[pending])
            found[pending[hit]] = position[hit]
            going = (position >= 0) & ~hit  # an occupied slot of another key: probe on
            pending, slot = pending[going], (slot[going] + 1) & self.mask
        return found


SMALL_TABLE = 4096


def locate(ids: list[Any], wanted: list[Any]) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """For each wanted id, the index of the first event with that id (-1 if none), and every
    repeated id as (index, first index).

    Ids are found through their hashes in a table of arrays, each hit confirmed by value: a
    dict of a million fresh strings costs several times more, in time and memory; below
    SMALL_TABLE ids, a dict costs less than the table's array operations."""
    table = None
    if len(ids) >= SMALL_TABLE:
        table = _HashTable(np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids)))
    if table is None or table.repeated:  # repeated ids (or, rarely, two ids with one hash)
        first: dict[Any, int] = {}
        repeats = []
        for i, x in enumerate(ids):
            if x is not None and x in first:
                repeats.append((i, first[x]))
            elif x is not None:
                first[x] = i
        found = np.fromiter((first.get(x, -1) for x in wanted), dtype=np.int64, count=len(wanted))
        return found, repeats
    if not ids:
        return np.full(len(wanted), -1, dtype=np.int64), []
    found = table.find(np.fromiter(map(hash, wanted), dtype=np.int64, count=len(wanted)))
    same = np.fromiter(
        map(operator.eq, map(ids.__getitem__, found.tolist()), wanted),  # -1: the last, unequal
        dtype=bool,
        count=len(wanted),
    )
    return np.where(same & (found >= 0), found, -1), []


def first_of(keys: np.ndarray, values: np.ndarray, size: int, last: bool = False) -> np.ndarray:
    """An array of SIZE holding, at each key, the value of its first (or LAST) occurrence; -1
    at keys that do not occur."""
    out = np.full(size, -1, dtype=np.int64)
    if last:
        keys, values = keys[::-1], values[::-1]
    distinct, first = np.unique(keys, return_index=True)
    out[distinct] = values[first]
    return out


def _first_codes(values: list[Any]) -> tuple[list[Any], np.ndarray]:
    """The distinct VALUES (None left out) in order of first appearance, and each value's
    index among them (-1 for None), in one pass of dict lookups."""
    first: dict[Any, int] = {}  # value -> index of its first appearance
    at = np.fromiter(map(first.setdefault, values, count()), dtype=np.int64, count=len(values))
    heads = np.flatnonzero(at == np.arange(len(values)))
    rank = np.empty(len(values), dtype=np.int64)
    rank[heads] = np.arange(len(heads))
    codes = rank[at]
    distinct = list(map(values.__getitem__, heads.tolist()))
    if None in first:
        gone = int(rank[first[None]])
        codes[codes == gone] = -1
        codes[codes > gone] -= 1
        del distinct[gone]
    return distinct, codes


@dataclass(slots=True)
class EventTable:
    """Events and edges as columns. `source` and `target` hold event indexes, -1 where the id
    is unknown; `repeats` lists each repeated event id as (index, index of its first use).
    Agents are numbered: `agent_names[c]` is the agent of code c, the events' agents first (in
    order of their first event), then names met later through `agent_codes`."""

    ids: list[Any]
    types: list[Any]
    agents: list[Any]
    t: list[Any]
    times: np.ndarray  # t as floats, NaN for malformed events
    source: np.ndarray
    target: np.ndarray
    edge_types: list[Any]
    kinds: dict[str, int]  # events per type
    codes: np.ndarray
    code: dict[str, int]
    who: np.ndarray  # each event's agent code, -1 for malformed events
    agent_names: list[str]
    agent_code: dict[str, int]
    event_agents: int  # codes below this are agents with events
    listed: np.ndarray  # the code of each agent in $.agents, -1 for malformed ones
    targets: np.ndarray | None  # see target_codes()
    repeats: list[tuple[int, int]]
    events: list[Any]
    bad_events: set[int] | frozenset[int]
    fields: dict[str, list[Any]]

    def of_type(self, kind: str) -> np.ndarray:
        """The indexes of the events of one type, in file order."""
        if kind not in self.code:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.codes == self.code[kind])

    def field(self, key: str) -> list[Any]:
        """The events' values under an optional KEY (None where absent), read once."""
        if key not in self.fields:
            self.fields[key] = aligned(self.events, key, self.bad_events)
        return self.fields[key]

    def agent_codes(self, names: list[Any]) -> np.ndarray:
        """The code of each agent name (-1 for None), numbering names not met before."""
        code = self.agent_code
        found = np.fromiter(map(code.get, names, repeat(-1)), dtype=np.int64, count=len(names))
        if np.count_nonzero(found < 0) > names.count(None):  # names not met before
            for i in np.flatnonzero(found < 0).tolist():
                name = names[i]
                if name is not None:
                    found[i] = code.setdefault(name, len(code))
                    if found[i] == len(self.agent_names):
                        self.agent_names.append(name)
        return found

    def target_codes(self) -> np.ndarray:
        """The `target` of each spawn, return, despawn and message as an agent code; -1 where
        there is none, and for the other events (no check or measure reads theirs)."""
        if self.targets is None:
            kinds = [self.code[k] for k in TARGETED if k in self.code]
            at = np.flatnonzero(np.isin(self.codes, kinds))
            chosen = list(map(self.events.__getitem__, at.tolist()))  # all well formed
            self.targets = np.full(len(self.ids), -1, dtype=np.int64)
            self.targets[at] = self.agent_codes(aligned(chosen, "target"))
        return self.targets


def columns(
    trace: Any,
    bad_events: set[int] | frozenset[int] = frozenset(),
    bad_edges: set[int] | frozenset[int] = frozenset(),
    bad_agents: set[int] | frozenset[int] = frozenset(),
) -> EventTable:
    """The columns of TRACE (in our names), with None in place of the items in BAD_EVENTS,
    BAD_EDGES and BAD_AGENTS; the edge ends are left for `resolve_ends`."""
    events, edges = trace.get("events") or [], trace.get("edges") or []
    types = column(events, "type", bad_events)
    if "orchestrator_decision" in types:  # typed artifact events: a decision, or what it carries
        carried = aligned(events, CARRIED)
        if carried.count(None) < len(carried):
            types = [
                c if c and x == "orchestrator_decision" else x
                for x, c in zip(types, carried, strict=True)
            ]
    return table_of(
        events,
        ids=column(events, "id", bad_events),
        types=types,
        agents=column(events, "agent", bad_events),
        t=column(events, "t", bad_events),
        edge_types=column(edges, "type", bad_edges),
        listed=column(trace.get("agents") or [], "id", bad_agents),
        bad_events=bad_events,
    )


def table_of(
    events: list[Any],
    ids: list[Any],
    types: list[Any],
    agents: list[Any],
    t: list[Any],
    edge_types: list[Any],
    listed: list[Any],
    bad_events: set[int] | frozenset[int] = frozenset(),
) -> EventTable:
    """The table of EVENTS from their columns (None for the malformed ones, in BAD_EVENTS), the
    edges' types and the agent list's ids (LISTED); the edge ends are left for `resolve_ends`."""
    code = {kind: k for k, kind in enumerate(dict.fromkeys(types)) if kind is not None}
    codes = np.fromiter(map(code.get, types, repeat(-1)), dtype=np.int64, count=len(types))
    if "orchestrator_decision" in code:  # read by its code: the types themselves stay as written
        code["decision"] = code.pop("orchestrator_decision")
    counts = np.bincount(codes[codes >= 0], minlength=len(code))
    names, who = _first_codes(agents)
    table = EventTable(
        ids=ids,
        types=types,
        agents=agents,
        t=t,
        times=np.array(t, dtype=np.float64),  # None (a malformed event) becomes NaN
        source=np.zeros(0, dtype=np.int64),  # see resolve_ends
        target=np.zeros(0, dtype=np.int64),
        edge_types=edge_types,
        kinds=dict(zip(code, counts[list(code.values())].tolist(), strict=True)),
        codes=codes,
        code=code,
        who=who,
        agent_names=names,
        agent_code=dict(zip(names, range(len(names)), strict=True)),
        event_agents=len(names),
        listed=np.zeros(0, dtype=np.int64),
        targets=None,
        repeats=[],
        events=events,
        bad_events=bad_events,
        fields={},
    )
    table.listed = table.agent_codes(listed)
    return table


def edge_ends(trace: Any, bad_edges: set[int] | frozenset[int] = frozenset()) -> list[Any]:
    """The edges' sources, then their targets (None for malformed edges)."""
    edges = trace.get("edges") or []
    return column(edges, "source", bad_edges) + column(edges, "target", bad_edges)


def resolve_ends(
    table: EventTable, located: tuple[np.ndarray, list[tuple[int, int]]]
) -> EventTable:
    """TABLE with its edge ends resolved to events, as `locate` found them for `edge_ends`."""
    ends, table.repeats = located
    half = len(ends) // 2
    table.source, table.target = ends[:half], ends[half:]
    return table


def event_table(trace: Any) -> EventTable:
    """The columns of a well-formed TRACE (in our names), edge ends resolved."""
    table = columns(trace)
    return resolve_ends(table, locate(table.ids, edge_ends(trace)))
