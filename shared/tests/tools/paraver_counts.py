#!/usr/bin/env python3
"""Counts a Paraver .prv (+ .pcf) the way Tracescope's model maps it, independently of the Rust
importer, for the numbers stated in the tests.

threads   = threads declared in the header
events    = 2 per thread with a state other than "Not created" (init, exit)
            + 2 per state record with state > 2
            + per type:value pair of event records, skipping counters (42000000-42999999):
              1 per non-zero value, 1 per zero value that closes an open value of its type
              (a non-zero value over an open one of the same type also closes it: +1)
            + 3 per communication record (send, receive call, arrival)
messages  = communication records
violations= communication records whose physical receive < physical send
span      = max - min of every time used

Usage: paraver_counts.py FILE.prv
"""
import sys
lines = open(sys.argv[1]).read().splitlines()
header = lines[0]
tasks = header.split(")", 1)[1].split(":")
# threads: sum of the nthreads in every application's (nthreads:node,...) list
inside = header[header.index("(", header.index(")") + 1) + 1:].split(")")[0]
threads = sum(int(t.split(":")[0]) for t in inside.split(","))
events, messages, violations, times = 0, 0, 0, []
alive, opened = {}, set()
for line in lines[1:]:
    f = line.split(":")
    if f[0] == "1":
        thread, begin, end, state = tuple(f[2:5]), int(f[5]), int(f[6]), int(f[7])
        if state != 2:
            b, e = alive.get(thread, (begin, end))
            alive[thread] = (min(b, begin), max(e, end))
        if state > 2:
            events += 2
            times += [begin, end]
    elif f[0] == "2":
        thread, time = tuple(f[2:5]), int(f[5])
        pairs = list(zip(f[6::2], f[7::2]))
        for t, v in pairs:
            t, v = int(t), int(v)
            if 42000000 <= t < 43000000:
                continue
            if v == 0:
                if (thread, t) in opened:
                    opened.discard((thread, t)); events += 1; times.append(time)
            else:
                if (thread, t) in opened:
                    events += 1
                opened.add((thread, t)); events += 1; times.append(time)
    elif f[0] == "3":
        messages += 1; events += 3
        psend, lrecv, precv = int(f[6]), int(f[11]), int(f[12])
        times += [psend, lrecv, precv]
        violations += precv < psend
for b, e in alive.values():
    events += 2; times += [b, e]
print(f"threads={threads} events={events} messages={messages} violations={violations} span={max(times) - min(times)}")
