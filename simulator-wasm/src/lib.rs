//! The transputer network emulator.
//!
//! The pure core has no `wasm-bindgen`, no `web-sys` and no host clock; time advances only by
//! executed cycles: [`isa`] (the instruction set and its costs per chip, as data), [`cpu`] (one
//! node: registers, memory, scheduler, timers, channels, ALT, link engines, instrumentation,
//! checkpoints, with [`journal`] keeping the memory a checkpoint needs back),
//! [`link`] (packets and their timing), [`topology`] and [`network`] (nodes on one clock), [`host`] (the iserver's link end) and [`iserver`] (its SP protocol and file sandbox), [`trace`] (events as a `shared` trace), [`session`] (a program on a network, run in
//! slices), [`asm`] (the assembler and disassembler) and [`error`]. The `wasm` module is the
//! thin wrapper the browser's Web Worker calls.

pub mod asm;
pub mod clock;
pub mod cpu;
pub mod demos;
pub mod error;
pub mod host;
pub mod isa;
pub mod iserver;
pub mod journal;
pub mod link;
pub mod network;
pub mod occam;
pub mod session;
pub mod topology;
pub mod trace;
pub mod words;

#[cfg(target_arch = "wasm32")]
mod wasm;
