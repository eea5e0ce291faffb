//! The T414/T800 instruction set as data: the 16 direct functions, the operations reached
//! through `opr`, which chip has which, and what each costs in cycles.
//!
//! Cycle counts follow the datasheet table as transcribed in `pahihu/t4:Notebook.txt`
//! (the INMOS instruction-set tables), on-chip RAM, one cycle more per prefix
//! byte. Where a count depends on the operands it is a [`Cost`] formula; the processor
//! evaluates it with the operands it saw.

/// A processor type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chip {
    /// The 32-bit integer transputer (2 KB on-chip RAM).
    T414,
    /// The 32-bit transputer with a floating-point unit (4 KB on-chip RAM).
    T800,
}

impl Chip {
    /// The chip's name, as `--chip` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Chip::T414 => "T414",
            Chip::T800 => "T800",
        }
    }

    /// The chip of a name (`t414`, `T800`, …).
    pub fn from_name(name: &str) -> Option<Chip> {
        match name.to_ascii_uppercase().as_str() {
            "T414" => Some(Chip::T414),
            "T800" | "T805" => Some(Chip::T800),
            _ => None,
        }
    }

    /// Bytes of on-chip RAM (from `MinInt`).
    pub fn on_chip_bytes(self) -> u32 {
        match self {
            Chip::T414 => 2048,
            Chip::T800 => 4096,
        }
    }

    /// The first address free for programs (above the link channels, timer queue heads and
    /// the interrupt save area; the T800's reserved area is larger).
    pub fn mem_start(self) -> u32 {
        match self {
            Chip::T414 => 0x8000_0048,
            Chip::T800 => 0x8000_0070,
        }
    }
}

/// The 16 direct functions, by their 4-bit code.
pub const DIRECT: [&str; 16] = [
    "j", "ldlp", "pfix", "ldnl", "ldc", "ldnlp", "nfix", "ldl", "adc", "call", "cj", "ajw", "eqc",
    "stl", "stnl", "opr",
];

/// What an instruction costs in cycles, before memory wait states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// Always this many.
    Fixed(u32),
    /// `base + per · w`, `w` the message or block length in words (rounded up).
    PerWord { base: u32, per: u32 },
    /// `base + n`, `n` a shift count or the position of the highest set bit.
    PerBit { base: u32 },
    /// One count when a condition holds (jump taken, guard ready, time in the future, loop
    /// continues), another when it does not.
    Either { yes: u32, no: u32 },
}

