//! OTF2 archives (Score-P, Scalasca, Vampir, EZTrace 2), read in pure Rust.
//!
//! An archive is a set of files: the anchor `NAME.otf2`, the global definitions `NAME.def`, and
//! per location `NAME/<id>.def` (mapping tables, clock offsets) and `NAME/<id>.evt` (events).
//! Uploads carry them as a `.tar` or `.tar.gz`; the command line reads the directory.
//!
//! Encoding (OTF2 3.x, as its C library writes it): files are chunks starting with a chunk
//! header (`0x03`, an endianness byte, first and last event numbers as 8-byte integers)
//! and ending with `0x00`; a record is a type byte, then (for records with more than one field) a
//! length byte (or `0xff` and 8 bytes), then its fields. Integers and references are compressed:
//! `0x00` is 0, `0xff` is the type's maximum, otherwise a byte N and N little-endian bytes.
//! Every event follows a timestamp record (`0x05`, 8 raw bytes); `0x06` is an attribute list.
//!
//! Mapping: every CPU thread or GPU location is a process, on a node named after its location
//! group and system-tree node. `ProgramBegin`/`End` are `proc_init`/`exit`; `Enter`/`Leave`
//! are regions (MPI point-to-point calls are `communication` regions, collectives get their
//! collective role, communicator and root from `MpiCollectiveEnd`); `MpiSend`/`Isend` are sends;
//! `MpiRecv` is a receive call at the enter of its `MPI_Recv` region plus the arrival;
//! `MpiIrecvRequest`/`MpiIrecv` are a non-blocking post and its completion; thread
//! create/begin and end/wait become messages. Timestamps are ticks after the clock's global
//! offset. `Metric` records, on threads and on METRIC locations (which are no processes),
//! become counters of the row their metric instance's scope names, or the recording location's
//! (one series per location, metric and member, accumulating or not by the member's mode,
//! scaled by its base and exponent); other records are skipped and counted.
//!
//! The archive's files are asked for by path ([`ArchiveSource`]): only those the anchor and
//! the global definitions name are read, one location's at a time.

use std::collections::{BTreeMap, HashMap};
use std::num::NonZeroU32;

use crate::model::error::TraceError;
use crate::model::time::{Clock, Time};
use crate::model::{
    Counter, CounterKind, EventKind, EventRecord, NodeId, ProcessId, RegionId, RegionRole, Trace,
    TraceBuilder,
};

/// The format's name.
pub const FORMAT_NAME: &str = "otf2";

/// A view of one file of the archive.
struct Buf<'a> {
    name: &'a str,
    data: &'a [u8],
    pos: usize,
    chunk_size: usize,
}

impl<'a> Buf<'a> {
    fn error(&self, at: usize, message: impl Into<String>) -> TraceError {
        let mut e = TraceError::at_offset(FORMAT_NAME, self.data, at, message);
        e.message = format!("{}: {}", self.name, e.message);
        e
    }

    fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], TraceError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(self.error(
                self.pos,
                format!("expected {what}, found the end of the file"),
            ));
        };
        let b = &self.data[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    fn u8(&mut self, what: &str) -> Result<u8, TraceError> {
        Ok(self.bytes(1, what)?[0])
    }

    fn u64_full(&mut self, what: &str) -> Result<u64, TraceError> {
        let b = self.bytes(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A compressed unsigned integer of at most `max_bytes` bytes.
    fn compressed(&mut self, max_bytes: usize, what: &str) -> Result<u64, TraceError> {
        let at = self.pos;
        let n = self.u8(what)?;
        match n {
            0 => Ok(0),
            0xff => Ok(if max_bytes == 4 {
                u64::from(u32::MAX)
            } else {
                u64::MAX
            }),
            n if usize::from(n) <= max_bytes => {
                let b = self.bytes(usize::from(n), what)?;
                Ok(b.iter()
                    .rev()
                    .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
            }
            n => Err(self.error(
                at,
                format!("expected a compressed integer for {what}, found a size byte {n}"),
            )),
        }
    }

    fn u32(&mut self, what: &str) -> Result<u32, TraceError> {
        Ok(self.compressed(4, what)? as u32)
    }

    fn u64(&mut self, what: &str) -> Result<u64, TraceError> {
        self.compressed(8, what)
    }

    fn string(&mut self, what: &str) -> Result<String, TraceError> {
        let at = self.pos;
        let rest = &self.data[self.pos.min(self.data.len())..];
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.error(at, format!("expected a NUL-terminated {what}")))?;
        let s = String::from_utf8_lossy(&rest[..len]).into_owned();
        self.pos += len + 1;
        Ok(s)
    }

    /// A record's length: one byte, or `0xff` and 8 bytes. Returns the record's end.
    fn record_end(&mut self) -> Result<usize, TraceError> {
        let at = self.pos;
        let len = match self.u8("a record length")? {
            0xff => self.u64_full("a record length")?,
            n => u64::from(n),
        };
        let end = (self.pos as u64)
            .checked_add(len)
            .filter(|&e| e <= self.data.len() as u64);
        end.map(|e| e as usize).ok_or_else(|| {
            self.error(
                at,
                format!("a record of {len} bytes runs past the end of the file"),
            )
        })
    }

    /// Reads the chunk header at the current position.
    fn chunk_header(&mut self) -> Result<(), TraceError> {
        let at = self.pos;
        if self.u8("a chunk header")? != 0x03 {
            return Err(self.error(at, "expected a chunk header (0x03)"));
        }
        // The endianness byte, then the chunk's first and last event numbers.
        self.bytes(17, "a chunk header")?;
        Ok(())
    }

    /// The next record type, crossing chunk boundaries; `None` at the end of the file.
    fn next_type(&mut self) -> Result<Option<u8>, TraceError> {
        loop {
            // A chunk ends with an end-of-chunk or end-of-file marker: running out of data
            // first means the file was cut short.
            let at = self.pos;
            match self.u8("a record or an end-of-chunk marker (the file is truncated)")? {
                0 => {
                    // End of chunk: the next chunk starts at the next chunk boundary. The last
                    // chunk ends with the end-of-file marker, never with this one.
                    let size = self.chunk_size.max(1);
                    let next = at / size * size + size;
                    if next >= self.data.len() {
                        return Err(self.error(
                            at,
                            "expected a record or the end-of-file marker, found an end-of-chunk \
                             marker with no chunk after it (the file is damaged or cut short)",
                        ));
                    }
                    self.pos = next;
                    self.chunk_header()?;
                }
                // The end-of-file marker closes the file: one byte may follow it, nothing more.
                // Found earlier, it is a damaged record's byte read as a marker.
                1 | 2 if self.data.len() - self.pos > 1 => {
                    return Err(self.error(
                        at,
                        format!(
                            "expected a record, found an end-of-file marker with {} bytes after \
                             it (a record's length or contents are damaged)",
                            self.data.len() - self.pos
                        ),
                    ));
                }
                1 | 2 => return Ok(None),
                t => return Ok(Some(t)),
            }
        }
    }
}

#[derive(Default)]
struct Definitions {
    timer_resolution: u64,
    global_offset: u64,
    strings: HashMap<u32, String>,
    /// System tree node: name.
    system_nodes: HashMap<u32, String>,
    /// System tree node: its parent (none for the root).
    system_parents: HashMap<u32, u32>,
    /// Location group: (name, system tree parent).
    location_groups: HashMap<u32, (String, u32)>,
    /// Location: (name, type, group), by id in definition order.
    locations: BTreeMap<u64, (String, u8, u32)>,
    /// The number of events the locations' definitions announce (a hint, never trusted).
    announced_events: u64,
    /// Region: (name, role).
    regions: HashMap<u32, (String, u8)>,
    /// Group: (type, paradigm, members).
    groups: HashMap<u32, (u8, u8, Vec<u64>)>,
    /// Comm: group.
    comms: HashMap<u32, u32>,
    /// Metric member: what one value of a metric record measures.
    metric_members: HashMap<u32, MetricMember>,
    /// Metric class or instance, by its id.
    metrics: HashMap<u32, MetricDef>,
}

/// A metric class, or an instance of one: the members its records list values of, in order,
/// and for an instance what its values belong to.
#[derive(Debug, Clone, Default)]
struct MetricDef {
    members: Vec<u32>,
    /// An instance's scope (`OTF2_MetricScope`: 0 a location, 1 a location group, 2 a system
    /// tree node, 3 a group of locations) and the scope's id; `None` for a class, whose values
    /// belong to the location recording them.
    scope: Option<(u8, u64)>,
}

/// A metric member definition: name, unit, whether it accumulates, and its scale.
#[derive(Debug, Clone)]
struct MetricMember {
    name: String,
    unit: String,
    kind: CounterKind,
    /// 10^exponent or 2^exponent, by the member's base.
    scale: f64,
}

fn global_definitions(buf: &mut Buf<'_>) -> Result<Definitions, TraceError> {
    let mut d = Definitions::default();
    buf.chunk_header()?;
    while let Some(t) = buf.next_type()? {
        let end = buf.record_end()?;
        match t {
            5 => {
                d.timer_resolution = buf.u64("timer resolution")?;
                d.global_offset = buf.u64("global offset")?;
            }
            10 => {
                let id = buf.u32("string id")?;
                let s = buf.string("string")?;
                d.strings.insert(id, s);
            }
            12 => {
                let id = buf.u32("system tree node id")?;
                let name = buf.u32("system tree node name")?;
                let _class = buf.u32("system tree node class")?;
                let parent = buf.u32("system tree node parent")?;
                d.system_parents.insert(id, parent);
                d.system_nodes
                    .insert(id, d.strings.get(&name).cloned().unwrap_or_default());
            }
            13 => {
                let id = buf.u32("location group id")?;
                let name = buf.u32("location group name")?;
                let _kind = buf.u8("location group type")?;
                let parent = buf.u32("system tree parent")?;
                d.location_groups.insert(
                    id,
                    (d.strings.get(&name).cloned().unwrap_or_default(), parent),
                );
            }
            14 => {
                let id = buf.u64("location id")?;
                let name = buf.u32("location name")?;
                let kind = buf.u8("location type")?;
                let events = buf.u64("number of events")?;
                d.announced_events = d.announced_events.saturating_add(events);
                let group = buf.u32("location group")?;
                d.locations.insert(
                    id,
                    (
                        d.strings.get(&name).cloned().unwrap_or_default(),
                        kind,
                        group,
                    ),
                );
            }
            15 => {
                let id = buf.u32("region id")?;
                let name = buf.u32("region name")?;
                let _description = buf.u32("region description")?;
                let _kind = buf.u8("region type")?;
                let _file = buf.u32("source file")?;
                let _begin = buf.u32("begin line")?;
                let _end = buf.u32("end line")?;
                // Fields added in OTF2 1.1; older archives end the record here.
                let role = if buf.pos < end {
                    let _canonical = buf.u32("canonical name")?;
                    buf.u8("region role")?
                } else {
                    0
                };
                d.regions.insert(
                    id,
                    (d.strings.get(&name).cloned().unwrap_or_default(), role),
                );
            }
            18 => {
                let id = buf.u32("group id")?;
                let _name = buf.u32("group name")?;
                let _pre12 = buf.u8("group type")?;
                let n = buf.u32("member count")? as usize;
                let mut members = Vec::with_capacity(n.min(1 << 20));
                for _ in 0..n {
                    members.push(buf.u64("group member")?);
                }
                let (kind, paradigm) = if buf.pos < end {
                    (buf.u8("group type")?, buf.u8("paradigm")?)
                } else {
                    (0, 0)
                };
                d.groups.insert(id, (kind, paradigm, members));
            }
            // MetricMember: name, description, type, mode, value type, base, exponent, unit.
            19 => {
                let id = buf.u32("metric member id")?;
                let name = buf.u32("metric member name")?;
                let _description = buf.u32("metric member description")?;
                let _type = buf.u8("metric type")?;
                let mode = buf.u8("metric mode")?;
                let _value_type = buf.u8("metric value type")?;
                let base = buf.u8("metric base")?;
                // An int64 compressed like an uint64.
                let exponent = buf.u64("metric exponent")? as i64;
                let unit = buf.u32("metric unit")?;
                let exponent = exponent.clamp(-300, 300) as i32;
                d.metric_members.insert(
                    id,
                    MetricMember {
                        name: d.strings.get(&name).cloned().unwrap_or_default(),
                        unit: d.strings.get(&unit).cloned().unwrap_or_default(),
                        // The low nibble is the value's kind: 0 accumulated, 1 absolute,
                        // 2 relative; the high nibble its timing.
                        kind: if mode & 0x0f == 0 {
                            CounterKind::Accumulated
                        } else {
                            CounterKind::Gauge
                        },
                        scale: if base == 0 {
                            2f64.powi(exponent)
                        } else {
                            10f64.powi(exponent)
                        },
                    },
                );
            }
            // MetricClass: its members.
            20 => {
                let id = buf.u32("metric class id")?;
                let n = buf.u8("number of metrics")?;
                let mut members = Vec::with_capacity(usize::from(n));
                for _ in 0..n {
                    members.push(buf.u32("metric member")?);
                }
                d.metrics.insert(
                    id,
                    MetricDef {
                        members,
                        scope: None,
                    },
                );
            }
            // MetricInstance: class, recorder, scope type, scope. Its values are the class's
            // members, measured for the scope (a node's power, a process's memory), whichever
            // location records them.
            21 => {
                let id = buf.u32("metric instance id")?;
                let class = buf.u32("metric class")?;
                let _recorder = buf.u64("metric recorder")?;
                let scope_type = buf.u8("metric scope type")?;
                let scope = buf.u64("metric scope")?;
                let members = d
                    .metrics
                    .get(&class)
                    .map(|c| c.members.clone())
                    .unwrap_or_default();
                d.metrics.insert(
                    id,
                    MetricDef {
                        members,
                        scope: Some((scope_type, scope)),
                    },
                );
            }
            22 => {
                let id = buf.u32("comm id")?;
                let _name = buf.u32("comm name")?;
                let group = buf.u32("comm group")?;
                d.comms.insert(id, group);
            }
            _ => {}
        }
        if buf.pos > end {
            return Err(buf.error(
                end,
                format!("definition record {t} is longer than its length"),
            ));
        }
        buf.pos = end;
    }
    Ok(d)
}

/// What a location's local definitions say: mapping tables (mapping type → local id → global
/// id) and clock offsets (time, offset).
#[derive(Default)]
struct LocalDefinitions {
    maps: HashMap<u8, HashMap<u64, u64>>,
    offsets: Vec<(u64, i64)>,
}

fn local_definitions(buf: &mut Buf<'_>) -> Result<LocalDefinitions, TraceError> {
    let mut local = LocalDefinitions::default();
    buf.chunk_header()?;
    while let Some(t) = buf.next_type()? {
        let end = buf.record_end()?;
        match t {
            5 => {
                let kind = buf.u8("mapping type")?;
                let n = buf.u64("mapping size")?;
                let mode = buf.u8("mapping mode")?;
                let map = local.maps.entry(kind).or_default();
                for i in 0..n.min(1 << 24) {
                    if mode == 0 {
                        map.insert(i, buf.u64("global id")?);
                    } else {
                        let id = buf.u64("local id")?;
                        map.insert(id, buf.u64("global id")?);
                    }
                }
            }
            6 => {
                let time = buf.u64_full("a clock offset's time")?;
                // An int64 compressed like an uint64 (negative values take all 8 bytes).
                let offset = buf.u64("a clock offset")? as i64;
                local.offsets.push((time, offset));
            }
            _ => {}
        }
        buf.pos = end;
    }
    Ok(local)
}

/// Applies clock offsets as OTF2's reader does: linear interpolation between the two offset
/// records around the time, extrapolating the first or last interval outside them.
fn corrected(time: u64, offsets: &[(u64, i64)]) -> u64 {
    let shifted = |offset: i64| {
        if offset < 0 {
            time.saturating_sub(offset.unsigned_abs())
        } else {
            time.saturating_add(offset as u64)
        }
    };
    match offsets {
        [] => time,
        [(_, offset)] => shifted(*offset),
        _ => {
            let k = offsets
                .partition_point(|&(t, _)| t <= time)
                .saturating_sub(1)
                .min(offsets.len() - 2);
            let ((t0, o0), (t1, o1)) = (offsets[k], offsets[k + 1]);
            let slope = if t1 > t0 {
                (o1 as f64 - o0 as f64) / (t1 - t0) as f64
            } else {
                0.0
            };
            let delta = time as f64 - t0 as f64;
            // As OTF2's reader: the offset plus the interpolation rounded half to even (a float
            // to integer cast saturates, and so does the sum, on nonsense offsets).
            shifted(o0.saturating_add((slope * delta).round_ties_even() as i64))
        }
    }
}

/// Mapping type numbers (OTF2_MappingType).
const MAP_REGION: u8 = 3;
const MAP_METRIC: u8 = 5;
const MAP_COMM: u8 = 6;

/// "Singleton" records, whose only field is a compressed integer, carry no length; every other
/// record has one (OTF2's `OTF2_EvtReader_inc.c`). The field: 4 = compressed u32, 8 = u64.
fn singleton_field(t: u8) -> Option<u8> {
    // "Known singleton event records at 1.1, there won't be any after 1.1."
    Some(match t {
        // Enter, Leave, OmpFork.
        12 | 13 | 24 => 4,
        // MpiIsendComplete, MpiIrecvRequest, MpiRequestTest/Cancelled, OmpTaskCreate/Switch/
        // Complete.
        16 | 17 | 20 | 21 | 28..=30 => 8,
        _ => return None,
    })
}

/// What one location's events produced, before cross-location links are resolved.
#[derive(Default)]
struct LocationEvents {
    records: Vec<EventRecord>,
    /// (record index, communicator, rank) of sends and receives to resolve.
    peers: Vec<(usize, u32, u32)>,
    /// (record index, key, is the message's source) of thread create/begin/end/wait.
    threads: Vec<(usize, (u32, u64), bool)>,
    /// (record index of a collective's enter, communicator, root rank).
    collectives: Vec<(usize, u32, u32)>,
    /// Receive calls to insert after a record (an `MPI_Recv`'s enter), in record order.
    calls: Vec<(usize, EventRecord)>,
    /// The location's metric series, by metric (class or instance) and the member's position
    /// in it: one instance recorder may record one class for several scopes (Score-P's
    /// "Per process metrics" location records the same `HIP Memory` member for every process
    /// and GPU context), each its own series.
    counters: BTreeMap<(u32, usize), Counter>,
    /// Scratch for [`LocationEvents::merge_calls`], kept with the buffers between locations.
    spare: Vec<EventRecord>,
}

impl LocationEvents {
    /// Empty, keeping the buffers' memory: one location's buffers serve the next, so a large
    /// archive's memory is touched once, not once a location.
    fn recycle(mut self) -> LocationEvents {
        self.records.clear();
        self.peers.clear();
        self.threads.clear();
        self.collectives.clear();
        self.calls.clear();
        self.counters.clear();
        self.spare.clear();
        self
    }

    /// Inserts the receive calls after their enters, renumbering every stored index (one pass:
    /// an index moves by the calls inserted before it).
    fn merge_calls(&mut self) {
        if self.calls.is_empty() {
            return;
        }
        let mut merged = std::mem::take(&mut self.spare);
        merged.clear();
        merged.reserve(self.records.len() + self.calls.len());
        let calls = std::mem::take(&mut self.calls);
        let mut next = 0;
        for (i, r) in self.records.drain(..).enumerate() {
            merged.push(r);
            while let Some(call) = calls.get(next).filter(|c| c.0 == i).map(|c| c.1) {
                merged.push(call);
                next += 1;
            }
        }
        // Calls are sorted by the record they follow: the calls before record i are those
        // after records 0..i.
        let shift = |index: usize| index + calls.partition_point(|c| c.0 < index);
        for p in &mut self.peers {
            p.0 = shift(p.0);
        }
        for t in &mut self.threads {
            t.0 = shift(t.0);
        }
        for c in &mut self.collectives {
            c.0 = shift(c.0);
        }
        self.spare = std::mem::replace(&mut self.records, merged);
        self.calls = calls;
        self.calls.clear();
    }
}

struct Context<'d> {
    defs: &'d Definitions,
    builder: TraceBuilder,
    regions: HashMap<u32, (RegionId, RegionRole)>,
    skipped: BTreeMap<String, usize>,
    /// Values read other than written, by what was done: each becomes a note.
    adjusted: super::reading::Adjusted,
}

/// Tracescope's role for an OTF2 region role.
fn role_of(otf2_role: u8) -> RegionRole {
    match otf2_role {
        // POINT2POINT, COLL_OTHER, RMA, DATA_TRANSFER.
        28 | 26 | 29 | 30 => RegionRole::Communication,
        // BARRIER, IMPLICIT_BARRIER.
        15 | 16 => RegionRole::Barrier,
        23 => RegionRole::OneToAll,
        24 => RegionRole::AllToOne,
        25 => RegionRole::AllToAll,
        _ => RegionRole::Activity,
    }
}

impl Context<'_> {
    fn region(&mut self, id: u32) -> (RegionId, RegionRole) {
        if let Some(&r) = self.regions.get(&id) {
            return r;
        }
        let (name, role) = self
            .defs
            .regions
            .get(&id)
            .cloned()
            .unwrap_or_else(|| (format!("region {id}"), 0));
        let role = role_of(role);
        let r = (self.builder.add_region(name, role), role);
        self.regions.insert(id, r);
        r
    }

    fn events(
        &mut self,
        buf: &mut Buf<'_>,
        process: ProcessId,
        local: &LocalDefinitions,
        mut out: LocationEvents,
    ) -> Result<LocationEvents, TraceError> {
        let map = |kind: u8, id: u64| {
            local
                .maps
                .get(&kind)
                .and_then(|m| m.get(&id))
                .copied()
                .unwrap_or(id)
        };
        let offset = self.defs.global_offset;
        out = out.recycle();
        // Open regions: (region, role, index of the enter record).
        let mut stack: Vec<(RegionId, RegionRole, usize)> = Vec::new();
        let mut requests: HashMap<u64, NonZeroU32> = HashMap::new();
        let mut next_request = 1u32;
        let mut time = 0u64;
        buf.chunk_header()?;
        while let Some(t) = buf.next_type()? {
            let record_at = buf.pos - 1;
            match t {
                5 => {
                    let corrected = corrected(buf.u64_full("a timestamp")?, &local.offsets);
                    if corrected < offset {
                        // Before the clock's global offset: read as its start, and said so.
                        let (name, at) = (buf.name, record_at);
                        self.adjusted.add(
                            "timestamps before the clock's global offset, read as its start (tick 0)",
                            || format!("{name}, byte {at}"),
                        );
                    }
                    time = corrected.saturating_sub(offset);
                    continue;
                }
                6 => {
                    let end = buf.record_end()?;
                    buf.pos = end;
                    continue;
                }
                _ => {}
            }
            let at = Time(time);
            let plain = |kind| EventRecord::plain(process, at, kind);
            if let Some(field) = singleton_field(t) {
                let value = match field {
                    0 => 0,
                    1 => u64::from(buf.u8("a field")?),
                    4 => buf.u32("a field")?.into(),
                    9 => buf.u64_full("a field")?,
                    _ => buf.u64("a field")?,
                };
                match t {
                    12 => {
                        let (r, role) = self.region(map(MAP_REGION, value) as u32);
                        let mut e = plain(EventKind::Enter);
                        e.region = Some(r);
                        stack.push((r, role, out.records.len()));
                        out.records.push(e);
                    }
                    13 => {
                        let (r, _) = self.region(map(MAP_REGION, value) as u32);
                        if let Some(pos) = stack.iter().rposition(|s| s.0 == r) {
                            stack.truncate(pos);
                        }
                        let mut e = plain(EventKind::Leave);
                        e.region = Some(r);
                        out.records.push(e);
                    }
                    17 => {
                        let id = NonZeroU32::new(next_request).unwrap_or(NonZeroU32::MIN);
                        next_request = next_request.wrapping_add(1).max(1);
                        requests.insert(value, id);
                        let mut e = plain(EventKind::RecvPost);
                        e.request = Some(id);
                        out.records.push(e);
                    }
                    22 => {}
                    _ => *self.skipped.entry(format!("record type {t}")).or_default() += 1,
                }
                continue;
            }
            let end = buf.record_end().map_err(|e| TraceError {
                message: format!("{} (record type {t})", e.message),
                ..e
            })?;
            match t {
                // MpiSend, MpiIsend: receiver, communicator, tag, length[, request].
                14 | 15 => {
                    let receiver = buf.u32("receiver")?;
                    let comm = map(MAP_COMM, buf.u32("communicator")?.into()) as u32;
                    let tag = buf.u32("tag")?;
                    let length = buf.u64("length")?;
                    let mut e = plain(EventKind::MsgSend);
                    e.tag = tag;
                    e.size = length;
                    out.peers.push((out.records.len(), comm, receiver));
                    out.records.push(e);
                }
                // MpiRecv, MpiIrecv: sender, communicator, tag, length[, request].
                18 | 19 => {
                    let sender = buf.u32("sender")?;
                    let comm = map(MAP_COMM, buf.u32("communicator")?.into()) as u32;
                    let tag = buf.u32("tag")?;
                    let length = buf.u64("length")?;
                    let request = if t == 19 {
                        requests.remove(&buf.u64("request")?)
                    } else {
                        None
                    };
                    if t == 18
                        && let Some(&(_, RegionRole::Communication, enter)) = stack.last()
                    {
                        // A blocking receive: called at its MPI_Recv's enter.
                        let call_time = out.records[enter].time;
                        let mut call = EventRecord::plain(process, call_time, EventKind::RecvCall);
                        call.tag = tag;
                        out.calls.push((enter, call));
                    }
                    let mut e = plain(EventKind::MsgArr);
                    e.tag = tag;
                    e.size = length;
                    e.request = request;
                    out.peers.push((out.records.len(), comm, sender));
                    out.records.push(e);
                }
                // MpiCollectiveEnd: operation, communicator, root, sent, received.
                23 => {
                    let _op = buf.u8("collective operation")?;
                    let comm = map(MAP_COMM, buf.u32("communicator")?.into()) as u32;
                    let root = buf.u32("root")?;
                    if let Some(&(_, _, enter)) = stack.iter().rev().find(|s| s.1.is_collective()) {
                        out.collectives.push((enter, comm, root));
                    }
                }
                // ProgramBegin, ProgramEnd.
                83 => out.records.push(plain(EventKind::ProcInit)),
                84 => out.records.push(plain(EventKind::ProcExit)),
                // ThreadCreate / ThreadBegin / ThreadWait / ThreadEnd: contingent, sequence.
                62..=65 => {
                    let contingent = map(MAP_COMM, buf.u32("thread contingent")?.into()) as u32;
                    let sequence = buf.u64("sequence count")?;
                    let (kind, source) = match t {
                        62 | 65 => (EventKind::MsgSend, true),
                        _ => (EventKind::MsgArr, false),
                    };
                    // Create → begin and end → wait are two different messages of one thread.
                    let key = (contingent, sequence * 2 + u64::from(t >= 64));
                    out.threads.push((out.records.len(), key, source));
                    out.records.push(plain(kind));
                }
                // Metric: metric, number of values, then (type, value) for each.
                31 => {
                    let defs = self.defs;
                    let metric = map(MAP_METRIC, buf.u32("metric")?.into()) as u32;
                    let n = buf.u8("number of metric values")?;
                    let members = defs.metrics.get(&metric).map(|m| &m.members);
                    for k in 0..usize::from(n) {
                        let value_type = buf.u8("a metric value type")?;
                        // Every value is an 8-byte union written compressed like an UINT64,
                        // whatever its type (OTF2's `OTF2_Buffer_WriteMetricValue`).
                        let bits = buf.u64("a metric value")?;
                        let value = match value_type {
                            4 => bits as f64,
                            8 => bits as i64 as f64,
                            10 => f64::from_bits(bits),
                            other => {
                                *self
                                    .skipped
                                    .entry(format!("metric values of type {other}"))
                                    .or_default() += 1;
                                continue;
                            }
                        };
                        let Some(def) = members
                            .and_then(|m| m.get(k))
                            .and_then(|id| Some((*id, defs.metric_members.get(id)?)))
                        else {
                            *self
                                .skipped
                                .entry("metric values without a definition".to_owned())
                                .or_default() += 1;
                            continue;
                        };
                        if !value.is_finite() {
                            continue;
                        }
                        let (_, member) = def;
                        let series = out.counters.entry((metric, k)).or_insert_with(|| {
                            Counter::new(&member.name, &member.unit, process, member.kind)
                        });
                        series.times.push(at);
                        series.values.push(value * member.scale);
                    }
                }
                _ => *self.skipped.entry(format!("record type {t}")).or_default() += 1,
            }
            if buf.pos > end {
                return Err(buf.error(
                    record_at,
                    format!("record type {t} is longer than its length"),
                ));
            }
            buf.pos = end;
        }
        out.merge_calls();
        Ok(out)
    }
}

