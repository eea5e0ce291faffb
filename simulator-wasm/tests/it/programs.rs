//! Programs as data: processes and the run queues, timers, priorities, timeslicing and ALT.
//! Each program marks what it reached with probes (the tag in A); the tests read the probes'
//! order and cycles from the node's events.

use simulator_wasm::cpu::{EventKind, Node, Status};

use super::{boot, run};

/// The probes recorded: (tag, cycle).
fn probes(node: &Node) -> Vec<(u32, u64)> {
    node.events
        .iter()
        .filter(|e| e.kind == EventKind::Probe)
        .map(|e| (e.other, e.cycle))
        .collect()
}

/// `probe TAG` with no text.
fn probe(tag: u32) -> String {
    format!("ldc 0\nldc 0\nldc {tag}\nprobe")
}

#[test]
fn started_processes_run_in_fifo_order_when_the_parent_stops() {
    let source = format!(
        "
        ldc p1 - a1
        ldc #80006000
        startp
    a1: ldc p2 - a2
        ldc #80005000
        startp
    a2: ldc p3 - a3
        ldc #80004000
        startp
    a3: {p0}
        stopp
    p1: {p1}
        stopp
    p2: {p2}
        stopp
    p3: {p3}
        stopp",
        p0 = probe(10),
        p1 = probe(1),
        p2 = probe(2),
        p3 = probe(3)
    );
    let (mut node, _) = boot(&source);
    run(&mut node, 1_000);
    let tags: Vec<u32> = probes(&node).iter().map(|p| p.0).collect();
    assert_eq!(tags, [10, 1, 2, 3], "{}", node.dump());
    let starts = node
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Start)
        .count();
    let ends = node
        .events
        .iter()
        .filter(|e| e.kind == EventKind::End)
        .count();
    assert_eq!((starts, ends), (3, 4));
}

#[test]
fn tin_waits_for_the_low_priority_timer_in_virtual_time() {
    // The low-priority timer ticks every 64 µs (1,280 cycles at 20 MHz).
    let source = format!("ldtimer\nadc 100\ntin\n{}\nstopp", probe(1));
    let (mut node, _) = boot(&source);
    run(&mut node, 1_000);
    let at = probes(&node)[0].1;
    assert!(
        (128_000..128_000 + 1_280 + 50).contains(&at),
        "probe at cycle {at}"
    );
    // ldtimer, adc 100, tin: 2 bytes each; the probe 5; stopp 2: the wait runs none.
    assert_eq!(
        node.instructions,
        2 + 2 + 2 + 5 + 2,
        "the wait costs no instructions"
    );
    // A time already past does not wait: 4 cycles.
    let (mut node, _) = boot(&format!("ldtimer\nadc -5\ntin\n{}\nstopp", probe(1)));
    run(&mut node, 1_000);
    assert!(probes(&node)[0].1 < 20, "{:?}", probes(&node));
}

/// A high-priority process waits 50 µs on its (1 µs) timer while the low-priority main
/// process counts down a long loop.
fn preempting_program() -> String {
    format!(
        "
        ws_hi = #80006000
        ldc hi - h1
        ldpi
    h1: ldc ws_hi
        stnl -1
        ldc ws_hi
        runp
        ldc 0
        stl 1
        ldc 20000
        stl 2
    loop:
        ldlp 1
        ldc done - loop
        lend
    done:
        {low}
        stopp
    hi: ldtimer
        adc 50
        tin
        {high}
        stopp",
        low = probe(8),
        high = probe(7)
    )
}

#[test]
fn a_high_priority_process_preempts_a_low_priority_loop_when_its_timer_fires() {
    // The high process must run as soon as its time comes.
    let (mut node, _) = boot(&preempting_program());
    run(&mut node, 1_000_000);
    let p = probes(&node);
    assert_eq!(
        p.iter().map(|x| x.0).collect::<Vec<_>>(),
        [7, 8],
        "{}",
        node.dump()
    );
    // 50 µs after the tin (1,000 cycles), within a loop iteration's few instructions (the
    // datasheet's latency: typically 19, at most 58 cycles).
    let tin_at = 30; // the prologue up to the high process's tin
    let latency = p[0].1 as i64 - (tin_at + 1_000);
    assert!((0..=80).contains(&latency), "probe 7 at cycle {}", p[0].1);
}

