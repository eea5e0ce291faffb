//! Table-driven tests: each instruction's result and cycle count (T800, on-chip RAM costs,
//! one more cycle per prefix byte), from the registers it starts with.

use simulator_wasm::cpu::{Node, Status};
use simulator_wasm::isa::{Chip, CycleTable, OPERATIONS};

use super::{ORIGIN, boot_on};

/// Runs the instructions in `source` with A, B, C = `abc`; answers the node afterwards and
/// how many prefix bytes the code holds (each costs a cycle on top of the table's count).
fn one(chip: Chip, source: &str, (a, b, c): (u32, u32, u32)) -> Node {
    let (mut node, program) = boot_on(chip, source);
    node.a = a;
    node.b = b;
    node.c = c;
    let end = ORIGIN + program.code.len() as u32;
    while node.iptr != end {
        match node.step() {
            Ok(Status::Ran) => {}
            other => panic!("{source}: {other:?}\n{}", node.dump()),
        }
    }
    node
}

struct Case {
    source: &'static str,
    abc: (u32, u32, u32),
    /// A and B afterwards.
    ab: (u32, u32),
    /// The table's count, without the prefix bytes.
    cycles: u64,
    error: bool,
}

const fn case(source: &'static str, abc: (u32, u32, u32), ab: (u32, u32), cycles: u64) -> Case {
    Case {
        source,
        abc,
        ab,
        cycles,
        error: false,
    }
}

const fn fails(source: &'static str, abc: (u32, u32, u32), cycles: u64) -> Case {
    Case {
        source,
        abc,
        ab: (0, 0),
        cycles,
        error: true,
    }
}

const M: u32 = 0x8000_0000;

#[test]
fn each_instruction_computes_its_result_in_its_cycles() {
    let cases = [
        // Direct functions and prefixes.
        case("ldc 5", (1, 2, 3), (5, 1), 1),
        case("ldc 300", (1, 2, 3), (300, 1), 1),
        case("ldc -1", (1, 2, 3), (u32::MAX, 1), 1),
        case("ldc -256", (0, 0, 0), ((-256i32) as u32, 0), 1),
        case("adc 7", (5, 9, 0), (12, 9), 1),
        case("eqc 3", (3, 9, 0), (1, 9), 2),
        case("eqc 4", (3, 9, 0), (0, 9), 2),
        case("ldnlp 3", (0x1000, 9, 0), (0x100c, 9), 1),
        case("ajw 0", (1, 2, 3), (1, 2), 1),
        // Arithmetic and logic.
        case("add", (4, 3, 0), (7, 0), 1),
        case("sub", (4, 3, 0), ((-1i32) as u32, 0), 1),
        case("mul", (6, 7, 0), (42, 0), 40),
        case("div", (7, 45, 0), (6, 0), 39),
        case("rem", (7, 45, 0), (3, 0), 37),
        case("div", (2, (-9i32) as u32, 0), ((-4i32) as u32, 0), 39),
        case("gt", (3, 4, 9), (1, 9), 2),
        case("gt", (4, 3, 9), (0, 9), 2),
        case("gt", (0, (-1i32) as u32, 9), (0, 9), 2),
        case("sum", (u32::MAX, 2, 0), (1, 0), 1),
        case("diff", (3, 2, 0), (u32::MAX, 0), 1),
        // prod costs b + 4, b the highest set bit of A: 6 = 0b110 → 3.
        case("prod", (6, 7, 0), (42, 0), 7),
        case("and", (0b1100, 0b1010, 0), (0b1000, 0), 1),
        case("or", (0b1100, 0b1010, 0), (0b1110, 0), 1),
        case("xor", (0b1100, 0b1010, 0), (0b0110, 0), 1),
        case("not", (0, 5, 0), (u32::MAX, 5), 1),
        case("shl", (4, 3, 0), (48, 0), 6),
        case("shr", (4, 48, 0), (3, 0), 6),
        case("shl", (32, 3, 0), (0, 0), 34),
        case("rev", (1, 2, 3), (2, 1), 1),
        case("dup", (1, 2, 3), (1, 1), 1),
        case("mint", (1, 2, 3), (M, 1), 1),
        case("bsub", (0x100, 3, 0), (0x103, 0), 1),
        case("wsub", (0x100, 3, 0), (0x10c, 0), 2),
        case("wsubdb", (0x100, 3, 0), (0x118, 0), 3),
        case("bcnt", (3, 9, 0), (12, 9), 2),
        case("wcnt", (13, 9, 0), (3, 1), 5),
        case("ldpri", (1, 2, 3), (1, 1), 1),
        // Long arithmetic: (C:B) with A.
        case("lsum", (u32::MAX, 2, 1), (2, 1), 3),
        case("ldiff", (3, 2, 0), (u32::MAX, 1), 3),
        case("lmul", (0x1_0000, 0x1_0000, 5), (5, 1), 33),
        case("ldiv", (10, 7, 1), (0x1999_999A, 3), 35),
        case("lshl", (4, 0x8000_0001, 0), (0x10, 8), 7),
        case("lshr", (4, 0x10, 8), (0x8000_0001, 0), 7),
        case("ladd", (1, 2, 1), (4, 1), 2),
        case("lsub", (1, 2, 1), (0, 1), 2),
        case(
            "xdble",
            ((-5i32) as u32, 9, 0),
            ((-5i32) as u32, u32::MAX),
            2,
        ),
        case("xword", (0x80, 0xFF, 0), (u32::MAX, 0), 4),
        case("xword", (0x80, 0x7F, 0), (0x7F, 0), 4),
        // T800 bit operations.
        case("bitcnt", (0b1011, 2, 0), (5, 0), 6),
        case("bitrevword", (1, 0, 0), (M, 0), 36),
        case("bitrevnbits", (4, 0b0001, 0), (0b1000, 0), 8),
        // Checks: the error flag.
        case("csub0", (5, 4, 0), (4, 0), 2),
        fails("csub0", (5, 5, 0), 2),
        case("ccnt1", (5, 5, 0), (5, 0), 3),
        fails("ccnt1", (5, 0, 0), 3),
        fails("add", (1, 0x7FFF_FFFF, 0), 1),
        fails("adc 1", (0x7FFF_FFFF, 0, 0), 1),
        fails("mul", (2, 0x4000_0000, 0), 40),
        fails("div", (0, 5, 0), 39),
        case("cword", (0x80, 0x7F, 0), (0x7F, 0), 5),
        fails("cword", (0x80, 0x80, 0), 5),
        // csngl keeps the low word in A (C moves into B).
        case("csngl", (5, 0, 7), (5, 7), 3),
        case(
            "csngl",
            ((-5i32) as u32, u32::MAX, 0),
            ((-5i32) as u32, 0),
            3,
        ),
        fails("csngl", (5, 1, 0), 3),
        fails("seterr", (1, 2, 3), 1),
    ];
    for k in &cases {
        let node = one(Chip::T800, k.source, k.abc);
        let what = format!("{} with {:x?}: {}", k.source, k.abc, node.dump());
        assert_eq!(node.error, k.error, "error flag of {what}");
        if !k.error {
            assert_eq!((node.a, node.b), k.ab, "{what}");
        }
        let prefixes = prefix_bytes(k.source);
        assert_eq!(node.cycles, k.cycles + prefixes, "cycles of {what}");
    }
}

