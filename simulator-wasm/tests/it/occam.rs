//! The occam compiler (a first subset): small programs with their expected results, read
//! back from the probes they emit (`probe (value)`), and errors with their line and column.

use simulator_wasm::cpu::EventKind;
use simulator_wasm::network::Outcome;
use simulator_wasm::occam::compile;
use simulator_wasm::session::{Program, Session, Setup};

/// The compiler's error for `source`, as text.
fn compile_error(source: &str) -> String {
    compile(source).expect_err("a compile error").to_string()
}

/// Asserts that the error `e` names line `line` and says `text`.
fn assert_error_at(e: &str, line: usize, text: &str) {
    assert!(
        e.contains(&format!("line {line}")) && e.contains(text),
        "{e}"
    );
}

/// Runs `source` on one T800; answers the tags of its probes in order.
fn probes(source: &str) -> Vec<u32> {
    probes_on(source, "single").swap_remove(0)
}

#[test]
fn sequences_loops_and_choices_compute_what_occam_says() {
    let source = "
INT sum, i:
SEQ
  sum := 0
  i := 1
  WHILE i <= 10
    SEQ
      sum := sum + i
      i := i + 1
  probe (sum)
  IF
    sum > 100
      probe (1)
    sum = 55
      probe (2)
    TRUE
      probe (3)
  SEQ k = 3 FOR 4
    probe ((k * k) - 1)
  VAL INT n IS 7:
  probe (n \\ 4)
";
    assert_eq!(probes(source), [55, 2, 8, 15, 24, 35, 3]);
}

#[test]
fn expressions_follow_occams_rules() {
    let source = "
INT a, b:
SEQ
  a := 17
  b := -5
  probe ((a / 3) + ((a \\ 3) * 100))
  probe (((a * 2) - b) - (a + (b + (a - 1))))
  probe ((a > b) AND (NOT (a = b)))
  probe ((a <> 17) OR (b >= -5))
";
    // 5 + 200; 39 − (17 + (−5 + 16)) = 11; TRUE; TRUE.
    assert_eq!(probes(source), [205, 11, 1, 1]);
}

#[test]
fn par_branches_run_and_talk_over_channels() {
    // A pipeline: a producer, a doubler and a consumer that sums.
    let source = "
CHAN OF INT c, d:
INT total:
SEQ
  total := 0
  PAR
    SEQ i = 1 FOR 5
      c ! i
    SEQ i = 0 FOR 5
      INT x:
      SEQ
        c ? x
        d ! x * 2
    SEQ i = 0 FOR 5
      INT y:
      SEQ
        d ? y
        total := total + y
  probe (total)
";
    assert_eq!(probes(source), [30]);
}

#[test]
fn procs_take_values_references_and_channels() {
    let source = "
PROC square (VAL INT x, INT result)
  result := x * x
:
PROC send.twice (CHAN OF INT out, VAL INT v)
  SEQ
    out ! v
    out ! v + 1
:
INT r, a, b:
CHAN OF INT link:
SEQ
  square (9, r)
  probe (r)
  PAR
    send.twice (link, 40)
    SEQ
      link ? a
      link ? b
  probe (a + b)
";
    assert_eq!(probes(source), [81, 81]);
}

#[test]
fn errors_say_where_and_what() {
    let error = compile_error;
    let cases = [
        ("SEQ\n  x := 1\n", "line 2, column 3", "not declared"),
        ("INT x:\nSEQ\n  x := 1 + 2 * 3\n", "line 3", "precedence"),
        ("VAL INT n IS 3:\nn := 4\n", "line 2", "VAL"),
        (
            "INT x:\nPAR\n  x := 1\n  x := 2\n",
            "line 2",
            "assigned in two branches",
        ),
        (
            "CHAN OF INT c:\nINT a, b:\nPAR\n  c ? a\n  c ? b\n",
            "line 3",
            "input in two branches",
        ),
        ("SEQ\n    SKIP\n", "line 2", "indented"),
        ("INT x:\nx := 1 $\n", "line 2, column 8", "unexpected"),
        (
            "PROC p (VAL INT a)\n  SKIP\n:\np (1, 2)\n",
            "line 4",
            "takes 1 arguments",
        ),
    ];
    for (source, at, says) in cases {
        let e = error(source);
        assert!(e.contains(at) && e.contains(says), "{source:?}: {e}");
    }
}