#[test]
fn a_low_priority_loop_is_timesliced_at_the_first_jump_after_two_periods() {
    // Two low-priority processes spin forever, each counting in its workspace.
    let source = "
        ldc spin - s1
        ldc #80006000
        startp
    s1: ldc spin - s2
        ldc #80005000
        startp
    s2: stopp
    spin:
        ldl 1
        adc 1
        stl 1
        j spin";
    let (mut node, _) = boot(source);
    let count = |node: &Node, ws: u32| node.read_word(ws + 4).unwrap_or(0);
    // Two timeslice periods are 2 × 1.024 ms = 40,960 cycles.
    while node.cycles < 40_900 {
        assert_eq!(node.step(), Ok(Status::Ran));
    }
    assert!(count(&node, 0x8000_6000) > 5_000);
    assert_eq!(count(&node, 0x8000_5000), 0, "the second has not run yet");
    while node.cycles < 41_100 {
        assert_eq!(node.step(), Ok(Status::Ran));
    }
    assert!(
        count(&node, 0x8000_5000) > 0,
        "switched at the first j after two periods"
    );
    // And back after two more periods.
    let first = count(&node, 0x8000_6000);
    while node.cycles < 2 * 40_960 + 200 {
        assert_eq!(node.step(), Ok(Status::Ran));
    }
    assert!(count(&node, 0x8000_6000) > first, "{}", node.dump());
}

/// A program that ALTs over channel guards on `c1` (taken by branch 1) and `c2` (branch 2)
/// after `setup`, disabling in the order given, and probes the branch taken.
fn alt_program(setup: &str, first: &str, second: &str) -> String {
    format!(
        "
        c1 = #80003000
        c2 = #80003004
        mint
        ldc c1
        stnl 0
        mint
        ldc c2
        stnl 0
        ldc send1 - a1
        ldc #80006000
        startp
    a1: ldc send2 - a2
        ldc #80005000
        startp
    a2: {setup}
        alt
        ldc c1
        ldc 1
        enbc
        ldc c2
        ldc 1
        enbc
        altwt
        {first}
        {second}
        altend
    branches:
    b1: ldlp 1
        ldc c1
        ldc 4
        in
        {p1}
        stopp
    b2: ldlp 1
        ldc c2
        ldc 4
        in
        {p2}
        stopp
    send1:
        ldc c1
        ldc 11
        outword
        stopp
    send2:
        ldc c2
        ldc 22
        outword
        stopp",
        p1 = probe(1),
        p2 = probe(2)
    )
}

const DISABLE_C1: &str = "ldc c1\nldc 1\nldc b1 - branches\ndisc";
const DISABLE_C2: &str = "ldc c2\nldc 1\nldc b2 - branches\ndisc";

#[test]
fn an_alt_waits_for_its_first_channel_and_takes_it() {
    // The senders run only when the ALT waits: send1 comes first and wakes it.
    let (mut node, _) = boot(&alt_program("", DISABLE_C1, DISABLE_C2));
    run(&mut node, 10_000);
    assert_eq!(probes(&node).iter().map(|p| p.0).collect::<Vec<_>>(), [1]);
    assert_eq!(
        node.read_word(super::WORKSPACE + 4),
        Ok(11),
        "{}",
        node.dump()
    );
}