/// The prefix bytes of `source`'s encoding.
fn prefix_bytes(source: &str) -> u64 {
    let table = CycleTable::new(Chip::T800, 0);
    let program = simulator_wasm::asm::assemble(source, &table, ORIGIN).expect("assembles");
    program
        .code
        .iter()
        .filter(|&&b| b >> 4 == 0x2 || b >> 4 == 0x6)
        .count() as u64
}

#[test]
fn testerr_reads_and_clears_the_error_flag() {
    let node = one(Chip::T800, "seterr\ntesterr\ntesterr", (0, 0, 0));
    // false (error was set), then true; 1 + 3 + 2 cycles and a prefix byte each.
    assert_eq!((node.a, node.b), (1, 0));
    assert!(!node.error);
    assert_eq!(node.cycles, 6 + 3);
}

#[test]
fn memory_instructions_load_and_store() {
    let (mut node, _) = boot_on(
        Chip::T800,
        "stl 2\nldl 2\nldlp 2\nldnl 0\nldc 99\nldlp 3\nstnl 0\nldl 3\nstopp",
    );
    node.a = 1234;
    super::run(&mut node, 100);
    assert_eq!(node.a, 99, "{}", node.dump());
    assert_eq!(node.b, 1234);
    assert_eq!(node.read_word(super::WORKSPACE + 8).ok(), Some(1234));
    // stl 1, ldl 2, ldlp 1, ldnl 2, ldc 1 (+ a prefix for 99), ldlp 1, stnl 2, ldl 2, then
    // stopp 11 + a prefix.
    assert_eq!(node.cycles, 1 + 2 + 1 + 2 + 2 + 1 + 2 + 2 + 12);
    let (mut node, _) = boot_on(
        Chip::T800,
        "ldc 65\nldc #80002000\nsb\nldc #80002000\nlb\nldc #80002000\nldc #80002010\nldc 4\nmove\nstopp",
    );
    super::run(&mut node, 100);
    assert_eq!(node.read_byte(0x8000_2000).ok(), Some(65));
    assert_eq!(
        node.read_byte(0x8000_2010).ok(),
        Some(65),
        "{}",
        node.dump()
    );
}

