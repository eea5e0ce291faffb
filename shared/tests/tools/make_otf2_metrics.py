#!/usr/bin/env python3
"""Writes a small OTF2 archive with metrics of every kind the importer must place, with the
official `otf2` Python bindings (PyPI `otf2` 3.2):

- rank 0 (location group "Rank 0" on node "node0"): its master thread records a synchronous
  class of three members in every record (PAPI_TOT_CYC accumulated UINT64, "load" absolute
  DOUBLE, "balance" absolute INT64, negative values included);
- its METRIC location "Per process metrics" records, as Score-P's metric plugins do,
  instances of asynchronous classes whose scope is not the recorder: "temperature" (absolute
  DOUBLE, unit C) for the system tree node node0, "energy" (accumulated UINT64, millijoules
  written with exponent -3 and unit J) for the GPU's location group and again, as a second
  instance of the same class, for rank 0's group, "busy" (declared accumulated, but
  decreasing) for rank 0's master thread (scope LOCATION), and "queue" (absolute UINT64)
  for a group of locations whose first member is the GPU stream;
- the GPU context (an ACCELERATOR location group on node0) has one GPU stream with a kernel;
- a "Monitor" location group on node1 holds only a METRIC location, recording the class
  "fan" (absolute UINT64) for itself: no thread or GPU location there.

Usage: v/bin/python make_otf2_metrics.py OUT_DIR
"""
import sys
import otf2
from otf2.enums import (Base, LocationGroupType, LocationType, MetricMode, MetricOccurrence,
                        MetricType, RecorderKind, Type, GroupType, Paradigm)

out = sys.argv[1]
with otf2.writer.open(out, timer_resolution=1000) as trace:
    d = trace.definitions
    machine = d.system_tree_node("cluster")
    node0 = d.system_tree_node("node0", parent=machine)
    node1 = d.system_tree_node("node1", parent=machine)
    rank0 = d.location_group("Rank 0", system_tree_parent=node0)
    gpu_group = d.location_group("GPU context", location_group_type=LocationGroupType.ACCELERATOR,
                                 system_tree_parent=node0)
    monitor = d.location_group("Monitor", system_tree_parent=node1)
    master = d.location("Master thread", group=rank0, type=LocationType.CPU_THREAD)
    gpu = d.location("GPU stream", group=gpu_group, type=LocationType.GPU)
    per_process = d.location("Per process metrics", group=rank0, type=LocationType.METRIC)
    fan_loc = d.location("fans", group=monitor, type=LocationType.METRIC)
    main = d.region("main")
    kernel = d.region("kernel")

    def member(name, mode, value_type, unit, exponent=0):
        return d.metric_member(name, "", MetricType.OTHER, mode, value_type, Base.DECIMAL,
                               exponent, unit)

    papi = d.metric_class([member("PAPI_TOT_CYC", MetricMode.ACCUMULATED_START, Type.UINT64, "#"),
                           member("load", MetricMode.ABSOLUTE_POINT, Type.DOUBLE, "%"),
                           member("balance", MetricMode.ABSOLUTE_POINT, Type.INT64, "B")],
                          MetricOccurrence.SYNCHRONOUS_STRICT, RecorderKind.CPU)

    def async_class(m):
        return d.metric_class([m], MetricOccurrence.ASYNCHRONOUS, RecorderKind.ABSTRACT)

    temperature = async_class(member("temperature", MetricMode.ABSOLUTE_POINT, Type.DOUBLE, "C"))
    energy = async_class(member("energy", MetricMode.ACCUMULATED_START, Type.UINT64, "J", -3))
    busy = async_class(member("busy", MetricMode.ACCUMULATED_START, Type.INT64, "%"))
    queue = async_class(member("queue", MetricMode.ABSOLUTE_POINT, Type.UINT64, "#"))
    fan = async_class(member("fan", MetricMode.ABSOLUTE_POINT, Type.UINT64, "rpm"))
    gpu_set = d.group("GPU and master", members=[gpu, master], group_type=GroupType.LOCATIONS,
                      paradigm=Paradigm.UNKNOWN)
    node_temperature = d.metric_instance(temperature, per_process, scope=node0)
    gpu_energy = d.metric_instance(energy, per_process, scope=gpu_group)
    rank_energy = d.metric_instance(energy, per_process, scope=rank0)
    master_busy = d.metric_instance(busy, per_process, scope=master)
    set_queue = d.metric_instance(queue, per_process, scope=gpu_set)

    w = trace.event_writer_from_location(master)
    w.program_begin(10, "app", [])
    w.enter(10, main)
    for k in range(5):
        w.metric(20 + 10 * k, papi, [1000 * (k + 1) ** 2, 0.25 * k + 0.5, 3 - 2 * k])
    w.leave(90, main)
    w.program_end(100, 0)

    w = trace.event_writer_from_location(gpu)
    w.enter(30, kernel)
    w.leave(70, kernel)

    w = trace.event_writer_from_location(per_process)
    for k in range(8):
        t = 5 + 12 * k
        w.metric(t, node_temperature, 40.5 + k * 1.25)
        w.metric(t, gpu_energy, 1500 * k)
        w.metric(t + 1, rank_energy, 700 * k + 3)
        w.metric(t + 2, master_busy, [90, 40, 75, 10, 60, 55, 20, 95][k])
        if k % 2 == 0:
            w.metric(t + 3, set_queue, k)

    w = trace.event_writer_from_location(fan_loc)
    for k in range(4):
        w.metric(2 + 30 * k, fan, 1200 + 100 * k)
print(f"wrote {out}")
