//! The thin wasm-bindgen wrapper around the pure core: it converts types and nothing else.

use wasm_bindgen::prelude::wasm_bindgen;

use crate::machine::VirtualClock;

/// A node's virtual clock, for JavaScript.
#[wasm_bindgen]
pub struct Clock(VirtualClock);

#[wasm_bindgen]
impl Clock {
    /// A clock at `clock_hz` (0 = 20 MHz).
    #[wasm_bindgen(constructor)]
    pub fn new(clock_hz: u64) -> Clock {
        Clock(VirtualClock::new(clock_hz))
    }

    /// Advances by `cycles`.
    pub fn advance(&mut self, cycles: u64) {
        self.0.advance(cycles);
    }

    /// Virtual time in nanoseconds.
    pub fn nanoseconds(&self) -> u64 {
        self.0.nanoseconds()
    }
}
