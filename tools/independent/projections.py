#!/usr/bin/env python3
"""Independent reader of Charm++ Projections logs (Python standard library only).

Usage: projections.py DIR [--tool TEXT]   (DIR holds one NAME.sts and NAME.N.log[.gz])

Prints the numbers the corpus test compares (`expected.json`'s schema) as JSON, read with
the format's own rules, as Charm++'s trace-projections.C writes the records and as pipit's
projections_reader reads them (pipit: Idle, Pack and Unpack are intervals; entry methods are
intervals from BEGIN_PROCESSING to END_PROCESSING):

- PEs are processes; PROCESSORS in the .sts says how many, log k belongs to PE k.
- Times are integers in microseconds (one tick).
- Intervals: BEGIN_PROCESSING 2 / END_PROCESSING 3 of an entry, BEGIN_IDLE 14 / END_IDLE 15,
  BEGIN_PACK 16 / END_PACK 17, BEGIN_UNPACK 18 / END_UNPACK 19. An end closes the interval
  on top of the PE's open ones when it is the same (same entry, or same kind); otherwise it
  is not counted.
- Messages: a creation (1, 20 broadcast, 21 multicast: fields type mtype entry time event pe
  len) is named by its (pe, event) fields; a BEGIN_PROCESSING (type mtype entry time event pe
  len ...) whose (pe, event) names a logged creation is its arrival. Each arrival is one
  message: a send at the creation's time on the creating PE, an arrival at the begin's time;
  its size is the creation's length. When two creations share (pe, event), the first read
  is the one named.
- BEGIN_COMPUTATION 6 starts the process when it is the PE's first interval/message/bound
  record; END_COMPUTATION 7 ends it when it is the last.
- Every other record type is not counted; a line that is not a record is an error.
"""

import gzip
import json
import os
import sys

CREATIONS = {1, 20, 21}
BEGIN, END = 2, 3
SPAN_BEGIN = {14: "Idle", 16: "Pack", 18: "Unpack"}
SPAN_END = {15: "Idle", 17: "Pack", 19: "Unpack"}
START, STOP = 6, 7
MAPPED = CREATIONS | {BEGIN, END, START, STOP} | set(SPAN_BEGIN) | set(SPAN_END)


def read_sts(path):
    pes = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if words and words[0] == "PROCESSORS":
                pes = int(words[1])
    if pes is None:
        raise SystemExit(f"{path}: no PROCESSORS line")
    return pes


def open_log(directory, stem, pe):
    plain = os.path.join(directory, f"{stem}.{pe}.log")
    if os.path.exists(plain):
        return open(plain, encoding="utf-8", errors="replace")
    packed = plain + ".gz"
    if os.path.exists(packed):
        return gzip.open(packed, "rt", encoding="utf-8", errors="replace")
    return None


def read_log(f, name):
    """The PE's mapped records: (type, time, entry, event, pe, length)."""
    records = []
    for number, line in enumerate(f, 1):
        words = line.split()
        if not words or words[0].lstrip("\ufeff") == "PROJECTIONS-RECORD":
            continue
        if not words[0].isdigit():
            raise SystemExit(f"{name}:{number}: not a record: {line!r}")
        kind = int(words[0])
        if kind not in MAPPED:
            continue
        if kind in CREATIONS or kind in (BEGIN, END):
            _mtype, entry, time, event, pe, length = (int(w) for w in words[1:7])
            records.append((kind, time, entry, event, pe, length))
        elif kind in (START, STOP):
            records.append((kind, int(words[1]), 0, 0, 0, 0))
        else:
            records.append((kind, int(words[1]), 0, 0, int(words[2]), 0))
    return records


def main():
    args = sys.argv[1:]
    tool = "Charm++ Projections"
    if "--tool" in args:
        i = args.index("--tool")
        tool = args[i + 1]
        del args[i : i + 2]
    directory = args[0]
    sts = [n for n in os.listdir(directory) if n.endswith(".sts") and not n.endswith(".sum.sts")]
    if len(sts) != 1:
        raise SystemExit(f"expected one .sts in {directory}, found {sts}")
    stem = sts[0][: -len(".sts")]
    pes = read_sts(os.path.join(directory, sts[0]))

    logs = {}
    for pe in range(pes):
        f = open_log(directory, stem, pe)
        if f is not None:
            with f:
                logs[pe] = read_log(f, f"{stem}.{pe}.log")

    creations = {}
    for pe in sorted(logs):
        for i, r in enumerate(logs[pe]):
            if r[0] in CREATIONS and (r[4], r[3]) not in creations:
                creations[(r[4], r[3])] = (pe, i)

    counts = {"enter": 0, "leave": 0, "msg_send": 0, "msg_arr": 0, "proc_init": 0, "proc_exit": 0}
    times_by_pe = {}
    messages = 0
    total_bytes = 0
    consistent = True
    events_at = []  # every event's time

    for pe in sorted(logs):
        records = logs[pe]
        times = []
        stack = []
        for i, (kind, time, entry, event, src, length) in enumerate(records):
            if kind in CREATIONS:
                # The sends are counted below, one per arrival that names the creation.
                continue
            if kind == BEGIN:
                found = creations.get((src, event))
                if found is not None:
                    counts["msg_arr"] += 1
                    times.append(time)
                stack.append(("entry", entry))
                counts["enter"] += 1
                times.append(time)
            elif kind in SPAN_BEGIN:
                stack.append(("span", SPAN_BEGIN[kind]))
                counts["enter"] += 1
                times.append(time)
            elif kind == END or kind in SPAN_END:
                key = ("entry", entry) if kind == END else ("span", SPAN_END[kind])
                if stack and stack[-1] == key:
                    stack.pop()
                    counts["leave"] += 1
                    times.append(time)
            elif kind == START and i == 0:
                counts["proc_init"] += 1
                times.append(time)
            elif kind == STOP and i == len(records) - 1:
                counts["proc_exit"] += 1
                times.append(time)
        times_by_pe[pe] = times

    # The sends: one per arrival, on the creating PE at the creation's time.
    for pe in sorted(logs):
        for r in logs[pe]:
            if r[0] != BEGIN:
                continue
            found = creations.get((r[4], r[3]))
            if found is None:
                continue
            from_pe, i = found
            creation = logs[from_pe][i]
            counts["msg_send"] += 1
            messages += 1
            total_bytes += creation[5]
            times_by_pe[from_pe].append(creation[1])
            if r[1] < creation[1]:
                consistent = False

    # A PE's records must not go back in time (the log is written in order).
    for pe in sorted(logs):
        last = None
        for r in logs[pe]:
            if last is not None and r[1] < last:
                consistent = False
            last = r[1]

    for times in times_by_pe.values():
        events_at.extend(times)
    result = {
        "format": "projections",
        "tool": tool,
        "consistent": consistent,
        "processes_with_events": sum(1 for t in times_by_pe.values() if t),
        "events": {k: v for k, v in counts.items() if v},
        "messages": messages,
        "bytes": total_bytes,
        "span_ticks": (max(events_at) - min(events_at)) if events_at else 0,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
