#!/usr/bin/env python3
"""Counts a Chrome Trace Event file the way Tracescope's model sees it, independently of the
Rust importer (plain json module, no shared code), for the numbers stated in the tests.

threads   = distinct (pid, tid) of non-metadata events plus threads named by thread_name
events    = 2 per X slice + 1 per B + 1 per matched E + 1 per instant (i, I, R)
            + 2 per message
messages  = consecutive points of a flow on different threads; v1 flows are s/t/f keyed by
            (cat, name, id); v2 flows are bind_id with flow_out/flow_in on slices
span_ns   = last - first event time in ns, X slice ends included

Usage: chrome_counts.py FILE[.gz]

Superseded by tools/independent/chrome.py, which reads flows by the format's rule (an f closes
its flow; flow events bind to slices) and counts only threads with events; on the two samples
the numbers stated in the tests are the same by both.
"""
import collections, gzip, json, sys

path = sys.argv[1]
raw = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
doc = json.loads(raw)
events = doc["traceEvents"] if isinstance(doc, dict) else doc
threads, times = set(), []
n_events, opened = 0, collections.Counter()
flows = collections.defaultdict(list)
def key(e):
    pid = str(e.get("pid", 0))
    return (pid, str(e.get("tid", pid)))
for e in events:
    ph = e["ph"]
    if ph == "M":
        if e.get("name") == "thread_name":
            threads.add(key(e))
        continue
    t = key(e)
    threads.add(t)
    ts = round(e["ts"] * 1000) if "ts" in e else None
    if ph == "X":
        n_events += 2
        times += [ts, round((e["ts"] + max(e.get("dur", 0), 0)) * 1000)]
    elif ph == "B":
        n_events += 1; opened[t] += 1; times.append(ts)
    elif ph == "E":
        if opened[t] > 0:
            opened[t] -= 1; n_events += 1; times.append(ts)
    elif ph in ("i", "I", "R"):
        n_events += 1; times.append(ts)
    elif ph in ("s", "t", "f"):
        stage = {"s": 0, "t": 1, "f": 2}[ph]
        flows[("v1", e.get("cat", ""), e.get("name", ""), str(e["id"]))].append((ts, stage, t))
    if ph in ("X", "B", "E") and "bind_id" in e:
        if e.get("flow_out"):
            flows[("v2", str(e["bind_id"]))].append((ts, 0, t))
        if e.get("flow_in"):
            flows[("v2", str(e["bind_id"]))].append((ts, 2, t))
messages = 0
for points in flows.values():
    points.sort(key=lambda p: (p[0], p[1]))
    for a, b in zip(points, points[1:]):
        if a[2] != b[2]:
            messages += 1
            times += [a[0], b[0]]
n_events += 2 * messages
print(f"threads={len(threads)} events={n_events} messages={messages} span_ns={max(times) - min(times)}")
