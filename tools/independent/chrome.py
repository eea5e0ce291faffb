#!/usr/bin/env python3
"""An independent reader of Chrome's Trace Event Format (JSON), for the corpus of the wild.

It reads a trace with Python's standard library only (no code shared with Tracescope's Rust
importer) by the format's own rules, as the Trace Event Format document states them and as
Catapult (chrome://tracing) and Perfetto read them, and prints the numbers the corpus test
compares with Tracescope's model, as JSON (the schema of `expected.json`):

- A thread is a (pid, tid) pair; a missing tid is the pid's main thread (tid = pid), a missing
  pid is 0. Only threads with events become processes; `M` metadata only names them.
- `X` is a slice (`dur` missing or negative: zero length); `B` opens a slice on its thread and
  `E` closes the innermost open one (an `E` with none open is dropped). A slice is an `enter`
  and a `leave`. Instants `i`, `I` and `R` are `probe`s. `C` events are counters of their
  thread: one series per numeric argument (a number, or a string that reads as one), named
  after the event (one argument) or "name key" (several).
- Flows are messages (a `msg_send` and a `msg_arr` each) between threads:
  v1 `s`/`t`/`f` events are keyed by (scope, cat, name, id) — `id2` global, or local to the
  pid, when there is no `id`. In time order (file order among equal times), `s` opens a flow
  (ignored while one of its key is open), `t` continues it and `f` closes it, so an id used
  again after its `f` starts a new flow. `s` and `t` bind to the slice enclosing them on their
  thread; `f` binds to the enclosing slice with `"bp": "e"`, otherwise to the next slice that
  begins on its thread (at or after its time; the arrow ends at that slice's begin). A point
  that binds to no slice draws nothing (and a failed `s`/`t` leaves the flow closed).
  v2 flows: a slice (`X` or `B`) with `bind_id` and `flow_out` produces the flow (ignored
  while one of that id is open), a later slice with `flow_in` consumes it (an arrow from the
  last producer; a producer may have several consumers), both is a step.
  An arrow between two points of one thread is not a message.
- Times: `ts` is in µs; ticks are ns (ts × 1000, rounded half away from zero).
- A trace is consistent unless two slices of one thread overlap without nesting (or an `E`
  comes before its `B`): zero-length slices, unclosed `B`s, dangling flows and `E`s without
  `B` are what real tools write, and are not inconsistencies.

Usage: chrome.py TRACE[.gz] [--tool TEXT]  (prints expected.json)
"""
import bisect
import gzip
import json
import math
import sys


def ns(us):
    """µs (a number, or a string that reads as one, as Hermes writes them) to integer ns,
    rounded half away from zero."""
    x = number(us) * 1000.0
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def number(value):
    return float(value.strip()) if isinstance(value, str) else value