#[test]
fn a_pri_alt_with_both_ready_takes_the_first_guard_it_disables() {
    // Wait on the timer first so both senders are at their channels before the ALT.
    let wait = "ldtimer\nadc 2\ntin";
    let (mut node, _) = boot(&alt_program(wait, DISABLE_C1, DISABLE_C2));
    run(&mut node, 10_000);
    assert_eq!(probes(&node).iter().map(|p| p.0).collect::<Vec<_>>(), [1]);
    let (mut node, _) = boot(&alt_program(wait, DISABLE_C2, DISABLE_C1));
    run(&mut node, 10_000);
    assert_eq!(probes(&node).iter().map(|p| p.0).collect::<Vec<_>>(), [2]);
    assert_eq!(node.read_word(super::WORKSPACE + 4), Ok(22));
}

/// An ALT with a timer guard 3 ticks (192 µs) ahead and a channel guard nobody sends on.
fn timer_alt_program() -> String {
    format!(
        "
        c = #80003000
        mint
        ldc c
        stnl 0
        ldtimer
        adc 3
        stl 3
        talt
        ldl 3
        ldc 1
        enbt
        ldc c
        ldc 1
        enbc
        taltwt
        ldc c
        ldc 1
        ldc never - branches
        disc
        ldl 3
        ldc 1
        ldc t - branches
        dist
        altend
    branches:
    never:
        stopp
    t:  {}
        stopp",
        probe(6)
    )
}

#[test]
fn skip_and_timer_guards_fire_without_a_sender() {
    // SKIP: enbs with a true guard makes the ALT ready at once.
    let skip = format!(
        "alt\nldc 1\nenbs\naltwt\nldc 1\nldc s - branches\ndiss\naltend\nbranches:\ns: {}\nstopp",
        probe(5)
    );
    let (mut node, _) = boot(&skip);
    run(&mut node, 1_000);
    assert_eq!(probes(&node).iter().map(|p| p.0).collect::<Vec<_>>(), [5]);
    let (mut node, _) = boot(&timer_alt_program());
    run(&mut node, 1_000);
    let p = probes(&node);
    assert_eq!(
        p.iter().map(|x| x.0).collect::<Vec<_>>(),
        [6],
        "{}",
        node.dump()
    );
    assert!(
        p[0].1 >= 3 * 1_280 - 1_280,
        "waited for the timer: cycle {}",
        p[0].1
    );
}

#[test]
fn wait_states_are_charged_off_the_chip_only() {
    use simulator_wasm::asm::assemble;
    use simulator_wasm::isa::{Chip, CycleTable};
    // A loop of local loads and stores, four times over; its workspace off the chip
    // (0x80007F00 is above the T800's 4 KB) and its code on or off the chip.
    let source = "ldc 4\nstl 1\nloop:\nldl 1\nadc -1\nstl 1\nldl 1\ncj done\nj loop\ndone:\nstopp";
    let cycles = |origin: u32, wait_states: u32| {
        let mut node = Node::new(Chip::T800, 20_000_000, 64 * 1024);
        node.table = CycleTable::new(Chip::T800, wait_states);
        let program = assemble(source, &node.table, origin).unwrap_or_else(|e| panic!("{e}"));
        node.boot(origin, &program.code, 0x8000_7F00)
            .unwrap_or_else(|e| panic!("{e}"));
        run(&mut node, 1_000);
        node.cycles
    };
    let on_chip = 0x8000_0100;
    let off_chip = 0x8000_2000;
    assert_eq!(cycles(on_chip, 0), cycles(off_chip, 0));
    // On the chip, only the workspace accesses wait: 1 stl, then 4 × (ldl, stl, ldl) = 13.
    assert_eq!(cycles(on_chip, 2) - cycles(on_chip, 0), 13 * 2);
    // Off the chip, the fetches wait too, once per word-aligned byte executed: the code is
    // ldc stl | ldl nfix adc stl | ldl cj nfix j | pfix opr, so bytes 0 (once), 4 (adc, four
    // times) and 8 (the jump back, three times).
    assert_eq!(cycles(off_chip, 2) - cycles(on_chip, 2), 8 * 2);
}