#[test]
fn jumps_calls_and_returns_use_the_workspace_frame() {
    let source = "
        ldc 7
        call f
        adc 1
        j done
    f:  adc 10
        ret
    done:
        stopp";
    let (mut node, program) = boot_on(Chip::T800, source);
    super::run(&mut node, 100);
    // call pushes the return address into A; f adds 10 to it... so keep 7 in the frame: W[1].
    let frame_a = node.read_word(super::WORKSPACE - 16 + 4).unwrap_or(0);
    assert_eq!(frame_a, 7, "call saves A in the new frame");
    assert_eq!(node.wptr, super::WORKSPACE, "ret pops the frame");
    assert!(program.symbol("done").is_some());
    // cj jumps on zero and leaves A; otherwise pops.
    let node = one(Chip::T800, "cj next\nnext:", (0, 5, 0));
    assert_eq!((node.a, node.cycles), (0, 4));
    let node = one(Chip::T800, "cj next\nnext:", (1, 5, 0));
    assert_eq!((node.a, node.cycles), (5, 2));
}

#[test]
fn an_operation_the_chip_lacks_is_an_error_not_a_panic() {
    let (mut node, _) = boot_on(Chip::T414, "opr #5A");
    let err = node.run(10).expect_err("dup is not a T414 operation");
    assert!(
        err.to_string().contains("unimplemented operation 0x5a"),
        "{err}"
    );
    let (mut node, _) = boot_on(Chip::T800, "opr #11");
    assert!(node.run(10).is_err());
    let (mut node, _) = boot_on(Chip::T800, "ldc #7FFFFF00\nldnl 0");
    let err = node.run(10).expect_err("outside memory");
    assert!(
        err.to_string().contains("outside the node's 65536 bytes"),
        "{err}"
    );
}

#[test]
fn every_listed_operation_assembles_and_disassembles_by_name() {
    for chip in [Chip::T414, Chip::T800] {
        let table = CycleTable::new(chip, 0);
        for op in OPERATIONS {
            let Some(known) = table.op(u32::from(op.code)) else {
                continue;
            };
            let program = simulator_wasm::asm::assemble(known.name, &table, ORIGIN)
                .unwrap_or_else(|e| panic!("{}: {e}", known.name));
            let lines = simulator_wasm::asm::disassemble(&program.code, ORIGIN, &table);
            assert_eq!(lines.len(), 1, "{}", known.name);
            assert_eq!(lines[0].text, known.name);
            // Operations 0–15 take one byte; larger codes need prefixes.
            assert_eq!(
                program.code.len(),
                if op.code < 16 {
                    1
                } else if op.code < 256 {
                    2
                } else {
                    3
                }
            );
        }
    }
}

#[test]
fn the_assembler_picks_the_shortest_prefixes_and_reports_lines() {
    let table = CycleTable::new(Chip::T800, 0);
    let asm = |s: &str| simulator_wasm::asm::assemble(s, &table, ORIGIN);
    // 0–15 in one byte; 16–255 with one pfix; -256 to -1 with one nfix; #1234 with three.
    for (value, len) in [
        (15, 1),
        (16, 2),
        (255, 2),
        (256, 3),
        (-1, 2),
        (-256, 2),
        (-257, 3),
        (0x1234, 4),
    ] {
        let program = asm(&format!("ldc {value}")).expect("assembles");
        assert_eq!(
            program.code.len(),
            len,
            "ldc {value}: {:02x?}",
            program.code
        );
    }
    // A jump over 20 bytes of data needs a prefix; the label after it moves accordingly.
    let program =
        asm("j over\n.byte 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20\nover: stopp")
            .expect("assembles");
    assert_eq!(
        program.code[..2],
        [0x21, 0x04],
        "pfix 1, j 4: 20 bytes ahead"
    );
    assert_eq!(program.symbol("over"), Some(ORIGIN + 22));
    let lines = simulator_wasm::asm::disassemble(&program.code[..2], ORIGIN, &table);
    assert_eq!(lines[0].text, format!("j {:#010x}", ORIGIN + 22));
    // Errors say the line and what was expected.
    let err = asm("ldc 1\n  frob 2\n").expect_err("unknown");
    assert_eq!(err.line, 2);
    assert!(
        err.to_string().contains("unknown instruction \"frob\""),
        "{err}"
    );
    assert_eq!(asm("ldc nowhere").expect_err("unknown name").line, 1);
    assert_eq!(asm("a: ldc 1\na: ldc 2").expect_err("twice").line, 2);
    assert!(
        asm("add 3")
            .expect_err("no operand")
            .message
            .contains("takes no operand")
    );
}