/// An operation, as the processor dispatches on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `rev`.
    Rev,
    /// `lb`.
    Lb,
    /// `bsub`.
    Bsub,
    /// `endp`.
    Endp,
    /// `diff`.
    Diff,
    /// `add`.
    Add,
    /// `gcall`.
    Gcall,
    /// `in`.
    In,
    /// `prod`.
    Prod,
    /// `gt`.
    Gt,
    /// `wsub`.
    Wsub,
    /// `out`.
    Out,
    /// `sub`.
    Sub,
    /// `startp`.
    Startp,
    /// `outbyte`.
    Outbyte,
    /// `outword`.
    Outword,
    /// `seterr`.
    Seterr,
    /// `resetch`.
    Resetch,
    /// `csub0`.
    Csub0,
    /// `stopp`.
    Stopp,
    /// `ladd`.
    Ladd,
    /// `stlb`.
    Stlb,
    /// `sthf`.
    Sthf,
    /// `norm`.
    Norm,
    /// `ldiv`.
    Ldiv,
    /// `ldpi`.
    Ldpi,
    /// `stlf`.
    Stlf,
    /// `xdble`.
    Xdble,
    /// `ldpri`.
    Ldpri,
    /// `rem`.
    Rem,
    /// `ret`.
    Ret,
    /// `lend`.
    Lend,
    /// `ldtimer`.
    Ldtimer,
    /// `testerr`.
    Testerr,
    /// `testpranal`.
    Testpranal,
    /// `tin`.
    Tin,
    /// `div`.
    Div,
    /// `dist`.
    Dist,
    /// `disc`.
    Disc,
    /// `diss`.
    Diss,
    /// `lmul`.
    Lmul,
    /// `not`.
    Not,
    /// `xor`.
    Xor,
    /// `bcnt`.
    Bcnt,
    /// `lshr`.
    Lshr,
    /// `lshl`.
    Lshl,
    /// `lsum`.
    Lsum,
    /// `lsub`.
    Lsub,
    /// `runp`.
    Runp,
    /// `xword`.
    Xword,
    /// `sb`.
    Sb,
    /// `gajw`.
    Gajw,
    /// `savel`.
    Savel,
    /// `saveh`.
    Saveh,
    /// `wcnt`.
    Wcnt,
    /// `shr`.
    Shr,
    /// `shl`.
    Shl,
    /// `mint`.
    Mint,
    /// `alt`.
    Alt,
    /// `altwt`.
    Altwt,
    /// `altend`.
    Altend,
    /// `and`.
    And,
    /// `enbt`.
    Enbt,
    /// `enbc`.
    Enbc,
    /// `enbs`.
    Enbs,
    /// `move`.
    Move,
    /// `or`.
    Or,
    /// `csngl`.
    Csngl,
    /// `ccnt1`.
    Ccnt1,
    /// `talt`.
    Talt,
    /// `ldiff`.
    Ldiff,
    /// `sthb`.
    Sthb,
    /// `taltwt`.
    Taltwt,
    /// `sum`.
    Sum,
    /// `mul`.
    Mul,
    /// `sttimer`.
    Sttimer,
    /// `stoperr`.
    Stoperr,
    /// `cword`.
    Cword,
    /// `clrhalterr`.
    Clrhalterr,
    /// `sethalterr`.
    Sethalterr,
    /// `testhalterr`.
    Testhalterr,
    /// `dup`.
    Dup,
    /// `move2dinit`: the rows and strides of the next 2-D block moves.
    Move2dinit,
    /// `move2dall`: a 2-D block move.
    Move2dall,
    /// `move2dnonzero`: a 2-D block move of the non-zero bytes.
    Move2dnonzero,
    /// `move2dzero`: a 2-D block move of the zero bytes.
    Move2dzero,
    /// `unpacksn`.
    Unpacksn,
    /// `postnormsn`.
    Postnormsn,
    /// `roundsn`.
    Roundsn,
    /// `ldinf`.
    Ldinf,
    /// `cflerr`.
    Cflerr,
    /// `crcword`.
    Crcword,
    /// `crcbyte`.
    Crcbyte,
    /// `bitcnt`.
    Bitcnt,
    /// `bitrevword`.
    Bitrevword,
    /// `bitrevnbits`.
    Bitrevnbits,
    /// `wsubdb`.
    Wsubdb,
    /// `probe`.
    Probe,
    /// `fmul` (fractional multiply).
    Fmul,
    /// A T800 floating-point operation.
    Fp(FpOp),
}

/// The T800's direct floating-point operations (`fpentry` takes a selector from A: see
/// [`FP_ENTRY`]).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FpOp {
    Ldnlsn,
    Ldnldb,
    Ldnlsni,
    Ldnldbi,
    Ldzerosn,
    Ldzerodb,
    Ldnladdsn,
    Ldnladddb,
    Ldnlmulsn,
    Ldnlmuldb,
    Stnlsn,
    Stnldb,
    Stnli32,
    Add,
    Sub,
    Mul,
    Div,
    Remfirst,
    Remstep,
    Nan,
    Ordered,
    Notfinite,
    Gt,
    Eq,
    I32tor32,
    I32tor64,
    B32tor64,
    Testerr,
    Rtoi32,
    Int,
    Dup,
    Rev,
    Chkerr,
    Entry,
}

/// What an `fpentry` selector does.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FpEntry {
    Sqrtfirst,
    Sqrtstep,
    Sqrtlast,
    Rp,
    Rm,
    Rz,
    Rn,
    R32tor64,
    R64tor32,
    Expdec32,
    Expinc32,
    Abs,
    Noround,
    Chki32,
    Chki64,
    Divby2,
    Mulby2,
    Seterr,
    Clrerr,
}