/// Whether the bytes are an OTF2 anchor file.
pub fn is_anchor(bytes: &[u8]) -> bool {
    bytes.len() > 7 && bytes[0] == 0x03 && &bytes[2..7] == b"OTF2\0"
}

/// Where an archive's files come from, asked for one at a time by path (relative to the
/// archive's root, `/`-separated): the import reads only the files the anchor and the global
/// definitions name (the anchor `NAME.otf2`, `NAME.def`, and `NAME/<id>.def` and
/// `NAME/<id>.evt` of each location read), one location's at a time, and never a file lying
/// beside them.
pub trait ArchiveSource {
    /// The paths of the files that may be anchors (named `*.otf2`), in the order to try them.
    fn anchors(&self) -> Vec<String>;
    /// The bytes of the file at `path`, or `None` if the archive has no such file.
    fn read(&self, path: &str) -> Result<Option<std::borrow::Cow<'_, [u8]>>, TraceError>;
    /// The size in bytes of the file at `path`, if it has one, without reading it.
    fn size(&self, path: &str) -> Option<u64>;
}

/// An archive whose files are already in memory (an upload's tar entries), by path.
impl ArchiveSource for BTreeMap<String, Vec<u8>> {
    fn anchors(&self) -> Vec<String> {
        self.iter()
            .filter(|(path, bytes)| path.ends_with(".otf2") && is_anchor(bytes))
            .map(|(path, _)| path.clone())
            .collect()
    }

