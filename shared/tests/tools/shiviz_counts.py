#!/usr/bin/env python3
"""Counts a ShiViz log the way Tracescope maps it, independently of the Rust importer (Python's
re module, ShiViz's parent derivation written anew), for the numbers stated in the tests.

hosts     = distinct host groups
messages  = parent -> child pairs: for each event, hosts whose clock entry increased since the
            host's previous event, minus candidates implied by another candidate's clock
events    = matched log events (one probe each) + 2 per message
skipped   = non-empty lines of the log body not covered by a match
span      = longest Lamport clock - 1 (first events have clock 1)

Usage: shiviz_counts.py FILE [REGEX]   (REGEX in Python syntax; default: the file's first line)
"""
import json, re, sys
text = open(sys.argv[1]).read()
if len(sys.argv) > 2:
    pattern, body = sys.argv[2], text
else:
    first, _, rest = text.partition("\n")
    pattern, body = first, rest.partition("\n")[2]
pattern = pattern.replace("(?<", "(?P<")
regex = re.compile("^(?:" + pattern + ")$", re.M)
events, covered = [], 0
for m in regex.finditer(body):
    events.append((m.group("host"), json.loads(m.group("clock"))))
    covered += max(1, len(m.group(0).splitlines()))
skipped = len([l for l in body.splitlines() if l.strip()]) - covered
hosts = list(dict.fromkeys(h for h, _ in events))
by_host = {h: sorted((c for hh, c in events if hh == h), key=lambda c: c[h]) for h in hosts}
messages, parents = 0, {}
for h in hosts:
    prev = {}
    for c in by_host[h]:
        cand = [(g, n) for g, n in c.items() if g != h and n > prev.get(g, 0)]
        def clock_of(g, n): return by_host[g][n - 1]
        keep = [(g, n) for (g, n) in cand
                if not any((g2, n2) != (g, n) and clock_of(g2, n2).get(g, 0) >= n for (g2, n2) in cand)]
        parents[(h, c[h])] = keep
        messages += len(keep)
        prev = c
lam = {}
sys.setrecursionlimit(100000)
def lamport(h, n):
    key = (h, n)
    if key not in lam:
        deps = [lamport(g, m) for g, m in parents[key]]
        if n > 1:
            deps.append(lamport(h, n - 1))
        lam[key] = 1 + max(deps, default=0)
    return lam[key]
span = max(lamport(h, c[h]) for h in hosts for c in by_host[h]) - 1
print(f"hosts={len(hosts)} events={len(events) + 2 * messages} messages={messages} skipped={skipped} span={span}")