/// The `fpentry` selectors: the value in A, what it does, its name and its cost (datasheet
/// timings).
pub const FP_ENTRY: &[(u32, FpEntry, &str, Cost)] = &[
    (0x01, FpEntry::Sqrtfirst, "fpusqrtfirst", Cost::Fixed(27)),
    (0x02, FpEntry::Sqrtstep, "fpusqrtstep", Cost::Fixed(42)),
    (0x03, FpEntry::Sqrtlast, "fpusqrtlast", Cost::Fixed(8)),
    (0x04, FpEntry::Rp, "fpurp", Cost::Fixed(1)),
    (0x05, FpEntry::Rm, "fpurm", Cost::Fixed(1)),
    (0x06, FpEntry::Rz, "fpurz", Cost::Fixed(1)),
    (0x07, FpEntry::R32tor64, "fpur32tor64", Cost::Fixed(3)),
    (0x08, FpEntry::R64tor32, "fpur64tor32", Cost::Fixed(3)),
    (0x09, FpEntry::Expdec32, "fpuexpdec32", Cost::Fixed(6)),
    (0x0A, FpEntry::Expinc32, "fpuexpinc32", Cost::Fixed(6)),
    (0x0B, FpEntry::Abs, "fpuabs", Cost::Fixed(2)),
    (0x0D, FpEntry::Noround, "fpunoround", Cost::Fixed(2)),
    (0x0E, FpEntry::Chki32, "fpuchki32", Cost::Fixed(3)),
    (0x0F, FpEntry::Chki64, "fpuchki64", Cost::Fixed(2)),
    (0x11, FpEntry::Divby2, "fpudivby2", Cost::Fixed(6)),
    (0x12, FpEntry::Mulby2, "fpumulby2", Cost::Fixed(6)),
    (0x22, FpEntry::Rn, "fpurn", Cost::Fixed(1)),
    (0x23, FpEntry::Seterr, "fpuseterr", Cost::Fixed(1)),
    (0x9C, FpEntry::Clrerr, "fpuclrerr", Cost::Fixed(1)),
];

/// The `fpentry` selector named `name`.
pub fn fp_entry_named(name: &str) -> Option<u32> {
    FP_ENTRY.iter().find(|e| e.2 == name).map(|e| e.0)
}

/// Which chips have an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chips {
    /// Both.
    All,
    /// The T800 (and later) only.
    T800,
    /// The T414 only (its floating-point support operations).
    T414,
}

/// One operation reached through `opr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    /// What it is.
    pub op: Op,
    /// Its operation code (the operand of `opr`).
    pub code: u16,
    /// Its mnemonic.
    pub name: &'static str,
    /// Which chips have it.
    pub chips: Chips,
    /// Its cost.
    pub cost: Cost,
}

/// A T800 floating-point operation.
const fn fp(f: FpOp, code: u16, name: &'static str, cost: Cost) -> OpInfo {
    op(Op::Fp(f), code, name, Chips::T800, cost)
}

const fn op(op: Op, code: u16, name: &'static str, chips: Chips, cost: Cost) -> OpInfo {
    OpInfo {
        op,
        code,
        name,
        chips,
        cost,
    }
}

use Chips::{All, T414 as T414_ONLY, T800 as T800_ONLY};
use Cost::{Either, Fixed, PerBit, PerWord};

/// The operation code of the probe operation: not an INMOS operation. It records a user probe
/// (tag in A, a pointer to the text in B, its length in C) in the trace and costs 1 cycle.
pub const PROBE: u16 = 0xF0;