#[test]
fn comstime_in_occam_runs_within_ten_percent_of_a_real_t800() {
    let source = include_str!("../../programs/comstime.occ");
    let mut session = Session::new(&Program::Occam(source.to_owned()), &Setup::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // The ring runs for ever once the consumer is done: the run ends at its time limit.
    let setup_limit = session.finish();
    assert!(setup_limit.is_ok(), "{setup_limit:?}");
    let node = &session.network.nodes[0];
    let at = crate::probe_cycles(node);
    assert_eq!(at.len(), 2, "{}", node.dump());
    let ns = (at[1] - at[0]) as f64 * 50.0 / 1000.0;
    let (assembly, _) = crate::comstime::comstime_ns_per_iteration();
    eprintln!(
        "COMSTIME in occam: {ns:.0} ns per iteration (hand assembly {assembly:.0}, real T800-20 15,049)"
    );
    assert!(
        (ns - 15_049.0).abs() / 15_049.0 < 0.10,
        "{ns:.0} ns per iteration"
    );
}

#[test]
fn arrays_and_timers() {
    // Squares into an array, summed back (285); the timer waits 3 ticks (the main process
    // runs at low priority: a tick is 64 µs); an input into an array element.
    let source = "
[10]INT sq:
INT sum, t0, t1:
TIMER clock:
SEQ
  SEQ i = 0 FOR 10
    sq[i] := i * i
  sum := 0
  SEQ i = 0 FOR 10
    sum := sum + sq[i]
  probe (sum)
  clock ? t0
  clock ? AFTER t0 + 3
  clock ? t1
  probe (t1 - t0)
  CHAN OF INT c:
  PAR
    c ! 7
    c ? sq[9]
  probe (sq[9])
";
    let p = probes(source);
    assert_eq!(p[0], 285);
    assert!((3..=4).contains(&p[1]), "waited {} ticks", p[1]);
    assert_eq!(p[2], 7);
    // A subscript out of range sets the error flag (occam's run-time check), or is refused
    // when it is a constant.
    let mut session = Session::new(
        &Program::Occam("[3]INT a:\nINT k:\nSEQ\n  k := 3\n  a[k] := 1\n  probe (1)\n".to_owned()),
        &Setup::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let _ = session.finish();
    assert!(session.network.nodes[0].error, "a[3] of a [3]INT");
    let e = compile_error("[3]INT a:\nSEQ\n  a[3] := 1\n");
    assert_error_at(&e, 3, "no element 3");
}

#[test]
fn alt_takes_whichever_input_is_ready_and_times_out() {
    // Two producers merged by an ALT: five 1s and five 10s, in whatever order they come.
    let merge = "
CHAN OF INT a, b:
INT sum:
SEQ
  sum := 0
  PAR
    SEQ i = 0 FOR 5
      a ! 1
    SEQ i = 0 FOR 5
      b ! 10
    SEQ i = 0 FOR 10
      INT x:
      ALT
        a ? x
          sum := sum + x
        b ? x
          sum := sum + x
  probe (sum)
";
    assert_eq!(probes(merge), [55]);
    // Nobody writes `never`: the timeout fires; a false condition keeps its SKIP out.
    let timeout = "
TIMER clock:
INT now, got:
CHAN OF INT never:
SEQ
  clock ? now
  ALT
    never ? got
      probe (1)
    clock ? AFTER now + 5
      probe (2)
  ALT
    FALSE & SKIP
      probe (3)
    TRUE & SKIP
      probe (4)
";
    assert_eq!(probes(timeout), [2, 4]);
}

#[test]
fn a_replicated_par_runs_a_branch_per_index() {
    let source = "
[4]INT out:
SEQ
  PAR i = 0 FOR 4
    out[i] := i * 10
  probe ((out[0] + out[1]) + (out[2] + out[3]))
  PAR j = 5 FOR 2
    probe (j)
";
    let p = probes(source);
    assert_eq!(p[0], 60);
    let mut started = p[1..].to_vec();
    started.sort_unstable();
    assert_eq!(started, [5, 6], "both branches ran");
    let e = compile_error("INT n:\nSEQ\n  n := 2\n  PAR i = 0 FOR n\n    SKIP\n");
    assert_error_at(&e, 4, "count must be a constant");
}

#[test]
fn a_channel_array_carries_a_pipeline_of_replicated_stages() {
    // Four doubling stages between five channels: 1 comes out as 16.
    let source = "
[5]CHAN OF INT c:
INT result:
SEQ
  PAR
    c[0] ! 1
    PAR i = 0 FOR 4
      INT x:
      SEQ
        c[i] ? x
        c[i + 1] ! x * 2
    c[4] ? result
  probe (result)
";
    assert_eq!(probes(source), [16]);
    let e = compile_error("[2]INT a:\na[0] ! 1\n");
    assert!(e.contains("not an array of channels"), "{e}");
}

/// Runs `source` on `topology`; answers each node's probe tags.
fn probes_on(source: &str, topology: &str) -> Vec<Vec<u32>> {
    let setup = Setup {
        topology: topology.to_owned(),
        ..Setup::default()
    };
    let mut session = Session::new(&Program::Occam(source.to_owned()), &setup)
        .unwrap_or_else(|e| panic!("{e}\n{}", compile(source).unwrap_or_default()));
    assert_eq!(session.finish(), Ok(Outcome::Idle));
    session
        .network
        .nodes
        .iter()
        .map(|node| {
            assert!(!node.error, "the error flag is set\n{}", node.dump());
            node.events
                .iter()
                .filter(|e| e.kind == EventKind::Probe)
                .map(|e| e.other)
                .collect()
        })
        .collect()
}

#[test]
fn a_placed_par_runs_each_processor_on_its_node_over_the_links() {
    // A source, two doubling stages and a sink on four nodes in a pipe: the channels between
    // neighbours become their links.
    let source = "
[3]CHAN OF INT c:
PLACED PAR
  PROCESSOR 0
    SEQ i = 1 FOR 10
      c[0] ! i
  PLACED PAR k = 1 FOR NODES - 2
    PROCESSOR k
      SEQ i = 0 FOR 10
        INT x:
        SEQ
          c[k - 1] ? x
          c[k] ! x * 2
  PROCESSOR NODES - 1
    INT sum:
    SEQ
      sum := 0
      SEQ i = 0 FOR 10
        INT x:
        SEQ
          c[2] ? x
          sum := sum + x
      probe (sum)
";
    let p = probes_on(source, "pipe 4");
    assert_eq!(p, [vec![], vec![], vec![], vec![220]]);
    // The same program where no link joins the ends, and mistakes a configuration can make.
    let error = |source: &str, topology: &str| {
        let setup = Setup {
            topology: topology.to_owned(),
            ..Setup::default()
        };
        Session::new(&Program::Occam(source.to_owned()), &setup)
            .expect_err("an error")
            .to_string()
    };
    let e = error(source, "mesh 2x2");
    assert!(e.contains("no link of `mesh 2x2` joins them"), "{e}");
    // On three nodes one stage is left: nobody reads what it writes.
    let e = error(source, "pipe 3");
    assert_error_at(
        &e,
        13,
        "channel c[1] is used for output on processor 1 but for input on none",
    );
    let two_writers = "
CHAN OF INT c:
PLACED PAR
  PROCESSOR 0
    c ! 1
  PROCESSOR 1
    c ! 2
  PROCESSOR 2
    INT x:
    c ? x
";
    let e = error(two_writers, "ring 3");
    assert_error_at(&e, 7, "output on processors 0 and 1");
    let e = error("PLACED PAR\n  PROCESSOR 4\n    SKIP\n", "pipe 4");
    assert_error_at(&e, 2, "processor 4: the network has 4");
    let e = error(
        "PLACED PAR\n  PROCESSOR 1\n    SKIP\n  PROCESSOR 1\n    SKIP\n",
        "pipe 2",
    );
    assert_error_at(&e, 4, "placed twice");
}

#[test]
fn an_alt_on_two_links_merges_two_processors_streams() {
    // Two producers on the ends of a pipe of three, the middle node merging them with an ALT
    // on its two input links.
    let source = "
CHAN OF INT left, right:
PROC producer (VAL INT value, CHAN OF INT out)
  SEQ i = 0 FOR 5
    out ! value
:
PLACED PAR
  PROCESSOR 0
    producer (1, left)
  PROCESSOR 1
    INT sum, x:
    SEQ
      sum := 0
      SEQ i = 0 FOR 10
        ALT
          left ? x
            sum := sum + x
          right ? x
            sum := sum + x
      probe (sum)
  PROCESSOR 2
    producer (100, right)
";
    assert_eq!(probes_on(source, "pipe 3")[1], [505]);
}

#[test]
fn protocols_carry_sequences_arrays_and_counted_arrays() {
    let source = "
CHAN OF INT; [3]INT c:
CHAN OF INT::[]INT d:
[3]INT a, b:
[8]INT buf:
INT tag, n:
SEQ
  PAR
    SEQ
      SEQ i = 0 FOR 3
        a[i] := (i + 1) * 10
      c ! 7; a
      d ! 2::a
    SEQ
      c ? tag; b
      d ? n::buf
  probe (tag)
  probe ((b[0] + b[1]) + b[2])
  probe (n)
  probe (buf[0] + buf[1])
  CASE n
    1, 3
      probe (100)
    2
      probe (200, \"two\")
    ELSE
      probe (300)
";
    assert_eq!(probes(source), [7, 60, 2, 30, 200]);
    let e = compile_error("CHAN OF INT c:\n[2]INT a:\nc ! a\n");
    assert_error_at(&e, 3, "carries a word");
    let e = compile_error("INT x:\nCASE x\n  1\n    SKIP\n  1\n    SKIP\n");
    assert!(e.contains("twice"), "{e}");
}

#[test]
fn procs_take_many_parameters_and_arrays() {
    // Five parameters (two past A, B and C), an open array with its SIZE, a sized array, a
    // channel array, and parameters sharing a type.
    let source = "
PROC sum (VAL []INT xs, INT total)
  SEQ
    total := 0
    SEQ i = 0 FOR SIZE xs
      total := total + xs[i]
:
PROC fill ([4]INT v, VAL INT from, step)
  SEQ i = 0 FOR 4
    v[i] := from + (i * step)
:
PROC five (VAL INT a, b, c, d, INT e)
  e := (((a * 10000) + (b * 1000)) + ((c * 100) + (d * 10)))
:
PROC fan ([]CHAN OF INT out, VAL INT v)
  PAR i = 0 FOR 3
    out[i] ! v + i
:
[6]INT data:
[4]INT four:
[3]CHAN OF INT c:
INT t, r, x, y, z:
SEQ
  SEQ i = 0 FOR 6
    data[i] := i * i
  sum (data, t)
  probe (t)
  fill (four, 7, 3)
  sum (four, t)
  probe (t)
  five (1, 2, 3, 4, r)
  probe (r)
  PAR
    fan (c, 40)
    SEQ
      c[0] ? x
      c[1] ? y
      c[2] ? z
  probe ((x + y) + z)
";
    // 0+1+4+9+16+25; 7+10+13+16; 12340; 40+41+42.
    assert_eq!(probes(source), [55, 46, 12340, 123]);
    let e = compile_error("PROC p ([4]INT v)\n  SKIP\n:\n[3]INT a:\np (a)\n");
    assert_error_at(&e, 5, "4 elements, not 3");
}

#[test]
fn replicated_alt_and_if() {
    // Four producers merged by a replicated ALT; a replicated IF finds the first match, and
    // nested in an IF it falls through to the next choice when none holds.
    let source = "
[4]CHAN OF INT c:
[5]INT a:
INT sum, found, missing:
SEQ
  sum := 0
  PAR
    PAR i = 0 FOR 4
      SEQ k = 0 FOR 3
        c[i] ! (i + 1) * 100
    SEQ n = 0 FOR 12
      INT x:
      ALT i = 0 FOR 4
        c[i] ? x
          sum := sum + (x + i)
  probe (sum)
  SEQ i = 0 FOR 5
    a[i] := (i * 3) + 1
  IF i = 0 FOR 5
    a[i] = 7
      found := i
  probe (found)
  IF
    IF j = 0 FOR 5
      a[j] = 8
        missing := j
    TRUE
      missing := 99
  probe (missing)
";
    // 3 × (100 + 200 + 300 + 400) + 3 × (0 + 1 + 2 + 3); 7 is a[2]; 8 is nowhere.
    assert_eq!(probes(source), [3018, 2, 99]);
}

#[test]
fn functions_give_values_in_expressions() {
    let source = "
INT FUNCTION square (VAL INT x) IS x * x:
INT FUNCTION gcd (VAL INT a, b)
  INT x, y:
  VALOF
    SEQ
      x := a
      y := b
      WHILE y <> 0
        INT t:
        SEQ
          t := x \\ y
          x := y
          y := t
    RESULT x
:
BOOL FUNCTION even (VAL INT n) IS (n \\ 2) = 0:
INT r:
SEQ
  r := square (7) + square (gcd (84, 36))
  probe (r)
  probe (gcd (square (6), 81) * (1 + square (2)))
  IF
    even (r)
      probe (1)
    TRUE
      probe (0)
";
    // 49 + 144; gcd(36, 81) = 9, times 5; 193 is odd.
    assert_eq!(probes(source), [193, 45, 0]);
    let error = compile_error;
    let e = error("INT FUNCTION f (INT x) IS x:\nSKIP\n");
    assert!(e.contains("parameters are VALs"), "{e}");
    let e = error("INT FUNCTION f (VAL INT x) IS x:\nf (1)\n");
    assert_error_at(&e, 2, "is a FUNCTION");
}

#[test]
fn bitwise_and_modulo_operators() {
    let source = "
INT a, b:
SEQ
  a := #F0F0
  b := #0FF0
  probe ((a /\\ b) \\/ 1)
  probe (a >< b)
  probe ((1 << 10) + (a >> 4))
  probe (~0)
  probe (#7FFFFFFF PLUS 1)
  probe (7 TIMES 6)
";
    assert_eq!(
        probes(source),
        [0x00F1, 0xFF00, 1024 + 0x0F0F, u32::MAX, 0x8000_0000, 42]
    );
}

#[test]
fn out_string_and_out_number_write_to_the_hosts_screen() {
    let source = "
SEQ
  out.string (\"hello from occam*n\")
  out.number (12345)
  out.string (\" \")
  out.number (-907)
  out.string (\" \")
  out.number (#80000000)
  out.string (\"*n\")
  SEQ i = 0 FOR 4
    SEQ
      out.number (i * i)
      out.string (\",\")
";
    let mut session = Session::new(&Program::Occam(source.to_owned()), &Setup::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(session.finish(), Ok(Outcome::Idle));
    assert_eq!(
        session.output(),
        "hello from occam\n12345 -907 -2147483648\n0,1,4,9,"
    );
    let e = compile_for_pipe(
        "PLACED PAR\n  PROCESSOR 1\n    out.number (1)\n  PROCESSOR 0\n    SKIP\n",
    );
    assert_error_at(&e, 3, "only processor 0");
}

/// The error compiling `source` for a pipe of two.
fn compile_for_pipe(source: &str) -> String {
    let pipe =
        simulator_wasm::topology::Topology::parse("pipe 2").unwrap_or_else(|e| panic!("{e}"));
    simulator_wasm::occam::compile_for(source, &pipe)
        .expect_err("an error")
        .to_string()
}

#[test]
fn reals_compute_on_the_t800s_fpu() {
    let source = "
REAL32 FUNCTION half (VAL REAL32 v) IS v / 2.0:
REAL64 FUNCTION sum (VAL []REAL64 xs)
  REAL64 s:
  VALOF
    SEQ
      s := 0.0
      SEQ i = 0 FOR SIZE xs
        s := s + xs[i]
    RESULT s
:
REAL32 x, y:
REAL64 d:
[4]REAL64 v:
INT n:
CHAN OF REAL64 c:
SEQ
  x := 1.5(REAL32)
  y := (x * 2.0) + 0.25
  probe (INT ROUND (y * 4.0))
  d := REAL64 y
  SEQ i = 0 FOR 4
    v[i] := (REAL64 i) * d
  d := sum (v) / 2.0
  probe (INT TRUNC (d * 10.0))
  IF
    d > 9.7
      probe (1)
    TRUE
      probe (0)
  probe (INT ROUND 2.5(REAL64))
  probe (INT TRUNC (- 2.7(REAL32)))
  probe (INT ROUND (half (7.0) * 2.0))
  PAR
    c ! d * 2.0
    c ? d
  probe (INT ROUND d)
";
    // 13; 97 (19.5 / 2 = 9.75); 9.75 > 9.7; 2.5 rounds to even; −2; 7; 19.5 rounds to 20.
    assert_eq!(probes(source), [13, 97, 1, 2, (-2i32) as u32, 7, 20]);
    let e = compile_error("REAL32 x:\nINT n:\nSEQ\n  x := 1.0\n  n := x\n");
    assert_error_at(&e, 5, "REAL32 where an INT");
    let e = compile_error("REAL32 x:\nx := 1\n");
    assert_error_at(&e, 2, "INT where a REAL32");
}

#[test]
fn abbreviations_slices_and_named_protocols() {
    let source = "
PROTOCOL PAIR IS INT; INT:
PROC total (VAL []INT xs, INT t)
  SEQ
    t := 0
    SEQ i = 0 FOR SIZE xs
      t := t + xs[i]
:
[8]INT a:
INT t, p, q, n:
CHAN OF PAIR c:
SEQ
  SEQ i = 0 FOR 8
    a[i] := i + 1
  x IS a[3]:
  x := x * 100
  probe (a[3])
  []INT middle IS [a FROM 2 FOR 4]:
  SEQ
    total (middle, t)
    probe (t)
    probe (SIZE middle)
  n := 3
  total ([a FROM 5 FOR n], t)
  probe (t)
  PAR
    c ! 4; 5
    c ? p; q
  probe ((p * 10) + q)
";
    // a[3] = 400; 3 + 400 + 5 + 6; 4; 6 + 7 + 8; 45.
    assert_eq!(probes(source), [400, 414, 4, 21, 45]);
    // A slice beyond the array sets the error flag.
    let mut session = Session::new(
        &Program::Occam(
            "[4]INT a:\nINT n:\nSEQ\n  n := 3\n  []INT s IS [a FROM 2 FOR n]:\n  SKIP\n".to_owned(),
        ),
        &Setup::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let _ = session.finish();
    assert!(
        session.network.nodes[0].error,
        "[a FROM 2 FOR 3] of a [4]INT"
    );
}

/// A few thousand mangled programs (the demos with characters deleted, doubled or swapped,
/// as a user typing makes them): the compiler answers each with a program that assembles or
/// an error with its line, and never panics — the page compiles on every keystroke.
#[test]
fn mangled_programs_get_errors_not_panics() {
    let sources: Vec<String> = simulator_wasm::demos::DEMOS
        .iter()
        .map(|d| d.source())
        .collect();
    let pipe =
        simulator_wasm::topology::Topology::parse("pipe 4").unwrap_or_else(|e| panic!("{e}"));
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet: Vec<char> = "abcxyzSEQPARIF0123456789 :=!?()[]-+*/\\;,.\"'#<>&~\n"
        .chars()
        .collect();
    let table = simulator_wasm::isa::CycleTable::new(simulator_wasm::isa::Chip::T800, 0);
    let mut errors = 0;
    for round in 0..3000 {
        let source = &sources[round % sources.len()];
        let mut chars: Vec<char> = source.chars().collect();
        for _ in 0..1 + next() % 4 {
            let at = (next() % chars.len() as u64) as usize;
            match next() % 3 {
                0 => {
                    chars.remove(at);
                }
                1 => chars.insert(at, alphabet[(next() % alphabet.len() as u64) as usize]),
                _ => chars[at] = alphabet[(next() % alphabet.len() as u64) as usize],
            }
        }
        let text: String = chars.into_iter().collect();
        let result = std::panic::catch_unwind(|| simulator_wasm::occam::compile_for(&text, &pipe));
        match result {
            Ok(Ok(assembly)) => {
                // What compiles assembles: the compiler never writes a wrong program.
                if let Err(e) = simulator_wasm::asm::assemble(&assembly, &table, 0x8000_0070) {
                    panic!("{e}\nfrom:\n{text}");
                }
            }
            Ok(Err(e)) => {
                errors += 1;
                assert!(e.line >= 1, "an error without its line: {e}\n{text}");
            }
            Err(_) => panic!("the compiler panicked on:\n{text}"),
        }
    }
    assert!(
        errors > 100,
        "most mangled programs are wrong: {errors} errors"
    );
}

#[test]
fn place_at_puts_a_channel_on_a_link() {
    // Node 1 sends on its link 2 (a pipe's link to the previous node), node 0 reads its link
    // 1: PLACE with INMOS's numbering, 0–3 outputs and 4–7 inputs.
    let source = "
CHAN OF INT to.prev, from.next:
PLACED PAR
  PROCESSOR 0
    PLACE from.next AT 5:
    INT x:
    SEQ
      from.next ? x
      probe (x)
  PROCESSOR 1
    PLACE to.prev AT 2:
    to.prev ! 77
";
    assert_eq!(probes_on(source, "pipe 2"), [vec![77], vec![]]);
    let e = compile_error("CHAN OF INT c:\nPLACE c AT 9:\nSKIP\n");
    assert_error_at(&e, 2, "0 to 3");
}

#[test]
fn bytes_and_strings() {
    let source = "
[5]BYTE s:
[16]BYTE t:
BYTE b:
INT sum, n:
CHAN OF BYTE c:
CHAN OF INT::[]BYTE d:
VAL []BYTE greeting IS \"hi there\":
SEQ
  s := \"hello\"
  sum := 0
  SEQ i = 0 FOR 5
    sum := sum + (INT s[i])
  probe (sum)
  s[0] := 'j'
  out.string (s)
  out.string (\"*n\")
  PAR
    c ! 'A'
    c ? b
  probe (INT b)
  PAR
    d ! 5::s
    d ? n::t
  out.string ([t FROM 0 FOR n])
  out.string (greeting)
  probe (SIZE greeting)
";
    let mut session = Session::new(&Program::Occam(source.to_owned()), &Setup::default())
        .unwrap_or_else(|e| panic!("{e}\n{}", compile(source).unwrap_or_default()));
    assert_eq!(session.finish(), Ok(Outcome::Idle));
    let node = &session.network.nodes[0];
    assert!(!node.error, "{}", node.dump());
    let tags: Vec<u32> = node
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Probe)
        .map(|e| e.other)
        .collect();
    // h e l l o; 'A'; the greeting's length.
    assert_eq!(tags, [532, 65, 8]);
    assert_eq!(session.output(), "jello\njellohi there");
}

#[test]
fn tables_of_constants() {
    let source = "
VAL []INT primes IS [2, 3, 5, 7, 11]:
VAL []BYTE name IS \"ab\":
INT s:
SEQ
  s := 0
  SEQ i = 0 FOR SIZE primes
    s := s + primes[i]
  probe (s)
  probe (primes[4] * (INT name[1]))
";
    assert_eq!(probes(source), [28, 11 * 98]);
}

#[test]
fn variant_protocols_carry_tagged_messages() {
    let source = "
PROTOCOL COMMAND
  CASE
    add; INT
    scale; INT; INT
    block; INT::[]INT
    stop
:
CHAN OF COMMAND c:
[4]INT data:
INT total:
SEQ
  SEQ i = 0 FOR 4
    data[i] := i + 1
  PAR
    SEQ
      c ! add; 5
      c ! scale; 3; 2
      c ! block; 4::data
      c ! stop
    BOOL going:
    INT x, a, b, n:
    SEQ
      total := 0
      going := TRUE
      WHILE going
        c ? CASE
          add; x
            total := total + x
          scale; a; b
            total := total * (a - b)
          block; n::data
            SEQ i = 0 FOR n
              total := total + data[i]
          stop
            going := FALSE
  probe (total)
";
    // 5, × (3 − 2), + 1 + 2 + 3 + 4.
    assert_eq!(probes(source), [15]);
    let e = compile_error("PROTOCOL P\n  CASE\n    go\n:\nCHAN OF P c:\nc ! went\n");
    assert_error_at(&e, 6, "went is not a tag of P");
}

#[test]
fn a_replicated_alt_with_a_count_known_when_running() {
    // n producers (n a variable) merged by ALT i = 0 FOR n; the branch knows which fired.
    let source = "
[6]CHAN OF INT c:
INT n, sum, from:
SEQ
  n := 4
  sum := 0
  from := 0
  PAR
    PAR k = 0 FOR 4
      SEQ j = 0 FOR 2
        c[k] ! (k + 1) * 10
    SEQ m = 0 FOR 8
      INT x:
      ALT i = 0 FOR n
        (i <> 5) & c[i] ? x
          SEQ
            sum := sum + x
            from := from + i
  probe (sum)
  probe (from)
";
    // 2 × (10 + 20 + 30 + 40); 2 × (0 + 1 + 2 + 3).
    assert_eq!(probes(source), [200, 12]);
}

#[test]
fn a_replicated_if_with_a_count_known_when_running() {
    let source = "
[10]INT a:
INT n, found, missing:
SEQ
  SEQ i = 0 FOR 10
    a[i] := i * i
  n := 10
  IF i = 0 FOR n
    a[i] = 49
      found := i
  IF
    IF j = 1 FOR n - 1
      a[j] = 50
        missing := j
    TRUE
      missing := -1
  probe (found)
  probe (missing)
";
    assert_eq!(probes(source), [7, u32::MAX]);
}

#[test]
fn an_alt_takes_a_variant_input() {
    let source = "
PROTOCOL MSG
  CASE
    num; INT
    done
:
CHAN OF MSG m:
CHAN OF INT plain:
INT total, x:
BOOL going:
SEQ
  total := 0
  going := TRUE
  PAR
    SEQ
      m ! num; 7
      plain ! 100
      m ! num; 8
      m ! done
    WHILE going
      ALT
        m ? CASE
          num; x
            total := total + x
          done
            going := FALSE
        plain ? x
          total := total + x
  probe (total)
";
    // 7 + 100 + 8, then done.
    assert_eq!(probes(source), [115]);
}

#[test]
fn multiple_assignment_and_functions_of_several_values() {
    let source = "
INT, INT FUNCTION divmod (VAL INT a, b) IS a / b, a \\ b:
INT, INT, BOOL FUNCTION order (VAL INT x, y)
  INT lo, hi:
  VALOF
    IF
      x < y
        lo, hi := x, y
      TRUE
        lo, hi := y, x
    RESULT lo, hi, x < y
:
INT a, b, q, r, lo, hi:
BOOL sorted:
REAL32 f, g:
SEQ
  a, b := 3, 4
  a, b := b, a
  probe ((a * 10) + b)
  q, r := divmod (47, 5)
  probe ((q * 10) + r)
  lo, hi, sorted := order (9, 2)
  probe ((lo * 10) + hi)
  probe (INT sorted)
  f, g := 1.5, 2.5
  f, g := g, f
  probe (INT ROUND (f * 10.0))
";
    // 43; 9 r 2; 2 and 9; FALSE; 25.
    assert_eq!(probes(source), [43, 92, 29, 0, 25]);
    let e = compile_error("INT, INT FUNCTION f (VAL INT a) IS a, a:\nINT x:\nx := f (1)\n");
    assert_error_at(&e, 3, "gives 2 values");
}

#[test]
fn usage_rules_see_elements_and_procs() {
    let error = compile_error;
    // One element assigned in two branches; one channel element read in two.
    let e = error("[4]INT a:\nPAR\n  a[1] := 1\n  a[1] := 2\n");
    assert_error_at(&e, 2, "\"a[1]\" is assigned in two branches");
    let e = error("[2]CHAN OF INT c:\nINT x, y:\nPAR\n  c[0] ? x\n  c[0] ? y\n");
    assert!(
        e.contains("\"c[0]\" is used for input in two branches"),
        "{e}"
    );
    // A PROC reading its channel parameter, called in two branches on one channel; a PROC
    // writing its reference parameter, on one variable.
    let e = error(
        "PROC get (CHAN OF INT in, INT x)\n  in ? x\n:\nCHAN OF INT c:\nINT a, b:\nPAR\n  get (c, a)\n  get (c, b)\n",
    );
    assert!(e.contains("\"c\" is used for input in two branches"), "{e}");
    let e = error("PROC set (INT x)\n  x := 1\n:\nINT v:\nPAR\n  set (v)\n  set (v)\n");
    assert!(e.contains("\"v\" is assigned in two branches"), "{e}");
    // Different elements, and a replicated PAR's own elements, are fine.
    assert!(compile("[4]INT a:\nPAR\n  a[1] := 1\n  a[2] := 2\n").is_ok());
    assert!(compile("[4]INT a:\nPAR i = 0 FOR 4\n  a[i] := i\n").is_ok());
}

#[test]
fn int16_values_arrays_and_channels() {
    let source = "
[4]INT16 h:
INT16 x, y:
CHAN OF INT16 c:
SEQ
  h[0] := -2
  h[1] := 300
  h[2] := INT16 (h[0] * 1000)
  h[3] := 32767
  probe (INT ((h[0] + h[1]) + h[2]))
  probe (INT h[3])
  x := -12345
  PAR
    c ! x
    c ? y
  probe (INT y)
";
    // −2 + 300 − 2000; 32767; −12345.
    assert_eq!(
        probes(source),
        [(-1702i32) as u32, 32767, (-12345i32) as u32]
    );
    // 40000 is no INT16: the error flag.
    let mut session = Session::new(
        &Program::Occam("INT16 x:\nINT n:\nSEQ\n  n := 40000\n  x := INT16 n\n".to_owned()),
        &Setup::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let _ = session.finish();
    assert!(session.network.nodes[0].error, "40000 into an INT16");
}

#[test]
fn int64_arithmetic_across_the_word() {
    let source = "
INT64 a, b, c:
[2]INT64 v:
CHAN OF INT64 ch:
SEQ
  a := INT64 2000000000
  b := a + a
  c := b * 3
  probe (INT (c / b))
  probe (INT ((c + 7) \\ b))
  probe (INT ((INT64 (-7)) / 2))
  probe (INT ((INT64 (-7)) \\ 2))
  probe (INT (c / 1000000))
";
    // 12e9 / 4e9; 7; −3 (towards zero); −1 (the dividend's sign); 12,000.
    assert_eq!(
        probes(source),
        [3, 7, (-3i32) as u32, (-1i32) as u32, 12_000]
    );
    let source = "
INT64 a, b, c, d:
[2]INT64 v:
CHAN OF INT64 ch:
SEQ
  a := INT64 2000000000
  b := a + a
  c := b * 3
  v[1] := c - 5
  d := v[1] >> 8
  probe (INT (d /\\ #7FFFFFFF))
  probe (INT (c >> 32))
  IF
    (c > b) AND (b >= a) AND (a <> b)
      probe (1)
    TRUE
      probe (0)
  PAR
    ch ! v[1] PLUS 5
    ch ? d
  IF
    d = c
      probe (2)
    TRUE
      probe (3)
  probe (INT (a - b))
";
    // b = 4e9 (> 2³¹), c = 12e9; (c − 5) >> 8 = 46,874,999; 12e9 >> 32 = 2; c > b ≥ a; the
    // value through the channel; a − b = −2e9.
    assert_eq!(
        probes(source),
        [46_874_999, 2, 1, 2, (-2_000_000_000i32) as u32]
    );
}

#[test]
fn arrays_of_several_dimensions() {
    let source = "
VAL INT N IS 3:
[N][N]INT a, b, c:
[2][3][4]INT cube:
INT trace:
SEQ
  SEQ i = 0 FOR N
    SEQ j = 0 FOR N
      SEQ
        a[i][j] := i + j
        b[i][j] := (i * N) + j
  SEQ i = 0 FOR N
    SEQ j = 0 FOR N
      SEQ
        c[i][j] := 0
        SEQ k = 0 FOR N
          c[i][j] := c[i][j] + (a[i][k] * b[k][j])
  trace := (c[0][0] + c[1][1]) + c[2][2]
  probe (trace)
  cube[1][2][3] := 99
  probe (cube[1][2][3] + (SIZE cube))
";
    // A = [[0,1,2],[1,2,3],[2,3,4]], B = [[0,1,2],[3,4,5],[6,7,8]]: C's diagonal 15 + 30 + 51;
    // 99 + SIZE cube (its first dimension, 2).
    assert_eq!(probes(source), [96, 101]);
    let e = compile_error("[2][3]INT a:\na[0][3] := 1\n");
    assert!(e.contains("dimension 2 has 3: no element 3"), "{e}");
}
