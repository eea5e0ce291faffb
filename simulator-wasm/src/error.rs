//! What can go wrong when a program runs or is assembled: errors the user sees, never panics.

use thiserror::Error;

/// A program did something the emulator cannot carry out.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError {
    /// The operation code is not an operation of this chip, or not implemented yet.
    #[error("unimplemented operation {code:#x} ({name}) at {iptr:#010x} on the {chip}")]
    Unimplemented {
        /// The operation code.
        code: u32,
        /// Its mnemonic, or `?` when it has none on this chip.
        name: &'static str,
        /// Where it was fetched.
        iptr: u32,
        /// The chip.
        chip: &'static str,
    },
    /// An access outside the node's memory.
    #[error(
        "memory access at {address:#010x} outside the node's {size} bytes (instruction at {iptr:#010x})"
    )]
    Memory {
        /// The address.
        address: u32,
        /// The memory size in bytes.
        size: u32,
        /// The instruction that made it.
        iptr: u32,
    },
    /// The error flag was set while halt-on-error was on.
    #[error("halted on error at {iptr:#010x}")]
    HaltedOnError {
        /// The instruction that set the flag.
        iptr: u32,
    },
    /// A node could not boot from what arrived on its link.
    #[error("boot from link: {message}")]
    Boot {
        /// What arrived and what was expected.
        message: String,
    },
    /// The network could not be built or run as described.
    #[error("network: {message}")]
    Network {
        /// What was wrong.
        message: String,
    },
    /// The program did not assemble.
    #[error("assembly: {0}")]
    Assembly(#[from] AsmError),
    /// An error another worker of a shared run met, as it reads (see
    /// [`crate::network::parallel::share::BytesFabric`]).
    #[error("{0}")]
    Relayed(String),
    /// The run went past its instruction budget.
    #[error("instruction budget of {budget} spent")]
    Budget {
        /// The budget.
        budget: u64,
    },
}

/// A line of assembly that could not be assembled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {message}")]
pub struct AsmError {
    /// The line, from 1.
    pub line: usize,
    /// What was wrong and what was expected.
    pub message: String,
}
