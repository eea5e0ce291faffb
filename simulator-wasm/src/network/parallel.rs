//! The network's conservative scheme run by several threads at once, giving the same run —
//! the same events, samples, output and errors, byte for byte — as [`Network::run`].
//!
//! The nodes are cut into contiguous parts (the topologies number neighbours close together: a
//! mesh row by row, a ring or a pipeline in order, so few wires cross a cut), part 0 also keeps
//! the host; the parts are shared among at most as many threads as the machine has cores.
//! Every thread runs the same control loop on the same replicated decisions (the clock,
//! the window, free runs and jumps, sampling); what one worker learns that the others need — a
//! survey of its nodes, how many still run a process, a free-running node's time, the host's
//! exit, an error — it publishes before a barrier and everyone reads after it. A window's
//! packets to a node of another part go into that part's mailbox, drained after the window's
//! barrier: a packet acts no earlier than a lookahead after its start, at or after the window's
//! end, and a node's reactions are ordered by (time, link, action) whatever order its packets
//! arrive in, so who delivers first does not matter. Mailboxes and published values alternate
//! between two sets by round, so a set is written again only after everyone has read it.
//!
//! Meeting after every window (a lookahead of 275 ns at 20 Mbit/s: a few instructions a
//! node) costs more than the window's work, so the workers run *stretches* of windows alone
//! ([`speculate`]): each runs windows until a packet leaves its parts, then everyone keeps
//! the fewest windows anyone ran — exact, since no packet crossed before — and whoever ran
//! further goes back to the checkpoint it took (`crate::cpu::checkpoint`) and runs up to
//! there again. While packets keep crossing, stretches stop short and the workers meet after
//! every window for a while ([`Pace`]), as the scheme always did.
//!
//! How the workers meet is a [`Fabric`]: threads sharing one network meet through the
//! [`Shared`] atomics and mailboxes here; workers that each hold their own copy of the
//! network (the page's Web Workers, one WebAssembly instance each) meet through a
//! [`Transport`] that moves one round's bytes ([`BytesFabric`]), each running one part
//! ([`Network::run_share`]) and handing its nodes' record to the first at the end
//! ([`Network::export_part`], [`Network::import_part`]).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use super::{
    Doze, HOST_NODE, Host, Network, Node, Outcome, Pace, Peer, Stretches, Survey, UseSample, awake,
    free_run_end, grid_at_or_after, jump_to, sample_host, sample_nodes, survey_nodes, wake_all,
    window_end,
};
use crate::error::SimError;
use crate::link::PacketKind;

pub mod share;

/// A barrier that spins a while, then sleeps: a window is a few hundred nanoseconds of
/// virtual time, far shorter than a sleeping barrier's wake-up, so workers on cores of their
/// own meet spinning; more workers than cores (or a busy machine) sleep instead of spinning
/// while the worker they wait for has no core. Each thread counts its arrivals on a cache line
/// of its own and waits until every other count has reached its own: an arrival is one plain
/// store, and no line is fought over.
struct SpinBarrier {
    spin_for: std::time::Duration,
    arrivals: Vec<Padded<AtomicU64>>,
    sleepers: Padded<AtomicUsize>,
    lock: Mutex<()>,
    wake: Condvar,
}

/// How long a worker spins at the barrier before it sleeps. A sleeping thread can take
/// hundreds of microseconds to wake (~430 µs measured on this 2-core virtual machine), and
/// yielding the core while spinning lets the scheduler keep both workers on one core (a
/// round then costs ~215 µs, each worker running while the other yields): so a worker spins,
/// and sleeps only when another is gone for long (more workers than free cores). Workers
/// meet after a window only while packets cross between them (see [`speculate`]); after a
/// stretch of windows, a few milliseconds.
const SPIN_FOR: std::time::Duration = std::time::Duration::from_millis(5);
/// How long workers spin when there are more of them than cores: then the one awaited may
/// have no core, and spinning only keeps it from getting one.
const SPIN_CROWDED: std::time::Duration = std::time::Duration::from_micros(50);

