//! The transputer network emulator.
//!
//! The pure core has no `wasm-bindgen`, no `web-sys` and no host clock; time advances only by
//! executed cycles: [`isa`] (the instruction set and its costs per chip, as data), [`cpu`] (one
//! node: registers, memory, scheduler, timers, channels, ALT, instrumentation), [`asm`] (the
//! assembler and disassembler), [`machine`] (the virtual clock) and [`error`]. The `wasm`
//! module is the thin wrapper the browser calls.

pub mod asm;
pub mod cpu;
pub mod error;
pub mod isa;
pub mod link;
pub mod machine;
pub mod network;
pub mod session;
pub mod topology;
pub mod trace;

#[cfg(target_arch = "wasm32")]
mod wasm;
