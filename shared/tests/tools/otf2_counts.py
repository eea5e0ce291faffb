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

Usage: python -m venv v && v/bin/pip install otf2 && v/bin/python otf2_counts.py ARCHIVE/traces.otf2
"""
import collections, sys
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
    for loc, ev in r.events:
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
print(f"processes={len(procs)} events={events} messages={messages} span={max(times) - min(times)}")
