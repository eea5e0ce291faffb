//! The T800's floating-point operations on the node: the FP stack and memory, the integer
//! stack for addresses and answers, the FP error flag and the rounding mode (see [`super::fpu`]
//! for the arithmetic).

use super::fpu::{Arith, Real, Round};
use super::*;
use crate::isa::{FP_ENTRY, FpEntry, FpOp};

impl Node {
    /// A single at `address`.
    fn load_single(&self, address: u32) -> Result<Real, SimError> {
        Ok(Real::single(f32::from_bits(self.read_word(address)?)))
    }

    /// A double at `address` (low word first).
    fn load_double(&self, address: u32) -> Result<Real, SimError> {
        let lo = u64::from(self.read_word(address)?);
        let hi = u64::from(self.read_word(address.wrapping_add(4))?);
        Ok(Real::double(f64::from_bits(hi << 32 | lo)))
    }

    fn store_double(&mut self, address: u32, v: f64) -> Result<(), SimError> {
        let bits = v.to_bits();
        self.write_word(address, bits as u32)?;
        self.write_word(address.wrapping_add(4), (bits >> 32) as u32)
    }

    /// Executes floating-point operation `f` (operation code `code`); answers whether it was on
    /// double-length values (for its cost). The rounding mode returns to nearest after every
    /// operation but the ones that set it.
    pub(super) fn float(&mut self, f: FpOp, code: u32) -> Result<bool, SimError> {
        let (a, b) = (self.a, self.b);
        let top = self.fpu.regs[0];
        let mut double = top.double;
        let mut keep_mode = false;
        match f {
            FpOp::Ldnlsn | FpOp::Ldnldb => {
                let v = if f == FpOp::Ldnldb {
                    self.load_double(a)?
                } else {
                    self.load_single(a)?
                };
                self.pop();
                self.fpu.push(v);
            }
            FpOp::Ldnlsni | FpOp::Ldnldbi => {
                let v = if f == FpOp::Ldnldbi {
                    self.load_double(a.wrapping_add(b.wrapping_mul(8)))?
                } else {
                    self.load_single(a.wrapping_add(b.wrapping_mul(4)))?
                };
                self.pop();
                self.pop();
                self.fpu.push(v);
            }
            FpOp::Ldzerosn => self.fpu.push(Real::single(0.0)),
            FpOp::Ldzerodb => self.fpu.push(Real::double(0.0)),
            FpOp::Ldnladdsn | FpOp::Ldnlmulsn | FpOp::Ldnladddb | FpOp::Ldnlmuldb => {
                let is_double = matches!(f, FpOp::Ldnladddb | FpOp::Ldnlmuldb);
                let v = if is_double {
                    self.load_double(a)?
                } else {
                    self.load_single(a)?
                };
                self.pop();
                let op = if matches!(f, FpOp::Ldnladdsn | FpOp::Ldnladddb) {
                    Arith::Add
                } else {
                    Arith::Mul
                };
                self.fpu.with_loaded(op, v);
                double = is_double;
            }
            FpOp::Stnlsn => {
                let v = self.fpu.pop();
                self.write_word(a, (v.value as f32).to_bits())?;
                self.pop();
            }
            FpOp::Stnldb => {
                let v = self.fpu.pop();
                self.store_double(a, v.value)?;
                self.pop();
            }
            FpOp::Stnli32 => {
                // FA holds an integral value (after fprtoi32): stored as a 32-bit integer.
                let v = self.fpu.pop();
                self.write_word(a, v.value as i64 as i32 as u32)?;
                self.pop();
            }
            FpOp::Add | FpOp::Sub | FpOp::Mul | FpOp::Div => {
                double = top.double || self.fpu.regs[1].double;
                let op = match f {
                    FpOp::Add => Arith::Add,
                    FpOp::Sub => Arith::Sub,
                    FpOp::Mul => Arith::Mul,
                    _ => Arith::Div,
                };
                self.fpu.binary(op);
            }
            FpOp::Remfirst => {
                self.fpu.remainder();
                self.push(1);
            }
            FpOp::Remstep => self.push(1),
            FpOp::Nan => self.push(u32::from(top.value.is_nan())),
            FpOp::Ordered => {
                let fb = self.fpu.regs[1].value;
                self.push(u32::from(!top.value.is_nan() && !fb.is_nan()));
            }
            FpOp::Notfinite => self.push(u32::from(!top.value.is_finite())),
            FpOp::Gt | FpOp::Eq => {
                let fb = self.fpu.regs[1];
                double = top.double || fb.double;
                if !top.value.is_finite() || !fb.value.is_finite() || top.double != fb.double {
                    self.fpu.error = true;
                }
                let answer = if f == FpOp::Gt {
                    fb.value > top.value
                } else {
                    fb.value == top.value
                };
                self.fpu.pop();
                self.fpu.pop();
                self.push(u32::from(answer));
            }
            FpOp::I32tor32 | FpOp::I32tor64 | FpOp::B32tor64 => {
                let word = self.read_word(a)?;
                self.pop();
                let v = match f {
                    FpOp::I32tor32 => {
                        let exact = f64::from(word as i32);
                        Real::single(super::fpu::narrow(exact, self.fpu.mode))
                    }
                    FpOp::I32tor64 => Real::double(f64::from(word as i32)),
                    _ => Real::double(f64::from(word)),
                };
                self.fpu.push(v);
            }
            FpOp::Testerr => {
                let ok = !self.fpu.error;
                self.fpu.error = false;
                self.push(u32::from(ok));
            }
            FpOp::Rtoi32 => {
                self.fpu.to_integral();
                self.fpu.check_integer_range(32);
            }
            FpOp::Int => self.fpu.to_integral(),
            FpOp::Dup => self.fpu.push(top),
            FpOp::Rev => self.fpu.regs.swap(0, 1),
            FpOp::Chkerr => {
                if self.fpu.error {
                    self.set_error()?;
                }
            }
            FpOp::Entry => {
                self.pop();
                keep_mode = self.fp_entry(a, code)?;
            }
        }
        if !keep_mode {
            self.fpu.mode = Round::Nearest;
        }
        Ok(double)
    }

