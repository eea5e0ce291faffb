"""The Python peer for OTF2 in `cargo xtask perf-compare`: the official bindings' event loop,
counting events by type.

usage: otf2_read.py ARCHIVE/traces.otf2
"""

import sys

import otf2


def main():
    counts = {}
    with otf2.reader.open(sys.argv[1]) as trace:
        for _location, event in trace.events:
            name = type(event).__name__
            counts[name] = counts.get(name, 0) + 1
    print(sum(counts.values()), counts)


if __name__ == "__main__":
    main()
