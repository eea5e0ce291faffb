"""The Python peer for Chrome JSON in `cargo xtask perf-compare`: orjson parses the trace and the
events are grouped by thread and sorted by time, the least a viewer's model needs.

usage: orjson_group.py TRACE.json
"""

import sys

import orjson


def main():
    with open(sys.argv[1], "rb") as f:
        trace = orjson.loads(f.read())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    threads = {}
    for e in events:
        threads.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    n = 0
    for evs in threads.values():
        evs.sort(key=lambda e: e.get("ts", 0))
        n += len(evs)
    print(len(threads), n)


if __name__ == "__main__":
    main()
