#!/usr/bin/env python3
"""Counts a Pajé trace the way Tracescope maps it, independently of the Rust importer, for the
numbers stated in the tests.

containers = PajeCreateContainer lines (each a process)
events     = 1 per create and per destroy of a known container
             + states per (container, type) stack: Set leaves every open state and enters one,
               Push enters, Pop leaves one if open, Reset leaves every open one
             + 1 per PajeNewEvent on a known container
             + 2 per link: starts and ends of a (type, key) paired in file order
messages   = paired links
span_ns    = (max - min date of those events) * 1e9

Usage: paje_counts.py FILE
"""
import collections, shlex, sys
defs, current = {}, None
containers, events, times = set(), 0, []
stacks = collections.defaultdict(int)
links = collections.defaultdict(lambda: ([], []))
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    if line.startswith("%"):
        w = line[1:].split()
        if w and w[0] == "EventDef":
            current = (w[2], w[1], [])
        elif w and w[0] == "EndEventDef":
            defs[current[0]] = (current[1], current[2]); current = None
        elif w:
            current[2].append(w[0])
        continue
    w = shlex.split(line, posix=True)
    name, fields = defs[w[0]]
    f = dict(zip(fields, w[1:]))
    t = float(f["Time"]) if "Time" in f else None
    if name == "PajeCreateContainer":
        containers.add(f["Name"]); containers.add(f["Alias"]) if "Alias" in f else None
        events += 1; times.append(t)
    elif name == "PajeDestroyContainer":
        if f["Name"] in containers:
            events += 1; times.append(t)
    elif name in ("PajeSetState", "PajePushState", "PajePopState", "PajeResetState"):
        if f["Container"] not in containers:
            continue
        key = (f["Container"], f["Type"])
        before = events
        if name == "PajeSetState":
            events += stacks[key] + 1; stacks[key] = 1
        elif name == "PajePushState":
            events += 1; stacks[key] += 1
        elif name == "PajePopState":
            if stacks[key] > 0:
                events += 1; stacks[key] -= 1
        else:
            events += stacks[key]; stacks[key] = 0
        if events > before:
            times.append(t)
    elif name == "PajeNewEvent":
        if f["Container"] in containers:
            events += 1; times.append(t)
    elif name in ("PajeStartLink", "PajeEndLink"):
        links[(f["Type"], f["Key"])][0 if name == "PajeStartLink" else 1].append(t)
messages = 0
for starts, ends in links.values():
    for s, e in zip(starts, ends):
        messages += 1; events += 2; times += [s, e]
n = len([l for l in open(sys.argv[1]) if l.split() and l.split()[0] in [k for k, v in defs.items() if v[0] == "PajeCreateContainer"]])
print(f"containers={n} events={events} messages={messages} span_ns={round((max(times) - min(times)) * 1e9)}")
