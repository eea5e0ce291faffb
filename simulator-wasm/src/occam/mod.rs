//! An occam 2 compiler for the emulator (a first subset), emitting the emulator's assembly.
//!
//! The subset: INT and BOOL variables and arrays (`[n]INT a:`, subscripts checked), `CHAN OF
//! INT` and channel arrays (`[n]CHAN OF INT c:`), `TIMER` (`t ? now`, `t ? AFTER e`), `VAL INT x
//! IS e:`, assignment, input and output, SEQ and PAR (replicated too: a replicated PAR's count
//! is a constant), ALT (channel inputs, timeouts and SKIP, each with an optional boolean
//! condition; the first ready in order is taken), IF, WHILE, SKIP, STOP, PROCs with up to three
//! parameters (`VAL INT`, `INT` by reference, `CHAN OF INT`), expressions with occam's rules
//! (no precedence: mixing operators needs brackets; `+ - * / \` are checked, the transputer's
//! error flag set on overflow), and the library PROC `probe (VAL INT tag)` that marks a phase
//! in the trace. A PAR in which two branches assign one variable, or use one channel for input
//! (or for output), is refused, as occam's usage rules say (array elements are not checked).
//!
//! Code generation follows the INMOS compilers' shape: each process has a workspace frame (W[0]
//! scratch and a PAR's join address, W[1] the join count, locals from W[2]); a PAR's branches
//! get frames below their parent's, at offsets chosen once their sizes are known, so a branch
//! reaches its parent's variables with one `ldl` (offsets are assembler constants defined after
//! the code that uses them); a PROC call passes its parameters in A, B and C.

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
    let tree = parse::parse(source)?;
    codegen::generate(&tree, topology)
}