/// Every operation the emulator knows, with its cost (T800 with on-chip RAM).
pub const OPERATIONS: &[OpInfo] = &[
    op(Op::Rev, 0x00, "rev", All, Fixed(1)),
    op(Op::Lb, 0x01, "lb", All, Fixed(5)),
    op(Op::Bsub, 0x02, "bsub", All, Fixed(1)),
    op(Op::Endp, 0x03, "endp", All, Fixed(13)),
    op(Op::Diff, 0x04, "diff", All, Fixed(1)),
    op(Op::Add, 0x05, "add", All, Fixed(1)),
    op(Op::Gcall, 0x06, "gcall", All, Fixed(4)),
    op(Op::In, 0x07, "in", All, PerWord { base: 19, per: 2 }),
    op(Op::Prod, 0x08, "prod", All, PerBit { base: 4 }),
    op(Op::Gt, 0x09, "gt", All, Fixed(2)),
    op(Op::Wsub, 0x0A, "wsub", All, Fixed(2)),
    op(Op::Out, 0x0B, "out", All, PerWord { base: 19, per: 2 }),
    op(Op::Sub, 0x0C, "sub", All, Fixed(1)),
    op(Op::Startp, 0x0D, "startp", All, Fixed(12)),
    op(Op::Outbyte, 0x0E, "outbyte", All, Fixed(23)),
    op(Op::Outword, 0x0F, "outword", All, Fixed(23)),
    op(Op::Seterr, 0x10, "seterr", All, Fixed(1)),
    op(Op::Resetch, 0x12, "resetch", All, Fixed(3)),
    op(Op::Csub0, 0x13, "csub0", All, Fixed(2)),
    op(Op::Stopp, 0x15, "stopp", All, Fixed(11)),
    op(Op::Ladd, 0x16, "ladd", All, Fixed(2)),
    op(Op::Stlb, 0x17, "stlb", All, Fixed(1)),
    op(Op::Sthf, 0x18, "sthf", All, Fixed(1)),
    op(Op::Norm, 0x19, "norm", All, PerBit { base: 5 }),
    op(Op::Ldiv, 0x1A, "ldiv", All, Fixed(35)),
    op(Op::Ldpi, 0x1B, "ldpi", All, Fixed(2)),
    op(Op::Stlf, 0x1C, "stlf", All, Fixed(1)),
    op(Op::Xdble, 0x1D, "xdble", All, Fixed(2)),
    op(Op::Ldpri, 0x1E, "ldpri", All, Fixed(1)),
    op(Op::Rem, 0x1F, "rem", All, Fixed(37)),
    op(Op::Ret, 0x20, "ret", All, Fixed(5)),
    op(Op::Lend, 0x21, "lend", All, Either { yes: 10, no: 5 }),
    op(Op::Ldtimer, 0x22, "ldtimer", All, Fixed(2)),
    op(Op::Testerr, 0x29, "testerr", All, Either { yes: 2, no: 3 }),
    op(Op::Testpranal, 0x2A, "testpranal", All, Fixed(2)),
    op(Op::Tin, 0x2B, "tin", All, Either { yes: 30, no: 4 }),
    op(Op::Div, 0x2C, "div", All, Fixed(39)),
    op(Op::Dist, 0x2E, "dist", All, Fixed(23)),
    op(Op::Disc, 0x2F, "disc", All, Fixed(8)),
    op(Op::Diss, 0x30, "diss", All, Fixed(4)),
    op(Op::Lmul, 0x31, "lmul", All, Fixed(33)),
    op(Op::Not, 0x32, "not", All, Fixed(1)),
    op(Op::Xor, 0x33, "xor", All, Fixed(1)),
    op(Op::Bcnt, 0x34, "bcnt", All, Fixed(2)),
    op(Op::Lshr, 0x35, "lshr", All, PerBit { base: 3 }),
    op(Op::Lshl, 0x36, "lshl", All, PerBit { base: 3 }),
    op(Op::Lsum, 0x37, "lsum", All, Fixed(3)),
    op(Op::Lsub, 0x38, "lsub", All, Fixed(2)),
    op(Op::Runp, 0x39, "runp", All, Fixed(10)),
    op(Op::Xword, 0x3A, "xword", All, Fixed(4)),
    op(Op::Sb, 0x3B, "sb", All, Fixed(4)),
    op(Op::Gajw, 0x3C, "gajw", All, Fixed(2)),
    op(Op::Savel, 0x3D, "savel", All, Fixed(4)),
    op(Op::Saveh, 0x3E, "saveh", All, Fixed(4)),
    op(Op::Wcnt, 0x3F, "wcnt", All, Fixed(5)),
    op(Op::Shr, 0x40, "shr", All, PerBit { base: 2 }),
    op(Op::Shl, 0x41, "shl", All, PerBit { base: 2 }),
    op(Op::Mint, 0x42, "mint", All, Fixed(1)),
    op(Op::Alt, 0x43, "alt", All, Fixed(2)),
    op(Op::Altwt, 0x44, "altwt", All, Either { yes: 5, no: 17 }),
    op(Op::Altend, 0x45, "altend", All, Fixed(4)),
    op(Op::And, 0x46, "and", All, Fixed(1)),
    op(Op::Enbt, 0x47, "enbt", All, Fixed(8)),
    op(Op::Enbc, 0x48, "enbc", All, Either { yes: 7, no: 5 }),
    op(Op::Enbs, 0x49, "enbs", All, Fixed(3)),
    op(Op::Move, 0x4A, "move", All, PerWord { base: 8, per: 2 }),
    op(Op::Or, 0x4B, "or", All, Fixed(1)),
    op(Op::Csngl, 0x4C, "csngl", All, Fixed(3)),
    op(Op::Ccnt1, 0x4D, "ccnt1", All, Fixed(3)),
    op(Op::Talt, 0x4E, "talt", All, Fixed(4)),
    op(Op::Ldiff, 0x4F, "ldiff", All, Fixed(3)),
    op(Op::Sthb, 0x50, "sthb", All, Fixed(1)),
    op(Op::Taltwt, 0x51, "taltwt", All, Either { yes: 15, no: 48 }),
    op(Op::Sum, 0x52, "sum", All, Fixed(1)),
    op(Op::Mul, 0x53, "mul", All, Fixed(40)),
    op(Op::Sttimer, 0x54, "sttimer", All, Fixed(1)),
    op(Op::Stoperr, 0x55, "stoperr", All, Fixed(2)),
    op(Op::Cword, 0x56, "cword", All, Fixed(5)),
    op(Op::Clrhalterr, 0x57, "clrhalterr", All, Fixed(1)),
    op(Op::Sethalterr, 0x58, "sethalterr", All, Fixed(1)),
    op(Op::Testhalterr, 0x59, "testhalterr", All, Fixed(2)),
    op(Op::Dup, 0x5A, "dup", T800_ONLY, Fixed(1)),
    op(Op::Move2dinit, 0x5B, "move2dinit", T800_ONLY, Fixed(8)),
    // The moves cost (2p + 23) a row, p the row's words: charged row by row.
    op(
        Op::Move2dall,
        0x5C,
        "move2dall",
        T800_ONLY,
        PerWord { base: 23, per: 2 },
    ),
    op(
        Op::Move2dnonzero,
        0x5D,
        "move2dnonzero",
        T800_ONLY,
        PerWord { base: 23, per: 2 },
    ),
    op(
        Op::Move2dzero,
        0x5E,
        "move2dzero",
        T800_ONLY,
        PerWord { base: 23, per: 2 },
    ),
    op(Op::Unpacksn, 0x63, "unpacksn", T414_ONLY, Fixed(15)),
    op(Op::Postnormsn, 0x6C, "postnormsn", T414_ONLY, Fixed(30)),
    op(Op::Roundsn, 0x6D, "roundsn", T414_ONLY, Fixed(12)),
    op(Op::Ldinf, 0x71, "ldinf", T414_ONLY, Fixed(1)),
    op(Op::Cflerr, 0x73, "cflerr", T414_ONLY, Fixed(3)),
    op(Op::Crcword, 0x74, "crcword", T800_ONLY, Fixed(35)),
    op(Op::Crcbyte, 0x75, "crcbyte", T800_ONLY, Fixed(11)),
    op(Op::Bitcnt, 0x76, "bitcnt", T800_ONLY, PerBit { base: 2 }),
    op(Op::Bitrevword, 0x77, "bitrevword", T800_ONLY, Fixed(36)),
    op(
        Op::Bitrevnbits,
        0x78,
        "bitrevnbits",
        T800_ONLY,
        PerBit { base: 4 },
    ),
    op(Op::Wsubdb, 0x81, "wsubdb", T800_ONLY, Fixed(3)),
    op(Op::Fmul, 0x72, "fmul", All, Fixed(35)),
    // The T800's FPU (datasheet timings; `Either`: double length (`yes`) or single (`no`)).
    fp(FpOp::Ldnldbi, 0x82, "fpldnldbi", Fixed(6)),
    fp(FpOp::Chkerr, 0x83, "fpchkerr", Fixed(1)),
    fp(FpOp::Stnldb, 0x84, "fpstnldb", Fixed(3)),
    fp(FpOp::Ldnlsni, 0x86, "fpldnlsni", Fixed(4)),
    fp(FpOp::Add, 0x87, "fpadd", Either { yes: 9, no: 6 }),
    fp(FpOp::Stnlsn, 0x88, "fpstnlsn", Fixed(2)),
    fp(FpOp::Sub, 0x89, "fpsub", Either { yes: 9, no: 6 }),
    fp(FpOp::Ldnldb, 0x8A, "fpldnldb", Fixed(3)),
    fp(FpOp::Mul, 0x8B, "fpmul", Either { yes: 18, no: 11 }),
    fp(FpOp::Div, 0x8C, "fpdiv", Either { yes: 31, no: 16 }),
    fp(FpOp::Ldnlsn, 0x8E, "fpldnlsn", Fixed(2)),
    fp(FpOp::Remfirst, 0x8F, "fpremfirst", Fixed(36)),
    fp(FpOp::Remstep, 0x90, "fpremstep", Fixed(32)),
    fp(FpOp::Nan, 0x91, "fpnan", Fixed(2)),
    fp(FpOp::Ordered, 0x92, "fpordered", Fixed(3)),
    fp(FpOp::Notfinite, 0x93, "fpnotfinite", Fixed(2)),
    fp(FpOp::Gt, 0x94, "fpgt", Either { yes: 5, no: 4 }),
    fp(FpOp::Eq, 0x95, "fpeq", Either { yes: 4, no: 3 }),
    fp(FpOp::I32tor32, 0x96, "fpi32tor32", Fixed(8)),
    fp(FpOp::I32tor64, 0x98, "fpi32tor64", Fixed(8)),
    fp(FpOp::B32tor64, 0x9A, "fpb32tor64", Fixed(8)),
    fp(FpOp::Testerr, 0x9C, "fptesterr", Fixed(2)),
    fp(FpOp::Rtoi32, 0x9D, "fprtoi32", Fixed(2)),
    fp(FpOp::Stnli32, 0x9E, "fpstnli32", Fixed(4)),
    fp(FpOp::Ldzerosn, 0x9F, "fpldzerosn", Fixed(2)),
    fp(FpOp::Ldzerodb, 0xA0, "fpldzerodb", Fixed(2)),
    fp(FpOp::Int, 0xA1, "fpint", Fixed(5)),
    fp(FpOp::Dup, 0xA3, "fpdup", Fixed(1)),
    fp(FpOp::Rev, 0xA4, "fprev", Fixed(1)),
    fp(FpOp::Ldnladddb, 0xA6, "fpldnladddb", Fixed(9)),
    fp(FpOp::Ldnlmuldb, 0xA8, "fpldnlmuldb", Fixed(21)),
    fp(FpOp::Ldnladdsn, 0xAA, "fpldnladdsn", Fixed(8)),
    fp(FpOp::Entry, 0xAB, "fpentry", Fixed(1)),
    fp(FpOp::Ldnlmulsn, 0xAC, "fpldnlmulsn", Fixed(13)),
    op(Op::Probe, PROBE, "probe", All, Fixed(1)),
];

