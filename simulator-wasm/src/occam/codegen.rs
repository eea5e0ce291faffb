//! Code generation: the tree of processes to the emulator's assembly.
//!
//! Each process has a workspace frame (W[0] scratch and a PAR's join address, W[1] the join
//! count, locals from W[2]); a PAR's branches get frames below their parent's, at offsets
//! chosen once their sizes are known, so a branch reaches its parent's variables with one
//! `ldl` (offsets are assembler constants defined after the code that uses them); a PROC call
//! passes its parameters in A, B and C. VALs whose value is known when compiling are
//! constants (no storage), and so are replicator indices of expanded PARs.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::error::OccamError;
use super::parse::{
    Alternative, ChanRef, Expr, Guard, Item, Param, Placement, Pos, Proc, Protocol, Replicator,
    Rounding, Shape, Target, Type, Variant, Variation,
};
use super::place::{self, Dir, Placed, Use};
use crate::topology::Topology;

/// Compiles a parsed program for `topology`.
pub fn generate(
    tree: &Proc,
    variants: &[Variant],
    topology: &Topology,
) -> Result<String, OccamError> {
    let mut g = Gen {
        nodes: topology.nodes,
        variants: variants.to_vec(),
        ..Gen::default()
    };
    let main = g.new_frame(None);
    g.code.push_str("    ajw -FRAME0\n");
    // A = the node's number when it starts.
    g.node_slot = g.slot(main);
    g.emit(format!("stl {}", g.node_slot));
    if !placed(tree) {
        // A program without a configuration runs on processor 0.
        let run = g.label();
        g.emit(format!("ldl {}", g.node_slot));
        g.emit(format!("cj {run}"));
        g.emit("stopp");
        g.code.push_str(&format!("{run}:\n"));
    }
    // The network's size, and a grid's width (the node count for other networks).
    g.declare("NODES", Sym::Const(i64::from(topology.nodes)));
    let width = topology
        .name
        .split_whitespace()
        .nth(1)
        .and_then(|dims| dims.split_once('x'))
        .and_then(|(w, _)| w.parse::<u32>().ok())
        .filter(|_| {
            ["mesh", "torus", "cylinder"]
                .iter()
                .any(|grid| topology.name.starts_with(grid))
        })
        .unwrap_or(topology.nodes);
    g.declare("WIDTH", Sym::Const(i64::from(width)));
    g.process(tree, main)?;
    g.emit("stopp");
    let (links, words) = place::map(&g.uses, &g.placed, topology)?;
    let mut out = std::mem::take(&mut g.code);
    for block in &g.deferred {
        out.push_str(block);
    }
    if g.uses_host {
        out.push_str(HOST_LIBRARY);
    }
    if g.uses_ldiv {
        out.push_str(LDIV_LIBRARY);
    }
    out.push_str("    .align 4\n");
    out.push_str(&words);
    out.push_str(&g.data);
    for (k, f) in g.frames.iter().enumerate() {
        let _ = writeln!(out, "FRAME{k} = {}", f.size());
    }
    out.push_str(&g.constants);
    out.push_str(&links);
    Ok(out)
}

/// A process's role, to name it by in a trace: its first probe's text, else the first PROC
/// it calls (a name the assembler takes: letters, digits, `_` and `.`); choices known to be
/// false when compiling are passed over.
fn role<'p>(p: &'p Proc, constant: &dyn Fn(&Expr) -> Option<i64>) -> Option<&'p str> {
    let named = |s: &str| {
        !s.is_empty()
            && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    };
    match p {
        Proc::Call(name, args, _) if name == "probe" => match args.get(1) {
            Some(Expr::Str(text, _)) => {
                let text = text.trim();
                named(text).then_some(text)
            }
            _ => None,
        },
        Proc::Call(name, _, _) => Some(name),
        Proc::Seq(list) => list.iter().find_map(|q| role(q, constant)),
        Proc::If(choices) => choices
            .iter()
            .filter(|c| constant(&c.cond) != Some(0))
            .find_map(|c| role(&c.body, constant)),
        Proc::While(_, q)
        | Proc::RepSeq(_, _, _, q)
        | Proc::Decl(_, _, q)
        | Proc::Array(_, _, _, q)
        | Proc::Val(_, _, q, _)
        | Proc::Define(_, _, _, q, _) => role(q, constant),
        _ => None,
    }
}

/// The library routines `out.string` and `out.number` call: an SP.WRITE frame to the host on
/// link 0 and its reply read back (`OCC_SEND`: A the frame, B its length), and a number in
/// decimal framed for it (`OCC_NUMBER`: A the number).
const HOST_LIBRARY: &str = "\
OCC_SEND:
    ajw -2
    ldl 3
    ldc #80000000
    ldl 4
    out
    ldc OCC_REPLY
    ldc #80000010
    ldc 2
    in
    ldc OCC_REPLY
    lb
    ldc OCC_REPLY+1
    lb
    ldc 8
    shl
    or
    stl 0
    ldc OCC_REPLY
    ldc #80000010
    ldl 0
    in
    ajw 2
    ret
OCC_TEXT:
    ajw -4
    ldl 6
    ldc 490
    gt
    cj OCC_TEXT_FITS
    ldc 490
    stl 6
OCC_TEXT_FITS:
    ldl 6
    adc 7
    stl 0
    ldl 0
    ldc 1
    and
    cj OCC_TEXT_EVEN
    ldl 0
    adc 1
    stl 0
OCC_TEXT_EVEN:
    ldl 0
    ldc OCC_OUT
    sb
    ldl 0
    ldc 8
    shr
    ldc OCC_OUT+1
    sb
    ldc 13
    ldc OCC_OUT+2
    sb
    ldc 1
    ldc OCC_OUT+3
    sb
    ldc 0
    ldc OCC_OUT+4
    sb
    ldc 0
    ldc OCC_OUT+5
    sb
    ldc 0
    ldc OCC_OUT+6
    sb
    ldl 6
    ldc OCC_OUT+7
    sb
    ldl 6
    ldc 8
    shr
    ldc OCC_OUT+8
    sb
    ldl 5
    ldc OCC_OUT+9
    ldl 6
    move
    ldl 0
    adc 2
    ldc OCC_OUT
    call OCC_SEND
    ajw 4
    ret
OCC_NUMBER:
    ajw -6
    ldc OCC_NUM+24
    stl 0
    ldl 7
    stl 1
    ldc 0
    ldl 1
    gt
    stl 2
    ldl 2
    cj OCC_DIGIT
    ldc 0
    ldl 1
    diff
    stl 1
OCC_DIGIT:
    ldl 0
    adc -1
    stl 0
    ldl 1
    ldc 10
    rem
    stl 3
    ldc 0
    ldl 3
    gt
    cj OCC_POS
    ldc 0
    ldl 3
    diff
    stl 3
OCC_POS:
    ldl 3
    adc 48
    ldl 0
    sb
    ldl 1
    ldc 10
    div
    stl 1
    ldl 1
    cj OCC_SIGN
    j OCC_DIGIT
OCC_SIGN:
    ldl 2
    cj OCC_FRAME
    ldl 0
    adc -1
    stl 0
    ldc 45
    ldl 0
    sb
OCC_FRAME:
    ldc OCC_NUM+24
    ldl 0
    diff
    stl 3
    ldl 3
    adc 7
    stl 4
    ldl 4
    ldc 1
    and
    cj OCC_EVEN
    ldl 4
    adc 1
    stl 4
OCC_EVEN:
    ldl 4
    ldl 0
    adc -9
    sb
    ldc 0
    ldl 0
    adc -8
    sb
    ldc 13
    ldl 0
    adc -7
    sb
    ldc 1
    ldl 0
    adc -6
    sb
    ldc 0
    ldl 0
    adc -5
    sb
    ldc 0
    ldl 0
    adc -4
    sb
    ldc 0
    ldl 0
    adc -3
    sb
    ldl 3
    ldl 0
    adc -2
    sb
    ldc 0
    ldl 0
    adc -1
    sb
    ldl 4
    adc 2
    ldl 0
    adc -9
    call OCC_SEND
    ajw 6
    ret
    .align 4
OCC_NUM:
    .word 0, 0, 0, 0, 0, 0, 0, 0
OCC_OUT:
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
OCC_REPLY:
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .word 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
";

/// An error without a place (an expression of literals) placed at its statement.
fn located(e: OccamError, pos: Pos) -> OccamError {
    if e.line == 0 {
        OccamError::at_pos(pos, e.message)
    } else {
        e
    }
}

/// Bytes an element of an array of `ty` takes.
fn elem_bytes(ty: Type) -> i64 {
    match ty {
        Type::Byte => 1,
        Type::Int16 => 2,
        Type::Real64 | Type::Int64 => 8,
        _ => 4,
    }
}

/// The literal text of a REAL constant (`1.5`, or `1.5` as REAL32), if it is one.
fn real_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::Real(text, _, _) => Some(text),
        Expr::Convert(_, _, x, _) => real_literal(x),
        _ => None,
    }
}

/// The FPU's load of a REAL of type `ty` from the address in A.
fn fp_load(ty: Type) -> &'static str {
    if ty == Type::Real64 {
        "fpldnldb"
    } else {
        "fpldnlsn"
    }
}

/// The FPU's store of FA, a REAL of type `ty`, at the address in A.
fn fp_store(ty: Type) -> &'static str {
    if ty == Type::Real64 {
        "fpstnldb"
    } else {
        "fpstnlsn"
    }
}

/// A type's name, as occam writes it.
fn type_name(ty: Type) -> &'static str {
    match ty {
        Type::Int => "INT",
        Type::Bool => "BOOL",
        Type::Byte => "BYTE",
        Type::Int16 => "INT16",
        Type::Int64 => "INT64",
        Type::Real32 => "REAL32",
        Type::Real64 => "REAL64",
        Type::Chan(_) => "CHAN",
        Type::Timer => "TIMER",
    }
}

/// Where an expression is (its first name or operator), for errors.
fn expr_pos(e: &Expr) -> Pos {
    match e {
        Expr::Var(_, p)
        | Expr::Bin(_, _, _, p)
        | Expr::Index(_, _, p)
        | Expr::Str(_, p)
        | Expr::Size(_, p)
        | Expr::Call(_, _, p)
        | Expr::Real(_, _, p)
        | Expr::Slice(_, _, _, p)
        | Expr::Table(_, p)
        | Expr::Convert(_, _, _, p) => *p,
        Expr::Not(x) | Expr::BitNot(x) | Expr::Neg(x) => expr_pos(x),
        Expr::Num(_) => Pos::default(),
    }
}

/// Unsigned 64-bit division, restoring, a bit a round (`OCC_LDIV`: A the dividend's
/// address, B the divisor's, C where the quotient and then the remainder go; low words first).
const LDIV_LIBRARY: &str = "\
OCC_LDIV:
    ajw -12
    ldl 13
    ldnl 0
    stl 0
    ldl 13
    ldnl 1
    stl 1
    ldl 14
    ldnl 0
    stl 2
    ldl 14
    ldnl 1
    stl 3
    ldc 0
    stl 4
    ldc 0
    stl 5
    ldc 0
    stl 6
    ldc 0
    stl 7
    ldc 64
    stl 8
OCC_LDIV_LOOP:
    ldl 5
    ldc 1
    shl
    ldl 4
    ldc 31
    shr
    or
    stl 5
    ldl 4
    ldc 1
    shl
    ldl 1
    ldc 31
    shr
    or
    stl 4
    ldl 1
    ldc 1
    shl
    ldl 0
    ldc 31
    shr
    or
    stl 1
    ldl 0
    ldc 1
    shl
    stl 0
    ldl 7
    ldc 1
    shl
    ldl 6
    ldc 31
    shr
    or
    stl 7
    ldl 6
    ldc 1
    shl
    stl 6
    ldc 0
    ldl 4
    ldl 2
    ldiff
    stl 9
    stl 10
    ldl 10
    ldl 5
    ldl 3
    ldiff
    stl 11
    cj OCC_LDIV_TAKE
    j OCC_LDIV_NEXT
OCC_LDIV_TAKE:
    ldl 9
    stl 4
    ldl 11
    stl 5
    ldl 6
    ldc 1
    or
    stl 6
OCC_LDIV_NEXT:
    ldl 8
    adc -1
    stl 8
    ldl 8
    cj OCC_LDIV_DONE
    j OCC_LDIV_LOOP
OCC_LDIV_DONE:
    ldl 6
    ldl 15
    stnl 0
    ldl 7
    ldl 15
    stnl 1
    ldl 4
    ldl 15
    stnl 2
    ldl 5
    ldl 15
    stnl 3
    ajw 12
    ret
";

/// Whether the program has a PLACED PAR.
fn placed(p: &Proc) -> bool {
    match p {
        Proc::Placed(..) => true,
        Proc::Seq(list) | Proc::Par(list, _) | Proc::PriPar(list, _) => list.iter().any(placed),
        Proc::Decl(_, _, q)
        | Proc::Array(_, _, _, q)
        | Proc::Val(_, _, q, _)
        | Proc::Define(_, _, _, q, _) => placed(q),
        _ => false,
    }
}

/// One processor of a PLACED PAR: its number, its replicator's name and value, its process.
type Processor<'p> = (u32, Option<(&'p str, i64)>, &'p Proc, Pos);

/// What a name stands for.
#[derive(Debug, Clone)]
enum Sym {
    /// A variable or channel word in a frame's slot.
    Var {
        frame: usize,
        slot: i64,
        ty: Type,
        writable: bool,
    },
    /// A PROC parameter passed by reference (its address in the slot).
    Ref { frame: usize, slot: i64, ty: Type },
    /// A PROC: its label, parameters, which end of each channel parameter it uses, and its
    /// frame.
    Procedure {
        label: String,
        params: Vec<Param>,
        dirs: Vec<Option<Dir>>,
        frame: usize,
        /// A FUNCTION: its value comes back in A (a REAL's in FA).
        function: bool,
        /// A FUNCTION's type (its first value's), and how many values it gives.
        result: Type,
        results: usize,
    },
    /// An array of `len` words (variables or channels) from a frame's slot.
    Array {
        frame: usize,
        slot: i64,
        len: i64,
        ty: Type,
    },
    /// An array parameter: its address in a slot, its length a constant or in a slot.
    ArrayRef {
        frame: usize,
        slot: i64,
        len: Len,
        ty: Type,
    },
    /// A timer (it needs no storage).
    Timer,
    /// A value known when compiling.
    Const(i64),
    /// A REAL known when compiling: its words in the program's data, at a label (so PROCs
    /// reach it too).
    RealConst { label: String, ty: Type },
    /// A channel PLACEd at a link: its channel word's address.
    Fixed { address: u32, protocol: Protocol },
    /// A channel (or array of channels) declared outside a PLACED PAR: its address on each
    /// processor is an assembler constant (`place::constant_name`).
    Placed {
        id: usize,
        len: Option<i64>,
        protocol: Protocol,
    },
}

/// An alternative as an ALT's code takes it: its index's binding (a replicated one whose
/// count is known), the alternative, and its loop (one whose count is not).
type LiveAlternative<'a> = (Option<(String, i64)>, &'a Alternative, Option<Looped>);

/// A replicated alternative whose count is known only when running: the slots of its base,
/// count, loop index and countdown, and the index of the guard chosen.
struct Looped {
    name: String,
    base: i64,
    count: i64,
    i: i64,
    n: i64,
    chosen: i64,
}

/// An array parameter's length: known when compiling (`[n]INT`), or passed with it (`[]INT`).
#[derive(Debug, Clone, Copy)]
enum Len {
    Const(i64),
    Slot(i64),
}

/// A workspace frame.
#[derive(Debug, Clone, Default)]
struct Frame {
    /// The frame it sits in (a PAR branch's parent) and the constant naming its offset in
    /// words below the parent's Wptr; none for the main program and PROCs.
    parent: Option<(usize, String)>,
    /// The next free slot (W[0] and W[1] are the scratch word and the join count).
    next: i64,
    /// Words needed below Wptr (PAR branches, PROC calls).
    below: i64,
}

impl Frame {
    /// Words from the frame's Wptr up to its last local.
    fn size(&self) -> i64 {
        self.next.max(2)
    }
}

#[derive(Default)]
struct Gen {
    code: String,
    deferred: Vec<String>,
    /// Data words and probe texts, after the code.
    data: String,
    constants: String,
    frames: Vec<Frame>,
    scopes: Vec<(String, Sym)>,
    labels: usize,
    /// The network's size.
    nodes: u32,
    /// The main frame's slot holding the node's number.
    node_slot: i64,
    /// The processor whose code is being generated, inside a PLACED PAR.
    processor: Option<u32>,
    /// Whether the code being generated is a FUNCTION's body.
    in_function: bool,
    /// The program's variant protocols.
    variants: Vec<Variant>,
    /// Whether a call may give several values (the right of a multiple assignment).
    taking_results: bool,
    /// The dimensions of arrays of more than one, by where they are (frame, slot).
    dims: HashMap<(usize, i64), Vec<i64>>,
    /// Whether the program writes to the host's screen (the library routines are then
    /// appended).
    uses_host: bool,
    /// Whether the program divides INT64s (the library's long division is then appended).
    uses_ldiv: bool,
    /// Placed channels, by number, and their uses.
    placed: Vec<Placed>,
    uses: Vec<Use>,
}