#[test]
fn two_dimensional_block_moves_copy_rows_all_nonzero_or_zero_bytes() {
    // A 3 × 4 source block with row stride 8 at 0x80003000; copied to stride 16 at 0x80004000.
    let source = "
        ldc 8
        ldc 16
        ldc 3
        move2dinit
        ldc #80003000
        ldc #80004000
        ldc 4
        move2dall
        ldc #80003000
        ldc #80005000
        ldc 4
        move2dnonzero
        ldc #80003000
        ldc #80006000
        ldc 4
        move2dzero
        stopp";
    let (mut node, _) = boot_on(Chip::T800, source);
    for row in 0..3u32 {
        for k in 0..4u32 {
            // Zero where row + k is even.
            let value = if (row + k) % 2 == 0 {
                0
            } else {
                (10 * row + k) as u8
            };
            node.write_byte(0x8000_3000 + row * 8 + k, value)
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    for base in [0x8000_5000u32, 0x8000_6000] {
        for row in 0..3u32 {
            for k in 0..4u32 {
                node.write_byte(base + row * 16 + k, 0xEE)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
    super::run(&mut node, 1_000);
    for row in 0..3u32 {
        for k in 0..4u32 {
            let read = |at: u32| node.read_byte(at).unwrap_or_else(|e| panic!("{e}"));
            let value = read(0x8000_3000 + row * 8 + k);
            assert_eq!(
                read(0x8000_4000 + row * 16 + k),
                value,
                "all, row {row} byte {k}"
            );
            let nonzero = if value != 0 { value } else { 0xEE };
            assert_eq!(read(0x8000_5000 + row * 16 + k), nonzero, "nonzero");
            let zero = if value == 0 { 0 } else { 0xEE };
            assert_eq!(read(0x8000_6000 + row * 16 + k), zero, "zero");
        }
        // Nothing past the row's width.
        assert_eq!(node.read_byte(0x8000_4000 + row * 16 + 4).unwrap_or(1), 0);
    }
    // Each move costs (2p + 23) a row: three rows of one word are 75 cycles, plus the
    // prefix byte of its operation code.
    let setup = "ldc 8\nldc 16\nldc 3\nmove2dinit\nldc #80003000\nldc #80004000\nldc 4";
    let with_move = one(Chip::T800, &format!("{setup}\nmove2dall"), (0, 0, 0));
    let without = one(Chip::T800, setup, (0, 0, 0));
    assert_eq!(with_move.cycles - without.cycles, 75 + 1);
}

#[test]
fn the_t414s_floating_point_support_unpacks_normalises_and_rounds_singles() {
    let t414 = |source: &str, abc: (u32, u32, u32)| one(Chip::T414, source, abc);
    // unpacksn: 1.5 is fraction #C0000000 (hidden bit shown), exponent 127, a number (type 1).
    let n = t414("unpacksn", (1.5f32.to_bits(), 3, 0));
    assert_eq!((n.a, n.b, n.c), (0xC000_0000, 127, 4 * 3 + 1));
    let kinds = |bits: u32| t414("unpacksn", (bits, 0, 0)).c;
    assert_eq!(
        [0.0f32, f32::from_bits(1), f32::INFINITY, f32::NAN].map(|f| kinds(f.to_bits())),
        [0, 1, 2, 3]
    );
    assert_eq!(
        t414("unpacksn", (1, 0, 0)).b,
        1,
        "a denormal's exponent is 1"
    );
    // roundsn packs them back, to nearest even on the guard bits.
    for f in [1.5f32, 3.25, 1.0e-3, 123_456.78, f32::MAX] {
        let u = t414("unpacksn", (f.to_bits(), 0, 0));
        let r = t414("roundsn", (0, u.a, u.b));
        assert_eq!(r.a, f.to_bits(), "{f}");
    }
    assert_eq!(
        t414("roundsn", (1, 0xC000_0080, 127)).a,
        0x3FC0_0001,
        "past half: up"
    );
    assert_eq!(
        t414("roundsn", (0, 0xC000_0080, 127)).a,
        0x3FC0_0000,
        "a tie, even: down"
    );
    assert_eq!(
        t414("roundsn", (0, 0xC000_0000, 255)).a,
        0x7F80_0000,
        "overflow: infinity"
    );
    // postnormsn: exponent 3 (in W[0]) less 5 places shifted is −2: a denormal, shifted 3.
    let source = "ldc 3\nstl 0\nldc 5\nldc #80000000\nldc 0\npostnormsn";
    let p = t414(source, (0, 0, 0));
    assert_eq!((p.a, p.b, p.c), (0, 0x1000_0000, 0));
    // ldinf and cflerr.
    assert_eq!(t414("ldinf", (0, 0, 0)).a, 0x7F80_0000);
    assert!(t414("cflerr", (0x7F80_0000, 0, 0)).error);
    assert!(!t414("cflerr", (1.0f32.to_bits(), 0, 0)).error);
}
