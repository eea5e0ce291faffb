#!/usr/bin/env python3
"""An independent reader of Paraver traces (.prv, .prv.gz, with the .pcf beside it ignored: labels
only name things), written from Paraver's own rules and Tracescope's documented mapping
(docs/formats.md, "Paraver"), with no code shared with the Rust importer.

Paraver's rules (paraver-kernel: processmodel.cpp, tracebodyio_v1.cpp):
- Header: #Paraver (date):ftime[_unit]:nodes[(cpus)]:nAppl:appl[<sep>appl...][,ncomms];
  an application is ntasks(nthreads:node,...), and the one character after its ')' (':' or ',')
  separates it from the next.
- Records: 1 state (cpu:appl:task:thread:begin:end:state), 2 events (...:time:type:value...),
  3 communications (sender, lsend, psend, receiver, lrecv, precv, size, tag), 4 skipped,
  'c' communicator lines and '#' lines skipped.
- Each event type is its own timeline per thread: a value holds until the type's next record.

The mapping whose numbers this prints:
- Type classes by Extrae's ranges (src/common/events.h, MPI_EventEncoding.h): MPI call types
  50000001-50000005; sample types (one counter per thread and type, one sample per value):
  30000000-32999999, 41000000-46999999, 50000006-50999999, 54000000-54999999, 65000000-65999999,
  70000000-89999999 and 40000011, 40000013, 40000018, 40000033, 40000036-40000038, 40000050,
  40000133; every other type is a timeline.
- A timeline type's values on a thread are intervals [value's time, the type's next record's
  time), open at the end when the last value is not 0; a 0 with nothing open gives nothing.
- Types are tried as regions in order (MPI types first, then by number): a type is accepted
  when, on every thread, its intervals and those of the types accepted so far form a nested
  family (no two intervals a, b with a.start < b.start < a.end < b.end). Accepted: one enter
  per interval, one leave per closed interval. Rejected: one counter per thread and type with
  one sample per record of that type.
- States: one counter "state" per thread that has state records, one sample per record.
- A communication gives a send at psend, a receive call at lrecv and an arrival at
  max(precv, lrecv). At one tick a thread's events go: its start, arrivals of receives called
  earlier, region enters/leaves, sends, receive calls (an arrival at its call's tick right after
  it), its end. A receive call is "recv_call" when its own arrival is the thread's next event,
  otherwise "recv_post".
- A thread that has a state other than 2 (not created) gets proc_init at the earlier of that
  first state and its first event, proc_exit at the later of its last such state's end (a state
  ending before its begin ends at its begin) and its last event.

Usage: paraver.py TRACE.prv[.gz] [--tool "..."]  -> prints the expected.json fields.
"""
import gzip
import json
import sys


def sample_type(t):
    ranges = [(30000000, 32999999), (41000000, 46999999), (50000006, 50999999),
              (54000000, 54999999), (65000000, 65999999), (70000000, 89999999),
              (40000036, 40000038)]
    if t in (40000011, 40000013, 40000018, 40000033, 40000050, 40000133):
        return True
    return any(lo <= t <= hi for lo, hi in ranges)


def mpi_type(t):
    return 50000001 <= t <= 50000005