/// occam's INT arithmetic on constants: None when it overflows (the run-time check then
/// reports it) or divides by zero.
fn fold(op: &str, a: i64, b: i64) -> Option<i64> {
    let (a, b) = (a as i32, b as i32);
    let v = match op {
        "+" => a.checked_add(b)?,
        "-" => a.checked_sub(b)?,
        "*" => a.checked_mul(b)?,
        "/" => a.checked_div(b)?,
        "\\" => a.checked_rem(b)?,
        "PLUS" => a.wrapping_add(b),
        "MINUS" => a.wrapping_sub(b),
        "TIMES" => a.wrapping_mul(b),
        "REM" => a.checked_rem(b)?,
        "/\\" => a & b,
        "\\/" => a | b,
        "><" => a ^ b,
        "<<" => (a as u32).checked_shl(b as u32).unwrap_or(0) as i32,
        ">>" => (a as u32).checked_shr(b as u32).unwrap_or(0) as i32,
        "AND" => i32::from(a != 0 && b != 0),
        "OR" => i32::from(a != 0 || b != 0),
        "=" => i32::from(a == b),
        "<>" => i32::from(a != b),
        ">" => i32::from(a > b),
        "<" => i32::from(a < b),
        "<=" => i32::from(a <= b),
        _ => i32::from(a >= b),
    };
    Some(i64::from(v))
}