impl SpinBarrier {
    fn new(parties: usize) -> SpinBarrier {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        SpinBarrier {
            spin_for: if parties > cores {
                SPIN_CROWDED
            } else {
                SPIN_FOR
            },
            arrivals: (0..parties).map(|_| Padded(AtomicU64::new(0))).collect(),
            sleepers: Padded(AtomicUsize::new(0)),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    fn everyone_at(&self, round: u64) -> bool {
        self.arrivals
            .iter()
            .all(|a| a.load(Ordering::Acquire) >= round)
    }

    /// Thread `me` arrives, and waits for the others.
    fn wait(&self, me: usize) {
        let round = self.arrivals[me].load(Ordering::Relaxed) + 1;
        self.arrivals[me].store(round, Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _held = self.lock.lock().expect("unpoisoned");
            self.wake.notify_all();
        }
        let mut began = None;
        loop {
            for _ in 0..256 {
                if self.everyone_at(round) {
                    return;
                }
                std::hint::spin_loop();
            }
            if began.get_or_insert_with(std::time::Instant::now).elapsed() > self.spin_for {
                break;
            }
        }
        // A sleeper counts itself before it looks again, so a thread arriving later either
        // sees it and wakes it, or has arrived before it looks.
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let mut held = self.lock.lock().expect("unpoisoned");
        while !self.everyone_at(round) {
            held = self.wake.wait(held).expect("unpoisoned");
        }
        drop(held);
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A value on cache lines of its own (no false sharing between threads).
#[derive(Default)]
#[repr(align(128))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A packet for a node of another part.
#[derive(Debug, Clone, Copy)]
struct Delivery {
    node: u32,
    link: u8,
    kind: PacketKind,
    at_ps: u64,
}

/// Packets for one part in one round; `waiting` says whether to look inside.
#[derive(Default)]
#[repr(align(128))]
struct Mailbox {
    waiting: std::sync::atomic::AtomicBool,
    packets: Mutex<Vec<Delivery>>,
}

/// What a worker tells the others at a barrier.
#[derive(Debug, Clone)]
struct Published {
    survey: Survey,
    busy: usize,
    /// The first error in the worker's part: (node, or the number of nodes for the host; error).
    error: Option<(usize, SimError)>,
    /// Worker 0: the host's exit status.
    exit: Option<i32>,
    /// A free-running node's owner: its time, whether it put a packet on a wire, and whether
    /// it finished (waits for the outside world).
    free_run: (u64, bool, bool),
    /// After a stretch of windows run alone ([`speculate`]): how many the worker ran, and
    /// whether it stopped at an error (told only once everyone agrees that window counts).
    windows: usize,
    halted: bool,
}

impl Default for Published {
    fn default() -> Self {
        Published {
            survey: Survey {
                active: 0,
                runner: 0,
                next_ps: None,
                host_waits: true,
            },
            busy: 0,
            error: None,
            exit: None,
            free_run: (0, false, false),
            windows: 0,
            halted: false,
        }
    }
}

/// A thread's published values for one round parity: plain atomics (the barrier orders them),
/// the rare error behind a lock.
#[derive(Default)]
#[repr(align(128))]
struct Slot {
    words: [AtomicU64; 7],
    error: Mutex<Option<(usize, SimError)>>,
}

const HOST_WAITS: u64 = 1;
const EMITTED: u64 = 2;
const FINISHED: u64 = 4;
const EXITED: u64 = 8;
const FAILED: u64 = 16;
const HALTED: u64 = 32;

impl Published {
    /// As seven words (without the error, flagged in the fourth; the exit status in the
    /// sixth's low half, the windows in its high half).
    fn to_words(&self) -> [u64; 7] {
        let flags = (u64::from(self.survey.host_waits) * HOST_WAITS)
            | (u64::from(self.free_run.1) * EMITTED)
            | (u64::from(self.free_run.2) * FINISHED)
            | (u64::from(self.exit.is_some()) * EXITED)
            | (u64::from(self.error.is_some()) * FAILED)
            | (u64::from(self.halted) * HALTED);
        [
            self.survey.active as u64,
            self.survey.runner as u64,
            self.survey.next_ps.unwrap_or(u64::MAX),
            flags,
            self.busy as u64,
            u64::from(self.exit.unwrap_or(0) as u32) | ((self.windows as u64) << 32),
            self.free_run.0,
        ]
    }

    /// What [`Published::to_words`] wrote, without the error.
    fn from_words(w: [u64; 7]) -> Published {
        let flags = w[3];
        Published {
            survey: Survey {
                active: w[0] as usize,
                runner: w[1] as usize,
                next_ps: (w[2] != u64::MAX).then_some(w[2]),
                host_waits: flags & HOST_WAITS != 0,
            },
            busy: w[4] as usize,
            error: None,
            exit: (flags & EXITED != 0).then_some(w[5] as u32 as i32),
            free_run: (w[6], flags & EMITTED != 0, flags & FINISHED != 0),
            windows: (w[5] >> 32) as usize,
            halted: flags & HALTED != 0,
        }
    }
}

impl Slot {
    fn write(&self, p: Published) {
        for (word, value) in self.words.iter().zip(p.to_words()) {
            word.store(value, Ordering::Relaxed);
        }
        if let Some(error) = p.error {
            *self.error.lock().expect("unpoisoned") = Some(error);
        }
    }

    /// What was written, without the error (see [`Slot::error`]).
    fn read(&self) -> Published {
        Published::from_words(std::array::from_fn(|k| {
            self.words[k].load(Ordering::Relaxed)
        }))
    }

    /// The error written, if any.
    fn error(&self) -> Option<(usize, SimError)> {
        if self.words[3].load(Ordering::Relaxed) & FAILED == 0 {
            return None;
        }
        self.error.lock().expect("unpoisoned").clone()
    }
}

/// How the workers of a parallel run meet: each round, every worker publishes what it learnt,
/// hands over the packets for other parts, and waits for all the others.
trait Fabric {
    /// The first node of each part, and the number of nodes after the last.
    fn bounds(&self) -> &[usize];
    /// The worker that runs `part`.
    fn thread_of(&self, part: usize) -> usize;
    /// Queues a packet for a node of another worker's part, for this round.
    fn post(&mut self, round: usize, part: usize, delivery: Delivery);
    /// Publishes `mine`, waits for every worker, and answers what each published (in `all`,
    /// by worker) and the packets sent to this worker's parts (in `inbox`), or the error of
    /// the lowest-numbered node any worker met (as [`Network::run`] reports it).
    fn exchange(
        &mut self,
        round: usize,
        mine: Published,
        all: &mut Vec<Published>,
        inbox: &mut Vec<Delivery>,
    ) -> Result<(), SimError>;

    /// The part that owns `node`.
    fn part_of(&self, node: usize) -> usize {
        self.bounds().partition_point(|&b| b <= node) - 1
    }

    /// The nodes of the network.
    fn node_count(&self) -> usize {
        self.bounds().last().copied().unwrap_or(0)
    }
}

/// The lowest-numbered node's error among `errors` (`(node, or the number of nodes for the
/// host; error)`), wrapped as [`Network::run`] wraps a node's.
fn first_of(errors: impl Iterator<Item = (usize, SimError)>, nodes: usize) -> Result<(), SimError> {
    match errors.min_by_key(|(i, _)| *i) {
        None => Ok(()),
        Some((i, e)) if i < nodes => Err(SimError::Network {
            message: format!("node {i}: {e}"),
        }),
        Some((_, e)) => Err(e),
    }
}

/// What the workers share.
struct Shared {
    barrier: SpinBarrier,
    /// Per thread, by round parity.
    published: Vec<[Slot; 2]>,
    /// Per receiving part, by round parity.
    mail: Vec<[Mailbox; 2]>,
    /// The first node of each part, and the number of nodes after the last.
    bounds: Vec<usize>,
    /// The first part of each thread, and the number of parts after the last.
    threads: Vec<usize>,
}

impl Shared {
    /// The thread that runs `part`.
    fn thread_of(&self, part: usize) -> usize {
        self.threads.partition_point(|&t| t <= part) - 1
    }
}

/// One thread's way into [`Shared`].
struct ThreadFabric<'a> {
    shared: &'a Shared,
    thread: usize,
}

impl Fabric for ThreadFabric<'_> {
    fn bounds(&self) -> &[usize] {
        &self.shared.bounds
    }

    fn thread_of(&self, part: usize) -> usize {
        self.shared.thread_of(part)
    }

    fn post(&mut self, round: usize, part: usize, delivery: Delivery) {
        let mailbox = &self.shared.mail[part][round & 1];
        mailbox.packets.lock().expect("unpoisoned").push(delivery);
        mailbox.waiting.store(true, Ordering::Relaxed);
    }

    fn exchange(
        &mut self,
        round: usize,
        mine: Published,
        all: &mut Vec<Published>,
        inbox: &mut Vec<Delivery>,
    ) -> Result<(), SimError> {
        let (shared, parity) = (self.shared, round & 1);
        shared.published[self.thread][parity].write(mine);
        shared.barrier.wait(self.thread);
        all.clear();
        all.extend(shared.published.iter().map(|slots| slots[parity].read()));
        let parts = shared.threads[self.thread]..shared.threads[self.thread + 1];
        for part in parts {
            let mailbox = &shared.mail[part][parity];
            if mailbox.waiting.swap(false, Ordering::Relaxed) {
                inbox.append(&mut mailbox.packets.lock().expect("unpoisoned"));
            }
        }
        if shared
            .published
            .iter()
            .any(|slots| slots[parity].words[3].load(Ordering::Relaxed) & FAILED != 0)
        {
            return first_of(
                shared
                    .published
                    .iter()
                    .filter_map(|slots| slots[parity].error()),
                self.node_count(),
            );
        }
        Ok(())
    }
}

/// The replicated state every worker starts from.
#[derive(Clone, Copy)]
struct Start {
    time_ps: u64,
    until_ps: u64,
    window_ps: u64,
    next_sample_ps: u64,
    sample_ps: u64,
    exit: Option<i32>,
    nodes: usize,
    busy: usize,
    pace: Pace,
}

/// One worker's part and what it hands back.
struct Part<'a> {
    index: usize,
    first: usize,
    nodes: &'a mut [Node],
    last_busy: &'a mut [(u64, [u64; 4])],
    host: Option<&'a mut Host>,
    host_busy: u64,
    samples: Vec<UseSample>,
    /// Its nodes' dozing, as in [`Network::run`].
    doze: Vec<Doze>,
}

impl Part<'_> {
    /// Hands this part's node `k` a packet on `link`, waking it first.
    fn receive(&mut self, k: usize, link: u8, kind: PacketKind, at_ps: u64) {
        self.doze[k].wake(&mut self.nodes[k]);
        self.nodes[k].receive(link, kind, at_ps);
    }
}

