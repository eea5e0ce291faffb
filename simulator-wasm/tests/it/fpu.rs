//! The T800's floating-point unit, opcode by opcode: results checked against IEEE 754
//! arithmetic worked independently of the emulator (exact products in double, `fma` residues
//! for quotients and roots), the four rounding modes, NaN, infinities and denormals, the FP
//! error flag, and the datasheet cycle counts.

use simulator_wasm::cpu::Node;
use simulator_wasm::isa::Chip;

use super::{boot_on, run};

/// Where the inputs are put and the results stored.
const IN: u32 = 0x8000_4000;
const OUT: u32 = 0x8000_4100;

/// Runs `body` (FP code reading inputs at `IN + 4k` and storing at `OUT + 4k`) on a T800
/// with the words `inputs` at `IN`; answers the node when it stops.
fn fp(body: &str, inputs: &[u32]) -> Node {
    let source = format!("IN = #{IN:X}\nOUT = #{OUT:X}\n{body}\nstopp");
    let (mut node, _) = boot_on(Chip::T800, &source);
    for (k, w) in inputs.iter().enumerate() {
        node.write_word(IN + 4 * k as u32, *w).expect("in memory");
    }
    run(&mut node, 1_000_000);
    node
}

fn out(node: &Node, k: u32) -> u32 {
    node.read_word(OUT + 4 * k).expect("in memory")
}

fn out_double(node: &Node, k: u32) -> f64 {
    f64::from_bits(u64::from(out(node, k + 1)) << 32 | u64::from(out(node, k)))
}

fn words(v: f64) -> [u32; 2] {
    let b = v.to_bits();
    [b as u32, (b >> 32) as u32]
}

/// The single nearest `exact` in a mode, worked from the exact value (a double).
fn round32(exact: f64, mode: &str) -> f32 {
    let r = exact as f32;
    let (lo, hi) = if f64::from(r) > exact {
        (r.next_down(), r)
    } else if f64::from(r) < exact {
        (r, r.next_up())
    } else {
        return r;
    };
    match mode {
        "fpurp" => hi,
        "fpurm" => lo,
        "fpurz" => {
            if exact > 0.0 {
                lo
            } else {
                hi
            }
        }
        _ => r,
    }
}

const MODES: [&str; 4] = ["", "fpurz", "fpurp", "fpurm"];

#[test]
fn single_arithmetic_rounds_in_each_mode() {
    // Products of singles are exact in double; these sums are too.
    let pairs: [(f32, f32); 4] = [
        (0.1, 3.0),
        (1.0, 2f32.powi(-30)),
        (-1.0e-3, 7.77),
        (1.5, -2.25),
    ];
    for (x, y) in pairs {
        for mode in MODES {
            for (op, exact) in [
                ("fpmul", f64::from(x) * f64::from(y)),
                ("fpadd", f64::from(x) + f64::from(y)),
                ("fpsub", f64::from(x) - f64::from(y)),
            ] {
                let node = fp(
                    &format!(
                        "ldc IN\nfpldnlsn\nldc IN+4\nfpldnlsn\n{mode}\n{op}\nldc OUT\nfpstnlsn"
                    ),
                    &[x.to_bits(), y.to_bits()],
                );
                let got = f32::from_bits(out(&node, 0));
                assert_eq!(got, round32(exact, mode), "{x} {op} {y} {mode}");
                assert!(!node.fpu.error);
            }
        }
    }
}

#[test]
fn double_division_and_square_root_round_in_each_mode() {
    for mode in MODES {
        // 1 / 3: the residue 1 − 3q (exact with fma) says which side of 1/3 q lies.
        let node = fp(
            &format!("ldc IN\nfpldnldb\nldc IN+8\nfpldnldb\n{mode}\nfpdiv\nldc OUT\nfpstnldb"),
            &[words(1.0), words(3.0)].concat(),
        );
        let q = out_double(&node, 0);
        let residue = (-q).mul_add(3.0, 1.0);
        match mode {
            "fpurp" => assert!(residue < 0.0 && (-(q.next_down())).mul_add(3.0, 1.0) > 0.0),
            "fpurm" | "fpurz" => assert!(residue > 0.0 && (-(q.next_up())).mul_add(3.0, 1.0) < 0.0),
            _ => assert!(residue.abs() <= (-(q.next_up())).mul_add(3.0, 1.0).abs()),
        }
        // √2 through the three sqrt steps: q² brackets 2 as the mode says.
        let node = fp(
            &format!(
                "ldc IN\nfpldnldb\n{mode}\nfpusqrtfirst\nfpusqrtstep\nfpusqrtstep\nfpusqrtlast\nldc OUT\nfpstnldb"
            ),
            &words(2.0),
        );
        let s = out_double(&node, 0);
        let residue = (-s).mul_add(s, 2.0);
        match mode {
            "fpurp" => assert!(residue < 0.0, "{s}"),
            "fpurm" | "fpurz" => assert!(residue > 0.0, "{s}"),
            _ => assert_eq!(s, std::f64::consts::SQRT_2),
        }
    }
}

