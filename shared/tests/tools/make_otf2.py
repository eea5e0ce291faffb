#!/usr/bin/env python3
"""Writes a large OTF2 archive with the official `otf2` Python bindings, for the import benchmark:
a ring of LOCATIONS MPI ranks, each doing ROUNDS of Enter/MpiSend/MpiRecv/Leave.

Usage: v/bin/python make_otf2.py OUT_DIR [LOCATIONS] [ROUNDS] [EVENT_CHUNK_BYTES]
"""
import sys
import otf2
from otf2.enums import Type

out, locations, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 64, int(sys.argv[3]) if len(sys.argv) > 3 else 20000
chunk = int(sys.argv[4]) if len(sys.argv) > 4 else 1024 * 1024
with otf2.writer.open(out, timer_resolution=1_000_000_000, chunk_size_events=chunk) as trace:
    root = trace.definitions.system_tree_node("machine")
    node = trace.definitions.system_tree_node("node", parent=root)
    compute = trace.definitions.region("compute", region_role=otf2.RegionRole.FUNCTION)
    send = trace.definitions.region("MPI_Send", region_role=otf2.RegionRole.POINT2POINT, paradigm=otf2.Paradigm.MPI)
    recv = trace.definitions.region("MPI_Recv", region_role=otf2.RegionRole.POINT2POINT, paradigm=otf2.Paradigm.MPI)
    groups = [trace.definitions.location_group(f"MPI Rank {r}", system_tree_parent=node) for r in range(locations)]
    locs = [trace.definitions.location("Master thread", group=g) for g in groups]
    world_group = trace.definitions.group("", members=locs, group_type=otf2.GroupType.COMM_LOCATIONS, paradigm=otf2.Paradigm.MPI)
    comm_group = trace.definitions.group("", members=list(range(locations)), group_type=otf2.GroupType.COMM_GROUP, paradigm=otf2.Paradigm.MPI)
    world = trace.definitions.comm("MPI_COMM_WORLD", comm_group)
    for r, loc in enumerate(locs):
        w = trace.event_writer_from_location(loc)
        t = 0
        for k in range(rounds):
            base = k * 100
            w.enter(base + 1, compute)
            w.leave(base + 10 + r % 7, compute)
            w.enter(base + 20, send)
            w.mpi_send(base + 21, (r + 1) % locations, world, 1, 4096)
            w.leave(base + 22, send)
            w.enter(base + 30, recv)
            w.mpi_recv(base + 60, (r - 1) % locations, world, 1, 4096)
            w.leave(base + 61, recv)
print(f"wrote {out}: {locations} locations, {locations * rounds * 8} events")
