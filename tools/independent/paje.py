#!/usr/bin/env python3
"""An independent reader of Pajé traces (the format of PajeNG, ViTE, SimGrid, StarPU, EZTrace),
written from the format's own rules (PajeNG's lang-paje definitions: a header of %EventDef
NAME ID / "% FIELD TYPE" / %EndEventDef; data lines giving an event id and its fields in the
declared order, double quotes grouping a field; lines starting with # are comments), sharing no
code with Tracescope's importer. It prints the numbers a corpus entry's expected.json holds.

Tracescope's mapping (docs/formats.md), as counted here:
- Every created container is a process: proc_init at its creation, proc_exit at its
  destruction (destroying the root container 0, which no line creates, is ignored).
- States: each state type of a container is a stack (PushState pushes, PopState pops the top,
  SetState empties the stack and pushes, ResetState empties it). The model's regions of one
  container must nest, so the changes of one date are counted as Tracescope writes them: the
  states they close that were open before the date are left innermost first, and so is every
  state of another type opened above the lowest of them, which is entered again; then each
  state opened and closed at the date is entered and left; then each state left open is
  entered. Destroying a container leaves its open states. States still open at the end are
  not left.
- PajeNewEvent is a probe; links are matched by (Type, Key), starts with ends in file order,
  each pair a message (a msg_send and a msg_arr).
- Variables: each (container, variable type) is a counter series of two samples per held
  value (from one change to the next, the last held to the trace's last date).
- Dates are seconds; milliseconds when the trace is EZTrace's (a container type CT_Program,
  CT_Process or CT_Thread) or its header is laid out as GTG lays it out (every type or value
  definition with both fields puts Alias after Name). Ticks are nanoseconds, rounded half away
  from zero.

Usage: paje.py ENTRY_DIR [--tool TOOL] [--write]
"""
import json
import math
import os
import sys


def tokens(line):
    out, i, n = [], 0, len(line)
    while i < n:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            break
        if line[i] == '"':
            j = line.find('"', i + 1)
            j = n if j < 0 else j
            out.append(line[i + 1:j])
            i = j + 1
        else:
            j = i
            while j < n and line[j] not in " \t":
                j += 1
            out.append(line[i:j])
            i = j
    return out


def round_half_away(x):
    f = math.floor(x)
    return int(f + 1 if x - f >= 0.5 else f)