def id_text(value):
    """An id as text: integers as digits, integral floats too, strings as they are."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8-sig").strip()
    # Catapult's rule: an array may end with a comma, or lack its closing bracket.
    if text.startswith("["):
        text = text.rstrip()
        if text.endswith(","):
            text = text[:-1].rstrip()
        if not text.endswith("]"):
            text += "]"
        elif text[:-1].rstrip().endswith(","):
            text = text[:-1].rstrip()[:-1] + "]"
    doc = json.loads(text)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def read(path):
    events = load(path)
    threads = {}  # (pid, tid) -> index, in order of first event
    kinds = {}
    times = []
    used = set()
    slices = {}  # thread -> [(begin, end)]
    open_b = {}  # thread -> [begin]
    counters = {}  # (thread, series) -> samples
    flows = {}  # key -> [(ts, order, thread, phase, bp_enclosing)]
    backward = False  # an E earlier than its B

    def thread(e):
        pid = id_text(e["pid"]) if "pid" in e else "0"
        tid = id_text(e["tid"]) if "tid" in e else pid
        return threads.setdefault((pid, tid), len(threads))

    def add(kind, t, time):
        kinds[kind] = kinds.get(kind, 0) + 1
        times.append(time)
        used.add(t)

    for order, e in enumerate(events):
        ph = e.get("ph")
        if ph == "M" or ph is None:
            continue
        t = thread(e)
        if ph in ("X", "B", "E", "i", "I", "R", "s", "t", "f", "C"):
            ts = ns(e["ts"])
        if ph == "X":
            dur = number(e.get("dur", 0))
            end = ns(number(e["ts"]) + max(dur, 0))
            add("enter", t, ts)
            add("leave", t, end)
            slices.setdefault(t, []).append((ts, end))
        elif ph == "B":
            add("enter", t, ts)
            open_b.setdefault(t, []).append(ts)
        elif ph == "E":
            stack = open_b.get(t)
            if stack:
                begin = stack.pop()
                add("leave", t, ts)
                # An E earlier than its B is inconsistent; for binding flows its B stays open
                # to the end, as Catapult ignores an E that moves time backward.
                slices.setdefault(t, []).append((begin, ts if ts >= begin else math.inf))
                backward = backward or ts < begin
        elif ph in ("i", "I", "R"):
            add("probe", t, ts)
        elif ph == "C":
            args = e.get("args") or {}
            for key, value in args.items():
                if isinstance(value, bool):
                    continue
                if isinstance(value, str):
                    try:
                        value = float(value.strip())
                    except ValueError:
                        continue
                if not isinstance(value, (int, float)) or not math.isfinite(value):
                    continue
                series = e.get("name", "") if len(args) == 1 else f'{e.get("name", "")} {key}'
                counters[(t, series)] = counters.get((t, series), 0) + 1
        elif ph in ("s", "t", "f"):
            if "id" in e:
                ident = id_text(e["id"])
            elif isinstance(e.get("id2"), dict) and "global" in e["id2"]:
                ident = "global:" + id_text(e["id2"]["global"])
            elif isinstance(e.get("id2"), dict) and "local" in e["id2"]:
                pid = id_text(e["pid"]) if "pid" in e else "0"
                ident = f"local:{pid}:" + id_text(e["id2"]["local"])
            else:
                continue
            key = ("v1", e.get("scope", ""), e.get("cat", ""), e.get("name", ""), ident)
            flows.setdefault(key, []).append((ts, order, t, ph, e.get("bp") == "e"))
        if ph in ("X", "B") and "bind_id" in e:
            fin, fout = bool(e.get("flow_in")), bool(e.get("flow_out"))
            phase = {(True, True): "io", (True, False): "in", (False, True): "out"}.get((fin, fout))
            if phase:
                flows.setdefault(("v2", id_text(e["bind_id"])), []).append((ts, order, t, phase, True))

    # Unclosed B slices last to the end of the trace.
    for t, stack in open_b.items():
        for begin in stack:
            slices.setdefault(t, []).append((begin, math.inf))

    # Binding flow points to slices.
    index = {}
    for t, extents in slices.items():
        extents = sorted(extents)
        begins = [b for b, _ in extents]
        latest, max_end = -math.inf, []
        for _, end in extents:
            latest = max(latest, end)
            max_end.append(latest)
        index[t] = (begins, max_end)

    def encloses(t, time):
        begins, max_end = index.get(t, ([], []))
        n = bisect.bisect_right(begins, time)
        return n > 0 and max_end[n - 1] >= time

    def next_begin(t, time):
        begins, _ = index.get(t, ([], []))
        n = bisect.bisect_left(begins, time)
        return begins[n] if n < len(begins) else None

    messages = 0

    def arrow(src, dst):
        nonlocal messages
        if src[0] != dst[0]:
            messages += 1
            add("msg_send", src[0], src[1])
            add("msg_arr", dst[0], dst[1])

    for key, points in flows.items():
        points.sort(key=lambda p: (p[0], p[1]))
        source, is_open = None, False
        for ts, _, t, phase, enclosing in points:
            if phase == "s":
                if is_open:
                    continue
                if encloses(t, ts):
                    source, is_open = (t, ts), True
            elif phase in ("t", "f"):
                if not is_open:
                    continue
                if phase == "f" and not enclosing:
                    begin = next_begin(t, ts)
                    if begin is not None:
                        arrow(source, (t, begin))
                    source, is_open = None, False
                elif encloses(t, ts):
                    arrow(source, (t, ts))
                    source, is_open = ((t, ts), True) if phase == "t" else (None, False)
                else:
                    source, is_open = None, False
            elif phase == "out":
                if not is_open:
                    source, is_open = (t, ts), True
            else:  # "in" or "io"
                if source is None:
                    continue
                arrow(source, (t, ts))
                is_open = phase == "io"
                if is_open:
                    source = (t, ts)

    # Consistency: the slices of each thread nest, and no E comes before its B.
    consistent = not backward
    for t, extents in slices.items():
        stack = []
        for begin, end in sorted(extents, key=lambda x: (x[0], -x[1])):
            if end < begin:
                consistent = False
            while stack and stack[-1] <= begin and not (stack[-1] == begin and end == begin):
                stack.pop()
            if stack and end > stack[-1]:
                consistent = False
            stack.append(end)

    out = {
        "format": "chrome-json",
        "consistent": consistent,
        "processes_with_events": len(used),
        "events": dict(sorted(kinds.items())),
        "messages": messages,
        "span_ticks": (max(times) - min(times)) if times else 0,
        "counters": len(counters),
        "counter_samples": sum(counters.values()),
    }
    return out


def main():
    args = sys.argv[1:]
    tool = None
    if "--tool" in args:
        i = args.index("--tool")
        tool = args[i + 1]
        del args[i : i + 2]
    out = read(args[0])
    if tool is not None:
        out = {"format": out.pop("format"), "tool": tool, **out}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