/// A chip's instruction costs: direct functions by code, operations by code.
#[derive(Debug, Clone)]
pub struct CycleTable {
    /// The chip.
    pub chip: Chip,
    /// Cycles of each direct function (`cj` taken, see [`CycleTable::cj_not_taken`]).
    pub direct: [u32; 16],
    /// `cj` when it does not jump.
    pub cj_not_taken: u32,
    /// The chip's operations, indexed by operation code (`None`: not on this chip): one table
    /// a chip, shared by every node (copying a node, as a checkpoint does, copied 8 KB of
    /// table when each node had its own).
    ops: &'static [Option<OpInfo>; 0x100],
    /// Extra cycles for each memory access outside on-chip RAM.
    pub wait_states: u32,
}

/// The operations of `chip` by code, built at compile time.
const fn operations_of(chip: Chip) -> [Option<OpInfo>; 0x100] {
    let mut ops = [None; 0x100];
    let mut k = 0;
    while k < OPERATIONS.len() {
        let info = OPERATIONS[k];
        let on_chip = match info.chips {
            Chips::All => true,
            Chips::T800 => matches!(chip, Chip::T800),
            Chips::T414 => matches!(chip, Chip::T414),
        };
        if on_chip {
            ops[info.code as usize] = Some(info);
        }
        k += 1;
    }
    ops
}