/// How a worker's loop ended: the outcome, the replicated clock state, and its stretches.
struct Ended {
    result: Result<Outcome, SimError>,
    time_ps: u64,
    next_sample_ps: u64,
    busy: usize,
    stretches: Stretches,
    pace: Pace,
}

impl Network {
    /// The replicated state a parallel run to `until_ps` starts from.
    fn start(&self, until_ps: u64) -> Start {
        Start {
            time_ps: self.time_ps,
            until_ps,
            window_ps: self.window_ps,
            next_sample_ps: self.next_sample_ps,
            sample_ps: self.config.sample_ps.max(1),
            exit: self.host.as_ref().and_then(|h| h.server.exit),
            nodes: self.nodes.len(),
            busy: self.busy,
            pace: self.pace,
        }
    }

    /// [`Network::run`] with the nodes cut into `workers` parts (at most one a node; 1 runs
    /// [`Network::run`] itself), run by as many threads as the machine has cores (at most one
    /// a part): the same run, byte for byte, whatever the number of parts or threads.
    pub fn run_parallel(&mut self, until_ps: u64, workers: usize) -> Result<Outcome, SimError> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.run_parts(until_ps, workers, cores)
    }

    /// [`Network::run_parallel`] on `threads` threads (at most one a part).
    pub fn run_parts(
        &mut self,
        until_ps: u64,
        parts: usize,
        threads: usize,
    ) -> Result<Outcome, SimError> {
        let n = self.nodes.len();
        let parts = parts.clamp(1, n.max(1));
        if parts == 1 {
            return self.run(until_ps);
        }
        let threads = threads.clamp(1, parts);
        let bounds: Vec<usize> = (0..=parts).map(|p| p * n / parts).collect();
        let shared = Shared {
            barrier: SpinBarrier::new(threads),
            published: (0..threads).map(|_| Default::default()).collect(),
            mail: (0..parts).map(|_| Default::default()).collect(),
            bounds: bounds.clone(),
            threads: (0..=threads).map(|t| t * parts / threads).collect(),
        };
        let start = self.start(until_ps);
        // Each other thread's nodes move out of the network's vector into one that thread
        // allocates, and come back after the run. In one vector the second thread's first
        // node ran 2-3 times slower than its peers, and the mesh's second half took 17.5 ms
        // on two threads to the first's 14.7 (the same instructions): lines of the nodes on
        // either side of the cut are fetched by both cores, most likely by one core's
        // prefetcher running ahead into the next node, and every window each takes them back
        // from the other. Apart, each half takes ~14.3 ms (the 64-node mesh: 18.3 -> 14.8 ms).
        let node_at = |t: usize| bounds[shared.threads[t]];
        let mut moved: Vec<Vec<Node>> = (1..threads)
            .rev()
            .map(|t| self.nodes.split_off(node_at(t)))
            .collect();
        moved.reverse();
        let (mut last_busy, mut host) = (&mut self.last_busy[..], self.host.as_mut());
        let mut busy_by_thread = Vec::with_capacity(threads);
        for t in 0..threads {
            let (mine, rest) = last_busy.split_at_mut(node_at(t + 1) - node_at(t));
            busy_by_thread.push(mine);
            last_busy = rest;
        }
        let host_busy = self.host_busy;
        let peers = &self.peers;
        let shared_ref = &shared;
        let mut busy_by_thread = busy_by_thread.into_iter();
        let mut first = cut_parts(
            &mut self.nodes,
            busy_by_thread.next().expect("thread 0"),
            shared_ref,
            0,
            host.take(),
            host_busy,
        );
        let (ended, done, moved_back) = std::thread::scope(|scope| {
            let others: Vec<_> = moved
                .into_iter()
                .zip(busy_by_thread)
                .enumerate()
                .map(|(k, (handed, last_busy))| {
                    let t = k + 1;
                    scope.spawn(move || {
                        let mut nodes = Vec::with_capacity(handed.len());
                        nodes.extend(handed);
                        let mut mine =
                            cut_parts(&mut nodes, last_busy, shared_ref, t, None, host_busy);
                        let mut fabric = ThreadFabric {
                            shared: shared_ref,
                            thread: t,
                        };
                        let ended = work(&mut mine, peers, &mut fabric, start);
                        let done = mine
                            .into_iter()
                            .map(|part| (part.samples, part.host_busy))
                            .collect::<Vec<_>>();
                        (done, ended.stretches.rollbacks, nodes)
                    })
                })
                .collect();
            let mut fabric = ThreadFabric {
                shared: shared_ref,
                thread: 0,
            };
            let mut ended = work(&mut first, peers, &mut fabric, start);
            let mut done: Vec<_> = first
                .into_iter()
                .map(|part| (part.samples, part.host_busy))
                .collect();
            let mut moved_back = Vec::with_capacity(others.len());
            for handle in others {
                let (theirs, rollbacks, nodes) = handle.join().expect("a worker thread");
                done.extend(theirs);
                ended.stretches.rollbacks += rollbacks;
                moved_back.push(nodes);
            }
            (ended, done, moved_back)
        });
        for mut nodes in moved_back {
            self.nodes.append(&mut nodes);
        }
        self.time_ps = ended.time_ps;
        self.next_sample_ps = ended.next_sample_ps;
        self.busy = ended.busy;
        self.pace = ended.pace;
        self.stretches.add(ended.stretches);
        self.host_busy = done[0].1;
        let samples: Vec<Vec<UseSample>> = done.into_iter().map(|(samples, _)| samples).collect();
        merge_samples(&samples, &mut self.samples);
        ended.result
    }
}