#[test]
fn the_rounding_mode_lasts_one_operation() {
    // fpurp, then two additions of 1 + 2^-60: only the first rounds up.
    let tiny = 2f64.powi(-60);
    let node = fp(
        "ldc IN\nfpldnldb\nldc IN+8\nfpldnldb\nfpurp\nfpadd\nldc OUT\nfpstnldb\n\
         ldc IN\nfpldnldb\nldc IN+8\nfpldnldb\nfpadd\nldc OUT+8\nfpstnldb",
        &[words(1.0), words(tiny)].concat(),
    );
    assert_eq!(out_double(&node, 0), 1.0f64.next_up());
    assert_eq!(out_double(&node, 2), 1.0);
}

#[test]
fn loads_stores_conversions_and_the_stack() {
    // Indexed loads, zero, dup, rev and a 32-bit integer store after rounding to an integer.
    let node = fp(
        "ldc 1\nldc IN\nfpldnlsni\n\
         ldc IN+8\nfpldnldb\n\
         fprev\nldc OUT\nfpstnlsn\n\
         fpdup\nfpadd\nldc OUT+4\nfpstnldb\n\
         fpldzerodb\nldc OUT+12\nfpstnldb\n\
         ldc IN+16\nfpldnldb\nfprtoi32\nldc OUT+20\nfpstnli32\n\
         ldc IN+16\nfpldnldb\nfpurp\nfpint\nldc OUT+24\nfpstnldb\n\
         ldc IN+24\nfpi32tor64\nldc OUT+32\nfpstnldb\n\
         ldc IN+24\nfpb32tor64\nldc OUT+40\nfpstnldb\n\
         ldc IN+24\nfpi32tor32\nldc OUT+48\nfpstnlsn",
        &[
            0,
            2.5f32.to_bits(),
            words(10.25)[0],
            words(10.25)[1],
            words(-2.5)[0],
            words(-2.5)[1],
            0xFFFF_FFFF,
        ],
    );
    assert_eq!(f32::from_bits(out(&node, 0)), 2.5, "IN[1] by index");
    assert_eq!(out_double(&node, 1), 20.5, "10.25 doubled");
    assert_eq!(out_double(&node, 3), 0.0);
    assert_eq!(out(&node, 5) as i32, -2, "-2.5 to nearest even");
    assert_eq!(out_double(&node, 6), -2.0, "-2.5 rounded up");
    assert_eq!(out_double(&node, 8), -1.0, "#FFFFFFFF as INT32");
    assert_eq!(out_double(&node, 10), 4_294_967_295.0, "#FFFFFFFF unsigned");
    assert_eq!(f32::from_bits(out(&node, 12)), -1.0);
    assert!(!node.fpu.error);
}

#[test]
fn comparisons_nans_infinities_and_the_error_flag() {
    let (nan, inf) = (f32::NAN.to_bits(), f32::INFINITY.to_bits());
    let one = 1.0f32.to_bits();
    // fpgt and fpeq pop both; fpnan, fpordered and fpnotfinite look at FA (and FB).
    let node = fp(
        "ldc IN\nfpldnlsn\nldc IN+4\nfpldnlsn\nfpgt\nldc OUT\nstnl 0\n\
         ldc IN\nfpldnlsn\nldc IN\nfpldnlsn\nfpeq\nldc OUT+4\nstnl 0\n\
         fptesterr\nldc OUT+8\nstnl 0\n\
         ldc IN+8\nfpldnlsn\nfpnan\nldc OUT+12\nstnl 0\n\
         ldc IN\nfpldnlsn\nfpordered\nldc OUT+16\nstnl 0\n\
         ldc IN+12\nfpldnlsn\nfpnotfinite\nldc OUT+20\nstnl 0\n\
         fpldzerosn\nfpdiv\n\
         fptesterr\nldc OUT+24\nstnl 0\n\
         fptesterr\nldc OUT+28\nstnl 0",
        &[one, 2.0f32.to_bits(), nan, inf],
    );
    assert_eq!(out(&node, 0), 0, "1 > 2 is false (FB > FA)");
    assert_eq!(out(&node, 1), 1, "1 = 1");
    assert_eq!(out(&node, 2), 1, "no FP error yet");
    assert_eq!(out(&node, 3), 1, "NaN is a NaN");
    assert_eq!(out(&node, 4), 0, "FB is the NaN: unordered");
    assert_eq!(out(&node, 5), 1, "infinity is not finite");
    assert_eq!(out(&node, 6), 0, "∞ / 0 set the FP error flag");
    assert_eq!(out(&node, 7), 1, "fptesterr cleared it");
    // fpchkerr passes the FP error to the processor's Error flag.
    let node = fp("fpldzerodb\nfpldzerodb\nfpdiv\nfpchkerr", &[]);
    assert!(node.error, "0 / 0: invalid, then fpchkerr");
    assert!(node.fpu.regs[0].value.is_nan());
}