def parse_header(line):
    line = line.lstrip("\ufeff")
    assert line.startswith("#Paraver"), "not a Paraver trace"
    # After the date in parentheses (which holds ':'): ":ftime:nodes:nAppl:apps...".
    rest = line[line.index(")") + 1:]
    rest = rest[1:]
    ftime, rest = rest.split(":", 1)
    # The node field may hold "(cpus,...)".
    depth, i = 0, 0
    while True:
        c = rest[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ":" and depth == 0:
            break
        i += 1
    rest = rest[i + 1:]
    n_appl, rest = rest.split(":", 1)
    threads = []
    for a in range(int(n_appl)):
        ntasks, rest = rest.split("(", 1)
        inside, rest = rest.split(")", 1)
        rest = rest[1:]
        tasks = inside.split(",")
        assert len(tasks) == int(ntasks), "task count differs from its list"
        for t, task in enumerate(tasks):
            nthreads = int(task.split(":")[0])
            for th in range(max(nthreads, 1)):
                threads.append((a + 1, t + 1, th + 1))
    return threads


def nested(intervals):
    """Whether no two intervals cross: a.start < b.start < a.end < b.end."""
    # Sweep by start (longer first on a tie) with a stack of the open intervals' ends.
    order = sorted(intervals, key=lambda iv: (iv[0], -iv[1]))
    ends = []
    for start, end in order:
        while ends and ends[-1] <= start:
            ends.pop()
        if ends and end > ends[-1]:
            return False
        ends.append(end)
    return True


def main():
    path = sys.argv[1]
    tool = sys.argv[sys.argv.index("--tool") + 1] if "--tool" in sys.argv else ""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline=None) as f:
        lines = f.read().splitlines()
    threads = parse_header(lines[0])
    index = {t: i for i, t in enumerate(threads)}
    INF = float("inf")
    n = len(threads)
    timelines = {}      # (thread, type) -> [(time, value)]
    sample_counts = {}  # (thread, type) -> samples
    state_counts = [0] * n
    alive = [None] * n
    comm = []           # (sender, psend, receiver, lrecv, completed, size)
    for line in lines[1:]:
        f = line.split(":")
        kind = f[0]
        if kind == "1":
            th = index[(int(f[2]), int(f[3]), int(f[4]))]
            begin, end, state = int(f[5]), int(f[6]), int(f[7])
            end = max(end, begin)
            state_counts[th] += 1
            if state != 2:
                a = alive[th]
                alive[th] = (begin, end) if a is None else (min(a[0], begin), max(a[1], end))
        elif kind == "2":
            th = index[(int(f[2]), int(f[3]), int(f[4]))]
            time = int(f[5])
            vals = [int(x) for x in f[6:]]
            for t, v in zip(vals[0::2], vals[1::2]):
                if sample_type(t):
                    sample_counts[(th, t)] = sample_counts.get((th, t), 0) + 1
                else:
                    timelines.setdefault((th, t), []).append((time, v))
        elif kind == "3":
            s = index[(int(f[2]), int(f[3]), int(f[4]))]
            r = index[(int(f[8]), int(f[9]), int(f[10]))]
            psend, lrecv, precv, size = int(f[6]), int(f[11]), int(f[12]), int(f[13])
            comm.append((s, psend, r, lrecv, max(precv, lrecv), size))
    # Intervals per (thread, type).
    ivs = {}
    for key, values in timelines.items():
        values.sort(key=lambda tv: tv[0])
        out, cur = [], None
        for time, v in values:
            if cur is not None:
                out.append((cur, time))
                cur = None
            if v != 0:
                cur = time
        if cur is not None:
            out.append((cur, INF))
        ivs[key] = out
    types = sorted({t for (_, t) in timelines}, key=lambda t: (not mpi_type(t), t))
    accepted_ivs = [[] for _ in range(n)]
    accepted, rejected = [], []
    for t in types:
        ok = all(nested(accepted_ivs[th] + ivs[(th, tt)])
                 for (th, tt) in ivs if tt == t)
        if ok:
            accepted.append(t)
            for (th, tt) in ivs:
                if tt == t:
                    accepted_ivs[th] = accepted_ivs[th] + ivs[(th, tt)]
        else:
            rejected.append(t)
    counts = {"proc_init": 0, "proc_exit": 0, "enter": 0, "leave": 0, "msg_send": 0,
              "recv_call": 0, "recv_post": 0, "msg_arr": 0}
    # Per thread: sort keys of every event, for times and for the receive kinds.
    keys = [[] for _ in range(n)]
    BIG = 1 << 62
    for th in range(n):
        for start, end in accepted_ivs[th]:
            keys[th].append((start, 2, BIG, 0, "enter", None))
            if end != INF:
                keys[th].append((end, 2, BIG, 0, "leave", None))
    seq = 0
    for m, (s, psend, r, lrecv, completed, size) in enumerate(comm):
        seq += 1
        keys[s].append((psend, 3, seq, 0, "msg_send", None))
        seq += 1
        call_seq = seq
        keys[r].append((lrecv, 4, call_seq, 0, "call", m))
        if completed == lrecv:
            keys[r].append((lrecv, 4, call_seq, 1, "msg_arr", m))
        else:
            seq += 1
            keys[r].append((completed, 1, seq, 0, "msg_arr", m))
    for th in range(n):
        if alive[th] is None:
            continue
        times = [k[0] for k in keys[th]]
        begin = min([alive[th][0]] + times)
        end = max([alive[th][1]] + times)
        keys[th].append((begin, 0, BIG, 0, "proc_init", None))
        keys[th].append((end, 5, BIG, 0, "proc_exit", None))
    all_times = []
    with_events = 0
    for th in range(n):
        k = sorted(keys[th], key=lambda x: x[:4])
        if k:
            with_events += 1
        for i, ev in enumerate(k):
            all_times.append(ev[0])
            if ev[4] == "call":
                nxt = k[i + 1] if i + 1 < len(k) else None
                blocking = nxt is not None and nxt[4] == "msg_arr" and nxt[5] == ev[5]
                counts["recv_call" if blocking else "recv_post"] += 1
            else:
                counts[ev[4]] += 1
    counters = sum(1 for c in state_counts if c) + len(sample_counts)
    samples = sum(state_counts) + sum(sample_counts.values())
    for t in rejected:
        for (th, tt), values in timelines.items():
            if tt == t:
                counters += 1
                samples += len(values)
    out = {
        "format": "paraver",
        "tool": tool,
        "consistent": True,
        "processes_with_events": with_events,
        "events": {k: v for k, v in counts.items() if v},
        "messages": len(comm),
        "bytes": sum(c[5] for c in comm),
        "span_ticks": (max(all_times) - min(all_times)) if all_times else 0,
        "counters": counters,
        "counter_samples": samples,
    }
    print(json.dumps(out, indent=2))
    print(json.dumps({"regions_from_types": accepted, "gauge_types": rejected}), file=sys.stderr)


if __name__ == "__main__":
    main()