    /// `fpentry` with selector `selector`: answers whether it set the rounding mode (which
    /// then holds for the next operation).
    fn fp_entry(&mut self, selector: u32, code: u32) -> Result<bool, SimError> {
        let Some(&(_, entry, _, cost)) = FP_ENTRY.iter().find(|e| e.0 == selector) else {
            return Err(self.unimplemented(code << 8 | (selector & 0xFF), "fpentry"));
        };
        self.charge(cost, 0, true);
        let mode = match entry {
            FpEntry::Rp => Some(Round::Plus),
            FpEntry::Rm => Some(Round::Minus),
            FpEntry::Rz => Some(Round::Zero),
            FpEntry::Rn => Some(Round::Nearest),
            _ => None,
        };
        if let Some(mode) = mode {
            self.fpu.mode = mode;
            return Ok(true);
        }
        let top = self.fpu.regs[0];
        match entry {
            FpEntry::Sqrtfirst => self.fpu.sqrt(),
            FpEntry::R32tor64 => self.fpu.convert(true),
            FpEntry::R64tor32 => self.fpu.convert(false),
            FpEntry::Expdec32 => self.fpu.scale(2f64.powi(-32)),
            FpEntry::Expinc32 => self.fpu.scale(2f64.powi(32)),
            FpEntry::Divby2 => self.fpu.scale(0.5),
            FpEntry::Mulby2 => self.fpu.scale(2.0),
            FpEntry::Abs => self.fpu.regs[0].value = top.value.abs(),
            FpEntry::Noround => {
                self.fpu.regs[0] = Real::single(super::fpu::narrow(top.value, Round::Zero));
            }
            FpEntry::Chki32 => {
                self.fpu.check_integer_range(32);
            }
            FpEntry::Chki64 => {
                self.fpu.check_integer_range(64);
            }
            FpEntry::Seterr => self.fpu.error = true,
            FpEntry::Clrerr => self.fpu.error = false,
            _ => {}
        }
        Ok(false)
    }
}