#[test]
fn denormals_and_overflow_round_as_ieee_says() {
    // The smallest single denormal halved: a tie, to even (0) when to nearest, back up when
    // rounding up.
    let tiny = f32::from_bits(1).to_bits();
    for (mode, want) in [("", 0u32), ("fpurp", 1), ("fpurm", 0), ("fpurz", 0)] {
        let node = fp(
            &format!("ldc IN\nfpldnlsn\n{mode}\nfpudivby2\nldc OUT\nfpstnlsn"),
            &[tiny],
        );
        assert_eq!(out(&node, 0), want, "{mode}");
    }
    // The largest double doubled: infinity to nearest (an error), the largest finite toward 0.
    let node = fp(
        "ldc IN\nfpldnldb\nfpumulby2\nldc OUT\nfpstnldb",
        &words(f64::MAX),
    );
    assert_eq!(out_double(&node, 0), f64::INFINITY);
    assert!(node.fpu.error);
    let node = fp(
        "ldc IN\nfpldnldb\nfpurz\nfpumulby2\nldc OUT\nfpstnldb",
        &words(f64::MAX),
    );
    assert_eq!(out_double(&node, 0), f64::MAX);
}

#[test]
fn remainder_absolute_value_and_length_conversions() {
    let node = fp(
        "ldc IN\nfpldnldb\nldc IN+8\nfpldnldb\nfpremfirst\nldc OUT+16\nstnl 0\nfpremstep\nldc OUT+20\nstnl 0\nldc OUT\nfpstnldb\n\
         ldc IN+16\nfpldnldb\nfpuabs\nfpur64tor32\nldc OUT+8\nfpstnlsn\n\
         ldc IN+24\nfpldnlsn\nfpur32tor64\nfpuexpinc32\nldc OUT+24\nfpstnldb",
        &[words(5.0), words(3.0), words(-0.1), [0.75f32.to_bits(), 0]].concat(),
    );
    assert_eq!(out_double(&node, 0), -1.0, "5 REM 3 = 5 − 2·3");
    assert_eq!(
        (out(&node, 4), out(&node, 5)),
        (1, 1),
        "done after the first step"
    );
    assert_eq!(f32::from_bits(out(&node, 2)), 0.1f32, "|−0.1| as a single");
    assert_eq!(out_double(&node, 6), 0.75 * 4_294_967_296.0);
}

#[test]
fn fp_operations_cost_the_datasheets_cycles_single_and_double() {
    // The same loads and store with and without the operation: the difference is the
    // operation's count and its one prefix byte.
    let cost = |op: &str, double: bool| {
        let (ld, st) = if double {
            ("fpldnldb", "fpstnldb")
        } else {
            ("fpldnlsn", "fpstnlsn")
        };
        let inputs = [words(1.5), words(0.75)].concat();
        let node = fp(
            &format!("ldc IN\n{ld}\nldc IN+8\n{ld}\n{op}\nldc OUT\n{st}"),
            &inputs,
        );
        node.cycles
    };
    let base_single = cost("", false);
    let base_double = cost("", true);
    for (op, single, double) in [
        ("fpadd", 6, 9),
        ("fpsub", 6, 9),
        ("fpmul", 11, 18),
        ("fpdiv", 16, 31),
    ] {
        // The operation's pfix byte: one cycle on top of its count.
        assert_eq!(cost(op, false) - base_single, single + 1, "{op} single");
        assert_eq!(cost(op, true) - base_double, double + 1, "{op} double");
    }
}

#[test]
fn the_boot_loaders_fptesterr_runs_on_a_t800_and_fmul_multiplies_fractions() {
    // INMOS's secondary bootstrap runs fptesterr once on every T800: A = 1 (no error).
    let node = fp("fptesterr\nldc OUT\nstnl 0", &[]);
    assert_eq!(out(&node, 0), 1);
    // fmul: 0.5 × 0.5 = 0.25 as 31-bit fractions; −0.5 × 0.5 = −0.25.
    let node = fp(
        "ldc #40000000\nldc #40000000\nfmul\nldc OUT\nstnl 0\nldc #C0000000\nldc #40000000\nfmul\nldc OUT+4\nstnl 0",
        &[],
    );
    assert_eq!(out(&node, 0), 0x2000_0000);
    assert_eq!(out(&node, 1), 0xE000_0000);
}