def main():
    args = sys.argv[1:]
    entry = args[0]
    tool = args[args.index("--tool") + 1] if "--tool" in args else ""
    files = sorted(f for f in os.listdir(entry) if f != "expected.json")
    assert len(files) == 1, files
    data = open(os.path.join(entry, files[0]), "rb").read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.decode("utf-8").split("\n")

    defs, current = {}, None
    type_names = {}
    unit = None
    consistent = True
    kinds = {}
    times = []

    def event(kind, t):
        kinds[kind] = kinds.get(kind, 0) + 1
        times.append(t)

    containers = {}  # alias or name -> process number
    n_processes = 0
    states = {}  # process -> {"open": [(type, id)], "date": t, "ops": []}
    next_state = [0]
    links = {}
    variables = {}  # (container, type) -> (since, value)
    spans = []  # (container, type, start, end)

    def flush(p):
        s = states[p]
        if s["date"] is None:
            return
        t, ops = s["date"], s["ops"]
        s["date"], s["ops"] = None, []
        open_ = s["open"]
        stacks = {}
        closed = set()
        opened = []  # [type, id, closed?]
        for op, ty in ops:
            if ty not in stacks:
                stacks[ty] = [("old", i) for i, o in enumerate(open_) if o[0] == ty]
            st = stacks[ty]
            if op in ("set", "reset"):
                while st:
                    k = st.pop()
                    if k[0] == "old":
                        closed.add(k[1])
                    else:
                        opened[k[1]][2] = True
            elif op == "pop" and st:
                k = st.pop()
                if k[0] == "old":
                    closed.add(k[1])
                else:
                    opened[k[1]][2] = True
            if op in ("set", "push"):
                opened.append([ty, None, False])
                st.append(("new", len(opened) - 1))
        if closed:
            low = min(closed)
            for i in range(low, len(open_)):
                event("leave", t)
            kept = [open_[i] for i in range(low, len(open_)) if i not in closed]
            del open_[low:]
            for o in kept:
                event("enter", t)
                open_.append(o)
        for o in opened:
            if o[2]:
                event("enter", t)
                event("leave", t)
        remaining = sorted(k[1] for st in stacks.values() for k in st if k[0] == "new")
        for i in remaining:
            event("enter", t)
            open_.append((opened[i][0], i))

    for raw in lines:
        line = raw[:-1] if raw.endswith("\r") else raw
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("%"):
            w = stripped[1:].split()
            if not w:
                continue
            if w[0] == "EventDef":
                current = (w[2], w[1], [])
            elif w[0] == "EndEventDef":
                defs[current[0]] = (current[1], current[2])
                current = None
            else:
                current[2].append(w[0])
            continue
        w = tokens(line)
        name, fields = defs[w[0]]
        f = dict(zip(fields, w[1:]))
        if "Time" in f and unit is None:
            eztrace = any(k in type_names for k in ("CT_Program", "CT_Process", "CT_Thread"))
            gtg, seen = True, False
            for dname, dfields in defs.values():
                if dname.startswith("PajeDefine") and "Alias" in dfields and "Name" in dfields:
                    seen = True
                    if dfields.index("Alias") < dfields.index("Name"):
                        gtg = False
            unit = 1e6 if (eztrace or (gtg and seen)) else 1e9
        t = round_half_away(float(f["Time"]) * unit) if "Time" in f else None
        if name.startswith("PajeDefine") and name != "PajeDefineEntityValue":
            type_names[f["Name"]] = f["Name"]
            if "Alias" in f:
                type_names[f["Alias"]] = f["Name"]
        elif name == "PajeCreateContainer":
            p = n_processes
            n_processes += 1
            containers[f["Name"]] = p
            if "Alias" in f:
                containers[f["Alias"]] = p
            states[p] = {"open": [], "date": None, "ops": []}
            event("proc_init", t)
        elif name == "PajeDestroyContainer":
            if f["Name"] not in containers:
                if f["Name"] != "0":
                    consistent = False
                continue
            p = containers[f["Name"]]
            flush(p)
            for _ in states[p]["open"]:
                event("leave", t)
            states[p]["open"] = []
            event("proc_exit", t)
        elif name in ("PajeSetState", "PajePushState", "PajePopState", "PajeResetState"):
            if f["Container"] not in containers:
                continue
            p = containers[f["Container"]]
            s = states[p]
            if s["date"] is not None and s["date"] != t:
                flush(p)
            if s["date"] is None:
                s["date"] = t
            ty = type_names.get(f["Type"], "")
            s["ops"].append(({"PajeSetState": "set", "PajePushState": "push",
                              "PajePopState": "pop", "PajeResetState": "reset"}[name], ty))
        elif name == "PajeNewEvent":
            if f["Container"] in containers:
                event("probe", t)
        elif name in ("PajeStartLink", "PajeEndLink"):
            start = name == "PajeStartLink"
            c = f.get("StartContainer", f.get("SourceContainer")) if start else \
                f.get("EndContainer", f.get("DestContainer"))
            links.setdefault((f["Type"], f["Key"]), ([], []))[0 if start else 1].append((t, c))
        elif name in ("PajeSetVariable", "PajeAddVariable", "PajeSubVariable"):
            key = (f["Container"], type_names.get(f["Type"], ""))
            v = float(f["Value"])
            prev = variables.get(key)
            if name == "PajeAddVariable" and prev:
                new = prev[1] + v
            elif name == "PajeSubVariable":
                new = (prev[1] if prev else 0.0) - v
            else:
                new = v
            if prev and t > prev[0]:
                spans.append((key, prev[0], t))
            variables[key] = (t, new)
    for p in states:
        flush(p)
    last = max(times + [v[0] for v in variables.values()], default=0)
    for key, (since, _) in variables.items():
        if since < last:
            spans.append((key, since, last))
    messages = 0
    for starts, ends in links.values():
        for (ts, cs), (te, ce) in zip(starts, ends):
            if cs in containers and ce in containers:
                messages += 1
                event("msg_send", ts)
                event("msg_arr", te)
    series = {k for (k, _, _) in spans if k[0] in containers}
    samples = sum(2 for (k, _, _) in spans if k[0] in containers)
    out = {
        "format": "paje",
        "tool": tool,
        "consistent": consistent,
        "processes_with_events": n_processes,
        "events": dict(sorted(kinds.items())),
        "messages": messages,
        "bytes": 0,
        "span_ticks": (max(times) - min(times)) if times else 0,
        "counters": len(series),
        "counter_samples": samples,
    }
    text = json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    if "--write" in args:
        open(os.path.join(entry, "expected.json"), "w").write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