impl Gen {
    fn new_frame(&mut self, parent: Option<(usize, String)>) -> usize {
        self.frames.push(Frame {
            parent,
            next: 2,
            ..Frame::default()
        });
        self.frames.len() - 1
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels)
    }

    fn slot(&mut self, frame: usize) -> i64 {
        let f = &mut self.frames[frame];
        let s = f.next;
        f.next += 1;
        s
    }

    fn emit(&mut self, line: impl AsRef<str>) {
        self.code.push_str("    ");
        self.code.push_str(line.as_ref());
        self.code.push('\n');
    }

    fn lookup(&self, name: &str, pos: Pos) -> Result<Sym, OccamError> {
        self.scopes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
            .ok_or_else(|| OccamError::at_pos(pos, format!("\"{name}\" is not declared")))
    }

    /// The value of `e` if it is known when compiling.
    fn constant(&self, e: &Expr) -> Option<i64> {
        match e {
            Expr::Num(n) => Some(i64::from(*n as i32)),
            Expr::Var(name, _) => match self.scopes.iter().rev().find(|(n, _)| n == name) {
                Some((_, Sym::Const(v))) => Some(*v),
                _ => None,
            },
            Expr::Bin(op, l, r, _) => fold(op, self.constant(l)?, self.constant(r)?),
            Expr::Not(x) => Some(i64::from(self.constant(x)? == 0)),
            Expr::BitNot(x) => Some(i64::from(!(self.constant(x)? as i32))),
            Expr::Neg(x) => fold("-", 0, self.constant(x)?),
            Expr::Size(name, _) => match self.scopes.iter().rev().find(|(n, _)| n == name) {
                Some((_, Sym::Array { frame, slot, .. }))
                    if self.dims.contains_key(&(*frame, *slot)) =>
                {
                    self.dims
                        .get(&(*frame, *slot))
                        .and_then(|d| d.first().copied())
                }
                Some((_, Sym::Array { len, .. }))
                | Some((
                    _,
                    Sym::ArrayRef {
                        len: Len::Const(len),
                        ..
                    },
                )) => Some(*len),
                _ => None,
            },
            Expr::Convert(Type::Int | Type::Bool, _, x, _) if !self.ty_of(x).is_real() => {
                self.constant(x)
            }
            Expr::Index(..)
            | Expr::Str(..)
            | Expr::Call(..)
            | Expr::Real(..)
            | Expr::Convert(..)
            | Expr::Slice(..)
            | Expr::Table(..) => None,
        }
    }

    /// The value of `e`, which must be known when compiling (`what` says where it is).
    fn known(&self, e: &Expr, pos: Pos, what: &str) -> Result<i64, OccamError> {
        self.constant(e)
            .ok_or_else(|| OccamError::at_pos(pos, format!("{what} must be a constant")))
    }

    /// How to reach slot `slot` of frame `target` from frame `from`: the slot plus the
    /// offsets of the frames between (an assembler expression).
    fn reach(&self, from: usize, target: usize, slot: i64, pos: Pos) -> Result<String, OccamError> {
        let mut expr = slot.to_string();
        let mut at = from;
        while at != target {
            match &self.frames[at].parent {
                Some((parent, offset)) => {
                    expr.push('+');
                    expr.push_str(offset);
                    at = *parent;
                }
                None => {
                    return Err(OccamError::at_pos(
                        pos,
                        "a PROC uses only its parameters, its own names and VAL constants",
                    ));
                }
            }
        }
        Ok(expr)
    }

    /// Loads the value of `name`.
    fn load(&mut self, name: &str, pos: Pos, frame: usize) -> Result<(), OccamError> {
        match self.lookup(name, pos)? {
            Sym::Var { ty, .. } | Sym::Ref { ty, .. } if ty.is_chan() => {
                Err(OccamError::at_pos(pos, format!("\"{name}\" is a channel")))
            }
            Sym::Var { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldl {at}"));
                Ok(())
            }
            Sym::Ref { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldl {at}"));
                self.emit("ldnl 0");
                Ok(())
            }
            Sym::Const(v) => {
                self.emit(format!("ldc {}", v as i32));
                Ok(())
            }
            Sym::Procedure { .. }
            | Sym::Array { .. }
            | Sym::ArrayRef { .. }
            | Sym::Timer
            | Sym::Fixed { .. }
            | Sym::RealConst { .. }
            | Sym::Placed { .. } => Err(OccamError::at_pos(
                pos,
                format!("\"{name}\" is not a value"),
            )),
        }
    }

    /// Loads the address of variable `name`, which the process may change.
    fn address(&mut self, name: &str, pos: Pos, frame: usize) -> Result<(), OccamError> {
        match self.lookup(name, pos)? {
            Sym::Var {
                writable: false, ..
            }
            | Sym::Const(_) => Err(OccamError::at_pos(
                pos,
                format!("\"{name}\" is a VAL: it cannot change"),
            )),
            Sym::Var { ty, .. } | Sym::Ref { ty, .. } if ty.is_chan() => {
                Err(OccamError::at_pos(pos, format!("\"{name}\" is a channel")))
            }
            Sym::Var { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldlp {at}"));
                Ok(())
            }
            Sym::Ref { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldl {at}"));
                Ok(())
            }
            _ => Err(OccamError::at_pos(
                pos,
                format!("\"{name}\" is not a variable"),
            )),
        }
    }

    /// Loads the address of channel `c` (a channel, a channel parameter, an element of a
    /// channel array, or a placed channel's end), recording a placed channel's use by the
    /// process at end `dir`; answers its protocol.
    fn chan_address(
        &mut self,
        c: &ChanRef,
        pos: Pos,
        frame: usize,
        dir: Option<Dir>,
    ) -> Result<Protocol, OccamError> {
        let name = &c.name;
        let not = |what: &str| OccamError::at_pos(pos, format!("\"{name}\" {what}"));
        match (self.lookup(name, pos)?, &c.index) {
            (
                Sym::Var {
                    frame: f,
                    slot,
                    ty: Type::Chan(p),
                    ..
                },
                None,
            ) => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldlp {at}"));
                Ok(p)
            }
            (
                Sym::Ref {
                    frame: f,
                    slot,
                    ty: Type::Chan(p),
                },
                None,
            ) => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldl {at}"));
                Ok(p)
            }
            (
                Sym::Array {
                    ty: Type::Chan(p), ..
                }
                | Sym::ArrayRef {
                    ty: Type::Chan(p), ..
                },
                Some(index),
            ) => {
                self.element(name, index, pos, frame)?;
                Ok(p)
            }
            (Sym::Fixed { address, protocol }, None) => {
                self.emit(format!("ldc #{address:08X}"));
                Ok(protocol)
            }
            (Sym::Placed { id, len, protocol }, index) => {
                let index = match (len, index) {
                    (None, None) => 0,
                    (Some(len), Some(i)) => {
                        let k = self.constant(i).ok_or_else(|| {
                            not("is placed on links: its subscript must be known for each \
                                 processor")
                        })?;
                        if !(0..len).contains(&k) {
                            return Err(not(&format!("has {len} channels: no element {k}")));
                        }
                        k as u32
                    }
                    (None, Some(_)) => return Err(not("is not an array of channels")),
                    (Some(_), None) => return Err(not("is an array of channels: name one")),
                };
                let processor = self.processor.unwrap_or(0);
                if let Some(dir) = dir {
                    self.uses.push(Use {
                        chan: id,
                        index,
                        processor,
                        dir,
                        pos,
                    });
                }
                self.emit(format!(
                    "ldc {}",
                    place::constant_name(id, index, processor)
                ));
                Ok(protocol)
            }
            (Sym::Array { ty, .. }, None) if ty.is_chan() => {
                Err(not("is an array of channels: name one"))
            }
            (_, Some(_)) => Err(not("is not an array of channels")),
            _ => Err(not("is not a channel")),
        }
    }

    /// The address of element `index` of array `name` (a local array or an array
    /// parameter), its subscript checked (`csub0` sets the error flag when it is out of range).
    fn element(
        &mut self,
        name: &str,
        index: &Expr,
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        if let Expr::Table(indices, _) = index {
            // `a[i][j]`: one subscript, i × (its row's length) + j; constant subscripts are
            // checked against their own dimensions.
            let dims = match self.lookup(name, pos)? {
                Sym::Array { frame: f, slot, .. } => self.dims.get(&(f, slot)).cloned(),
                _ => None,
            }
            .filter(|d| d.len() == indices.len())
            .ok_or_else(|| {
                OccamError::at_pos(
                    pos,
                    format!("\"{name}\" has not {} dimensions", indices.len()),
                )
            })?;
            let mut linear: Option<Expr> = None;
            for (k, (i, d)) in indices.iter().zip(&dims).enumerate() {
                if let Some(v) = self.constant(i)
                    && !(0..*d).contains(&v)
                {
                    return Err(OccamError::at_pos(
                        pos,
                        format!("\"{name}\"'s dimension {} has {d}: no element {v}", k + 1),
                    ));
                }
                linear = Some(match linear {
                    None => i.clone(),
                    Some(sofar) => Expr::Bin(
                        "+",
                        Box::new(Expr::Bin(
                            "*",
                            Box::new(sofar),
                            Box::new(Expr::Num(*d)),
                            pos,
                        )),
                        Box::new(i.clone()),
                        pos,
                    ),
                });
            }
            let linear = linear.unwrap_or(Expr::Num(0));
            return self.element(name, &linear, pos, frame);
        }
        let (base, len, ty) = match self.lookup(name, pos)? {
            Sym::Array {
                frame: f,
                slot,
                len,
                ty,
            } => (
                format!("ldlp {}", self.reach(frame, f, slot, pos)?),
                Len::Const(len),
                ty,
            ),
            Sym::ArrayRef {
                frame: f,
                slot,
                len,
                ty,
            } => (format!("ldl {}", self.reach(frame, f, slot, pos)?), len, ty),
            _ => {
                return Err(OccamError::at_pos(
                    pos,
                    format!("\"{name}\" is not an array"),
                ));
            }
        };
        let (words, bytes) = (ty.words(), elem_bytes(ty));
        if let (Some(k), Len::Const(len)) = (self.constant(index), len) {
            if !(0..len).contains(&k) {
                return Err(OccamError::at_pos(
                    pos,
                    format!("\"{name}\" has {len} elements: no element {k}"),
                ));
            }
            if bytes < 4 {
                self.emit(&base);
                self.emit(format!("adc {}", k * bytes));
                return Ok(());
            }
            let k = k * words;
            if let Some(local) = base.strip_prefix("ldlp ") {
                self.emit(format!("ldlp {local}+{k}"));
            } else {
                self.emit(&base);
                self.emit(format!("ldnlp {k}"));
            }
            return Ok(());
        }
        self.expr(index, frame)?;
        self.load_len(name, pos, frame)?;
        self.emit("csub0");
        if words == 2 || bytes == 2 {
            self.emit("ldc 1");
            self.emit("shl");
        }
        self.emit(&base);
        self.emit(if bytes < 4 { "bsub" } else { "wsub" });
        Ok(())
    }

    /// Loads the length of array `name`.
    fn load_len(&mut self, name: &str, pos: Pos, frame: usize) -> Result<(), OccamError> {
        match self.lookup(name, pos)? {
            Sym::Array { len, .. }
            | Sym::ArrayRef {
                len: Len::Const(len),
                ..
            } => self.emit(format!("ldc {len}")),
            Sym::ArrayRef {
                frame: f,
                len: Len::Slot(l),
                ..
            } => {
                let at = self.reach(frame, f, l, pos)?;
                self.emit(format!("ldl {at}"));
            }
            _ => {
                return Err(OccamError::at_pos(
                    pos,
                    format!("\"{name}\" is not an array"),
                ));
            }
        }
        Ok(())
    }

    /// A whole array named by `e` (an output item `a`, an input target `a`): its address
    /// loaded, its length answered; None when `e` is not an array's name.
    fn whole_array(&mut self, name: &str, frame: usize) -> Result<Option<i64>, OccamError> {
        let found = self.scopes.iter().rev().find(|(n, _)| n == name);
        match found.cloned() {
            Some((
                _,
                Sym::Array {
                    frame: f,
                    slot,
                    len,
                    ty,
                },
            )) if !ty.is_chan() => {
                let at = self.reach(frame, f, slot, Pos::default())?;
                self.emit(format!("ldlp {at}"));
                Ok(Some(len))
            }
            Some((
                _,
                Sym::ArrayRef {
                    frame: f,
                    slot,
                    len: Len::Const(len),
                    ty,
                },
            )) if !ty.is_chan() => {
                let at = self.reach(frame, f, slot, Pos::default())?;
                self.emit(format!("ldl {at}"));
                Ok(Some(len))
            }
            _ => Ok(None),
        }
    }

    /// A string's bytes in the program's data; answers their label.
    fn string_data(&mut self, text: &str) -> String {
        let label = self.label();
        let list: Vec<String> = text.bytes().map(|b| b.to_string()).collect();
        if list.is_empty() {
            let _ = writeln!(self.data, "{label}:");
        } else {
            let _ = writeln!(self.data, "{label}: .byte {}", list.join(", "));
        }
        label
    }

    /// Bytes an element of array `name` takes (4 when it is not an array).
    fn array_elem_bytes(&self, name: &str) -> i64 {
        match self.scopes.iter().rev().find(|(n, _)| n == name) {
            Some((_, Sym::Array { ty, .. } | Sym::ArrayRef { ty, .. })) => elem_bytes(*ty),
            _ => 4,
        }
    }

    /// Loads the address of array `name`'s first element.
    fn array_base(&mut self, name: &str, pos: Pos, frame: usize) -> Result<(), OccamError> {
        match self.lookup(name, pos)? {
            Sym::Array { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldlp {at}"));
            }
            Sym::ArrayRef { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldl {at}"));
            }
            _ => {
                return Err(OccamError::at_pos(
                    pos,
                    format!("\"{name}\" is not an array"),
                ));
            }
        }
        Ok(())
    }

    /// With a channel's address in A: outputs the word `e` on it (through temporaries when
    /// `e` needs every register).
    fn output_word(&mut self, e: &Expr, frame: usize) -> Result<(), OccamError> {
        self.output_value(e, frame, "outword")
    }

    /// With a channel's address in A: outputs `e` with `op` (`outword`, `outbyte`).
    fn output_value(&mut self, e: &Expr, frame: usize, op: &str) -> Result<(), OccamError> {
        if self.depth(e) >= 3 {
            let (channel, value) = (self.slot(frame), self.slot(frame));
            self.emit(format!("stl {channel}"));
            self.expr(e, frame)?;
            self.emit(format!("stl {value}"));
            self.emit(format!("ldl {channel}"));
            self.emit(format!("ldl {value}"));
        } else {
            self.expr(e, frame)?;
        }
        self.emit(op);
        Ok(())
    }

    /// The items' shapes must be the protocol's.
    fn check_protocol(
        protocol: Protocol,
        shapes: &[Shape],
        name: &str,
        pos: Pos,
    ) -> Result<(), OccamError> {
        if protocol.shapes() == shapes {
            return Ok(());
        }
        let show = |s: &[Shape]| {
            s.iter()
                .map(|x| match x {
                    Shape::Word => "a word",
                    Shape::Double => "a REAL64",
                    Shape::Byte => "a BYTE",
                    Shape::Half => "an INT16",
                    Shape::Array => "an array",
                    Shape::Counted => "a count::array",
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        Err(OccamError::at_pos(
            pos,
            format!(
                "\"{name}\" carries {} but this sends or receives {}",
                show(protocol.shapes()),
                show(shapes)
            ),
        ))
    }

    /// The shape of an output item: an array's name is an array.
    fn out_shape(&self, item: &Item<Expr>) -> Shape {
        match item {
            Item::Counted(..) => Shape::Counted,
            Item::One(Expr::Var(n, _)) if self.is_word_array(n) => Shape::Array,
            Item::One(e) if matches!(self.ty_of(e), Type::Real64 | Type::Int64) => Shape::Double,
            Item::One(e) if self.ty_of(e) == Type::Byte => Shape::Byte,
            Item::One(e) if self.ty_of(e) == Type::Int16 => Shape::Half,
            Item::One(_) => Shape::Word,
        }
    }

    fn in_shape(&self, item: &Item<Target>) -> Shape {
        match item {
            Item::Counted(..) => Shape::Counted,
            Item::One(Target::Var(n)) if self.is_word_array(n) => Shape::Array,
            Item::One(t) if matches!(self.target_type(t), Type::Real64 | Type::Int64) => {
                Shape::Double
            }
            Item::One(t) if self.target_type(t) == Type::Byte => Shape::Byte,
            Item::One(t) if self.target_type(t) == Type::Int16 => Shape::Half,
            Item::One(_) => Shape::Word,
        }
    }

    fn is_word_array(&self, name: &str) -> bool {
        matches!(
            self.scopes.iter().rev().find(|(n, _)| n == name),
            Some((_, Sym::Array { ty, .. } | Sym::ArrayRef { ty, .. })) if !ty.is_chan()
        )
    }

    /// `c ! items`.
    fn output(
        &mut self,
        c: &ChanRef,
        items: &[Item<Expr>],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        let mut shapes: Vec<Shape> = items.iter().map(|i| self.out_shape(i)).collect();
        let mut protocol = self.chan_address(c, pos, frame, Some(Dir::Out))?;
        let mut items = items;
        if let Some(v) = protocol.variant {
            // A variant protocol: its tag (a byte) first, then that tag's items.
            let (k, tagged) = self.tag_of(v, items.first(), pos)?;
            let ch = self.slot(frame);
            self.emit(format!("stl {ch}"));
            self.emit(format!("ldl {ch}"));
            self.emit(format!("ldc {k}"));
            self.emit("outbyte");
            protocol = tagged;
            items = &items[1..];
            shapes.remove(0);
            self.emit(format!("ldl {ch}"));
            if items.is_empty() {
                return Ok(());
            }
        }
        // A constant that fits a byte (`'A'`) is a BYTE where the protocol wants one.
        for ((shape, item), want) in shapes.iter_mut().zip(items).zip(protocol.shapes()) {
            if let (Shape::Word, Item::One(e), Shape::Byte) = (*shape, item, want)
                && self.constant(e).is_some_and(|v| (0..=255).contains(&v))
            {
                *shape = Shape::Byte;
            }
        }
        Self::check_protocol(protocol, &shapes, &c.name, pos)?;
        if let ([Item::One(e)], [Shape::Word]) = (items, shapes.as_slice())
            && !self.ty_of(e).is_real()
        {
            return self.output_word(e, frame);
        }
        let ch = self.slot(frame);
        self.emit(format!("stl {ch}"));
        for (item, shape) in items.iter().zip(&shapes) {
            match item {
                Item::One(e) => {
                    if let Expr::Var(name, _) = e
                        && let Some(len) = self.whole_array(name, frame)?
                    {
                        self.emit(format!("ldl {ch}"));
                        self.emit(format!("ldc {}", len * self.array_elem_bytes(name)));
                        self.emit("out");
                    } else if self.ty_of(e) == Type::Int64 {
                        let t = self.long_temp(frame);
                        self.lexpr(e, t, frame)?;
                        self.emit(format!("ldlp {t}"));
                        self.emit(format!("ldl {ch}"));
                        self.emit("ldc 8");
                        self.emit("out");
                    } else if *shape == Shape::Half {
                        // Its two bytes from a temporary.
                        let temp = self.slot(frame);
                        self.expr(e, frame)?;
                        self.emit(format!("stl {temp}"));
                        self.emit(format!("ldlp {temp}"));
                        self.emit(format!("ldl {ch}"));
                        self.emit("ldc 2");
                        self.emit("out");
                    } else if *shape == Shape::Byte {
                        self.emit(format!("ldl {ch}"));
                        self.output_value(e, frame, "outbyte")?;
                    } else if self.ty_of(e).is_real() {
                        // Through a temporary: its bytes go out from memory.
                        let ty = self.ty_of(e);
                        self.fexpr(e, ty, frame)?;
                        let temp = self.slot(frame);
                        if ty == Type::Real64 {
                            self.slot(frame);
                        }
                        self.emit(format!("ldlp {temp}"));
                        self.emit(fp_store(ty));
                        self.emit(format!("ldlp {temp}"));
                        self.emit(format!("ldl {ch}"));
                        self.emit(format!("ldc {}", 4 * ty.words()));
                        self.emit("out");
                    } else {
                        self.emit(format!("ldl {ch}"));
                        self.output_word(e, frame)?;
                    }
                }
                Item::Counted(count, array) => {
                    let n = self.slot(frame);
                    self.expr(count, frame)?;
                    self.emit(format!("stl {n}"));
                    self.emit(format!("ldl {ch}"));
                    self.emit(format!("ldl {n}"));
                    self.emit("outword");
                    self.counted_transfer(array, n, ch, "out", pos, frame)?;
                }
            }
        }
        Ok(())
    }

    /// The tag an output names first (`c ! start; 5`) in variant protocol `v`: its number
    /// and the items that follow it.
    fn tag_of(
        &self,
        v: u16,
        first: Option<&Item<Expr>>,
        pos: Pos,
    ) -> Result<(usize, Protocol), OccamError> {
        let variant = &self.variants[usize::from(v)];
        let tag = match first {
            Some(Item::One(Expr::Var(tag, _))) => tag,
            _ => {
                return Err(OccamError::at_pos(
                    pos,
                    format!("a {} message starts with its tag", variant.name),
                ));
            }
        };
        variant
            .tags
            .iter()
            .position(|(t, _)| t == tag)
            .map(|k| (k, variant.tags[k].1))
            .ok_or_else(|| {
                OccamError::at_pos(pos, format!("{tag} is not a tag of {}", variant.name))
            })
    }

    /// `c ? CASE`: the tag into a temporary (a byte), then the branch of that tag: its items,
    /// its process (a tag the program does not take is STOP).
    fn case_input(
        &mut self,
        c: &ChanRef,
        variations: &[Variation],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        let protocol = self.chan_address(c, pos, frame, Some(Dir::In))?;
        let Some(v) = protocol.variant else {
            return Err(OccamError::at_pos(
                pos,
                format!(
                    "\"{}\" does not carry a variant protocol: ? CASE reads one",
                    c.name
                ),
            ));
        };
        let variant = self.variants[usize::from(v)].clone();
        let (ch, tag) = (self.slot(frame), self.slot(frame));
        self.emit(format!("stl {ch}"));
        self.emit("ldc 0");
        self.emit(format!("stl {tag}"));
        self.emit(format!("ldlp {tag}"));
        self.emit(format!("ldl {ch}"));
        self.emit("ldc 1");
        self.emit("in");
        let end = self.label();
        for branch in variations {
            let Some(k) = variant.tags.iter().position(|(t, _)| *t == branch.tag) else {
                return Err(OccamError::at_pos(
                    branch.pos,
                    format!("{} is not a tag of {}", branch.tag, variant.name),
                ));
            };
            let shapes: Vec<Shape> = branch.items.iter().map(|i| self.in_shape(i)).collect();
            Self::check_protocol(variant.tags[k].1, &shapes, &c.name, branch.pos)?;
            let next = self.label();
            self.emit(format!("ldl {tag}"));
            self.emit(format!("eqc {k}"));
            self.emit(format!("cj {next}"));
            self.input_items(ch, &branch.items, branch.pos, frame)?;
            self.process(&branch.body, frame)?;
            self.emit(format!("j {end}"));
            self.code.push_str(&format!("{next}:\n"));
        }
        self.emit("seterr");
        self.emit("stopp");
        self.code.push_str(&format!("{end}:\n"));
        Ok(())
    }

    /// After a count `n` went (or came): that many words of `array`, the count checked
    /// against its length, nothing when it is 0.
    fn counted_transfer(
        &mut self,
        array: &str,
        n: i64,
        ch: i64,
        op: &str,
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        let bytes = self.slot(frame);
        let skip = self.label();
        if !self.is_word_array(array) {
            return Err(OccamError::at_pos(
                pos,
                format!("\"{array}\" is not an array"),
            ));
        }
        self.emit(format!("ldl {n}"));
        self.load_len(array, pos, frame)?;
        self.emit("adc 1");
        self.emit("csub0");
        let shift = self.array_elem_bytes(array).trailing_zeros();
        if shift > 0 {
            self.emit(format!("ldc {shift}"));
            self.emit("shl");
        }
        self.emit(format!("stl {bytes}"));
        self.emit(format!("ldl {bytes}"));
        self.emit(format!("cj {skip}"));
        self.array_base(array, pos, frame)?;
        self.emit(format!("ldl {ch}"));
        self.emit(format!("ldl {bytes}"));
        self.emit(op);
        self.code.push_str(&format!("{skip}:\n"));
        Ok(())
    }

    /// `c ? items` (or `timer ? t`).
    fn input(
        &mut self,
        c: &ChanRef,
        items: &[Item<Target>],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        if c.index.is_none()
            && let Sym::Timer = self.lookup(&c.name, pos)?
        {
            // `timer ? t`: the time now.
            let [Item::One(target)] = items else {
                return Err(OccamError::at_pos(pos, "a timer gives one value"));
            };
            self.emit("ldtimer");
            return self.store_target(target, pos, frame);
        }
        let shapes: Vec<Shape> = items.iter().map(|i| self.in_shape(i)).collect();
        if let ([Item::One(target)], [Shape::Word]) = (items, shapes.as_slice()) {
            // Straight into the variable, its reference or the array element.
            if c.index.is_some() {
                let protocol = self.chan_address(c, pos, frame, Some(Dir::In))?;
                Self::check_protocol(protocol, &shapes, &c.name, pos)?;
                let at = self.slot(frame);
                self.emit(format!("stl {at}"));
                self.target_address(target, pos, frame)?;
                self.emit(format!("ldl {at}"));
            } else {
                self.target_address(target, pos, frame)?;
                let protocol = self.chan_address(c, pos, frame, Some(Dir::In))?;
                Self::check_protocol(protocol, &shapes, &c.name, pos)?;
            }
            self.emit("ldc 4");
            self.emit("in");
            return Ok(());
        }
        let protocol = self.chan_address(c, pos, frame, Some(Dir::In))?;
        Self::check_protocol(protocol, &shapes, &c.name, pos)?;
        let ch = self.slot(frame);
        self.emit(format!("stl {ch}"));
        self.input_items(ch, items, pos, frame)
    }

    /// With the channel's address in slot `ch`: receives `items` in turn.
    fn input_items(
        &mut self,
        ch: i64,
        items: &[Item<Target>],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        for item in items {
            match item {
                Item::One(Target::Var(name)) if self.is_word_array(name) => {
                    let len = self.whole_array(name, frame)?.unwrap_or(0);
                    self.emit(format!("ldl {ch}"));
                    self.emit(format!("ldc {}", len * self.array_elem_bytes(name)));
                    self.emit("in");
                }
                Item::One(target) => {
                    let ty = self.target_type(target);
                    if ty == Type::Byte && matches!(target, Target::Var(_)) {
                        // A BYTE variable is a word: its other bytes cleared first.
                        self.emit("ldc 0");
                        self.store_target(target, pos, frame)?;
                    }
                    if ty == Type::Int16 && matches!(target, Target::Var(_)) {
                        // Two bytes into a temporary, sign-extended into the variable.
                        let temp = self.slot(frame);
                        self.emit("ldc 0");
                        self.emit(format!("stl {temp}"));
                        self.emit(format!("ldlp {temp}"));
                        self.emit(format!("ldl {ch}"));
                        self.emit("ldc 2");
                        self.emit("in");
                        self.emit(format!("ldl {temp}"));
                        self.emit("ldc #8000");
                        self.emit("xword");
                        self.store_target(target, pos, frame)?;
                        continue;
                    }
                    self.target_address(target, pos, frame)?;
                    self.emit(format!("ldl {ch}"));
                    self.emit(format!("ldc {}", elem_bytes(ty)));
                    self.emit("in");
                }
                Item::Counted(count, array) => {
                    let n = self.slot(frame);
                    self.emit(format!("ldlp {n}"));
                    self.emit(format!("ldl {ch}"));
                    self.emit("ldc 4");
                    self.emit("in");
                    self.counted_transfer(array, n, ch, "in", pos, frame)?;
                    self.emit(format!("ldl {n}"));
                    self.store_target(count, pos, frame)?;
                }
            }
        }
        Ok(())
    }

    /// The address `target` is written at: a variable's (or its reference), an element's.
    fn target_address(
        &mut self,
        target: &Target,
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        match target {
            Target::Var(name) => self.address(name, pos, frame),
            Target::Elem(name, index) => self.element(name, index, pos, frame),
        }
    }

    /// Stores A into `target` (a variable, or an array element through temporaries).
    fn store_target(&mut self, target: &Target, pos: Pos, frame: usize) -> Result<(), OccamError> {
        let ty = self.target_type(target);
        if ty == Type::Int16 {
            // In range, or the error flag (occam's check).
            self.emit("ldc #8000");
            self.emit("cword");
        }
        if let (Type::Int16, Target::Elem(name, index)) = (ty, target) {
            // Two bytes, low first.
            let (value, address) = (self.slot(frame), self.slot(frame));
            self.emit(format!("stl {value}"));
            self.element(name, index, pos, frame)?;
            self.emit(format!("stl {address}"));
            for op in [
                format!("ldl {value}"),
                format!("ldl {address}"),
                "sb".to_owned(),
                format!("ldl {value}"),
                "ldc 8".to_owned(),
                "shr".to_owned(),
                format!("ldl {address}"),
                "adc 1".to_owned(),
                "sb".to_owned(),
            ] {
                self.emit(op);
            }
            return Ok(());
        }
        match target {
            Target::Var(name) => match self.lookup(name, pos)? {
                Sym::Var {
                    frame: f,
                    slot,
                    ty,
                    writable: true,
                } if !ty.is_chan() => {
                    let at = self.reach(frame, f, slot, pos)?;
                    self.emit(format!("stl {at}"));
                    Ok(())
                }
                _ => {
                    self.address(name, pos, frame)?;
                    self.emit("stnl 0");
                    Ok(())
                }
            },
            Target::Elem(name, index) => {
                let store = if self.target_type(target) == Type::Byte {
                    "sb"
                } else {
                    "stnl 0"
                };
                if self.constant(index).is_some() {
                    self.element(name, index, pos, frame)?;
                    self.emit(store);
                    return Ok(());
                }
                let value = self.slot(frame);
                self.emit(format!("stl {value}"));
                self.element(name, index, pos, frame)?;
                let address = self.slot(frame);
                self.emit(format!("stl {address}"));
                self.emit(format!("ldl {value}"));
                self.emit(format!("ldl {address}"));
                self.emit(store);
                Ok(())
            }
        }
    }

    /// Evaluation-stack registers an expression needs.
    fn depth(&self, e: &Expr) -> usize {
        match e {
            // An INT16 element is two bytes put together, an INT64 comparison works through
            // memory: every register.
            Expr::Index(..) if self.ty_of(e) == Type::Int16 => 3,
            Expr::Bin(_, l, r, _)
                if matches!(self.ty_of(l), Type::Int64 | Type::Real32 | Type::Real64)
                    || matches!(self.ty_of(r), Type::Int64 | Type::Real32 | Type::Real64) =>
            {
                3
            }
            Expr::Num(_) | Expr::Var(..) | Expr::Str(..) | Expr::Size(..) => 1,
            // A call takes every register; so does a conversion (through the FPU).
            Expr::Call(..) | Expr::Convert(..) => 3,
            Expr::Real(..) | Expr::Slice(..) | Expr::Table(..) => 1,
            // `a[i][j]` computes its subscript: every register.
            Expr::Index(_, i, _) if matches!(**i, Expr::Table(..)) => 3,
            Expr::Index(_, i, _) => self.depth(i).max(2),
            Expr::Not(x) | Expr::BitNot(x) => self.depth(x),
            Expr::Neg(x) => self.depth(x).max(2),
            Expr::Bin(_, l, r, _) => self.depth(l).max(self.depth(r) + 1),
        }
    }

    /// Evaluates `e` into A.
    fn expr(&mut self, e: &Expr, frame: usize) -> Result<(), OccamError> {
        if let Some(v) = self.constant(e) {
            self.emit(format!("ldc {}", v as i32));
            return Ok(());
        }
        let ty = self.ty_of(e);
        if ty.is_real() || ty == Type::Int64 {
            return Err(OccamError::at_pos(
                expr_pos(e),
                format!("a {} where an INT or BOOL is expected", type_name(ty)),
            ));
        }
        match e {
            Expr::Bin(op, l, r, _)
                if self.ty_of(l) == Type::Int64 || self.ty_of(r) == Type::Int64 =>
            {
                self.long_compare(op, l, r, frame)?;
            }
            Expr::Convert(_, _, x, _) if self.ty_of(x) == Type::Int64 => {
                // An INT64 to an INT: its low word, if the value fits (csngl checks).
                let t = self.long_temp(frame);
                self.lexpr(x, t, frame)?;
                self.emit(format!("ldl {}", t + 1));
                self.emit(format!("ldl {t}"));
                self.emit("csngl");
            }
            Expr::Slice(_, _, _, pos) | Expr::Table(_, pos) => {
                return Err(OccamError::at_pos(
                    *pos,
                    "a slice or a table is an array: pass it to a PROC or abbreviate it",
                ));
            }
            Expr::Convert(to, rounding, x, _) => {
                let from = self.ty_of(x);
                if !from.is_real() {
                    self.expr(x, frame)?;
                    if *to == Type::Int16 && from != Type::Int16 {
                        self.emit("ldc #8000");
                        self.emit("cword");
                    }
                    return Ok(());
                }
                // A REAL to an INT: rounded (to nearest, or towards zero) in the FPU, stored
                // as a 32-bit integer through a temporary.
                self.fexpr(x, from, frame)?;
                if *rounding == Rounding::Trunc {
                    self.emit("fpurz");
                }
                self.emit("fpint");
                let temp = self.slot(frame);
                self.emit(format!("ldlp {temp}"));
                self.emit("fpstnli32");
                self.emit(format!("ldl {temp}"));
            }
            Expr::Bin(op, l, r, _) if self.ty_of(l).is_real() || self.ty_of(r).is_real() => {
                self.real_compare(op, l, r, frame)?;
            }
            Expr::Real(..) => unreachable!("a real literal is REAL"),
            Expr::Num(n) => self.emit(format!("ldc {}", *n as i32)),
            Expr::Str(_, pos) => {
                return Err(OccamError::at_pos(
                    *pos,
                    "a string is only a probe's text here",
                ));
            }
            Expr::Var(name, pos) => self.load(name, *pos, frame)?,
            Expr::Call(name, args, pos) => self.call(name, args, *pos, frame, true)?,
            Expr::Size(name, pos) => match self.lookup(name, *pos)? {
                Sym::ArrayRef {
                    frame: f,
                    len: Len::Slot(slot),
                    ..
                } => {
                    let at = self.reach(frame, f, slot, *pos)?;
                    self.emit(format!("ldl {at}"));
                }
                _ => {
                    return Err(OccamError::at_pos(
                        *pos,
                        format!("\"{name}\" is not an array"),
                    ));
                }
            },
            Expr::Index(name, index, pos) => {
                self.element(name, index, *pos, frame)?;
                match self.ty_of(e) {
                    Type::Byte => self.emit("lb"),
                    Type::Int16 => {
                        // Its two bytes, the high one sign-extended.
                        for op in [
                            "dup",
                            "lb",
                            "rev",
                            "adc 1",
                            "lb",
                            "ldc 8",
                            "shl",
                            "or",
                            "ldc #8000",
                            "xword",
                        ] {
                            self.emit(op);
                        }
                    }
                    _ => self.emit("ldnl 0"),
                }
            }
            Expr::Not(x) => {
                self.expr(x, frame)?;
                self.emit("eqc 0");
            }
            Expr::BitNot(x) => {
                self.expr(x, frame)?;
                self.emit("not");
            }
            Expr::Neg(x) => {
                if self.depth(x) >= 2 {
                    return self.expr(
                        &Expr::Bin("-", Box::new(Expr::Num(0)), x.clone(), Pos::default()),
                        frame,
                    );
                }
                self.emit("ldc 0");
                self.expr(x, frame)?;
                self.emit("sub");
            }
            Expr::Bin(op, l, r, _) => {
                if self.depth(r) >= 3 {
                    // Spill the right operand: it needs every register.
                    let temp = self.slot(frame);
                    self.expr(r, frame)?;
                    self.emit(format!("stl {temp}"));
                    self.expr(l, frame)?;
                    self.emit(format!("ldl {temp}"));
                } else {
                    self.expr(l, frame)?;
                    self.expr(r, frame)?;
                }
                // B = left, A = right.
                let ops: &[&str] = match *op {
                    "+" => &["add"],
                    "-" => &["sub"],
                    "*" => &["mul"],
                    "/" => &["div"],
                    "\\" | "REM" => &["rem"],
                    "PLUS" => &["sum"],
                    "MINUS" => &["diff"],
                    "TIMES" => &["prod"],
                    "/\\" => &["and"],
                    "\\/" => &["or"],
                    "><" => &["xor"],
                    "<<" => &["shl"],
                    ">>" => &["shr"],
                    "AND" => &["and"],
                    "OR" => &["or"],
                    "=" => &["diff", "eqc 0"],
                    "<>" => &["diff", "eqc 0", "eqc 0"],
                    ">" => &["gt"],
                    "<" => &["rev", "gt"],
                    "<=" => &["gt", "eqc 0"],
                    _ => &["rev", "gt", "eqc 0"],
                };
                for o in ops {
                    self.emit(*o);
                }
            }
        }
        Ok(())
    }

    /// The type of `e` (names not declared count as INT: using them reports them). A real
    /// literal without a type takes its partner's in an operation.
    fn ty_of(&self, e: &Expr) -> Type {
        let sym = |name: &str| {
            self.scopes
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|s| &s.1)
        };
        match e {
            Expr::Real(_, ty, _) => ty.unwrap_or(Type::Real64),
            Expr::Convert(ty, ..) => *ty,
            Expr::Var(name, _) => match sym(name) {
                Some(Sym::Var { ty, .. } | Sym::Ref { ty, .. } | Sym::RealConst { ty, .. }) => *ty,
                _ => Type::Int,
            },
            Expr::Index(name, ..) | Expr::Slice(name, ..) => match sym(name) {
                Some(Sym::Array { ty, .. } | Sym::ArrayRef { ty, .. }) => *ty,
                _ => Type::Int,
            },
            Expr::Call(name, ..) => match sym(name) {
                Some(Sym::Procedure { result, .. }) => *result,
                _ => Type::Int,
            },
            Expr::Bin(op, l, r, _) => {
                if matches!(*op, "=" | "<>" | "<" | ">" | "<=" | ">=" | "AND" | "OR") {
                    return Type::Bool;
                }
                match (&**l, &**r) {
                    (Expr::Real(_, None, _), other) | (other, Expr::Real(_, None, _)) => {
                        self.ty_of(other)
                    }
                    _ if !matches!(*op, "<<" | ">>") && self.ty_of(r) == Type::Int64 => Type::Int64,
                    _ => self.ty_of(l),
                }
            }
            Expr::Neg(x) | Expr::BitNot(x) => self.ty_of(x),
            Expr::Not(_) => Type::Bool,
            Expr::Num(_) | Expr::Str(..) | Expr::Size(..) | Expr::Table(..) => Type::Int,
        }
    }

    /// The type a target holds.
    fn target_type(&self, t: &Target) -> Type {
        match t {
            Target::Var(n) => self.ty_of(&Expr::Var(n.clone(), Pos::default())),
            Target::Elem(n, i) => {
                self.ty_of(&Expr::Index(n.clone(), Box::new(i.clone()), Pos::default()))
            }
        }
    }

    /// FPU registers an expression needs.
    fn fdepth(e: &Expr) -> usize {
        match e {
            Expr::Bin(_, l, r, _) => Self::fdepth(l).max(Self::fdepth(r) + 1),
            Expr::Neg(x) => Self::fdepth(x) + 1,
            Expr::Call(..) => 3,
            Expr::Convert(_, _, x, _) => Self::fdepth(x).max(1),
            _ => 1,
        }
    }

    /// Evaluates the REAL expression `e` (of type `ty`) onto the FPU's stack.
    fn fexpr(&mut self, e: &Expr, ty: Type, frame: usize) -> Result<(), OccamError> {
        let load = fp_load(ty);
        let mismatch = |found: Type, pos: Pos| {
            OccamError::at_pos(
                pos,
                format!(
                    "a {} where a {} is expected: convert it ({} x)",
                    type_name(found),
                    type_name(ty),
                    type_name(ty)
                ),
            )
        };
        match e {
            Expr::Real(text, decorated, pos) => {
                if decorated.is_some_and(|t| t != ty) {
                    return Err(mismatch(decorated.unwrap_or(ty), *pos));
                }
                let label = self.real_data(text, ty, *pos)?;
                self.emit(format!("ldc {label}"));
                self.emit(load);
            }
            Expr::Var(name, pos) => {
                let found = self.ty_of(e);
                if found != ty {
                    return Err(mismatch(found, *pos));
                }
                match self.lookup(name, *pos)? {
                    Sym::RealConst { label, .. } => self.emit(format!("ldc {label}")),
                    Sym::Var { frame: f, slot, .. } => {
                        let at = self.reach(frame, f, slot, *pos)?;
                        self.emit(format!("ldlp {at}"));
                    }
                    Sym::Ref { frame: f, slot, .. } => {
                        let at = self.reach(frame, f, slot, *pos)?;
                        self.emit(format!("ldl {at}"));
                    }
                    _ => return Err(mismatch(found, *pos)),
                }
                self.emit(load);
            }
            Expr::Index(name, index, pos) => {
                let found = self.ty_of(e);
                if found != ty {
                    return Err(mismatch(found, *pos));
                }
                self.element(name, index, *pos, frame)?;
                self.emit(load);
            }
            Expr::Call(name, args, pos) => {
                let found = self.ty_of(e);
                if found != ty {
                    return Err(mismatch(found, *pos));
                }
                self.call(name, args, *pos, frame, true)?;
            }
            Expr::Convert(to, rounding, x, pos) => {
                if *to != ty {
                    return Err(mismatch(*to, *pos));
                }
                let from = self.ty_of(x);
                match from {
                    _ if matches!(**x, Expr::Real(_, None, _)) => self.fexpr(x, ty, frame)?,
                    Type::Real32 | Type::Real64 if from == ty => self.fexpr(x, ty, frame)?,
                    Type::Real32 | Type::Real64 => {
                        self.fexpr(x, from, frame)?;
                        if *rounding == Rounding::Trunc {
                            self.emit("fpurz");
                        }
                        self.emit(if ty == Type::Real64 {
                            "fpur32tor64"
                        } else {
                            "fpur64tor32"
                        });
                    }
                    _ => {
                        // An INT through a temporary: the FPU loads it from memory.
                        self.expr(x, frame)?;
                        let temp = self.slot(frame);
                        self.emit(format!("stl {temp}"));
                        self.emit(format!("ldlp {temp}"));
                        self.emit(if ty == Type::Real64 {
                            "fpi32tor64"
                        } else {
                            "fpi32tor32"
                        });
                    }
                }
            }
            Expr::Neg(x) => {
                let zero = Expr::Real("0.0".to_owned(), Some(ty), Pos::default());
                let sub = Expr::Bin("-", Box::new(zero), x.clone(), Pos::default());
                self.fexpr(&sub, ty, frame)?;
            }
            Expr::Bin(op, l, r, pos) => {
                let fop = match *op {
                    "+" => "fpadd",
                    "-" => "fpsub",
                    "*" => "fpmul",
                    "/" => "fpdiv",
                    _ => {
                        return Err(OccamError::at_pos(
                            *pos,
                            format!("{op} is not an operation on a {}", type_name(ty)),
                        ));
                    }
                };
                self.fbin(l, r, ty, frame)?;
                self.emit(fop);
            }
            Expr::Slice(_, _, _, pos) | Expr::Table(_, pos) => {
                return Err(OccamError::at_pos(
                    *pos,
                    "a slice or a table is an array: pass it to a PROC or abbreviate it",
                ));
            }
            Expr::Num(_) | Expr::Size(..) | Expr::Not(_) | Expr::BitNot(_) | Expr::Str(..) => {
                return Err(OccamError::at_pos(
                    expr_pos(e),
                    format!(
                        "an INT where a {} is expected: write 1.0, or convert ({} n)",
                        type_name(ty),
                        type_name(ty)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Two slots for an INT64 temporary.
    fn long_temp(&mut self, frame: usize) -> i64 {
        let t = self.slot(frame);
        self.slot(frame);
        t
    }

    /// Evaluates the INT64 expression `e` into the two words at slot `dest` (the low one
    /// first), through temporaries: `+` and `−` checked (ladd, lsub), `*` modulo 2⁶⁴.
    fn lexpr(&mut self, e: &Expr, dest: i64, frame: usize) -> Result<(), OccamError> {
        let words = |g: &mut Self, lo: i64, hi: i64| {
            g.emit(format!("ldc {}", lo as i32));
            g.emit(format!("stl {dest}"));
            g.emit(format!("ldc {}", hi as i32));
            g.emit(format!("stl {}", dest + 1));
        };
        if let Some(v) = self.constant(e) {
            // An INT constant, sign-extended.
            let v = i64::from(v as i32);
            words(self, v & 0xFFFF_FFFF, v >> 32);
            return Ok(());
        }
        match e {
            Expr::Var(name, pos) => {
                let (base, by_ref) = match self.lookup(name, *pos)? {
                    Sym::Var {
                        frame: f,
                        slot,
                        ty: Type::Int64,
                        ..
                    } => (self.reach(frame, f, slot, *pos)?, false),
                    Sym::Ref {
                        frame: f,
                        slot,
                        ty: Type::Int64,
                    } => (self.reach(frame, f, slot, *pos)?, true),
                    _ => {
                        return Err(OccamError::at_pos(
                            *pos,
                            format!("\"{name}\" is not an INT64: convert it (INT64 {name})"),
                        ));
                    }
                };
                for k in 0..2 {
                    if by_ref {
                        self.emit(format!("ldl {base}"));
                        self.emit(format!("ldnl {k}"));
                    } else {
                        self.emit(format!("ldl {base}+{k}"));
                    }
                    self.emit(format!("stl {}", dest + k));
                }
            }
            Expr::Index(name, index, pos) => {
                self.element(name, index, *pos, frame)?;
                let a = self.slot(frame);
                self.emit(format!("stl {a}"));
                for k in 0..2 {
                    self.emit(format!("ldl {a}"));
                    self.emit(format!("ldnl {k}"));
                    self.emit(format!("stl {}", dest + k));
                }
            }
            Expr::Convert(_, _, x, pos) => match self.ty_of(x) {
                Type::Int64 => self.lexpr(x, dest, frame)?,
                t if t.is_real() => {
                    return Err(OccamError::at_pos(
                        *pos,
                        "a REAL to an INT64 is not taken here: convert to INT first",
                    ));
                }
                _ => {
                    // An INT, sign-extended (xdble).
                    self.expr(x, frame)?;
                    self.emit("xdble");
                    self.emit(format!("stl {dest}"));
                    self.emit(format!("stl {}", dest + 1));
                }
            },
            Expr::Neg(x) => {
                let sub = Expr::Bin("-", Box::new(Expr::Num(0)), x.clone(), Pos::default());
                self.lexpr(&sub, dest, frame)?;
            }
            Expr::Bin(op, l, r, _) if matches!(*op, "<<" | ">>") => {
                let (t, n) = (self.long_temp(frame), self.slot(frame));
                self.expr(r, frame)?;
                self.emit(format!("stl {n}"));
                self.lexpr(l, t, frame)?;
                self.emit(format!("ldl {}", t + 1));
                self.emit(format!("ldl {t}"));
                self.emit(format!("ldl {n}"));
                self.emit(if *op == "<<" { "lshl" } else { "lshr" });
                self.emit(format!("stl {dest}"));
                self.emit(format!("stl {}", dest + 1));
            }
            Expr::Bin(op, l, r, _) if matches!(*op, "/" | "\\" | "REM") => {
                self.long_divide(op, l, r, dest, frame)?;
            }
            Expr::Bin(op, l, r, pos) => {
                let (a, b) = (self.long_temp(frame), self.long_temp(frame));
                self.lexpr(l, a, frame)?;
                self.lexpr(r, b, frame)?;
                let (lo, hi) = (dest, dest + 1);
                let ops: Vec<String> = match *op {
                    "+" | "PLUS" | "-" | "MINUS" => {
                        let (low, high) = match *op {
                            "+" => ("lsum", "ladd"),
                            "PLUS" => ("lsum", "sum"),
                            "-" => ("ldiff", "lsub"),
                            _ => ("ldiff", "diff"),
                        };
                        let mut v = vec![
                            "ldc 0".to_owned(),
                            format!("ldl {a}"),
                            format!("ldl {b}"),
                            low.to_owned(),
                            format!("stl {lo}"),
                            format!("ldl {}", a + 1),
                            format!("ldl {}", b + 1),
                        ];
                        if high == "sum" {
                            // Modulo: the carry (in C) added in, unchecked.
                            v.push("sum".to_owned());
                            v.push("sum".to_owned());
                        } else if high == "diff" {
                            // Modulo: the borrow (in C) taken off, unchecked.
                            v.push("diff".to_owned());
                            v.push("rev".to_owned());
                            v.push("diff".to_owned());
                        } else {
                            v.push(high.to_owned());
                        }
                        v.push(format!("stl {hi}"));
                        v
                    }
                    "*" | "TIMES" => vec![
                        "ldc 0".to_owned(),
                        format!("ldl {a}"),
                        format!("ldl {b}"),
                        "lmul".to_owned(),
                        format!("stl {lo}"),
                        format!("stl {hi}"),
                        format!("ldl {a}"),
                        format!("ldl {}", b + 1),
                        "prod".to_owned(),
                        format!("ldl {}", a + 1),
                        format!("ldl {b}"),
                        "prod".to_owned(),
                        "sum".to_owned(),
                        format!("ldl {hi}"),
                        "sum".to_owned(),
                        format!("stl {hi}"),
                    ],
                    "/\\" | "\\/" | "><" => {
                        let w = match *op {
                            "/\\" => "and",
                            "\\/" => "or",
                            _ => "xor",
                        };
                        (0..2)
                            .flat_map(|k| {
                                [
                                    format!("ldl {}", a + k),
                                    format!("ldl {}", b + k),
                                    w.to_owned(),
                                    format!("stl {}", dest + k),
                                ]
                            })
                            .collect()
                    }
                    _ => {
                        return Err(OccamError::at_pos(
                            *pos,
                            format!(
                                "{op} on INT64 is not taken here (+, −, ×, bitwise, shifts are)"
                            ),
                        ));
                    }
                };
                for o in ops {
                    self.emit(o);
                }
            }
            _ => {
                return Err(OccamError::at_pos(
                    expr_pos(e),
                    "an INT64 value is a name, an element, a constant, a conversion or an operation",
                ));
            }
        }
        Ok(())
    }

    /// `l / r` or `l \\ r` on INT64s: the magnitudes divided by the library's long division,
    /// the quotient negated when the signs differ, the remainder taking the dividend's sign (a
    /// divisor of 0 sets the error flag).
    fn long_divide(
        &mut self,
        op: &str,
        l: &Expr,
        r: &Expr,
        dest: i64,
        frame: usize,
    ) -> Result<(), OccamError> {
        self.uses_ldiv = true;
        let (a, b) = (self.long_temp(frame), self.long_temp(frame));
        self.lexpr(l, a, frame)?;
        self.lexpr(r, b, frame)?;
        let result = self.long_temp(frame);
        self.long_temp(frame);
        let (neg_a, neg_b) = (self.slot(frame), self.slot(frame));
        // A divisor of 0: the error flag.
        let nonzero = self.label();
        for op in [
            format!("ldl {b}"),
            format!("ldl {}", b + 1),
            "or".to_owned(),
            "eqc 0".to_owned(),
            format!("cj {nonzero}"),
            "seterr".to_owned(),
        ] {
            self.emit(op);
        }
        self.code.push_str(&format!("{nonzero}:\n"));
        for (x, flag) in [(a, neg_a), (b, neg_b)] {
            self.emit("ldc 0");
            self.emit(format!("ldl {}", x + 1));
            self.emit("gt");
            self.emit(format!("stl {flag}"));
            self.long_negate_if(flag, x);
        }
        self.emit(format!("ldlp {result}"));
        self.emit(format!("ldlp {b}"));
        self.emit(format!("ldlp {a}"));
        self.emit("call OCC_LDIV");
        let f = &mut self.frames[frame];
        f.below = f.below.max(20);
        let (from, sign) = if op == "/" {
            // Negative when the signs differ.
            self.emit(format!("ldl {neg_a}"));
            self.emit(format!("ldl {neg_b}"));
            self.emit("xor");
            self.emit(format!("stl {neg_b}"));
            (result, neg_b)
        } else {
            (result + 2, neg_a)
        };
        self.long_negate_if(sign, from);
        for k in 0..2 {
            self.emit(format!("ldl {}", from + k));
            self.emit(format!("stl {}", dest + k));
        }
        Ok(())
    }

    /// Negates the INT64 at slot `x` in place when the flag at slot `flag` is set.
    fn long_negate_if(&mut self, flag: i64, x: i64) {
        let skip = self.label();
        for op in [
            format!("ldl {flag}"),
            format!("cj {skip}"),
            "ldc 0".to_owned(),
            "ldc 0".to_owned(),
            format!("ldl {x}"),
            "ldiff".to_owned(),
            format!("stl {x}"),
            "ldc 0".to_owned(),
            format!("ldl {}", x + 1),
            "ldiff".to_owned(),
            format!("stl {}", x + 1),
        ] {
            self.emit(op);
        }
        self.code.push_str(&format!("{skip}:\n"));
    }

    /// Stores the INT64 at slot `t` into `target`.
    fn store_long(
        &mut self,
        target: &Target,
        t: i64,
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        self.target_address(target, pos, frame)?;
        let a = self.slot(frame);
        self.emit(format!("stl {a}"));
        for k in 0..2 {
            self.emit(format!("ldl {}", t + k));
            self.emit(format!("ldl {a}"));
            self.emit(format!("stnl {k}"));
        }
        Ok(())
    }

    /// A comparison of INT64s (or an INT64 and a constant), its truth in A: the high words
    /// signed, then the low words unsigned (ldiff's borrow).
    fn long_compare(
        &mut self,
        op: &str,
        l: &Expr,
        r: &Expr,
        frame: usize,
    ) -> Result<(), OccamError> {
        let (a, b) = (self.long_temp(frame), self.long_temp(frame));
        self.lexpr(l, a, frame)?;
        self.lexpr(r, b, frame)?;
        let less = |x: i64, y: i64, c1: i64, c2: i64| {
            vec![
                format!("ldl {}", y + 1),
                format!("ldl {}", x + 1),
                "gt".to_owned(),
                format!("stl {c1}"),
                format!("ldl {}", x + 1),
                format!("ldl {}", y + 1),
                "diff".to_owned(),
                "eqc 0".to_owned(),
                format!("stl {c2}"),
                "ldc 0".to_owned(),
                format!("ldl {x}"),
                format!("ldl {y}"),
                "ldiff".to_owned(),
                "rev".to_owned(),
                format!("ldl {c2}"),
                "and".to_owned(),
                format!("ldl {c1}"),
                "or".to_owned(),
            ]
        };
        let (c1, c2) = (self.slot(frame), self.slot(frame));
        let mut ops = match op {
            "<" | ">=" => less(a, b, c1, c2),
            ">" | "<=" => less(b, a, c1, c2),
            "=" | "<>" => vec![
                format!("ldl {a}"),
                format!("ldl {b}"),
                "diff".to_owned(),
                "eqc 0".to_owned(),
                format!("ldl {}", a + 1),
                format!("ldl {}", b + 1),
                "diff".to_owned(),
                "eqc 0".to_owned(),
                "and".to_owned(),
            ],
            _ => {
                return Err(OccamError::at_pos(
                    expr_pos(l),
                    format!("{op} compares no INT64s here"),
                ));
            }
        };
        if matches!(op, ">=" | "<=" | "<>") {
            ops.push("eqc 0".to_owned());
        }
        for o in ops {
            self.emit(o);
        }
        Ok(())
    }

    /// A real literal's words in the program's data (as `ty`); answers their label.
    fn real_data(&mut self, text: &str, ty: Type, pos: Pos) -> Result<String, OccamError> {
        let value: f64 = text
            .parse()
            .map_err(|_| OccamError::at_pos(pos, format!("\"{text}\" is not a real number")))?;
        let label = self.label();
        let words = if ty == Type::Real64 {
            let bits = value.to_bits();
            format!("{}, {}", bits as u32, (bits >> 32) as u32)
        } else {
            (value as f32).to_bits().to_string()
        };
        let _ = writeln!(self.data, "    .align 4\n{label}: .word {words}");
        Ok(label)
    }

    /// Both operands of a REAL operation on the FPU's stack (FB the left, FA the right),
    /// through a temporary when the right needs every register.
    fn fbin(&mut self, l: &Expr, r: &Expr, ty: Type, frame: usize) -> Result<(), OccamError> {
        if Self::fdepth(r) >= 3 || matches!(r, Expr::Call(..)) {
            let temp = self.slot(frame);
            if ty == Type::Real64 {
                self.slot(frame);
            }
            let (load, store) = (fp_load(ty), fp_store(ty));
            self.fexpr(r, ty, frame)?;
            self.emit(format!("ldlp {temp}"));
            self.emit(store);
            self.fexpr(l, ty, frame)?;
            self.emit(format!("ldlp {temp}"));
            self.emit(load);
        } else {
            self.fexpr(l, ty, frame)?;
            self.fexpr(r, ty, frame)?;
        }
        Ok(())
    }

    /// A comparison of REALs, its truth in A.
    fn real_compare(
        &mut self,
        op: &str,
        l: &Expr,
        r: &Expr,
        frame: usize,
    ) -> Result<(), OccamError> {
        let ty = match (l, r) {
            (Expr::Real(_, None, _), other) | (other, Expr::Real(_, None, _)) => self.ty_of(other),
            _ => self.ty_of(l),
        };
        let ops: &[&str] = match op {
            "=" => &["fpeq"],
            "<>" => &["fpeq", "eqc 0"],
            ">" => &["fpgt"],
            "<" => &["fprev", "fpgt"],
            "<=" => &["fpgt", "eqc 0"],
            ">=" => &["fprev", "fpgt", "eqc 0"],
            _ => {
                return Err(OccamError::at_pos(
                    expr_pos(l),
                    format!("{op} is not an operation on a {}", type_name(ty)),
                ));
            }
        };
        self.fbin(l, r, ty, frame)?;
        for o in ops {
            self.emit(*o);
        }
        Ok(())
    }

    fn declare(&mut self, name: &str, sym: Sym) {
        self.scopes.push((name.to_owned(), sym));
    }

    fn process(&mut self, p: &Proc, frame: usize) -> Result<(), OccamError> {
        match p {
            Proc::Skip => {}
            Proc::Stop => {
                self.emit("seterr");
                self.emit("stopp");
            }
            Proc::Assign(Target::Var(array), Expr::Str(text, _), pos)
                if self.array_elem_bytes(array) == 1 && self.is_word_array(array) =>
            {
                // A string into a BYTE array: copied from the program's data.
                self.load_len(array, *pos, frame)?;
                self.emit(format!("eqc {}", text.len()));
                let fits = self.label();
                self.emit(format!("cj {fits}_bad"));
                let label = self.string_data(text);
                self.emit(format!("ldc {label}"));
                self.array_base(array, *pos, frame)?;
                self.emit(format!("ldc {}", text.len()));
                self.emit("move");
                self.emit(format!("j {fits}"));
                self.code.push_str(&format!("{fits}_bad:\n"));
                self.emit("seterr");
                self.code.push_str(&format!("{fits}:\n"));
            }
            Proc::Assign(target, e, pos) if self.target_type(target) == Type::Int64 => {
                let t = self.long_temp(frame);
                self.lexpr(e, t, frame).map_err(|err| located(err, *pos))?;
                self.store_long(target, t, *pos, frame)?;
            }
            Proc::Assign(target, e, pos) => {
                let ty = self.target_type(target);
                if ty.is_real() {
                    self.fexpr(e, ty, frame).map_err(|err| located(err, *pos))?;
                    self.target_address(target, *pos, frame)?;
                    self.emit(fp_store(ty));
                } else {
                    self.expr(e, frame).map_err(|err| located(err, *pos))?;
                    self.store_target(target, *pos, frame)?;
                }
            }
            Proc::MultiAssign(targets, values, pos) => {
                self.multi_assign(targets, values, *pos, frame)?;
            }
            Proc::Output(chan, items, pos) => self.output(chan, items, *pos, frame)?,
            Proc::Input(chan, items, pos) => self.input(chan, items, *pos, frame)?,
            Proc::CaseInput(chan, variations, pos) => {
                self.case_input(chan, variations, *pos, frame)?
            }
            Proc::After(timer, e, pos) => {
                let Sym::Timer = self.lookup(timer, *pos)? else {
                    return Err(OccamError::at_pos(
                        *pos,
                        format!("\"{timer}\" is not a TIMER"),
                    ));
                };
                self.expr(e, frame)?;
                self.emit("tin");
            }
            Proc::Array(ty, size, names, scope) => {
                let pos = names.first().map_or(Pos::default(), |n| n.1);
                let dims = match size {
                    Expr::Table(sizes, _) => sizes
                        .iter()
                        .map(|e| self.known(e, pos, "an array's size"))
                        .collect::<Result<Vec<i64>, OccamError>>()?,
                    _ => vec![self.known(size, pos, "an array's size")?],
                };
                if dims.iter().any(|d| *d < 1) {
                    return Err(OccamError::at_pos(pos, "an array's sizes must be positive"));
                }
                let len = dims
                    .iter()
                    .try_fold(1i64, |a, d| a.checked_mul(*d))
                    .unwrap_or(i64::MAX);
                if !(1..=1 << 20).contains(&len) {
                    return Err(OccamError::at_pos(
                        pos,
                        format!("an array of {len} elements: expected 1 to 1048576"),
                    ));
                }
                let depth = self.scopes.len();
                for (name, _) in names {
                    let f = &mut self.frames[frame];
                    let slot = f.next;
                    f.next += (len * elem_bytes(*ty) + 3) / 4;
                    if ty.is_chan() {
                        for k in 0..len {
                            self.emit("mint");
                            self.emit(format!("stl {}", slot + k));
                        }
                    }
                    if dims.len() > 1 {
                        self.dims.insert((frame, slot), dims.clone());
                    }
                    self.declare(
                        name,
                        Sym::Array {
                            frame,
                            slot,
                            len,
                            ty: *ty,
                        },
                    );
                }
                self.process(scope, frame)?;
                self.scopes.truncate(depth);
            }
            Proc::Decl(Type::Timer, names, scope) => {
                let depth = self.scopes.len();
                for (name, _) in names {
                    self.declare(name, Sym::Timer);
                }
                self.process(scope, frame)?;
                self.scopes.truncate(depth);
            }
            Proc::Seq(list) => {
                for q in list {
                    self.process(q, frame)?;
                }
            }
            Proc::Par(branches, pos) => self.par(branches, *pos, frame, false)?,
            Proc::PriPar(branches, pos) => self.par(branches, *pos, frame, true)?,
            Proc::RepPar(r, body) => {
                let n = self.known(&r.count, r.pos, "a replicated PAR's count")?;
                if !(1..=256).contains(&n) {
                    return Err(OccamError::at_pos(
                        r.pos,
                        format!("a replicated PAR of {n} branches: expected 1 to 256"),
                    ));
                }
                // A branch per index, each with its own (`VAL INT i IS base + k:`).
                let branches: Vec<Proc> = (0..n)
                    .map(|k| {
                        let index =
                            Expr::Bin("+", Box::new(r.base.clone()), Box::new(Expr::Num(k)), r.pos);
                        Proc::Val(r.name.clone(), index, body.clone(), r.pos)
                    })
                    .collect();
                self.par(&branches, r.pos, frame, false)?;
            }
            Proc::Alt(alternatives, _) => self.alt(alternatives, frame)?,
            Proc::If(choices) => self.if_choices(choices, frame)?,
            Proc::Case(selector, choices, pos) => self.case(selector, choices, *pos, frame)?,
            Proc::While(cond, body) => {
                let (top, end) = (self.label(), self.label());
                self.code.push_str(&format!("{top}:\n"));
                // WHILE TRUE tests nothing.
                if self.constant(cond) != Some(1) {
                    self.expr(cond, frame)?;
                    self.emit(format!("cj {end}"));
                }
                self.process(body, frame)?;
                self.emit(format!("j {top}"));
                self.code.push_str(&format!("{end}:\n"));
            }
            Proc::RepSeq(name, base, count, body) => {
                let (i, n) = (self.slot(frame), self.slot(frame));
                self.expr(base, frame)?;
                self.emit(format!("stl {i}"));
                self.expr(count, frame)?;
                self.emit(format!("stl {n}"));
                let (top, end) = (self.label(), self.label());
                self.code.push_str(&format!("{top}:\n"));
                self.emit(format!("ldl {n}"));
                self.emit("ldc 0");
                self.emit("gt");
                self.emit(format!("cj {end}"));
                self.declare(
                    name,
                    Sym::Var {
                        frame,
                        slot: i,
                        ty: Type::Int,
                        writable: false,
                    },
                );
                self.process(body, frame)?;
                self.scopes.pop();
                self.emit(format!("ldl {i}"));
                self.emit("adc 1");
                self.emit(format!("stl {i}"));
                self.emit(format!("ldl {n}"));
                self.emit("adc -1");
                self.emit(format!("stl {n}"));
                self.emit(format!("j {top}"));
                self.code.push_str(&format!("{end}:\n"));
            }
            Proc::Decl(ty, names, scope) => {
                let depth = self.scopes.len();
                for (name, _) in names {
                    let slot = self.slot(frame);
                    if ty.words() == 2 {
                        self.slot(frame);
                    }
                    if ty.is_chan() {
                        self.emit("mint");
                        self.emit(format!("stl {slot}"));
                    }
                    self.declare(
                        name,
                        Sym::Var {
                            frame,
                            slot,
                            ty: *ty,
                            writable: true,
                        },
                    );
                }
                self.process(scope, frame)?;
                self.scopes.truncate(depth);
            }
            Proc::Val(name, value, scope, _)
                if self.ty_of(value).is_real() && real_literal(value).is_some() =>
            {
                let ty = self.ty_of(value);
                let text = real_literal(value).unwrap_or("0.0");
                let label = self.real_data(text, ty, Pos::default())?;
                self.declare(name, Sym::RealConst { label, ty });
                self.process(scope, frame)?;
                self.scopes.pop();
            }
            Proc::Val(name, value, scope, _) => {
                let ty = self.ty_of(value);
                if ty.is_real() {
                    let slot = self.slot(frame);
                    if ty == Type::Real64 {
                        self.slot(frame);
                    }
                    self.fexpr(value, ty, frame)?;
                    let at = self.reach(frame, frame, slot, Pos::default())?;
                    self.emit(format!("ldlp {at}"));
                    self.emit(fp_store(ty));
                    self.declare(
                        name,
                        Sym::Var {
                            frame,
                            slot,
                            ty,
                            writable: false,
                        },
                    );
                } else if let Some(v) = self.constant(value) {
                    self.declare(name, Sym::Const(v));
                } else {
                    let slot = self.slot(frame);
                    self.expr(value, frame)?;
                    self.emit(format!("stl {slot}"));
                    self.declare(
                        name,
                        Sym::Var {
                            frame,
                            slot,
                            ty: Type::Int,
                            writable: false,
                        },
                    );
                }
                self.process(scope, frame)?;
                self.scopes.pop();
            }
            Proc::Define(name, params, body, scope, pos) => {
                self.define(name, params, body, *pos)?;
                self.process(scope, frame)?;
                self.scopes.pop();
            }
            Proc::Call(name, args, pos) => self.call(name, args, *pos, frame, false)?,
            Proc::Valof(body, Expr::Table(values, _), pos) => {
                if !self.in_function {
                    return Err(OccamError::at_pos(*pos, "VALOF belongs in a FUNCTION"));
                }
                self.process(body, frame)?;
                // Several values: each into a temporary, then loaded so A holds the first.
                let temps: Vec<i64> = values.iter().map(|_| self.slot(frame)).collect();
                for (v, t) in values.iter().zip(&temps) {
                    self.expr(v, frame)?;
                    self.emit(format!("stl {t}"));
                }
                for t in temps.iter().rev() {
                    self.emit(format!("ldl {t}"));
                }
            }
            Proc::Valof(body, result, pos) => {
                if !self.in_function {
                    return Err(OccamError::at_pos(*pos, "VALOF belongs in a FUNCTION"));
                }
                self.process(body, frame)?;
                let ty = self.ty_of(result);
                if ty.is_real() {
                    self.fexpr(result, ty, frame)?;
                } else {
                    self.expr(result, frame)?;
                }
            }
            Proc::Placed(placements, pos) => self.placed_par(placements, *pos, frame)?,
            Proc::Place(name, at, scope, pos) => {
                let protocol = match self.lookup(name, *pos)? {
                    Sym::Var {
                        ty: Type::Chan(p), ..
                    }
                    | Sym::Placed {
                        protocol: p,
                        len: None,
                        ..
                    } => p,
                    _ => {
                        return Err(OccamError::at_pos(
                            *pos,
                            format!("\"{name}\" is not a channel: PLACE puts a channel on a link"),
                        ));
                    }
                };
                let n = self.known(at, *pos, "a PLACE's link")?;
                if !(0..8).contains(&n) {
                    return Err(OccamError::at_pos(
                        *pos,
                        format!(
                            "PLACE {name} AT {n}: links are 0 to 3 (outputs) and 4 to 7 (inputs)"
                        ),
                    ));
                }
                let depth = self.scopes.len();
                let address = 0x8000_0000u32 + 4 * n as u32;
                self.declare(name, Sym::Fixed { address, protocol });
                self.process(scope, frame)?;
                self.scopes.truncate(depth);
            }
            Proc::Abbrev(name, value, scope, pos) => {
                let depth = self.scopes.len();
                let sym = self.abbreviate(value, *pos, frame)?;
                self.declare(name, sym);
                self.process(scope, frame)?;
                self.scopes.truncate(depth);
            }
        }
        Ok(())
    }

    /// An IF: each choice's condition in turn, the first that holds taken (none: STOP). A
    /// replicated choice is one per index when its count is known, else a loop over the index.
    fn if_choices(
        &mut self,
        choices: &[super::parse::Choice],
        frame: usize,
    ) -> Result<(), OccamError> {
        let end = self.label();
        for choice in choices {
            if let Some(r) = &choice.rep
                && (self.constant(&r.base).is_none() || self.constant(&r.count).is_none())
            {
                let l = Looped {
                    name: r.name.clone(),
                    base: self.slot(frame),
                    count: self.slot(frame),
                    i: self.slot(frame),
                    n: self.slot(frame),
                    chosen: 0,
                };
                self.expr(&r.base, frame)?;
                self.emit(format!("stl {}", l.base));
                self.expr(&r.count, frame)?;
                self.emit(format!("stl {}", l.count));
                self.alt_loop(&l, frame, |g| {
                    let next = g.label();
                    g.expr(&choice.cond, frame)?;
                    g.emit(format!("cj {next}"));
                    g.process(&choice.body, frame)?;
                    g.emit(format!("j {end}"));
                    g.code.push_str(&format!("{next}:\n"));
                    Ok(())
                })?;
                continue;
            }
            let mut taken = false;
            for (binding, choice) in
                self.expand(std::slice::from_ref(choice), |c| c.rep.as_ref())?
            {
                let depth = self.bind(&binding);
                let (cond, body) = (&choice.cond, &choice.body);
                // A condition known when compiling: a false choice has no code (so a
                // configuration's unused branches name no links), a true one ends the IF.
                let known = self.constant(cond);
                if known != Some(0) {
                    let next = self.label();
                    if known.is_none() {
                        self.expr(cond, frame)?;
                        self.emit(format!("cj {next}"));
                    }
                    self.process(body, frame)?;
                    self.emit(format!("j {end}"));
                    self.code.push_str(&format!("{next}:\n"));
                }
                self.scopes.truncate(depth);
                if known.is_some_and(|v| v != 0) {
                    taken = true;
                    break;
                }
            }
            if taken {
                break;
            }
        }
        // No choice held: IF behaves like STOP.
        self.emit("seterr");
        self.emit("stopp");
        self.code.push_str(&format!("{end}:\n"));
        Ok(())
    }

    /// Replicated choices or alternatives, one per index (the replicator's base and count
    /// must be constants), each with its index's binding; others as they are.
    #[allow(clippy::type_complexity)]
    fn expand<'c, T>(
        &self,
        items: &'c [T],
        rep: impl Fn(&T) -> Option<&Replicator>,
    ) -> Result<Vec<(Option<(String, i64)>, &'c T)>, OccamError> {
        let mut out = Vec::new();
        for item in items {
            match rep(item) {
                None => out.push((None, item)),
                Some(r) => {
                    let base = self.known(&r.base, r.pos, "a replicated choice's base")?;
                    let count = self.known(&r.count, r.pos, "a replicated choice's count")?;
                    if !(0..=256).contains(&count) {
                        return Err(OccamError::at_pos(
                            r.pos,
                            format!("a replicator of {count}: expected 0 to 256"),
                        ));
                    }
                    out.extend((0..count).map(|k| (Some((r.name.clone(), base + k)), item)));
                }
            }
        }
        Ok(out)
    }

    /// Declares a replicator's index as the constant it is here; answers the scope depth to
    /// return to.
    fn bind(&mut self, binding: &Option<(String, i64)>) -> usize {
        let depth = self.scopes.len();
        if let Some((name, v)) = binding {
            self.declare(name, Sym::Const(*v));
        }
        depth
    }

    /// `a, b := e1, e2` (every value found before any is stored) or `a, b := f (x)` (a
    /// FUNCTION's values, A the first).
    fn multi_assign(
        &mut self,
        targets: &[Target],
        values: &[Expr],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        let mut temps = Vec::new();
        if let [Expr::Call(name, args, cpos)] = values {
            let gives = match self.lookup(name, *cpos)? {
                Sym::Procedure { results, .. } => results,
                _ => 1,
            };
            if gives != targets.len() {
                return Err(OccamError::at_pos(
                    pos,
                    format!("{name} gives {gives} values, not {}", targets.len()),
                ));
            }
            self.taking_results = true;
            let called = self.call(name, args, *cpos, frame, true);
            self.taking_results = false;
            called?;
            for _ in targets {
                let t = self.slot(frame);
                self.emit(format!("stl {t}"));
                temps.push((t, Type::Int));
            }
        } else {
            if values.len() != targets.len() {
                return Err(OccamError::at_pos(
                    pos,
                    format!("{} names, {} values", targets.len(), values.len()),
                ));
            }
            for (v, target) in values.iter().zip(targets) {
                let ty = self.target_type(target);
                let t = self.slot(frame);
                if ty.is_real() {
                    if ty == Type::Real64 {
                        self.slot(frame);
                    }
                    self.fexpr(v, ty, frame)?;
                    self.emit(format!("ldlp {t}"));
                    self.emit(fp_store(ty));
                } else {
                    self.expr(v, frame)?;
                    self.emit(format!("stl {t}"));
                }
                temps.push((t, ty));
            }
        }
        for (target, (t, ty)) in targets.iter().zip(temps) {
            if ty.is_real() {
                self.emit(format!("ldlp {t}"));
                self.emit(fp_load(ty));
                self.target_address(target, pos, frame)?;
                self.emit(fp_store(ty));
            } else {
                self.emit(format!("ldl {t}"));
                self.store_target(target, pos, frame)?;
            }
        }
        Ok(())
    }

    /// What an abbreviation names: a name's own symbol, an element's address (a reference),
    /// or a slice's first element and length (an array reference; the slice checked against
    /// the array when it is made).
    fn abbreviate(&mut self, value: &Expr, pos: Pos, frame: usize) -> Result<Sym, OccamError> {
        match value {
            Expr::Var(v, vpos) => self.lookup(v, *vpos),
            Expr::Index(arr, index, ipos) => {
                let ty = match self.lookup(arr, *ipos)? {
                    Sym::Array { ty, .. } | Sym::ArrayRef { ty, .. } => ty,
                    _ => {
                        return Err(OccamError::at_pos(
                            *ipos,
                            format!("\"{arr}\" is not an array"),
                        ));
                    }
                };
                self.element(arr, index, *ipos, frame)?;
                let slot = self.slot(frame);
                self.emit(format!("stl {slot}"));
                Ok(Sym::Ref { frame, slot, ty })
            }
            Expr::Slice(arr, from, count, spos) => {
                let (base, len) = self.slice(arr, from, count, *spos, frame)?;
                let ty = match self.lookup(arr, *spos)? {
                    Sym::Array { ty, .. } | Sym::ArrayRef { ty, .. } => ty,
                    _ => Type::Int,
                };
                Ok(Sym::ArrayRef {
                    frame,
                    slot: base,
                    len,
                    ty,
                })
            }
            Expr::Table(items, tpos) => {
                // `VAL []INT t IS [1, 2, 3]:`: constants in the program's data.
                let mut words = Vec::new();
                for item in items {
                    let v = self.known(item, *tpos, "a table's element")?;
                    words.push((v as i32 as u32).to_string());
                }
                let label = self.label();
                let _ = writeln!(
                    self.data,
                    "    .align 4\n{label}: .word {}",
                    words.join(", ")
                );
                let slot = self.slot(frame);
                self.emit(format!("ldc {label}"));
                self.emit(format!("stl {slot}"));
                Ok(Sym::ArrayRef {
                    frame,
                    slot,
                    len: Len::Const(items.len() as i64),
                    ty: Type::Int,
                })
            }
            Expr::Str(text, _) => {
                // `VAL []BYTE s IS "text":`: the program's data.
                let label = self.string_data(text);
                let slot = self.slot(frame);
                self.emit(format!("ldc {label}"));
                self.emit(format!("stl {slot}"));
                Ok(Sym::ArrayRef {
                    frame,
                    slot,
                    len: Len::Const(text.len() as i64),
                    ty: Type::Byte,
                })
            }
            _ => Err(OccamError::at_pos(
                pos,
                "an abbreviation names a variable, an array element, a slice or a string",
            )),
        }
    }

    /// A slice `[arr FROM from FOR count]`: its first element's address in a new slot, its
    /// length a constant or in a slot; `from + count` is checked against the array's length.
    fn slice(
        &mut self,
        arr: &str,
        from: &Expr,
        count: &Expr,
        pos: Pos,
        frame: usize,
    ) -> Result<(i64, Len), OccamError> {
        let end = Expr::Bin("+", Box::new(from.clone()), Box::new(count.clone()), pos);
        self.expr(&end, frame)?;
        self.load_len(arr, pos, frame)?;
        self.emit("adc 1");
        self.emit("csub0");
        let len = match self.constant(count) {
            Some(n) if n >= 0 => Len::Const(n),
            Some(n) => {
                return Err(OccamError::at_pos(pos, format!("a slice of {n} elements")));
            }
            None => {
                let slot = self.slot(frame);
                self.expr(count, frame)?;
                self.emit(format!("stl {slot}"));
                Len::Slot(slot)
            }
        };
        // The first element's address (FROM may equal the length when the slice is empty).
        let base = self.slot(frame);
        self.expr(from, frame)?;
        let shift = self.array_elem_bytes(arr).trailing_zeros();
        if shift > 0 {
            self.emit(format!("ldc {shift}"));
            self.emit("shl");
        }
        self.array_base(arr, pos, frame)?;
        self.emit("add");
        self.emit(format!("stl {base}"));
        Ok((base, len))
    }

    /// CASE: the selector once into a temporary, each choice's constants compared in turn;
    /// no match and no ELSE behaves like STOP.
    fn case(
        &mut self,
        selector: &Expr,
        choices: &[(Vec<Expr>, Proc)],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        let sel = self.slot(frame);
        self.expr(selector, frame)?;
        self.emit(format!("stl {sel}"));
        let end = self.label();
        let mut seen = Vec::new();
        let mut has_else = false;
        for (values, body) in choices {
            let next = self.label();
            if values.is_empty() {
                has_else = true;
            }
            for (k, v) in values.iter().enumerate() {
                let v = self.known(v, pos, "a CASE choice")?;
                if seen.contains(&v) {
                    return Err(OccamError::at_pos(
                        pos,
                        format!("{v} is a choice of this CASE twice"),
                    ));
                }
                seen.push(v);
                self.emit(format!("ldl {sel}"));
                self.emit(format!("eqc {}", v as i32));
                if k > 0 {
                    self.emit("or");
                }
            }
            if !values.is_empty() {
                self.emit(format!("cj {next}"));
            }
            self.process(body, frame)?;
            self.emit(format!("j {end}"));
            self.code.push_str(&format!("{next}:\n"));
        }
        if !has_else {
            self.emit("seterr");
            self.emit("stopp");
        }
        self.code.push_str(&format!("{end}:\n"));
        Ok(())
    }

    /// An ALT: the guards' conditions and times evaluated once into temporaries, each guard
    /// enabled, the wait, each guard disabled with its branch's offset (the first ready one,
    /// in order, is chosen: PRI ALT's rule), then the chosen branch: its input, its process.
    fn alt(&mut self, alternatives: &[Alternative], frame: usize) -> Result<(), OccamError> {
        // Replicated alternatives one per index when the count is known (those whose
        // conditions are false when compiling have no code), else a loop over the index when
        // enabling and disabling, the index of the one chosen kept.
        let mut live: Vec<LiveAlternative<'_>> = Vec::new();
        for a in alternatives {
            let looped = a
                .rep
                .as_ref()
                .filter(|r| self.constant(&r.base).is_none() || self.constant(&r.count).is_none());
            if let Some(r) = looped {
                if matches!(a.guard, Guard::After(..)) {
                    return Err(OccamError::at_pos(
                        r.pos,
                        "a replicated timeout needs a constant count here",
                    ));
                }
                let l = Looped {
                    name: r.name.clone(),
                    base: self.slot(frame),
                    count: self.slot(frame),
                    i: self.slot(frame),
                    n: self.slot(frame),
                    chosen: self.slot(frame),
                };
                self.expr(&r.base, frame)?;
                self.emit(format!("stl {}", l.base));
                self.expr(&r.count, frame)?;
                self.emit(format!("stl {}", l.count));
                live.push((None, a, Some(l)));
                continue;
            }
            for (binding, a) in self.expand(std::slice::from_ref(a), |a| a.rep.as_ref())? {
                let depth = self.bind(&binding);
                let dead = a.condition.as_ref().and_then(|c| self.constant(c)) == Some(0);
                self.scopes.truncate(depth);
                if !dead {
                    live.push((binding, a, None));
                }
            }
        }
        if live.is_empty() {
            // No alternative can be chosen: the ALT behaves like STOP.
            self.emit("seterr");
            self.emit("stopp");
            return Ok(());
        }
        let timed = live
            .iter()
            .any(|(_, a, _)| matches!(a.guard, Guard::After(..)));
        // Conditions and times, evaluated once (a looped alternative's condition each time
        // round its loop).
        let mut held = Vec::new();
        for (binding, a, looped) in &live {
            if looped.is_some() {
                held.push((String::new(), None));
                continue;
            }
            let depth = self.bind(binding);
            let cond = self.alt_condition(a, frame)?;
            let time = match &a.guard {
                Guard::After(timer, e) => {
                    let Sym::Timer = self.lookup(timer, a.pos)? else {
                        return Err(OccamError::at_pos(
                            a.pos,
                            format!("\"{timer}\" is not a TIMER"),
                        ));
                    };
                    let t = self.slot(frame);
                    self.expr(e, frame)?;
                    self.emit(format!("stl {t}"));
                    Some(t)
                }
                _ => None,
            };
            self.scopes.truncate(depth);
            held.push((cond, time));
        }
        self.emit(if timed { "talt" } else { "alt" });
        for ((binding, a, looped), (cond, time)) in live.iter().zip(&held) {
            if let Some(l) = looped {
                self.alt_loop(l, frame, |g| {
                    g.guard_code(a, frame, None, None)?;
                    Ok(())
                })?;
                continue;
            }
            let depth = self.bind(binding);
            self.guard_code(a, frame, Some((cond, *time)), None)?;
            self.scopes.truncate(depth);
        }
        self.emit(if timed { "taltwt" } else { "altwt" });
        let after = self.label();
        let branches: Vec<String> = live.iter().map(|_| self.label()).collect();
        for (((binding, a, looped), (cond, time)), branch) in live.iter().zip(&held).zip(&branches)
        {
            let offset = format!("{branch} - {after}");
            if let Some(l) = looped {
                let chosen = l.chosen;
                self.alt_loop(l, frame, |g| {
                    g.guard_code(a, frame, None, Some(&offset))?;
                    // This index's guard was the one chosen: keep it.
                    let skip = g.label();
                    g.emit(format!("cj {skip}"));
                    g.emit(format!("ldl {}", l.i));
                    g.emit(format!("stl {chosen}"));
                    g.code.push_str(&format!("{skip}:\n"));
                    Ok(())
                })?;
                continue;
            }
            let depth = self.bind(binding);
            self.guard_code(a, frame, Some((cond, *time)), Some(&offset))?;
            self.scopes.truncate(depth);
        }
        self.emit("altend");
        self.code.push_str(&format!("{after}:\n"));
        let end = self.label();
        for ((binding, a, looped), branch) in live.iter().zip(&branches) {
            let depth = self.bind(binding);
            if let Some(l) = looped {
                self.declare(
                    &l.name,
                    Sym::Var {
                        frame,
                        slot: l.chosen,
                        ty: Type::Int,
                        writable: false,
                    },
                );
            }
            self.code.push_str(&format!("{branch}:\n"));
            if let Guard::Input(chan, items) = &a.guard {
                self.input(chan, items, a.pos, frame)?;
            }
            self.process(&a.body, frame)?;
            self.emit(format!("j {end}"));
            self.scopes.truncate(depth);
        }
        self.code.push_str(&format!("{end}:\n"));
        Ok(())
    }

    /// An alternative's condition, as the instruction that loads it.
    fn alt_condition(&mut self, a: &Alternative, frame: usize) -> Result<String, OccamError> {
        Ok(match &a.condition {
            None => "ldc 1".to_owned(),
            Some(e) => match self.constant(e) {
                Some(v) => format!("ldc {}", v as i32),
                None => {
                    let slot = self.slot(frame);
                    self.expr(e, frame)?;
                    self.emit(format!("stl {slot}"));
                    format!("ldl {slot}")
                }
            },
        })
    }

    /// A guard's enabling (`offset` none) or disabling (with its branch's offset): its
    /// channel, time or nothing, then its condition (held, or evaluated now).
    fn guard_code(
        &mut self,
        a: &Alternative,
        frame: usize,
        held: Option<(&String, Option<i64>)>,
        offset: Option<&str>,
    ) -> Result<(), OccamError> {
        let cond = match held {
            Some((c, _)) => c.clone(),
            None => self.alt_condition(a, frame)?,
        };
        let time = held.and_then(|h| h.1).unwrap_or(0);
        let op = |enable: &'static str, disable: &'static str| {
            if offset.is_some() { disable } else { enable }
        };
        match &a.guard {
            Guard::Input(chan, _) | Guard::Case(chan) => {
                self.chan_address(chan, a.pos, frame, Some(Dir::In))?;
                self.emit(&cond);
                if let Some(o) = offset {
                    self.emit(format!("ldc {o}"));
                }
                self.emit(op("enbc", "disc"));
            }
            Guard::After(..) => {
                self.emit(format!("ldl {time}"));
                self.emit(&cond);
                if let Some(o) = offset {
                    self.emit(format!("ldc {o}"));
                }
                self.emit(op("enbt", "dist"));
            }
            Guard::Skip => {
                self.emit(&cond);
                if let Some(o) = offset {
                    self.emit(format!("ldc {o}"));
                }
                self.emit(op("enbs", "diss"));
            }
        }
        Ok(())
    }

    /// A loop over a looped alternative's index: `body` with the index bound to its slot.
    fn alt_loop(
        &mut self,
        l: &Looped,
        frame: usize,
        mut body: impl FnMut(&mut Self) -> Result<(), OccamError>,
    ) -> Result<(), OccamError> {
        let (top, done) = (self.label(), self.label());
        self.emit(format!("ldl {}", l.base));
        self.emit(format!("stl {}", l.i));
        self.emit(format!("ldl {}", l.count));
        self.emit(format!("stl {}", l.n));
        self.code.push_str(&format!("{top}:\n"));
        self.emit(format!("ldl {}", l.n));
        self.emit("ldc 0");
        self.emit("gt");
        self.emit(format!("cj {done}"));
        let depth = self.scopes.len();
        self.declare(
            &l.name,
            Sym::Var {
                frame,
                slot: l.i,
                ty: Type::Int,
                writable: false,
            },
        );
        body(self)?;
        self.scopes.truncate(depth);
        self.emit(format!("ldl {}", l.i));
        self.emit("adc 1");
        self.emit(format!("stl {}", l.i));
        self.emit(format!("ldl {}", l.n));
        self.emit("adc -1");
        self.emit(format!("stl {}", l.n));
        self.emit(format!("j {top}"));
        self.code.push_str(&format!("{done}:\n"));
        Ok(())
    }

    /// A PAR: every branch started in a frame of its own below this one, this process waiting
    /// at the join (W[0] the continuation, W[1] the count). In a PRI PAR the first branch runs
    /// at high priority (`runp` with the priority bit clear) and ends by telling the parent
    /// through a channel, so the parent always goes on at its own priority.
    fn par(
        &mut self,
        branches: &[Proc],
        pos: Pos,
        frame: usize,
        pri: bool,
    ) -> Result<(), OccamError> {
        let callee = |name: &str| match self.scopes.iter().rev().find(|(n, _)| n == name) {
            Some((_, Sym::Procedure { params, dirs, .. })) => Some((params.clone(), dirs.clone())),
            _ => None,
        };
        check_par_usage(branches, pos, &|e| self.constant(e), &callee)?;
        let done = pri.then(|| self.slot(frame));
        if let Some(d) = done {
            self.emit("mint");
            self.emit(format!("stl {d}"));
        }
        let n = branches.len() as i64 - i64::from(pri);
        let (join, start_at) = (self.label(), self.label());
        self.emit(format!("ldc {join} - {start_at}"));
        self.emit("ldpi");
        self.code.push_str(&format!("{start_at}:\n"));
        self.emit("stl 0");
        self.emit(format!("ldc {}", n + 1));
        self.emit("stl 1");
        let mut offsets = Vec::new();
        for (k, branch) in branches.iter().enumerate() {
            let offset = format!("PAR{}", self.labels + 1);
            self.labels += 1;
            let child = self.new_frame(Some((frame, offset.clone())));
            let high = pri && k == 0;
            // The branch's code goes after the program's, at a label naming its role.
            let outer = std::mem::take(&mut self.code);
            self.labels += 1;
            let name = role(branch, &|e| self.constant(e)).unwrap_or("par");
            let entry = format!("{name}__{}", self.labels);
            self.code.push_str(&format!("{entry}:\n"));
            self.process(branch, child)?;
            match done {
                Some(d) if high => {
                    let at = self.reach(child, frame, d, pos)?;
                    self.emit(format!("ldlp {at}"));
                    self.emit("ldc 0");
                    self.emit("outword");
                    self.emit("stopp");
                }
                _ => {
                    self.emit(format!("ldlp {offset}"));
                    self.emit("endp");
                }
            }
            let block = std::mem::replace(&mut self.code, outer);
            self.deferred.push(block);
            let after = self.label();
            if high {
                // Its Iptr in its W[-1], then its descriptor at high priority.
                self.emit(format!("ldc {entry} - {after}"));
                self.emit("ldpi");
                self.code.push_str(&format!("{after}:\n"));
                self.emit(format!("ldlp -{offset}"));
                self.emit("stnl -1");
                self.emit(format!("ldlp -{offset}"));
                self.emit("runp");
            } else {
                self.emit(format!("ldc {entry} - {after}"));
                self.emit(format!("ldlp -{offset}"));
                self.emit("startp");
                self.code.push_str(&format!("{after}:\n"));
            }
            offsets.push((offset, child));
        }
        self.emit("ldlp 0");
        self.emit("endp");
        self.code.push_str(&format!("{join}:\n"));
        if let Some(d) = done {
            // The high-priority branch's end.
            self.emit("ldlp 0");
            self.emit(format!("ldlp {d}"));
            self.emit("ldc 4");
            self.emit("in");
        }
        // Frames below this one (after this process's own five scheduling words): each
        // branch's locals above its Wptr, the five scheduling words below it, its own needs.
        let mut cursor = 5;
        for (offset, child) in offsets {
            let f = &self.frames[child];
            let at = cursor + f.size() + 1;
            let _ = writeln!(self.constants, "{offset} = {at}");
            cursor = at + 5 + f.below;
        }
        let f = &mut self.frames[frame];
        f.below = f.below.max(cursor);
        Ok(())
    }

    /// A PLACED PAR: the channels in scope become placed channels (links between the
    /// processors using them); each processor's process is code only its node runs.
    fn placed_par(
        &mut self,
        placements: &[Placement],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        if self.processor.is_some() {
            return Err(OccamError::at_pos(pos, "a PLACED PAR inside a PROCESSOR"));
        }
        let depth = self.scopes.len();
        let outer: Vec<(String, Sym)> = self
            .scopes
            .iter()
            .filter(
                |(_, s)| matches!(s, Sym::Var { ty, .. } | Sym::Array { ty, .. } if ty.is_chan()),
            )
            .cloned()
            .collect();
        for (name, sym) in outer {
            let (len, protocol) = match sym {
                Sym::Array {
                    len,
                    ty: Type::Chan(p),
                    ..
                } => (Some(len), p),
                Sym::Var {
                    ty: Type::Chan(p), ..
                } => (None, p),
                _ => continue,
            };
            let id = self.placed.len();
            self.placed.push(Placed {
                name: name.clone(),
                len,
            });
            self.declare(&name, Sym::Placed { id, len, protocol });
        }
        // Every PROCESSOR, replicated ones expanded: its number, its index's value.
        let mut list: Vec<Processor<'_>> = Vec::new();
        for p in placements {
            let Some(r) = &p.replicator else {
                let n = self.processor_number(&p.processor, p.pos)?;
                list.push((n, None, &p.body, p.pos));
                continue;
            };
            let base = self.known(&r.base, r.pos, "a PLACED PAR's base")?;
            let count = self.known(&r.count, r.pos, "a PLACED PAR's count")?;
            for k in 0..count.max(0) {
                self.declare(&r.name, Sym::Const(base + k));
                let n = self.processor_number(&p.processor, p.pos);
                self.scopes.pop();
                list.push((n?, Some((&r.name, base + k)), &p.body, p.pos));
            }
        }
        let mut taken = vec![false; self.nodes as usize];
        for (n, _, _, at) in &list {
            if std::mem::replace(&mut taken[*n as usize], true) {
                return Err(OccamError::at_pos(
                    *at,
                    format!("processor {n} is placed twice"),
                ));
            }
        }
        // Each processor's locals reuse the same slots: only one runs on a node.
        let first = self.frames[frame].next;
        let mut top = first;
        for (n, binding, body, at) in list {
            let next = self.label();
            let node = self.reach(frame, 0, self.node_slot, at)?;
            self.emit(format!("ldl {node}"));
            self.emit(format!("eqc {n}"));
            self.emit(format!("cj {next}"));
            if let Some((name, v)) = binding {
                self.declare(name, Sym::Const(v));
            }
            self.processor = Some(n);
            self.frames[frame].next = first;
            self.process(body, frame)?;
            top = top.max(self.frames[frame].next);
            self.processor = None;
            if binding.is_some() {
                self.scopes.pop();
            }
            self.emit("stopp");
            self.code.push_str(&format!("{next}:\n"));
        }
        self.frames[frame].next = top;
        self.scopes.truncate(depth);
        Ok(())
    }

    /// A PROCESSOR's number: a constant naming one of the network's nodes.
    fn processor_number(&self, e: &Expr, pos: Pos) -> Result<u32, OccamError> {
        let n = self.known(e, pos, "a PROCESSOR's number")?;
        if !(0..i64::from(self.nodes)).contains(&n) {
            return Err(OccamError::at_pos(
                pos,
                format!(
                    "processor {n}: the network has {} (0 to {})",
                    self.nodes,
                    self.nodes.saturating_sub(1)
                ),
            ));
        }
        Ok(n as u32)
    }

    /// Which end of channel `name` a process uses: its inputs, outputs, ALT guards and the
    /// PROCs it passes the channel to.
    fn direction(&self, p: &Proc, name: &str) -> Option<Dir> {
        let named = |c: &ChanRef| c.name == name;
        match p {
            Proc::Output(c, ..) if named(c) => Some(Dir::Out),
            Proc::Input(c, ..) | Proc::CaseInput(c, ..) if named(c) => Some(Dir::In),
            Proc::Alt(alternatives, _) => alternatives.iter().find_map(|a| match &a.guard {
                Guard::Input(c, _) | Guard::Case(c) if named(c) => Some(Dir::In),
                _ => self.direction(&a.body, name),
            }),
            Proc::Call(callee, args, _) => {
                let dirs = match self.scopes.iter().rev().find(|(n, _)| n == callee) {
                    Some((_, Sym::Procedure { dirs, .. })) => dirs,
                    _ => return None,
                };
                args.iter().zip(dirs).find_map(|(a, d)| match a {
                    Expr::Var(n, _) if n == name => *d,
                    _ => None,
                })
            }
            Proc::Seq(list) | Proc::Par(list, _) | Proc::PriPar(list, _) => {
                list.iter().find_map(|q| self.direction(q, name))
            }
            Proc::If(choices) => choices.iter().find_map(|c| self.direction(&c.body, name)),
            Proc::Case(_, choices, _) => choices.iter().find_map(|(_, q)| self.direction(q, name)),
            Proc::RepPar(_, q)
            | Proc::Abbrev(_, _, q, _)
            | Proc::Place(_, _, q, _)
            | Proc::While(_, q)
            | Proc::RepSeq(_, _, _, q)
            | Proc::Decl(_, _, q)
            | Proc::Array(_, _, _, q)
            | Proc::Val(_, _, q, _)
            | Proc::Define(_, _, _, q, _) => self.direction(q, name),
            _ => None,
        }
    }

    /// A PROC: its code after the program's, its frame of its own. Its parameters are words
    /// above its frame (an open array two: its address and its length): the first three come
    /// in A, B and C, the rest where the caller stored them below its own workspace.
    fn define(
        &mut self,
        name: &str,
        params: &[Param],
        body: &Proc,
        pos: Pos,
    ) -> Result<(), OccamError> {
        let dirs: Vec<Option<Dir>> = params
            .iter()
            .map(|p| {
                p.ty.is_chan()
                    .then(|| self.direction(body, &p.name))
                    .flatten()
            })
            .collect();
        let frame = self.new_frame(None);
        let label = format!("P{}_{}", frame, name.replace('.', "_"));
        let depth = self.scopes.len();
        // The call's frame: W[0] the return address, W[1..] the parameters' words; the body's
        // locals below. Parameter word n sits at FRAMEk + 1 + n: generated with the marker
        // slot −1000 − n and resolved once the body is done (`resolve_params`).
        let size = format!("FRAME{frame}");
        let mut word = 0i64;
        for p in params {
            let slot = -1000 - word;
            word += 1;
            let sym = match &p.array {
                Some(size) => {
                    let len = match size {
                        Some(e) => Len::Const(self.known(e, pos, "an array parameter's size")?),
                        None => {
                            word += 1;
                            Len::Slot(slot - 1)
                        }
                    };
                    Sym::ArrayRef {
                        frame,
                        slot,
                        len,
                        ty: p.ty,
                    }
                }
                None if p.by_value && p.ty != Type::Real64 => Sym::Var {
                    frame,
                    slot,
                    ty: p.ty,
                    writable: false,
                },
                None => Sym::Ref {
                    frame,
                    slot,
                    ty: p.ty,
                },
            };
            self.declare(&p.name, sym);
        }
        if word > 64 {
            return Err(OccamError::at_pos(
                pos,
                "a PROC takes at most 64 parameter words",
            ));
        }
        let deferred_before = self.deferred.len();
        let outer = std::mem::take(&mut self.code);
        self.code.push_str(&format!("{label}:\n"));
        self.emit(format!("ajw -{size}"));
        let outer_function =
            std::mem::replace(&mut self.in_function, super::parse::ends_in_valof(body));
        self.process(body, frame)?;
        self.in_function = outer_function;
        self.emit(format!("ajw {size}"));
        self.emit("ret");
        let block = std::mem::replace(&mut self.code, outer);
        // The body's PAR branches reach the parameters too.
        for branch in &mut self.deferred[deferred_before..] {
            *branch = resolve_params(branch, &size, word);
        }
        self.deferred.push(resolve_params(&block, &size, word));
        self.scopes.truncate(depth);
        self.declare(
            name,
            Sym::Procedure {
                label,
                params: params.to_vec(),
                dirs,
                frame,
                function: super::parse::ends_in_valof(body),
                result: super::parse::result_type(body).unwrap_or(Type::Int),
                results: super::parse::result_count(body),
            },
        );
        Ok(())
    }

    /// `probe (tag)` or `probe (tag, "text")`: the reserved operation with A the tag, B the
    /// text's address and C its length.
    fn probe(&mut self, args: &[Expr], pos: Pos, frame: usize) -> Result<(), OccamError> {
        let (tag, text) = match args {
            [tag] => (tag, ""),
            [tag, Expr::Str(text, _)] => (tag, text.as_str()),
            _ => {
                return Err(OccamError::at_pos(
                    pos,
                    "probe takes a tag and, if you like, a text: probe (1, \"solve\")",
                ));
            }
        };
        let temp = (self.depth(tag) > 1).then(|| self.slot(frame));
        if let Some(t) = temp {
            self.expr(tag, frame)?;
            self.emit(format!("stl {t}"));
        }
        if text.is_empty() {
            self.emit("ldc 0");
            self.emit("ldc 0");
        } else {
            let label = self.label();
            let bytes: Vec<String> = text.bytes().map(|b| b.to_string()).collect();
            let _ = writeln!(self.data, "{label}: .byte {}", bytes.join(", "));
            self.emit(format!("ldc {}", text.len()));
            self.emit(format!("ldc {label}"));
        }
        match temp {
            Some(t) => self.emit(format!("ldl {t}")),
            None => self.expr(tag, frame)?,
        }
        self.emit("probe");
        Ok(())
    }

    /// `out.string ("text")` and `out.number (e)`: text on the host's screen (processor 0
    /// only: its link 0 is the host's).
    fn host_output(
        &mut self,
        name: &str,
        args: &[Expr],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        if self.processor.is_some_and(|p| p != 0) {
            return Err(OccamError::at_pos(
                pos,
                format!("{name}: only processor 0 has the host's link"),
            ));
        }
        self.uses_host = true;
        match (name, args) {
            ("out.string", [Expr::Str(text, _)]) => {
                // The SP.WRITE frame, made now: length, tag 13, stream 1, count, text, and a
                // byte of padding when the length would be odd.
                let bytes = text.as_bytes();
                if bytes.len() > 490 {
                    return Err(OccamError::at_pos(
                        pos,
                        "out.string writes at most 490 characters at a time",
                    ));
                }
                let count = bytes.len();
                let payload = (7 + count).next_multiple_of(2);
                let mut frame_bytes = vec![
                    payload as u8,
                    (payload >> 8) as u8,
                    13,
                    1,
                    0,
                    0,
                    0,
                    count as u8,
                    (count >> 8) as u8,
                ];
                frame_bytes.extend_from_slice(bytes);
                frame_bytes.resize(payload + 2, 0);
                let label = self.label();
                let list: Vec<String> = frame_bytes.iter().map(u8::to_string).collect();
                let _ = writeln!(self.data, "{label}: .byte {}", list.join(", "));
                self.emit(format!("ldc {}", payload + 2));
                self.emit(format!("ldc {label}"));
                self.emit("call OCC_SEND");
            }
            ("out.number", [e]) => {
                self.expr(e, frame)?;
                self.emit("call OCC_NUMBER");
            }
            ("out.string", [Expr::Var(array, apos)])
                if self.array_elem_bytes(array) == 1 && self.is_word_array(array) =>
            {
                self.load_len(array, *apos, frame)?;
                self.array_base(array, *apos, frame)?;
                self.emit("call OCC_TEXT");
            }
            ("out.string", [Expr::Slice(array, from, count, spos)])
                if self.array_elem_bytes(array) == 1 =>
            {
                let (base, len) = self.slice(array, from, count, *spos, frame)?;
                match len {
                    Len::Const(n) => self.emit(format!("ldc {n}")),
                    Len::Slot(l) => self.emit(format!("ldl {l}")),
                }
                self.emit(format!("ldl {base}"));
                self.emit("call OCC_TEXT");
            }
            _ => {
                return Err(OccamError::at_pos(
                    pos,
                    format!("{name} takes one argument: out.string (\"text\"), out.number (e)"),
                ));
            }
        }
        let f = &mut self.frames[frame];
        f.below = f.below.max(24);
        Ok(())
    }

    /// Loads argument `a` for parameter `p` of PROC `name`: its words on the stack (an open
    /// array's address, then its length); answers how many.
    fn argument(
        &mut self,
        name: &str,
        p: &Param,
        a: &Expr,
        dir: Option<Dir>,
        pos: Pos,
        frame: usize,
    ) -> Result<usize, OccamError> {
        let wrong = |what: &str| {
            OccamError::at_pos(pos, format!("{name}'s parameter {} needs {what}", p.name))
        };
        if let Some(size) = &p.array
            && let Expr::Slice(arr, from, count, spos) = a
        {
            let (base, len) = self.slice(arr, from, count, *spos, frame)?;
            if let (Some(e), Len::Const(have)) = (size, len) {
                let want = self.known(e, pos, "an array parameter's size")?;
                if want != have {
                    return Err(wrong(&format!("{want} elements, not {have}")));
                }
            }
            self.emit(format!("ldl {base}"));
            if size.is_none() {
                match len {
                    Len::Const(n) => self.emit(format!("ldc {n}")),
                    Len::Slot(l) => self.emit(format!("ldl {l}")),
                }
                return Ok(2);
            }
            return Ok(1);
        }
        if let Some(size) = &p.array {
            let Expr::Var(v, vpos) = a else {
                return Err(wrong("an array"));
            };
            let (ty, len) = match self.lookup(v, *vpos)? {
                Sym::Array { ty, len, .. } => (ty, Some(len)),
                Sym::ArrayRef { ty, len, .. } => match len {
                    Len::Const(l) => (ty, Some(l)),
                    Len::Slot(_) => (ty, None),
                },
                _ => {
                    return Err(wrong(
                        "an array (of the program's memory, not placed on links)",
                    ));
                }
            };
            if ty.is_chan() != p.ty.is_chan() {
                return Err(wrong(if p.ty.is_chan() {
                    "an array of channels"
                } else {
                    "an array of values"
                }));
            }
            if let (Some(e), Some(have)) = (size, len) {
                let want = self.known(e, pos, "an array parameter's size")?;
                if want != have {
                    return Err(wrong(&format!("{want} elements, not {have}")));
                }
            }
            self.array_base(v, *vpos, frame)?;
            if size.is_none() {
                self.load_len(v, *vpos, frame)?;
                return Ok(2);
            }
            return Ok(1);
        }
        match (p.by_value, p.ty, a) {
            (true, Type::Int | Type::Bool, _) => self.expr(a, frame)?,
            (true, Type::Real32, _) => {
                // Its bits in the word.
                self.fexpr(a, Type::Real32, frame)?;
                let temp = self.slot(frame);
                self.emit(format!("ldlp {temp}"));
                self.emit("fpstnlsn");
                self.emit(format!("ldl {temp}"));
            }
            (true, Type::Real64, _) => {
                // Its address: a temporary holds it.
                self.fexpr(a, Type::Real64, frame)?;
                let temp = self.slot(frame);
                self.slot(frame);
                self.emit(format!("ldlp {temp}"));
                self.emit("fpstnldb");
                self.emit(format!("ldlp {temp}"));
            }
            (_, Type::Chan(want), Expr::Var(v, vpos) | Expr::Index(v, _, vpos)) => {
                let index = match a {
                    Expr::Index(_, i, _) => Some((**i).clone()),
                    _ => None,
                };
                let c = ChanRef {
                    name: v.clone(),
                    index,
                };
                let got = self.chan_address(&c, *vpos, frame, dir)?;
                if got != want {
                    return Err(OccamError::at_pos(
                        *vpos,
                        format!(
                            "\"{v}\" carries another protocol than {name}'s parameter {}",
                            p.name
                        ),
                    ));
                }
            }
            (_, _, Expr::Var(v, vpos)) => self.address(v, *vpos, frame)?,
            (_, _, Expr::Index(v, i, vpos)) => self.element(v, i, *vpos, frame)?,
            _ => return Err(wrong("a variable or a channel")),
        }
        Ok(1)
    }

    /// A call: the library's `probe`, a PROC with its arguments in A, B and C (the rest below
    /// the workspace), or (`value`) a FUNCTION, its value left in A.
    fn call(
        &mut self,
        name: &str,
        args: &[Expr],
        pos: Pos,
        frame: usize,
        value: bool,
    ) -> Result<(), OccamError> {
        if name == "probe" && !value {
            return self.probe(args, pos, frame);
        }
        if (name == "out.string" || name == "out.number") && !value {
            return self.host_output(name, args, pos, frame);
        }
        let Sym::Procedure {
            label,
            params,
            dirs,
            frame: callee,
            function,
            results,
            ..
        } = self.lookup(name, pos)?
        else {
            let what = if value { "a FUNCTION" } else { "a PROC" };
            return Err(OccamError::at_pos(pos, format!("\"{name}\" is not {what}")));
        };
        if value && results > 1 && !self.taking_results {
            return Err(OccamError::at_pos(
                pos,
                format!("{name} gives {results} values: assign them (a, b := {name} (…))"),
            ));
        }
        if function != value {
            return Err(OccamError::at_pos(
                pos,
                if function {
                    format!("\"{name}\" is a FUNCTION: use its value in an expression")
                } else {
                    format!("\"{name}\" is a PROC: call it as a process")
                },
            ));
        }
        if params.len() != args.len() {
            return Err(OccamError::at_pos(
                pos,
                format!(
                    "{name} takes {} arguments, not {}",
                    params.len(),
                    args.len()
                ),
            ));
        }
        // Arguments' words into temporaries; then the fourth and later stored where the
        // callee finds them (below this workspace, moved down for the call), and the first
        // three loaded C, B, A.
        let mut temps = Vec::new();
        for ((p, a), dir) in params.iter().zip(args).zip(&dirs) {
            let words = self.argument(name, p, a, *dir, pos, frame)?;
            for _ in 0..words {
                temps.push(self.slot(frame));
            }
            for temp in temps[temps.len() - words..].iter().rev() {
                self.emit(format!("stl {temp}"));
            }
        }
        let extra = temps.len().saturating_sub(3) as i64;
        if extra > 0 {
            self.emit(format!("ajw -{extra}"));
            for (j, temp) in temps[3..].iter().enumerate() {
                self.emit(format!("ldl {}", temp + extra));
                self.emit(format!("stl {j}"));
            }
        }
        for temp in temps.iter().take(3).rev() {
            self.emit(format!("ldl {}", temp + extra));
        }
        self.emit(format!("call {label}"));
        if extra > 0 {
            self.emit(format!("ajw {extra}"));
        }
        let f_below = 4 + extra + self.frames[callee].size() + self.frames[callee].below;
        let f = &mut self.frames[frame];
        f.below = f.below.max(f_below);
        Ok(())
    }
}

/// A PROC's parameter words are slots above its locals: `FRAMEk + 1 + n`. The body was
/// generated with marker slots (−1000 − n); they become those expressions (the highest
/// first, so −1001 is not read inside −10010).
fn resolve_params(block: &str, size: &str, words: i64) -> String {
    let mut out = block.to_owned();
    for k in (0..words).rev() {
        out = out.replace(&format!(" {}", -1000 - k), &format!(" {size}+{}", k + 1));
    }
    out
}

/// What a process does with names declared outside it: the variables it assigns (or inputs
/// into), the channels it inputs from and outputs to. Choices whose conditions are known to
/// be false when compiling have no code, so they use nothing.
struct Usage<'a> {
    assigned: Vec<String>,
    inputs: Vec<String>,
    outputs: Vec<String>,
    local: Vec<String>,
    constant: &'a dyn Fn(&Expr) -> Option<i64>,
    /// A PROC's parameters and which end of each channel parameter it uses.
    callee: &'a Callee<'a>,
}

/// What a PAR's usage check asks of a PROC called in it: its parameters and which end of
/// each channel parameter it uses.
type Callee<'a> = dyn Fn(&str) -> Option<(Vec<Param>, Vec<Option<Dir>>)> + 'a;

impl Usage<'_> {
    fn free(&self, n: &str) -> bool {
        !self.local.iter().any(|l| l == n)
    }

    /// A name, or an array element with a constant subscript (`a[2]`): the branches of a
    /// replicated PAR, whose subscripts are their own index, are not compared.
    fn key(&self, name: &str, index: Option<&Expr>) -> Option<String> {
        if !self.free(name) {
            return None;
        }
        match index {
            None => Some(name.to_owned()),
            Some(i) => (self.constant)(i).map(|k| format!("{name}[{k}]")),
        }
    }

    fn assign(&mut self, t: &Target) {
        let key = match t {
            Target::Var(n) => self.key(n, None),
            Target::Elem(n, i) => self.key(n, Some(i)),
        };
        if let Some(k) = key {
            self.assigned.push(k);
        }
    }

    fn input(&mut self, c: &ChanRef, items: &[Item<Target>]) {
        if let Some(k) = self.key(&c.name, c.index.as_ref()) {
            self.inputs.push(k);
        }
        for item in items {
            match item {
                Item::One(t) => self.assign(t),
                Item::Counted(t, a) => {
                    self.assign(t);
                    self.assign(&Target::Var(a.clone()));
                }
            }
        }
    }

    fn scoped(&mut self, names: impl IntoIterator<Item = String>, p: &Proc) {
        let before = self.local.len();
        self.local.extend(names);
        self.walk(p);
        self.local.truncate(before);
    }

    fn walk(&mut self, p: &Proc) {
        match p {
            Proc::Assign(t, ..) => self.assign(t),
            Proc::MultiAssign(ts, ..) => ts.iter().for_each(|t| self.assign(t)),
            Proc::Input(c, items, _) => self.input(c, items),
            Proc::CaseInput(c, variations, _) => {
                for v in variations {
                    self.input(c, &v.items);
                    self.walk(&v.body);
                }
            }
            Proc::Output(c, ..) => {
                if let Some(k) = self.key(&c.name, c.index.as_ref()) {
                    self.outputs.push(k);
                }
            }
            Proc::Call(name, args, _) => {
                let Some((params, dirs)) = (self.callee)(name) else {
                    return;
                };
                for ((p, a), dir) in params.iter().zip(args).zip(dirs) {
                    let key = match a {
                        Expr::Var(v, _) => self.key(v, None),
                        Expr::Index(v, i, _) => self.key(v, Some(i)),
                        _ => None,
                    };
                    let Some(k) = key else { continue };
                    match (p.ty.is_chan(), dir) {
                        (true, Some(Dir::In)) => self.inputs.push(k),
                        (true, Some(Dir::Out)) => self.outputs.push(k),
                        (false, _) if !p.by_value => self.assigned.push(k),
                        _ => {}
                    }
                }
            }
            Proc::Alt(alternatives, _) => {
                for a in alternatives {
                    if a.condition.as_ref().and_then(self.constant) == Some(0) {
                        continue;
                    }
                    match &a.guard {
                        Guard::Input(c, items) => self.input(c, items),
                        Guard::Case(c) => self.input(c, &[]),
                        _ => {}
                    }
                    self.walk(&a.body);
                }
            }
            Proc::Seq(list) | Proc::Par(list, _) | Proc::PriPar(list, _) => {
                list.iter().for_each(|q| self.walk(q));
            }
            Proc::If(choices) => {
                for c in choices {
                    match (self.constant)(&c.cond) {
                        Some(0) => continue,
                        Some(_) if c.rep.is_none() => return self.walk(&c.body),
                        _ => self.walk(&c.body),
                    }
                }
            }
            Proc::Case(_, choices, _) => choices.iter().for_each(|(_, q)| self.walk(q)),
            Proc::While(_, q) => self.walk(q),
            Proc::RepSeq(n, _, _, q) | Proc::Val(n, _, q, _) => self.scoped([n.clone()], q),
            Proc::RepPar(r, q) => self.scoped([r.name.clone()], q),
            Proc::Abbrev(n, _, q, _) => self.scoped([n.clone()], q),
            Proc::Place(_, _, q, _) => self.walk(q),
            Proc::Decl(_, names, q) | Proc::Array(_, _, names, q) => {
                self.scoped(names.iter().map(|(n, _)| n.clone()), q);
            }
            Proc::Define(_, _, _, q, _) => self.walk(q),
            _ => {}
        }
    }
}

/// occam's usage rules for a PAR: no variable assigned in two branches, no channel used for
/// input (or for output) in two branches.
fn check_par_usage(
    branches: &[Proc],
    pos: Pos,
    constant: &dyn Fn(&Expr) -> Option<i64>,
    callee: &Callee<'_>,
) -> Result<(), OccamError> {
    let mut seen: [HashMap<String, usize>; 3] = Default::default();
    for (k, b) in branches.iter().enumerate() {
        let mut u = Usage {
            assigned: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            local: Vec::new(),
            constant,
            callee,
        };
        u.walk(b);
        for (what, names, map) in [
            ("assigned", u.assigned, 0),
            ("used for input", u.inputs, 1),
            ("used for output", u.outputs, 2),
        ] {
            for n in names {
                if let Some(&other) = seen[map].get(&n)
                    && other != k
                {
                    return Err(OccamError::at_pos(
                        pos,
                        format!("\"{n}\" is {what} in two branches of this PAR"),
                    ));
                }
                seen[map].insert(n, k);
            }
        }
    }
    Ok(())
}
