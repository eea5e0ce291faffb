#!/usr/bin/env python3
"""An independent reader of ShiViz logs, written from ShiViz's own rules (DistributedClocks/shiviz:
js/model/parser.js, js/util/regexp.js, js/model/modelGraph.js), sharing no code with Tracescope's
importer. It prints the numbers a corpus entry's expected.json holds.

ShiViz's rules, as applied here:
- The log is read as the browser's text area gives it: a leading byte-order mark dropped, every
  line end a "\\n"; the log is trimmed (LogParser: rawString.trim()).
- The expression comes from the entry's expression.txt (its first line), else from the log's
  first line when that line names the groups host, clock and event (ShiViz's upload layout: the
  second line is the execution delimiter and is skipped).
- The expression is compiled with the flags "gm" and applied match after match, not anchored
  (NamedRegExp.exec in a loop); JavaScript's (?<name>...) becomes Python's (?P<name>...).
- Each match is one event of host `host` with the JSON vector clock `clock`, which must hold
  the host's own entry; entries of 0 are dropped (VectorTimestamp).
- Per host, events sorted by their own counter must have counters 1, 2, 3, ... (initPrevNext);
  every host named in a clock must have events, and the counter must name one of them
  (initParentChild). A log breaking these is not consistent.
- Parents (initParentChild): for each event of a host in counter order, each other host whose
  entry rose above the largest seen so far on this host names a candidate, that host's event
  with that counter; a candidate whose (host, counter) appears in another candidate's clock is
  dropped. Each remaining parent -> child pair is a message.

Tracescope's mapping (docs/formats.md): a process per host; per event a probe, plus a msg_arr
per parent and a msg_send per child; the time of an event is its Lamport clock (1 + the largest
of its host predecessor's and its parents').

Usage: shiviz.py ENTRY_DIR [--tool TOOL] [--write]
"""
import json
import os
import re
import sys


def read_text(path):
    data = open(path, "rb").read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = data.decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def names_groups(line):
    return all(("(?<%s>" % g) in line or ("(?P<%s>" % g) in line for g in ("host", "clock", "event"))


def main():
    args = sys.argv[1:]
    entry = args[0]
    tool = None
    if "--tool" in args:
        tool = args[args.index("--tool") + 1]
    files = sorted(f for f in os.listdir(entry) if f not in ("expected.json", "expression.txt"))
    assert len(files) == 1, files
    text = read_text(os.path.join(entry, files[0]))
    expression = None
    sidecar = os.path.join(entry, "expression.txt")
    if os.path.exists(sidecar):
        expression = read_text(sidecar).split("\n")[0].strip()
    first, _, rest = text.partition("\n")
    if names_groups(first):
        body = rest.partition("\n")[2]
        expression = expression or first.strip()
    else:
        body = text
    if expression is None:
        sys.exit("no expression: give the entry an expression.txt")
    body = body.strip()
    regex = re.compile(expression.replace("(?<", "(?P<").replace("(?P<=", "(?<=").replace("(?P<!", "(?<!"), re.M)

    consistent = True
    events = []  # (host, clock)
    for m in regex.finditer(body):
        host, clock = m.group("host"), json.loads(m.group("clock"))
        # VectorTimestamp: the host's own entry must be there; zero entries are dropped.
        if host not in clock:
            consistent = False
        clock = {k: v for k, v in clock.items() if v != 0 or k == host}
        events.append((host, clock))

    hosts = list(dict.fromkeys(h for h, _ in events))
    by_host = {h: [] for h in hosts}
    for h, c in events:
        by_host[h].append(c)
    for h in hosts:
        by_host[h].sort(key=lambda c: c.get(h, 0))
        for k, c in enumerate(by_host[h]):
            if c.get(h) != k + 1:
                consistent = False

    parents = {}
    for h in hosts:
        seen = {}
        for c in by_host[h]:
            seen[h] = c[h]
            candidates = []
            for g, t in c.items():
                if g not in seen or seen[g] < t:
                    seen[g] = t
                    if g not in by_host or not (1 <= t <= len(by_host[g])):
                        consistent = False
                        continue
                    candidates.append((g, t))
            kept = set(candidates)
            for g, t in candidates:
                for g2, t2 in by_host[g][t - 1].items():
                    if g2 != g:
                        kept.discard((g2, t2))
            parents[(h, c[h])] = sorted(kept)

    messages = sum(len(p) for p in parents.values())
    lamport = {}
    sys.setrecursionlimit(1000000)

    def clock_of(h, n):
        if (h, n) in lamport:
            return lamport[(h, n)]
        stack = [(h, n)]
        while stack:
            key = stack[-1]
            if key in lamport:
                stack.pop()
                continue
            deps = list(parents.get(key, []))
            if key[1] > 1:
                deps.append((key[0], key[1] - 1))
            missing = [d for d in deps if d not in lamport]
            if missing:
                stack.extend(missing)
                continue
            lamport[key] = 1 + max((lamport[d] for d in deps), default=0)
            stack.pop()
        return lamport[(h, n)]

    times = [clock_of(h, c[h]) for h in hosts for c in by_host[h]] if consistent else []
    out = {
        "format": "shiviz",
        "tool": tool or "",
        "consistent": consistent,
        "processes_with_events": len(hosts),
        "events": {"probe": len(events), "msg_send": messages, "msg_arr": messages},
        "messages": messages,
        "bytes": 0,
        "span_ticks": (max(times) - min(times)) if times else 0,
        "counters": 0,
        "counter_samples": 0,
    }
    if expression is not None and os.path.exists(sidecar):
        out["shiviz_expression"] = expression
    text_out = json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    if "--write" in args:
        open(os.path.join(entry, "expected.json"), "w").write(text_out)
    print(text_out, end="")


if __name__ == "__main__":
    main()
