//! An occam 2 compiler for the emulator, emitting the emulator's assembly.
//!
//! What it takes: INT (INT32), INT16, INT64, BOOL, BYTE (and strings), REAL32 and REAL64 (on the T800's FPU: + − × ÷,
//! comparisons, conversions `REAL32 ROUND e`, `INT TRUNC x`, literals `1.5`, `2.0(REAL32)`)
//! variables, arrays and VAL constants (folded when known); channels with simple, sequential,
//! array and counted-array protocols; TIMER with AFTER; SEQ, PAR, PRI PAR, IF, CASE, WHILE,
//! ALT and PRI ALT (channel, timeout and SKIP guards with boolean conditions), replicated SEQ,
//! PAR, IF and ALT; PROCs with any number of parameters (values, references, channels, sized
//! and open arrays with SIZE, slices `[a FROM i FOR n]`); FUNCTIONs (`IS e` or `VALOF …
//! RESULT`, several values too) and multiple assignment; abbreviations (`x IS a[i]:`); named protocols; expressions with
//! occam's rules (no precedence; `+ − × / \` checked, the error flag set on overflow; PLUS
//! MINUS TIMES modulo; bitwise `/\ \/ >< << >> ~`); STOP and SKIP; the library PROCs `probe
//! (tag, "text")` (a phase mark in the trace), `out.string ("text")` and `out.number (e)` (the
//! host's screen); and a configuration — PLACED PAR of PROCESSORs whose channels become the
//! network's links (`place`). occam's usage rules for PAR are checked (a variable assigned in
//! two branches, a channel used for input or output in two).
//!
//! Code generation follows the INMOS compilers' shape (`codegen`): each process has a
//! workspace frame (W[0] scratch and a PAR's join address, W[1] the join count, locals from
//! W[2]); a PAR's branches get frames below their parent's, at offsets chosen once their sizes
//! are known, so a branch reaches its parent's variables with one `ldl` (offsets are assembler
//! constants defined after the code that uses them); a call passes its first three parameter
//! words in A, B and C.

mod codegen;
pub mod error;
pub mod parse;
mod place;

pub use self::error::OccamError;
use crate::topology::Topology;

/// Compiles an occam program for one processor to the emulator's assembly.
pub fn compile(source: &str) -> Result<String, OccamError> {
    let single = Topology {
        name: "single".to_owned(),
        nodes: 1,
        wires: Vec::new(),
    };
    compile_for(source, &single)
}

/// Compiles an occam program for a network: a PLACED PAR's processors are its nodes, its
/// channels the links between them (a program without one runs on node 0).
pub fn compile_for(source: &str, topology: &Topology) -> Result<String, OccamError> {
    let (tree, variants) = parse::parse_program(source)?;
    codegen::generate(&tree, &variants, topology)
}
