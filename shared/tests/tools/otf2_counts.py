#!/usr/bin/env python3
"""Counts an OTF2 archive the way Tracescope maps it, using the official `otf2` Python bindings
(PyPI `otf2` 3.2, the OTF2 C library) rather than Tracescope's own decoder.

processes = CPU_THREAD and GPU locations
events    = ProgramBegin, ProgramEnd, Enter, Leave, MpiSend, MpiIsend, MpiIrecvRequest,
            MpiIrecv: 1 each; MpiRecv: 2 (a receive call at the enter of the enclosing
            point-to-point region, and the arrival) or 1 outside such a region;
            ThreadCreate, ThreadBegin, ThreadWait, ThreadEnd: 1 each; others 0
messages  = per (sender, receiver, tag): min(sends, receives)
span      = max - min time of the counted events (ticks)
counters  = metric series: one per (recording location, metric class or instance, member)
            with a sample, from every location (METRIC locations included)
samples   = the values of `Metric` records in all

With --metrics, one JSON line per series follows: the member's name and unit, its MetricMode's
value kind, the number of samples, the first and last times (ticks after the clock's global
offset, as the model counts them), the values scaled by the member's
base and exponent, and the location whose row the series belongs to by the OTF2 scope rules
(an instance's scope: a location, a location group, a system tree node, or a group of
locations; a class's recorder; a METRIC location stands for its group's first CPU thread,
else its first GPU location).

Usage: python -m venv v && v/bin/pip install otf2 && v/bin/python otf2_counts.py ARCHIVE/traces.otf2 [--metrics]
"""
import collections, json, sys
import otf2
from otf2.events import *

sends, recvs = collections.Counter(), collections.Counter()
events, times = 0, []
with otf2.reader.open(sys.argv[1]) as r:
    defs = r.definitions
    procs = [l for l in defs.locations if l.type in (otf2.LocationType.CPU_THREAD, otf2.LocationType.GPU)]
    stacks = collections.defaultdict(list)
    def member(comm, rank):
        return list(comm.group.members)[rank]
    series = collections.OrderedDict()
    for loc, ev in r.events:
        if isinstance(ev, Metric):
            for k, v in enumerate(ev.values):
                series.setdefault((loc._ref, ev.metric._ref, k), (loc, ev.metric, []))[2].append((ev.time, v))
        n = 0
        if isinstance(ev, (ProgramBegin, ProgramEnd, MpiSend, MpiIsend, MpiIrecvRequest, MpiIrecv,
                           ThreadCreate, ThreadBegin, ThreadWait, ThreadEnd)):
            n = 1
        if isinstance(ev, Enter):
            stacks[loc].append(ev.region); n = 1
        if isinstance(ev, Leave):
            if stacks[loc]: stacks[loc].pop()
            n = 1
        if isinstance(ev, MpiRecv):
            p2p = stacks[loc] and stacks[loc][-1].region_role == otf2.RegionRole.POINT2POINT
            n = 2 if p2p else 1
        if isinstance(ev, (MpiSend, MpiIsend)):
            sends[(loc._ref, member(ev.communicator, ev.receiver)._ref, ev.msg_tag)] += 1
        if isinstance(ev, (MpiRecv, MpiIrecv)):
            recvs[(member(ev.communicator, ev.sender)._ref, loc._ref, ev.msg_tag)] += 1
        if n:
            events += n; times.append(ev.time)
messages = sum(min(sends[k], recvs[k]) for k in sends)
samples = sum(len(s[2]) for s in series.values())
print(f"processes={len(procs)} events={events} messages={messages} span={max(times) - min(times)}"
      f" counters={len(series)} samples={samples}")

if "--metrics" in sys.argv:
    rows = [l for l in defs.locations if l.type in (otf2.LocationType.CPU_THREAD, otf2.LocationType.GPU)]

    def first(candidates):
        for wanted in (otf2.LocationType.CPU_THREAD, otf2.LocationType.GPU):
            for l in rows:
                if l.type == wanted and candidates(l):
                    return l
        return None

    def of_location(l):
        return l if l in rows else first(lambda x: x.group == l.group)

    def below(node, ancestor):
        while node is not None:
            if node == ancestor:
                return True
            node = node.parent
        return False

    def row(recorder, metric):
        found = None
        if isinstance(metric, otf2.definitions.MetricInstance):
            scope = metric.scope
            if isinstance(scope, otf2.definitions.Location):
                found = of_location(scope)
            elif isinstance(scope, otf2.definitions.LocationGroup):
                found = first(lambda x: x.group == scope)
            elif isinstance(scope, otf2.definitions.SystemTreeNode):
                found = first(lambda x: below(x.group.system_tree_parent, scope))
            elif isinstance(scope, otf2.definitions.Group):
                found = next((of_location(m) for m in scope.members if of_location(m)), None)
        return found or of_location(recorder)

    for (_, _, k), (loc, metric, samples) in series.items():
        members = metric.members if isinstance(metric, otf2.definitions.MetricClass) else metric.metric_class.members
        m = members[k]
        scale = (10 if m.base == otf2.Base.DECIMAL else 2) ** m.exponent
        target = row(loc, metric)
        print(json.dumps({
            "name": m.name, "unit": m.unit,
            "mode": str(m.metric_mode).split(".")[-1],
            "recorder": loc.name, "row": None if target is None else f"{target.group.name} · {target.name}",
            "samples": len(samples),
            "first_tick": samples[0][0] - defs.clock_properties.global_offset,
            "last_tick": samples[-1][0] - defs.clock_properties.global_offset,
            "values": [v * scale for _, v in samples],
        }))