#[test]
fn a_whetstone_style_kernel_computes_what_ieee_double_arithmetic_does() {
    // `programs/fp-kernel.s`: rounds of a Horner step, a division and a square root (the three
    // fpentry steps), accumulating into the double at #80004000.
    let source =
        include_str!("../../programs/fp-kernel.s").replacen("ROUNDS = 200000", "ROUNDS = 2000", 1);
    let (mut node, _) = boot_on(Chip::T800, &source);
    run(&mut node, 1_000_000);
    let at = |k: u32| u64::from(node.read_word(0x8000_4000 + 4 * k).expect("in memory"));
    let got = f64::from_bits(at(1) << 32 | at(0));
    // The same operations in the same order, in IEEE double (round to nearest).
    let (a, b, c) = (0.999f64, 0.001f64, 1.0001f64);
    let mut x = 1.0f64;
    for _ in 0..2000 {
        let h = x * a + b;
        x = (h + h.sqrt()) / c;
    }
    assert_eq!(got.to_bits(), x.to_bits(), "{got} vs {x}");
    assert!(!node.fpu.error);
}

/// The Whetstone benchmark's floating-point modules (2, 3 and 8) in occam, on the T800's FPU
/// in REAL64 and REAL32: the results are IEEE arithmetic's (the same sequence computed here,
/// rounded the same way), and the rate is printed.
#[test]
fn whetstone_modules_in_occam_compute_what_ieee_arithmetic_does() {
    use simulator_wasm::network::Outcome;
    use simulator_wasm::session::{Program, Session, Setup};
    let source = include_str!("../../programs/whetstone.occ");
    let loops = 10;
    let (n2, n3, n8) = (12 * loops, 14 * loops, 899 * loops);
    // The same modules in Rust, in either width.
    fn modules<F>(n2: usize, n3: usize, n8: usize, from: fn(f64) -> F) -> [F; 3]
    where
        F: Copy
            + std::ops::Add<Output = F>
            + std::ops::Sub<Output = F>
            + std::ops::Mul<Output = F>
            + std::ops::Div<Output = F>
            + std::ops::Neg<Output = F>,
    {
        let (t, t2) = (from(0.499975), from(2.0));
        let mut e = [from(1.0), from(-1.0), from(-1.0), from(-1.0)];
        for _ in 0..n2 {
            e[0] = (e[0] + e[1] + e[2] - e[3]) * t;
            e[1] = (e[0] + e[1] - e[2] + e[3]) * t;
            e[2] = (e[0] - e[1] + e[2] + e[3]) * t;
            e[3] = (-e[0] + e[1] + e[2] + e[3]) * t;
        }
        for _ in 0..n3 {
            for _ in 0..6 {
                e[0] = (e[0] + e[1] + e[2] - e[3]) * t;
                e[1] = (e[0] + e[1] - e[2] + e[3]) * t;
                e[2] = (e[0] - e[1] + e[2] + e[3]) * t;
                e[3] = (-e[0] + e[1] + e[2] + e[3]) / t2;
            }
        }
        let (x, y, mut z) = (from(1.0), from(1.0), from(1.0));
        for _ in 0..n8 {
            let x1 = t * (x + y);
            let y1 = t * (x1 + y);
            z = (x1 + y1) / t2;
        }
        [e[0], e[3], z]
    }
    let scaled64 = modules(n2, n3, n8, |v| v).map(|v| (v * 1e9).round_ties_even() as i32);
    let scaled32 =
        modules(n2, n3, n8, |v| v as f32).map(|v| (v * 1e9f64 as f32).round_ties_even() as i32);
    let flops = (n2 * 16 + n3 * 6 * 16 + n8 * 6) as f64;
    for (width, text, want) in [
        ("REAL64", source.to_owned(), scaled64),
        ("REAL32", source.replace("REAL64", "REAL32"), scaled32),
    ] {
        let mut session = Session::new(&Program::Occam(text), &Setup::default())
            .unwrap_or_else(|e| panic!("{width}: {e}"));
        assert_eq!(session.finish(), Ok(Outcome::Idle), "{width}");
        let got: Vec<i32> = session
            .output()
            .split_whitespace()
            .map(|w| w.parse().unwrap_or(i32::MIN))
            .collect();
        assert_eq!(got, want, "{width}: the T800 against IEEE arithmetic");
        let node = &session.network.nodes[0];
        let at = crate::probe_cycles(node);
        let seconds = (at[1] - at[0]) as f64 / 20e6;
        eprintln!(
            "Whetstone modules 2, 3 and 8 in {width} on a T800-20: {:.2} ms, {:.2} MFLOPS",
            seconds * 1e3,
            flops / seconds / 1e6
        );
    }
}
