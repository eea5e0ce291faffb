//! The transputer network emulator.
//!
//! [`machine`] is the pure core: no `wasm-bindgen`, no `web-sys`, no host clock; time advances
//! only by executed cycles. The `wasm` module is the thin wrapper the browser calls.
//! This crate so far holds the virtual clock that the emulator of issue 8 will run on.

pub mod machine;

#[cfg(target_arch = "wasm32")]
mod wasm;
