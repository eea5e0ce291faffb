"""Writes a synthetic MPI trace in OTF2 with the official Python bindings (PyPI `otf2`), for
`cargo xtask perf-compare`.

usage: gen_otf2.py ARCHIVE_DIR N_EVENTS [N_RANKS]

Each rank repeats: compute, MPI_Send to the next rank, MPI_Recv from the previous one — eight
events a round (enter and leave of three regions, a send, a receive) — until the trace holds
N_EVENTS events. Timestamps are in nanoseconds.
"""

import sys

import otf2
from otf2.enums import Paradigm, RegionRole, GroupType, GroupFlag


def main():
    archive, n_events = sys.argv[1], int(sys.argv[2])
    ranks = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    rounds = max(1, n_events // (8 * ranks))
    with otf2.writer.open(archive, timer_resolution=1_000_000_000) as trace:
        d = trace.definitions
        root = d.system_tree_node("cluster")
        locations = []
        for r in range(ranks):
            node = d.system_tree_node(f"node {r // 16}", parent=root)
            group = d.location_group(f"rank {r}", system_tree_parent=node)
            locations.append(d.location("main thread", group=group))
        d.group(
            "MPI_COMM_WORLD locations",
            group_type=GroupType.COMM_LOCATIONS,
            paradigm=Paradigm.MPI,
            group_flags=GroupFlag.NONE,
            members=locations,
        )
        comm_group = d.group(
            "MPI_COMM_WORLD ranks",
            group_type=GroupType.COMM_GROUP,
            paradigm=Paradigm.MPI,
            group_flags=GroupFlag.NONE,
            members=list(range(ranks)),
        )
        comm = d.comm("MPI_COMM_WORLD", comm_group)
        compute = d.region("compute", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        send = d.region("MPI_Send", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        recv = d.region("MPI_Recv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        for r, loc in enumerate(locations):
            w = trace.event_writer_from_location(loc)
            right, left = (r + 1) % ranks, (r - 1) % ranks
            t = 1_000 + r * 7
            for i in range(rounds):
                w.enter(t, compute)
                t += 900 + (r * 13 + i * 7) % 200
                w.leave(t, compute)
                w.enter(t + 10, send)
                w.mpi_send(t + 20, right, comm, i, 1024)
                w.leave(t + 30, send)
                w.enter(t + 40, recv)
                w.mpi_recv(t + 300, left, comm, i, 1024)
                w.leave(t + 310, recv)
                t += 320


if __name__ == "__main__":
    main()