/// Appends the parts' samples (each part's by period, node by node, part 0's host after its
/// nodes) in the order one thread writes them: by period, node by node, the host last. A
/// merge, not a sort: on the 64-node mesh, gathering and sorting its 16,416 samples took
/// 0.4-0.8 ms of a 15 ms run, merging them takes ~0.09.
fn merge_samples(parts: &[Vec<UseSample>], into: &mut Vec<UseSample>) {
    into.reserve(parts.iter().map(Vec::len).sum());
    let mut next = vec![0; parts.len()];
    while let Some(period) = parts
        .iter()
        .zip(&next)
        .filter_map(|(samples, &k)| samples.get(k))
        .map(|s| s.start_ps)
        .min()
    {
        let mut host: &[UseSample] = &[];
        for (samples, k) in parts.iter().zip(next.iter_mut()) {
            let rest = &samples[*k..];
            let run = &rest[..rest.partition_point(|s| s.start_ps == period)];
            let nodes = run.partition_point(|s| s.node != HOST_NODE);
            into.extend_from_slice(&run[..nodes]);
            if nodes < run.len() {
                host = &run[nodes..];
            }
            *k += run.len();
        }
        into.extend_from_slice(host);
    }
}

/// Cuts thread `thread`'s nodes and their sampling state into its parts; part 0 also gets
/// the host.
fn cut_parts<'a>(
    mut nodes: &'a mut [Node],
    mut last_busy: &'a mut [(u64, [u64; 4])],
    shared: &Shared,
    thread: usize,
    mut host: Option<&'a mut Host>,
    host_busy: u64,
) -> Vec<Part<'a>> {
    let (bounds, parts) = (
        &shared.bounds,
        shared.threads[thread]..shared.threads[thread + 1],
    );
    let mut cut = Vec::with_capacity(parts.len());
    for p in parts {
        let len = bounds[p + 1] - bounds[p];
        let (mine, rest) = std::mem::take(&mut nodes).split_at_mut(len);
        let (busy, busy_rest) = std::mem::take(&mut last_busy).split_at_mut(len);
        (nodes, last_busy) = (rest, busy_rest);
        cut.push(Part {
            index: p,
            first: bounds[p],
            nodes: mine,
            last_busy: busy,
            host: if p == 0 { host.take() } else { None },
            host_busy,
            samples: Vec::new(),
            doze: vec![Doze::default(); len],
        });
    }
    cut
}