    fn read(&self, path: &str) -> Result<Option<std::borrow::Cow<'_, [u8]>>, TraceError> {
        Ok(self
            .get(path)
            .map(|b| std::borrow::Cow::Borrowed(b.as_slice())))
    }

    fn size(&self, path: &str) -> Option<u64> {
        self.get(path).map(|b| b.len() as u64)
    }
}

/// Reads an archive given as file paths (relative to any common root) and their bytes.
pub fn parse_archive(
    files: &BTreeMap<String, Vec<u8>>,
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<(Trace, Vec<String>), TraceError> {
    parse_archive_from(files, fallback_name, budget)
}

/// Reads an archive from `source`, asking it only for the files the archive's anchor and
/// definitions name.
pub fn parse_archive_from(
    source: &impl ArchiveSource,
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<(Trace, Vec<String>), TraceError> {
    let missing = |what: String| TraceError::at_offset(FORMAT_NAME, &[], 0, what);
    let mut found = None;
    for path in source.anchors() {
        if let Some(bytes) = source.read(&path)?
            && is_anchor(&bytes)
        {
            found = Some((path, bytes));
            break;
        }
    }
    let (anchor_path, anchor) = found
        .ok_or_else(|| missing("expected an anchor file NAME.otf2 in the archive".to_owned()))?;
    let anchor_path = anchor_path.as_str();
    let base = &anchor_path[..anchor_path.len() - 5];
    // After the magic: the version (3 bytes), the trace format (1 byte), a reserved byte, then
    // the event and definition chunk sizes.
    let mut a = Buf {
        name: anchor_path,
        data: &anchor,
        pos: 12,
        chunk_size: 0,
    };
    let event_chunk = a.u64_full("the event chunk size")? as usize;
    let def_chunk = a.u64_full("the definition chunk size")? as usize;
    let def_path = format!("{base}.def");
    let def_bytes = source
        .read(&def_path)?
        .ok_or_else(|| missing(format!("expected the global definitions {def_path}")))?;
    let defs = global_definitions(&mut Buf {
        name: &def_path,
        data: &def_bytes,
        pos: 0,
        chunk_size: def_chunk,
    })?;
    let ticks_per_second = (defs.timer_resolution > 0).then_some(defs.timer_resolution);
    let mut cx = Context {
        defs: &defs,
        builder: TraceBuilder::new(fallback_name, Clock { ticks_per_second }),
        regions: HashMap::new(),
        skipped: BTreeMap::new(),
        adjusted: super::reading::Adjusted::default(),
    };
    // Processes: CPU threads and GPUs; each on a node named after its group and machine node.
    let mut process_of_location: HashMap<u64, ProcessId> = HashMap::new();
    let mut nodes: HashMap<u32, NodeId> = HashMap::new();
    for (&id, (name, kind, group)) in &defs.locations {
        if !matches!(kind, 1 | 2) {
            continue;
        }
        budget.check(
            super::budget::Limit::Processes,
            process_of_location.len() as u64 + 1,
            FORMAT_NAME,
            &[],
            0,
        )?;
        let p = add_row(&mut cx.builder, &defs, &mut nodes, name, *group)?;
        process_of_location.insert(id, p);
    }
    // Communicator ranks to processes.
    let members = |comm: u32| -> Vec<u64> {
        let Some(&group) = defs.comms.get(&comm) else {
            return Vec::new();
        };
        let Some((kind, paradigm, members)) = defs.groups.get(&group) else {
            return Vec::new();
        };
        match kind {
            // COMM_GROUP: ranks into the paradigm's COMM_LOCATIONS group.
            5 => {
                let locations = defs
                    .groups
                    .values()
                    .find(|g| g.0 == 4 && g.1 == *paradigm)
                    .map(|g| &g.2);
                members
                    .iter()
                    .filter_map(|&rank| locations.and_then(|l| l.get(rank as usize)).copied())
                    .collect()
            }
            _ => members.clone(),
        }
    };
    let mut comm_members: HashMap<u32, Vec<u64>> = HashMap::new();
    let mut unresolved = 0;
    // A location's events go to the builder as soon as its ranks are resolved (the global
    // definitions name every communicator), so no more than one location's records are held
    // beside the model. Locations with thread create/begin/end/wait events wait for the others:
    // their messages join two locations.
    let mut deferred: Vec<(usize, LocationEvents)> = Vec::new();
    let mut process_at: Vec<ProcessId> = Vec::new();
    // Metric series: (recording location, metric, series); their rows are resolved once every
    // location is read.
    let mut series: Vec<(u64, u32, Counter)> = Vec::new();
    // Room for the announced events and the receive calls added to them, but no more than the
    // event files could hold (every record takes two bytes or more): a false count cannot make
    // the import allocate beyond its input, and room never written costs no memory.
    let event_bytes: u64 = defs
        .locations
        .keys()
        .filter_map(|id| source.size(&format!("{base}/{id}.evt")))
        .fold(0, u64::saturating_add);
    cx.builder
        .reserve_events(defs.announced_events.saturating_mul(2).min(event_bytes / 2) as usize);
    let mut n_events = 0u64;
    // One location's buffers, recycled for the next.
    let mut recycled = LocationEvents::default();
    // The locations read: each process's, and each METRIC location's (where Score-P's metric
    // plugins and per-process metrics record), which is never a row of its own: its metric
    // records become counters of the row they belong to (`MetricRows`).
    for (&id, (_, kind, _)) in &defs.locations {
        let own = process_of_location.get(&id).copied();
        if own.is_none() && *kind != LOCATION_METRIC {
            continue;
        }
        let local_def = format!("{base}/{id}.def");
        let local = match source.read(&local_def)? {
            Some(bytes) => local_definitions(&mut Buf {
                name: &local_def,
                data: &bytes,
                pos: 0,
                chunk_size: def_chunk,
            })?,
            None => LocalDefinitions::default(),
        };
        let evt = format!("{base}/{id}.evt");
        let Some(bytes) = source.read(&evt)? else {
            *cx.skipped
                .entry("locations without an event file".to_owned())
                .or_default() += 1;
            continue;
        };
        let mut loc = cx.events(
            &mut Buf {
                name: &evt,
                data: &bytes,
                pos: 0,
                chunk_size: event_chunk,
            },
            // A METRIC location's records other than metrics are left out below: the process
            // given here is never used for it.
            own.unwrap_or(ProcessId(0)),
            &local,
            std::mem::take(&mut recycled),
        )?;
        series.extend(
            std::mem::take(&mut loc.counters)
                .into_iter()
                .map(|((metric, _), counter)| (id, metric, counter)),
        );
        let Some(p) = own else {
            if !loc.records.is_empty() {
                *cx.skipped
                    .entry("records other than metrics on METRIC locations".to_owned())
                    .or_default() += loc.records.len();
            }
            recycled = loc;
            continue;
        };
        n_events += loc.records.len() as u64;
        budget.check(
            super::budget::Limit::Events,
            n_events,
            FORMAT_NAME,
            &bytes,
            0,
        )?;
        for &(index, comm, rank) in &loc.peers {
            let list = comm_members.entry(comm).or_insert_with(|| members(comm));
            match list
                .get(rank as usize)
                .and_then(|location| process_of_location.get(location))
            {
                Some(&p) => loc.records[index].peer = Some(p),
                None => unresolved += 1,
            }
        }
        for &(index, comm, root) in &loc.collectives {
            let list = comm_members.entry(comm).or_insert_with(|| members(comm));
            loc.records[index].tag = comm;
            loc.records[index].peer = list
                .get(root as usize)
                .and_then(|location| process_of_location.get(location))
                .copied();
        }
        process_at.push(p);
        if loc.threads.is_empty() {
            push_records(&mut cx.builder, &loc.records)?;
            recycled = loc;
        } else {
            deferred.push((process_at.len() - 1, loc));
        }
    }
    // Per thread message (create→begin, end→wait): the (location, record) of its sending and receiving side.
    type Ends = (Option<(usize, usize)>, Option<(usize, usize)>);
    let mut threads: HashMap<(u32, u64), Ends> = HashMap::new();
    for (d, (_, loc)) in deferred.iter().enumerate() {
        for &(index, key, source) in &loc.threads {
            let slot = threads.entry(key).or_default();
            if source {
                slot.0 = Some((d, index))
            } else {
                slot.1 = Some((d, index))
            }
        }
    }
    let mut thread_tag = 0u32;
    for (from, to) in threads.into_values() {
        if let (Some((fd, fi)), Some((td, ti))) = (from, to) {
            thread_tag = thread_tag.wrapping_add(1);
            let (from_process, to_process) =
                (process_at[deferred[fd].0], process_at[deferred[td].0]);
            let sender = &mut deferred[fd].1.records[fi];
            sender.peer = Some(to_process);
            sender.tag = u32::MAX - thread_tag;
            let receiver = &mut deferred[td].1.records[ti];
            receiver.peer = Some(from_process);
            receiver.tag = u32::MAX - thread_tag;
        } else {
            unresolved += 1;
        }
    }
    let mut notes = super::reading::skipped_notes(cx.skipped.iter().map(|(what, &n)| (what, n)));
    notes.extend(cx.adjusted.notes());
    if unresolved > 0 {
        notes.push(format!("{unresolved} messages name a rank or thread that is not in the archive and were left out"));
    }
    // Each series to its row. Where no process row fits (an archive of METRIC locations only, or
    // a location group without threads), the recording location's group gets a row of its own,
    // holding counters and no events.
    let mut metric_rows: HashMap<u32, ProcessId> = HashMap::new();
    let mut not_accumulating = 0usize;
    let rows = MetricRows::new(&defs, &process_of_location);
    for (recorder, metric, mut counter) in series {
        counter.process = match rows.metric(recorder, metric) {
            Some(p) => p,
            None => {
                let group = defs.locations.get(&recorder).map_or(u32::MAX, |l| l.2);
                match metric_rows.get(&group) {
                    Some(&p) => p,
                    None => {
                        budget.check(
                            super::budget::Limit::Processes,
                            process_of_location.len() as u64 + metric_rows.len() as u64 + 1,
                            FORMAT_NAME,
                            &[],
                            0,
                        )?;
                        let p = add_row(&mut cx.builder, &defs, &mut nodes, "metrics", group)?;
                        metric_rows.insert(group, p);
                        p
                    }
                }
            }
        };
        // An accumulated value is a running total, which never decreases: a series declared so
        // that decreases is a value at its time (Score-P writes the metric plugins' default
        // mode, ACCUMULATED_START, for temperatures and utilizations).
        if counter.kind == CounterKind::Accumulated
            && counter.values.windows(2).any(|w| w[1] < w[0])
        {
            counter.kind = CounterKind::Gauge;
            not_accumulating += 1;
        }
        cx.builder
            .add_counter(counter)
            .map_err(|e| missing(e.to_string()))?;
    }
    if not_accumulating > 0 {
        notes.push(format!(
            "{not_accumulating} metric series declared accumulated (a running total) decrease, so they were read as values at their times (gauges)"
        ));
    }
    if !metric_rows.is_empty() {
        let mut groups: Vec<&str> = metric_rows
            .keys()
            .map(|g| defs.location_groups.get(g).map_or("?", |l| l.0.as_str()))
            .collect();
        groups.sort_unstable();
        notes.push(format!(
            "location groups with metrics but no thread or GPU location got a row of their own, holding their counters and no events: {}",
            groups.join(", ")
        ));
    }
    for (_, loc) in deferred {
        push_records(&mut cx.builder, &loc.records)?;
    }
    Ok((cx.builder.build(), notes))
}

/// Adds the row of a location named `name` in location group `group`, on a node named after
/// the group and its system tree node.
fn add_row(
    builder: &mut TraceBuilder,
    defs: &Definitions,
    nodes: &mut HashMap<u32, NodeId>,
    name: &str,
    group: u32,
) -> Result<ProcessId, TraceError> {
    let node = match nodes.get(&group) {
        Some(&n) => n,
        None => {
            let (group_name, parent) = defs
                .location_groups
                .get(&group)
                .cloned()
                .unwrap_or_else(|| (format!("group {group}"), u32::MAX));
            let machine = defs.system_nodes.get(&parent).cloned().unwrap_or_default();
            let n = builder.add_node(if machine.is_empty() {
                group_name
            } else {
                format!("{group_name} @ {machine}")
            });
            nodes.insert(group, n);
            n
        }
    };
    let group_name = defs
        .location_groups
        .get(&group)
        .map_or("", |g| g.0.as_str());
    let process_name = if group_name.is_empty() {
        name.to_owned()
    } else if name.is_empty() {
        group_name.to_owned()
    } else {
        format!("{group_name} · {name}")
    };
    builder
        .add_process(process_name, node)
        .map_err(|e| TraceError::at_offset(FORMAT_NAME, &[], 0, e.to_string()))
}

/// OTF2's location types (`OTF2_LocationType`).
const LOCATION_CPU_THREAD: u8 = 1;
const LOCATION_GPU: u8 = 2;
const LOCATION_METRIC: u8 = 3;

/// Where metric values go: the rows of locations, location groups and system tree nodes,
/// worked out once (an archive may have thousands of each).
struct MetricRows<'d> {
    defs: &'d Definitions,
    /// A process location's row.
    locations: &'d HashMap<u64, ProcessId>,
    /// A location group's row: its first CPU thread (the process's master thread), else its
    /// first GPU location.
    groups: HashMap<u32, ProcessId>,
    /// A system tree node's row: the first such location in a group on that node or below it.
    nodes: HashMap<u32, ProcessId>,
}

impl<'d> MetricRows<'d> {
    fn new(defs: &'d Definitions, locations: &'d HashMap<u64, ProcessId>) -> MetricRows<'d> {
        let mut groups = HashMap::new();
        let mut nodes = HashMap::new();
        for wanted in [LOCATION_CPU_THREAD, LOCATION_GPU] {
            for (id, (_, kind, group)) in &defs.locations {
                let Some(&row) = locations.get(id).filter(|_| *kind == wanted) else {
                    continue;
                };
                groups.entry(*group).or_insert(row);
                // The group's node and every node above it; the depth is bounded, so that a
                // damaged tree with a cycle ends the walk.
                let mut node = defs
                    .location_groups
                    .get(group)
                    .map(|g| g.1)
                    .filter(|&n| n != u32::MAX);
                for _ in 0..64 {
                    let Some(n) = node else { break };
                    nodes.entry(n).or_insert(row);
                    // The root's parent is OTF2's undefined reference (all ones).
                    node = defs
                        .system_parents
                        .get(&n)
                        .copied()
                        .filter(|&p| p != n && p != u32::MAX);
                }
            }
        }
        MetricRows {
            defs,
            locations,
            groups,
            nodes,
        }
    }

    /// The row a location's values belong to: its own, or (a METRIC location) its group's.
    fn location(&self, location: u64) -> Option<ProcessId> {
        self.locations.get(&location).copied().or_else(|| {
            let (_, _, group) = self.defs.locations.get(&location)?;
            self.groups.get(group).copied()
        })
    }

    /// The row the values of `metric` recorded by location `recorder` belong to: an instance's
    /// scope (a location, a location group, a system tree node, or the first member of a group
    /// of locations that has a row), else the recording location's. `None` when no process
    /// row fits.
    fn metric(&self, recorder: u64, metric: u32) -> Option<ProcessId> {
        let scoped = match self.defs.metrics.get(&metric).and_then(|m| m.scope) {
            Some((0, location)) => self.location(location),
            Some((1, group)) => u32::try_from(group)
                .ok()
                .and_then(|g| self.groups.get(&g).copied()),
            Some((2, node)) => u32::try_from(node)
                .ok()
                .and_then(|n| self.nodes.get(&n).copied()),
            Some((3, group)) => u32::try_from(group)
                .ok()
                .and_then(|g| self.defs.groups.get(&g))
                .and_then(|(_, _, members)| members.iter().find_map(|&l| self.location(l))),
            _ => None,
        };
        scoped.or_else(|| self.location(recorder))
    }
}