static T414_OPERATIONS: [Option<OpInfo>; 0x100] = operations_of(Chip::T414);
static T800_OPERATIONS: [Option<OpInfo>; 0x100] = operations_of(Chip::T800);

impl CycleTable {
    /// The table of `chip`, with `wait_states` extra cycles per external memory access.
    pub fn new(chip: Chip, wait_states: u32) -> CycleTable {
        CycleTable {
            chip,
            // j ldlp pfix ldnl ldc ldnlp nfix ldl adc call cj ajw eqc stl stnl opr
            direct: [3, 1, 1, 2, 1, 1, 1, 2, 1, 7, 4, 1, 2, 1, 2, 0],
            cj_not_taken: 2,
            ops: match chip {
                Chip::T414 => &T414_OPERATIONS,
                Chip::T800 => &T800_OPERATIONS,
            },
            wait_states,
        }
    }

    /// The operation with code `code` on this chip.
    pub fn op(&self, code: u32) -> Option<&OpInfo> {
        self.ops.get(code as usize).and_then(Option::as_ref)
    }

    /// The operation called `name` on this chip.
    pub fn op_named(&self, name: &str) -> Option<&OpInfo> {
        self.ops.iter().flatten().find(|op| op.name == name)
    }
}

/// The code of a direct function's mnemonic.
pub fn direct_code(name: &str) -> Option<u8> {
    DIRECT.iter().position(|&d| d == name).map(|k| k as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_has_one_code_and_one_name() {
        let mut codes = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        for op in OPERATIONS {
            assert!(codes.insert(op.code), "code {:#x} twice", op.code);
            assert!(names.insert(op.name), "{} twice", op.name);
        }
        for d in DIRECT {
            assert!(!names.contains(d), "{d} is a direct function");
        }
    }

    #[test]
    fn chips_differ_by_their_additions() {
        let t414 = CycleTable::new(Chip::T414, 0);
        let t800 = CycleTable::new(Chip::T800, 0);
        assert!(t800.op_named("dup").is_some() && t414.op_named("dup").is_none());
        assert!(t414.op_named("unpacksn").is_some() && t800.op_named("unpacksn").is_none());
        assert_eq!(t800.op(0x07).map(|o| o.name), Some("in"));
        assert_eq!(t800.op(0x11), None);
        // The reference's published counts (transputer.md §2.3).
        let cost = |name| t800.op_named(name).map(|o| o.cost);
        assert_eq!(cost("in"), Some(Cost::PerWord { base: 19, per: 2 }));
        assert_eq!(cost("outword"), Some(Cost::Fixed(23)));
        assert_eq!(cost("startp"), Some(Cost::Fixed(12)));
        assert_eq!(cost("endp"), Some(Cost::Fixed(13)));
        assert_eq!(cost("lend"), Some(Cost::Either { yes: 10, no: 5 }));
        assert_eq!(cost("tin"), Some(Cost::Either { yes: 30, no: 4 }));
        assert_eq!(direct_code("cj"), Some(0xA));
        assert_eq!(
            t800.direct[usize::from(direct_code("call").unwrap_or(0))],
            7
        );
    }
}