#[test]
fn running_in_bursts_is_the_same_as_stepping_with_the_bookkeeping_before_each_instruction() {
    // `run` executes instructions back to back until the next timer, link action or
    // scheduling change; `step` checks everything before every instruction. The two must be
    // the same machine: same registers, cycles, memory and events.
    let comstime = include_str!("../../programs/comstime.s").replacen("N = 1000", "N = 50", 1);
    for source in [preempting_program(), timer_alt_program(), comstime] {
        let (mut bursts, _) = boot(&source);
        run(&mut bursts, 1_000_000);
        let (mut stepped, _) = boot(&source);
        while stepped.step() == Ok(Status::Ran) {}
        assert_eq!(stepped.step(), Ok(Status::Idle), "{}", stepped.dump());
        assert_eq!(bursts.dump(), stepped.dump());
        assert!(bursts.events.iter().eq(stepped.events.iter()));
        assert!(bursts.events.len() >= 2, "{}", bursts.events.len());
        let memory = |node: &Node| {
            (0..node.memory_size() / 4)
                .map(|k| node.read_word(0x8000_0000 + 4 * k))
                .collect::<Vec<_>>()
        };
        assert!(memory(&bursts) == memory(&stepped));
    }
}

/// A low-priority loop full of prefixed instructions (`adc #12345`, `adc -#2345`, `ldc #7FFF`)
/// that a high-priority timer process preempts every 100 cycles, 800 times.
const PREFIXES_UNDER_PREEMPTION: &str = "
    ws_hi = #80006000
    RESULT = #80005000
        ldc hi - h1
        ldpi
    h1: ldc ws_hi
        stnl -1
        ldc ws_hi
        runp
        ldc 0
        stl 3
        ldc 0
        stl 1
        ldc 3000
        stl 2
    loop:
        ldl 3
        adc #12345
        adc -#2345
        ldc #7FFF
        and
        stl 3
        ldlp 1
        ldc done - loop
        lend
    done:
        ldl 3
        ldc RESULT
        stnl 0
        stopp
    hi: ldc 800
        stl 1
    again:
        ldtimer
        adc 5
        tin
        ldl 1
        adc -1
        stl 1
        ldl 1
        cj over
        j again
    over:
        stopp";

#[test]
fn a_preemption_never_falls_between_a_prefix_and_its_instruction() {
    // The sum the low-priority loop computes, whatever interrupts it.
    let want = (0..3000).fold(0u32, |s, _| {
        (s.wrapping_add(0x12345).wrapping_sub(0x2345)) & 0x7FFF
    });
    let (mut bursts, _) = boot(PREFIXES_UNDER_PREEMPTION);
    run(&mut bursts, 10_000_000);
    let (mut stepped, _) = boot(PREFIXES_UNDER_PREEMPTION);
    while stepped.step() == Ok(Status::Ran) {}
    for node in [&bursts, &stepped] {
        assert_eq!(node.read_word(0x8000_5000), Ok(want), "{}", node.dump());
        // The high process ran all its 800 rounds (its counter is 0).
        assert_eq!(node.read_word(0x8000_6004), Ok(0), "{}", node.dump());
    }
    assert_eq!(bursts.dump(), stepped.dump());
}

#[test]
fn addresses_beyond_the_installed_memory_alias_into_it_unless_strict() {
    // 64 KB decode 16 address bits: #80010004 is #80000004 again.
    let source =
        "ldc 1234\nldc #80010104\nstnl 0\nldc #80000104\nldnl 0\nldc #80000200\nstnl 0\nstopp";
    let (mut node, _) = boot(source);
    node.set_aliasing(false);
    run(&mut node, 1_000);
    assert_eq!(node.read_word(0x8000_0200), Ok(1234));
    assert_eq!(
        node.read_word(0x8002_0200),
        Ok(1234),
        "an alias reads the same word"
    );
    let (mut strict, _) = boot(source);
    strict.set_aliasing(true);
    let error = strict.run(1_000).expect_err("strict memory");
    assert!(error.to_string().contains("outside"), "{error}");
}