/// Hands a location's records to the builder, leaving out a send or arrival whose peer could
/// not be resolved (not guessed).
fn push_records(builder: &mut TraceBuilder, records: &[EventRecord]) -> Result<(), TraceError> {
    for &r in records {
        if r.kind.has_peer() && r.peer.is_none() {
            continue;
        }
        builder
            .push(r)
            .map_err(|e| TraceError::at_offset(FORMAT_NAME, &[], 0, e.to_string()))?;
    }
    Ok(())
}

/// The files of a tar archive, by path.
pub fn tar_files(input: &[u8]) -> Result<BTreeMap<String, Vec<u8>>, TraceError> {
    tar_files_from(input, input, u64::MAX, |_| true)
}

/// A reader that counts what it reads.
struct Counting<'a, R> {
    inner: R,
    read: &'a std::cell::Cell<u64>,
}

impl<R: std::io::Read> std::io::Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// The regular files of a tar archive read from `reader` (a decompressor, say) whose paths
/// `keep` accepts, refusing it once more than `max_bytes` were read; errors point into `input`
/// (what the reader reads). The entries left out are read past (they count toward
/// `max_bytes`), never held.
pub fn tar_files_from(
    reader: impl std::io::Read,
    input: &[u8],
    max_bytes: u64,
    keep: impl Fn(&str) -> bool,
) -> Result<BTreeMap<String, Vec<u8>>, TraceError> {
    let read = std::cell::Cell::new(0u64);
    // An error at a byte of the archive (after decompression), which may lie past the part of
    // it that `input` holds: the offset is kept, never clamped to what is held.
    let at = |offset: u64, message: String| -> TraceError {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        if offset <= input.len() {
            TraceError::at_offset("tar", input, offset, message)
        } else {
            TraceError::at(
                "tar",
                crate::model::error::Position {
                    offset,
                    line: 1,
                    column: offset.saturating_add(1),
                },
                message,
            )
        }
    };
    // The input limit, checked where the reader is, naming the entry being read.
    let over = |entry: Option<&str>| -> Result<(), TraceError> {
        if read.get() <= max_bytes {
            return Ok(());
        }
        let budget = super::budget::Budget {
            max_input_bytes: max_bytes,
            ..super::budget::Budget::UNLIMITED
        };
        let where_ = at(read.get(), String::new());
        budget
            .check_at(
                super::budget::Limit::InputBytes,
                read.get(),
                "tar",
                crate::model::error::Position {
                    offset: where_.offset,
                    line: where_.line,
                    column: where_.column,
                },
            )
            .map_err(|mut e| {
                if let Some(path) = entry {
                    e.message = format!("in the tar entry {path:?}: {}", e.message);
                }
                e
            })
    };
    let counting = Counting {
        inner: std::io::Read::take(reader, max_bytes.saturating_add(1)),
        read: &read,
    };
    let mut files = BTreeMap::new();
    let mut archive = tar::Archive::new(counting);
    let entries = archive
        .entries()
        .map_err(|e| at(0, format!("expected a tar archive: {e}")))?;
    // Where the next entry's header starts, and the entry before it (for the messages).
    let mut next_header = 0u64;
    let mut previous: Option<String> = None;
    for entry in entries {
        let mut entry = entry.map_err(|e| {
            over(None).err().unwrap_or_else(|| {
                let after = previous
                    .as_deref()
                    .map_or_else(String::new, |p| format!(" (after the entry {p:?})"));
                at(
                    next_header,
                    format!("a damaged tar entry header at byte {next_header}{after}: {e}"),
                )
            })
        })?;
        let path = entry
            .path()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let data_at = entry.raw_file_position();
        let size = entry.size();
        next_header = data_at.saturating_add(size.div_ceil(512).saturating_mul(512));
        previous = Some(path.clone());
        if !entry.header().entry_type().is_file() || !keep(&path) {
            continue;
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut bytes).map_err(|e| {
            over(Some(&path)).err().unwrap_or_else(|| {
                let got = bytes.len() as u64;
                at(
                    data_at.saturating_add(got),
                    format!(
                        "the tar entry {path:?} breaks off at byte {got} of its {size} \
                         (byte {} of the archive): {e}",
                        data_at.saturating_add(got)
                    ),
                )
            })
        })?;
        if (bytes.len() as u64) < size {
            over(Some(&path))?;
            let got = bytes.len() as u64;
            return Err(at(
                data_at.saturating_add(got),
                format!(
                    "the tar entry {path:?} breaks off at byte {got} of its {size} (byte {} of \
                     the archive): the archive is cut short",
                    data_at.saturating_add(got)
                ),
            ));
        }
        over(Some(&path))?;
        files.insert(path.trim_start_matches("./").to_owned(), bytes);
    }
    over(None)?;
    Ok(files)
}

/// Whether a tar member may be a file of an OTF2 archive (the anchor `*.otf2`, definitions
/// `*.def`, events `*.evt`).
pub fn archive_member(path: &str) -> bool {
    [".otf2", ".def", ".evt"]
        .iter()
        .any(|ext| path.ends_with(ext))
}

/// Whether the bytes are a tar archive (the `ustar` magic at offset 257).
pub fn is_tar(input: &[u8]) -> bool {
    input.get(257..262) == Some(b"ustar")
}