/// One thread's loop: [`Network::run`]'s, on its parts, in step with the other threads.
fn work(
    parts: &mut [Part<'_>],
    peers: &[[Peer; 4]],
    fabric: &mut impl Fabric,
    start: Start,
) -> Ended {
    let mut clock = Clock {
        time_ps: start.time_ps,
        next_sample_ps: start.next_sample_ps,
        round: 0,
        busy: start.busy,
        stretches: Stretches::default(),
        pace: start.pace,
    };
    let result = run_parts(parts, peers, fabric, start, &mut clock);
    for part in parts.iter_mut() {
        wake_all(part.nodes, &mut part.doze);
    }
    Ended {
        result,
        time_ps: clock.time_ps,
        next_sample_ps: clock.next_sample_ps,
        busy: clock.busy,
        stretches: clock.stretches,
        pace: clock.pace,
    }
}

/// The replicated clock of a thread's loop.
struct Clock {
    time_ps: u64,
    next_sample_ps: u64,
    /// Barriers passed: its parity picks the set of mailboxes and published values.
    round: usize,
    /// Nodes that ended the last window running a process (as `Network::busy`).
    busy: usize,
    /// This worker's stretches.
    stretches: Stretches,
    /// How long the next stretch is (replicated, kept across runs as `Network::pace`).
    pace: Pace,
}

fn run_parts(
    parts: &mut [Part<'_>],
    peers: &[[Peer; 4]],
    fabric: &mut impl Fabric,
    start: Start,
    clock: &mut Clock,
) -> Result<Outcome, SimError> {
    let until_ps = start.until_ps;
    let window = start.window_ps;
    let mut exit = start.exit;
    let mut all = Vec::new();
    let mut inbox = Vec::new();
    while clock.time_ps < until_ps {
        if let Some(status) = exit {
            return Ok(Outcome::Exited(status));
        }
        if clock.busy < 2 {
            let mut survey = Published::default().survey;
            for part in parts.iter() {
                let mut mine = survey_nodes(part.nodes, part.first);
                if let Some(host) = &part.host {
                    mine.add_host(host, clock.time_ps);
                }
                survey = survey.and(mine);
            }
            let mine = Published {
                survey,
                ..Published::default()
            };
            exchange(fabric, parts, clock, mine, &mut all, &mut inbox)?;
            let survey = all
                .iter()
                .map(|p| p.survey)
                .reduce(Survey::and)
                .expect("at least one thread");
            if survey.host_waits && survey.active == 1 {
                // Only node `i` can do anything: it runs free, as in `Network::free_run_or_jump`.
                let i = survey.runner;
                let limit_ps = until_ps.min(grid_at_or_after(clock.next_sample_ps, window));
                let owner = fabric.part_of(i);
                let mut mine = Published::default();
                if let Some(part) = parts.iter_mut().find(|p| p.index == owner) {
                    let node = &mut part.nodes[i - part.first];
                    part.doze[i - part.first].wake(node);
                    node.stop_on_emit = true;
                    let ran = node.run_until(node.cycle_at(limit_ps));
                    node.stop_on_emit = false;
                    mine.error = ran.err().map(|e| (i, e));
                    mine.free_run = (
                        node.picoseconds(),
                        !node.outbox.is_empty(),
                        node.next_activity().is_none(),
                    );
                    deliver(part, peers, &mut Post::Now(fabric, clock.round));
                }
                exchange(fabric, parts, clock, mine, &mut all, &mut inbox)?;
                let (now, emitted, finished) = all[fabric.thread_of(owner)].free_run;
                clock.time_ps =
                    free_run_end(clock.time_ps, window, limit_ps, now, emitted, finished);
                sample(parts, peers, clock, start.sample_ps);
                continue;
            }
            match survey.next_ps {
                None => return Ok(Outcome::Idle),
                Some(t) if t > clock.time_ps + window => {
                    clock.time_ps = jump_to(t, window, until_ps);
                    sample(parts, peers, clock, start.sample_ps);
                    continue;
                }
                Some(_) => {}
            }
        }
        if clock.pace.cooldown == 0 {
            exit = speculate(parts, peers, fabric, start, clock)?;
            continue;
        }
        clock.pace.cooldown -= 1;
        let window_start = clock.time_ps;
        let end = window_end(window_start, window, until_ps);
        let ran = run_window(parts, start, window_start, end);
        for part in parts.iter_mut() {
            deliver(part, peers, &mut Post::Now(fabric, clock.round));
        }
        let mine = Published {
            busy: ran.busy,
            error: ran.error,
            exit: ran.exit,
            ..Published::default()
        };
        exchange(fabric, parts, clock, mine, &mut all, &mut inbox)?;
        clock.busy = all.iter().map(|p| p.busy).sum();
        exit = all[0].exit;
        clock.time_ps = end;
        sample(parts, peers, clock, start.sample_ps);
    }
    Ok(match exit {
        Some(status) => Outcome::Exited(status),
        None => Outcome::Until,
    })
}

/// What one window of a worker's parts gave.
struct Ran {
    /// Nodes that ended it running a process.
    busy: usize,
    /// The first error: (node, or the number of nodes for the host; error).
    error: Option<(usize, SimError)>,
    /// The host's exit status (worker 0).
    exit: Option<i32>,
}

/// Runs these parts' nodes and host through the window `[window_start, end)`, stopping at the
/// first error.
fn run_window(parts: &mut [Part<'_>], start: Start, window_start: u64, end: u64) -> Ran {
    let mut ran = Ran {
        busy: 0,
        error: None,
        exit: None,
    };
    for part in parts.iter_mut() {
        let limit = part.nodes.first().map_or(0, |n| n.cycle_at(end));
        for (k, (node, doze)) in part.nodes.iter_mut().zip(&mut part.doze).enumerate() {
            if doze.skips(limit) {
                continue;
            }
            if let Err(e) = node.run_until(limit) {
                ran.error = Some((part.first + k, e));
                return ran;
            }
            ran.busy += usize::from(node.is_running());
            doze.ran(node);
        }
        if let Some(host) = &mut part.host {
            if let Err(e) = host.run_until(window_start, end) {
                ran.error = Some((start.nodes, e));
            }
            ran.exit = host.server.exit;
        }
    }
    ran
}

/// What a worker puts aside before running windows alone, to come back to.
struct Saved {
    nodes: Vec<Vec<crate::cpu::checkpoint::Checkpoint>>,
    last_busy: Vec<Vec<(u64, [u64; 4])>>,
    samples: Vec<usize>,
    host_busy: Vec<u64>,
    time_ps: u64,
    next_sample_ps: u64,
}

impl Saved {
    fn take(parts: &mut [Part<'_>], clock: &Clock) -> Saved {
        // The checkpoints keep the nodes' clocks where the windows left them.
        for part in parts.iter_mut() {
            wake_all(part.nodes, &mut part.doze);
        }
        Saved {
            nodes: parts
                .iter_mut()
                .map(|p| p.nodes.iter_mut().map(|n| n.checkpoint()).collect())
                .collect(),
            last_busy: parts.iter().map(|p| p.last_busy.to_vec()).collect(),
            samples: parts.iter().map(|p| p.samples.len()).collect(),
            host_busy: parts.iter().map(|p| p.host_busy).collect(),
            time_ps: clock.time_ps,
            next_sample_ps: clock.next_sample_ps,
        }
    }

    fn restore(self, parts: &mut [Part<'_>], clock: &mut Clock) {
        let saved = self.nodes.into_iter().zip(self.last_busy).zip(self.samples);
        for ((part, ((nodes, last_busy), samples)), host_busy) in
            parts.iter_mut().zip(saved).zip(self.host_busy)
        {
            for (node, checkpoint) in part.nodes.iter_mut().zip(nodes) {
                node.restore(checkpoint);
            }
            awake(&mut part.doze, part.nodes.len());
            part.last_busy.copy_from_slice(&last_busy);
            part.samples.truncate(samples);
            part.host_busy = host_busy;
        }
        clock.time_ps = self.time_ps;
        clock.next_sample_ps = self.next_sample_ps;
    }

    /// Keeps what the parts did since: their nodes stop journaling, the checkpoints go.
    fn commit(self, parts: &mut [Part<'_>]) {
        for node in parts.iter_mut().flat_map(|p| p.nodes.iter_mut()) {
            node.commit();
        }
    }
}

/// A stretch of windows each worker runs alone, without meeting the others after each: the
/// conservative scheme needs a meeting a window only because a packet to another worker's
/// node might act in the next window, and most windows send none. A worker runs windows
/// until one of its nodes puts a packet on a wire to another worker (or to the host), meets
/// an error, its parts end a window with fewer than two nodes running (the others' count
/// then decides whether the next window is a survey), the host has something to do, or the
/// stretch is over; it puts its state aside after the first window. At the meeting every
/// worker learns how many windows the others ran, and the fewest is what everyone keeps:
/// those windows are exactly what the windows in step would have run, since no packet
/// crossed between workers before their end. A worker that ran further goes back to its
/// checkpoint and runs again up to that window, and the packets held at the end of that
/// window go out; a second meeting hands them over. Answers the host's exit status.
fn speculate(
    parts: &mut [Part<'_>],
    peers: &[[Peer; 4]],
    fabric: &mut impl Fabric,
    start: Start,
    clock: &mut Clock,
) -> Result<Option<i32>, SimError> {
    let until_ps = start.until_ps;
    let mut held = Vec::new();
    let mut saved = None;
    let mut windows = 0;
    let mut ran;
    loop {
        ran = window_alone(parts, peers, fabric, start, clock, &mut held);
        windows += 1;
        let host_busy = parts
            .iter()
            .any(|p| p.host.as_ref().is_some_and(|h| !h.waits()));
        if ran.error.is_some()
            || ran.exit.is_some()
            || !held.is_empty()
            || ran.busy < 2
            || host_busy
            || clock.time_ps >= until_ps
            || windows >= clock.pace.stretch
        {
            break;
        }
        if saved.is_none() {
            saved = Some(Saved::take(parts, clock));
        }
    }
    let mine = Published {
        busy: ran.busy,
        exit: ran.exit,
        windows,
        halted: ran.error.is_some(),
        ..Published::default()
    };
    let mut all = Vec::new();
    let mut inbox = Vec::new();
    exchange(fabric, parts, clock, mine, &mut all, &mut inbox)?;
    let agreed = all.iter().map(|p| p.windows).min().unwrap_or(windows);
    let mut error = ran.error;
    if windows > agreed {
        // Another worker stopped sooner: back to the checkpoint (after the first window),
        // and on to the agreed window. Nothing is held on the way: this worker held nothing
        // before the window it stopped at.
        held.clear();
        if let Some(saved) = saved {
            saved.restore(parts, clock);
        }
        error = None;
        for _ in 1..agreed {
            error = window_alone(parts, peers, fabric, start, clock, &mut held).error;
        }
    } else if let Some(saved) = saved {
        saved.commit(parts);
    }
    // The held packets of the agreed window: the host's now, the other workers' through the
    // second meeting.
    for (to, d) in held.drain(..) {
        match to {
            Held::Worker(part) => fabric.post(clock.round, part, d),
            Held::Host => {
                if let Some(host) = parts.iter_mut().find_map(|p| p.host.as_mut()) {
                    host.receive(d.kind, d.at_ps);
                }
            }
        }
    }
    let mine = Published {
        error,
        ..Published::default()
    };
    let mut second = Vec::new();
    exchange(fabric, parts, clock, mine, &mut second, &mut inbox)?;
    // Who ran further ended the agreed window with two or more nodes running (it would have
    // stopped there otherwise): the count only has to say whether it is below two.
    clock.busy = all
        .iter()
        .map(|p| if p.windows == agreed { p.busy } else { 2 })
        .sum();
    if clock.time_ps < until_ps && all[0].exit.is_none() {
        // A stretch that ends with the run (or the slice) has not stopped short.
        clock.pace.after(agreed);
    }
    clock.stretches.stretches += 1;
    clock.stretches.windows += agreed as u64;
    clock.stretches.rollbacks += u64::from(windows > agreed);
    Ok(all[0].exit)
}

/// One window of a stretch: the packets that leave this worker's parts are held.
fn window_alone<F: Fabric>(
    parts: &mut [Part<'_>],
    peers: &[[Peer; 4]],
    fabric: &F,
    start: Start,
    clock: &mut Clock,
    held: &mut Vec<(Held, Delivery)>,
) -> Ran {
    let window_start = clock.time_ps;
    let end = window_end(window_start, start.window_ps, start.until_ps);
    let ran = run_window(parts, start, window_start, end);
    for part in parts.iter_mut() {
        deliver(part, peers, &mut Post::Hold(fabric, held));
    }
    clock.time_ps = end;
    sample(parts, peers, clock, start.sample_ps);
    ran
}

/// Where a packet held during a stretch goes.
enum Held {
    /// A node of another worker's part.
    Worker(usize),
    /// The host.
    Host,
}

/// How [`deliver`] passes on a packet that leaves this worker: into the fabric for this
/// round, or held until the workers agree on a stretch.
enum Post<'a, F> {
    Now(&'a mut F, usize),
    Hold(&'a F, &'a mut Vec<(Held, Delivery)>),
}

/// One round of `fabric`: publishes `mine`, waits for every worker, and hands the packets sent
/// to these parts' nodes to them.
fn exchange(
    fabric: &mut impl Fabric,
    parts: &mut [Part<'_>],
    clock: &mut Clock,
    mine: Published,
    all: &mut Vec<Published>,
    inbox: &mut Vec<Delivery>,
) -> Result<(), SimError> {
    let exchanged = fabric.exchange(clock.round, mine, all, inbox);
    clock.round += 1;
    exchanged?;
    for d in inbox.drain(..) {
        let node = d.node as usize;
        if let Some(part) = parts
            .iter_mut()
            .find(|p| (p.first..p.first + p.nodes.len()).contains(&node))
        {
            part.receive(node - part.first, d.link, d.kind, d.at_ps);
        }
    }
    Ok(())
}

/// Hands the packets this part's nodes (and the host) put on wires to their other ends: this
/// part's directly, another part's (and, in a stretch, the host's) as `post` says.
fn deliver<F: Fabric>(part: &mut Part<'_>, peers: &[[Peer; 4]], post: &mut Post<'_, F>) {
    for k in 0..part.nodes.len() {
        if part.nodes[k].outbox.is_empty() {
            continue;
        }
        let i = part.first + k;
        let mut packets = std::mem::take(&mut part.nodes[k].outbox);
        for p in &packets {
            match peers[i][usize::from(p.link & 3)] {
                Peer::Node(to) => {
                    let to_node = to.node as usize;
                    if (part.first..part.first + part.nodes.len()).contains(&to_node) {
                        part.receive(to_node - part.first, to.link, p.kind, p.at_ps);
                        continue;
                    }
                    let delivery = Delivery {
                        node: to.node,
                        link: to.link,
                        kind: p.kind,
                        at_ps: p.at_ps,
                    };
                    match post {
                        Post::Now(fabric, round) => {
                            let to_part = fabric.part_of(to_node);
                            fabric.post(*round, to_part, delivery);
                        }
                        Post::Hold(fabric, held) => {
                            held.push((Held::Worker(fabric.part_of(to_node)), delivery));
                        }
                    }
                }
                Peer::Host => match post {
                    Post::Hold(_, held) => held.push((
                        Held::Host,
                        Delivery {
                            node: u32::MAX,
                            link: 0,
                            kind: p.kind,
                            at_ps: p.at_ps,
                        },
                    )),
                    Post::Now(..) => {
                        if let Some(host) = &mut part.host {
                            host.receive(p.kind, p.at_ps);
                        }
                    }
                },
                Peer::Unwired => {}
            }
        }
        packets.clear();
        part.nodes[k].outbox = packets;
    }
    if let Some(host) = &mut part.host {
        for (at, kind) in std::mem::take(&mut host.outbox) {
            part.receive(0, 0, kind, at);
        }
    }
}

/// Closes the sampling periods the clock has passed, for these parts' nodes (and the host).
fn sample(parts: &mut [Part<'_>], peers: &[[Peer; 4]], clock: &mut Clock, period: u64) {
    while clock.time_ps >= clock.next_sample_ps {
        let end = clock.next_sample_ps;
        for part in parts.iter_mut() {
            sample_nodes(
                part.nodes,
                part.first,
                peers,
                part.last_busy,
                (end - period, end),
                &mut part.samples,
            );
            if let Some(host) = &part.host {
                sample_host(
                    host,
                    &mut part.host_busy,
                    (end - period, end),
                    &mut part.samples,
                );
            }
        }
        clock.next_sample_ps += period;
    }
}

#[cfg(test)]
mod tests {
    use super::{HOST_NODE, UseSample, merge_samples};

    fn at(node: u32, link: Option<u8>, start_ps: u64) -> UseSample {
        UseSample {
            node,
            link,
            start_ps,
            end_ps: start_ps + 10,
            utilization: 0.5,
        }
    }

    #[test]
    fn samples_merge_as_one_thread_writes_them() {
        // Three parts of nodes 0-1, 2 and 3, two periods; part 0 holds the host.
        let part = |nodes: &[u32], host: bool| {
            let mut samples = Vec::new();
            for period in [0, 10] {
                for &n in nodes {
                    samples.push(at(n, None, period));
                    samples.push(at(n, Some(1), period));
                }
                if host {
                    samples.push(at(HOST_NODE, Some(0), period));
                }
            }
            samples
        };
        let parts = [part(&[0, 1], true), part(&[2], false), part(&[3], false)];
        let mut merged = vec![at(7, None, 0)];
        merge_samples(&parts, &mut merged);
        let mut expected = vec![at(7, None, 0)];
        for period in [0, 10] {
            for n in 0..4 {
                expected.push(at(n, None, period));
                expected.push(at(n, Some(1), period));
            }
            expected.push(at(HOST_NODE, Some(0), period));
        }
        assert_eq!(merged, expected);
    }
}
