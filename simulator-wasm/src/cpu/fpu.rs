//! The T800's floating-point unit: a three-deep stack of IEEE 754 single or double values
//! (FA, FB, FC), the rounding mode (round to nearest, reset after every operation but the
//! ones that set it), and the FP error flag.
//!
//! Arithmetic is IEEE 754 in every mode: the host's correctly rounded nearest result is
//! corrected by one unit in the last place when the exact error (found with error-free
//! transformations: the rounding error of a sum, `fma` for products, quotients and roots)
//! says the directed mode rounds the other way. Single-length operations are done on singles
//! (the host's `f32` arithmetic is IEEE single), their errors in double.
//!
//! What is simplified, each a documented choice:
//! - `fpremfirst` computes the whole IEEE remainder (FA ← FB REM FA, FB ← the quotient's
//!   integer part) and answers "done" (A = 1); `fpremstep` then changes nothing and answers
//!   "done" too, so any loop a compiler wraps around them ends.
//! - `fpusqrtfirst` computes the whole square root; `fpusqrtstep` and `fpusqrtlast` change
//!   nothing (FB and FC are undefined after a square root on the chip).
//! - The FP error flag is set when an arithmetic operation has an operand or a result that is
//!   an infinity or a NaN (overflow, invalid operation, division by zero), when operands of
//!   different lengths meet, and when a conversion to an integer is out of range.

/// A value on the FP stack.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Real {
    /// The value (a single is held exactly as a double).
    pub value: f64,
    /// Whether it is double length.
    pub double: bool,
}

impl Real {
    /// A single-length value.
    pub fn single(v: f32) -> Real {
        Real {
            value: f64::from(v),
            double: false,
        }
    }

    /// A double-length value.
    pub fn double(v: f64) -> Real {
        Real {
            value: v,
            double: true,
        }
    }
}

/// The rounding mode of the next operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Round {
    /// To nearest, ties to even (the default, restored after every operation).
    #[default]
    Nearest,
    /// Toward zero.
    Zero,
    /// Toward plus infinity.
    Plus,
    /// Toward minus infinity.
    Minus,
}

/// The FPU's registers.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Fpu {
    /// FA, FB, FC.
    pub regs: [Real; 3],
    /// The FP error flag.
    pub error: bool,
    /// The rounding mode of the next operation.
    pub mode: Round,
}

impl Default for Real {
    fn default() -> Real {
        Real::single(0.0)
    }
}

impl Fpu {
    /// Pushes `v`: FC ← FB, FB ← FA, FA ← v.
    pub fn push(&mut self, v: Real) {
        self.regs = [v, self.regs[0], self.regs[1]];
    }

    /// Pops FA: FA ← FB, FB ← FC (FC keeps its value: it is undefined on the chip).
    pub fn pop(&mut self) -> Real {
        let top = self.regs[0];
        self.regs = [self.regs[1], self.regs[2], self.regs[2]];
        top
    }

    /// Sets the error flag when any of `values` is an infinity or a NaN.
    fn check(&mut self, values: &[f64]) {
        if values.iter().any(|v| !v.is_finite()) {
            self.error = true;
        }
    }

    /// FA ← FB `op` FA, popping one: the result has FA's length, rounded in the current mode.
    pub fn binary(&mut self, op: Arith) {
        let (a, b) = (self.regs[0], self.regs[1]);
        if a.double != b.double {
            self.error = true;
        }
        let result = if a.double || b.double {
            Real::double(arith64(op, b.value, a.value, self.mode))
        } else {
            Real::single(arith32(op, b.value as f32, a.value as f32, self.mode))
        };
        self.check(&[a.value, b.value, result.value]);
        self.regs = [result, self.regs[2], self.regs[2]];
    }

    /// FA ← FA `op` `v` (the load-and-operate instructions), `v` of FA's length.
    pub fn with_loaded(&mut self, op: Arith, v: Real) {
        let a = self.regs[0];
        if a.double != v.double {
            self.error = true;
        }
        let result = if v.double {
            Real::double(arith64(op, a.value, v.value, self.mode))
        } else {
            Real::single(arith32(op, a.value as f32, v.value as f32, self.mode))
        };
        self.check(&[a.value, v.value, result.value]);
        self.regs[0] = result;
    }

    /// FA ← √FA in the current mode.
    pub fn sqrt(&mut self) {
        let a = self.regs[0];
        let result = if a.double {
            Real::double(sqrt64(a.value, self.mode))
        } else {
            Real::single(sqrt32(a.value as f32, self.mode))
        };
        self.check(&[a.value, result.value]);
        self.regs[0] = result;
    }

    /// FA ← FB REM FA (IEEE remainder), FB ← the quotient rounded to an integer; FC undefined.
    pub fn remainder(&mut self) {
        let (a, b) = (self.regs[0], self.regs[1]);
        if a.double != b.double {
            self.error = true;
        }
        let quotient = (b.value / a.value).round_ties_even();
        let rem = ieee_remainder(b.value, a.value);
        let rem = if a.double || b.double {
            Real::double(rem)
        } else {
            Real::single(rem as f32)
        };
        self.check(&[a.value, b.value, rem.value]);
        self.regs = [
            rem,
            Real {
                value: quotient,
                double: rem.double,
            },
            self.regs[2],
        ];
    }

    /// FA rounded to an integral value of its length in the current mode.
    pub fn to_integral(&mut self) {
        let a = self.regs[0];
        let v = integral(a.value, self.mode);
        self.check(&[a.value]);
        self.regs[0] = Real { value: v, ..a };
    }

    /// FA converted to `double` length (rounded in the current mode when narrowed).
    pub fn convert(&mut self, double: bool) {
        let a = self.regs[0];
        let v = if double {
            a.value
        } else {
            f64::from(narrow(a.value, self.mode))
        };
        self.check(&[a.value, v]);
        self.regs[0] = Real { value: v, double };
    }

    /// FA × `factor` (a power of two), exact unless it overflows or underflows.
    pub fn scale(&mut self, factor: f64) {
        let a = self.regs[0];
        let v = if a.double {
            arith64(Arith::Mul, a.value, factor, self.mode)
        } else {
            f64::from(narrow(a.value * factor, self.mode))
        };
        self.check(&[a.value, v]);
        self.regs[0] = Real { value: v, ..a };
    }

    /// Whether FA is an integer in `[-2^bits-1, 2^bits-1)`; sets the error flag if not.
    pub fn check_integer_range(&mut self, bits: u32) -> bool {
        let limit = 2f64.powi(bits as i32 - 1);
        let v = self.regs[0].value;
        let ok = v >= -limit && v < limit;
        if !ok {
            self.error = true;
        }
        ok
    }
}

/// An arithmetic operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `×`.
    Mul,
    /// `/`.
    Div,
}

/// Which way the exact value lies from its nearest rounding: the sign of `exact - nearest`.
type Side = std::cmp::Ordering;

fn side(err: f64) -> Side {
    err.partial_cmp(&0.0).unwrap_or(Side::Equal)
}

/// The nearest-rounded `r` moved by one unit when mode `mode` rounds the exact value (on side
/// `s` of `r`) the other way; overflow to an infinity becomes the largest finite value when
/// the mode rounds away from it.
macro_rules! directed {
    ($t:ty, $r:expr, $s:expr, $mode:expr, $finite:expr) => {{
        let (r, s, mode): ($t, Side, Round) = ($r, $s, $mode);
        if r.is_infinite() && $finite {
            match (mode, r > 0.0) {
                (Round::Zero, _) | (Round::Minus, true) | (Round::Plus, false) => {
                    <$t>::MAX.copysign(r)
                }
                _ => r,
            }
        } else if r.is_nan() {
            r
        } else {
            match (mode, s) {
                (Round::Nearest, _) | (_, Side::Equal) => r,
                (Round::Plus, Side::Greater) => r.next_up(),
                (Round::Minus, Side::Less) => r.next_down(),
                (Round::Zero, Side::Greater) if r < 0.0 => r.next_up(),
                (Round::Zero, Side::Less) if r > 0.0 => r.next_down(),
                _ => r,
            }
        }
    }};
}

/// `x op y` in double, rounded in `mode`.
pub fn arith64(op: Arith, x: f64, y: f64, mode: Round) -> f64 {
    let (r, err) = match op {
        Arith::Add | Arith::Sub => {
            let y = if op == Arith::Sub { -y } else { y };
            let s = x + y;
            // The rounding error of a sum (Knuth's TwoSum): exact.
            let yy = s - x;
            (s, (x - (s - yy)) + (y - yy))
        }
        Arith::Mul => {
            let p = x * y;
            (p, x.mul_add(y, -p))
        }
        Arith::Div => {
            let q = x / y;
            // x − q·y, exact: its sign and y's give the quotient's error's.
            let rem = (-q).mul_add(y, x);
            (q, if y < 0.0 { -rem } else { rem })
        }
    };
    // A quotient by zero is an exact infinity, not an overflow.
    let finite = x.is_finite() && y.is_finite() && !(op == Arith::Div && y == 0.0);
    directed!(f64, r, side(err), mode, finite)
}

/// `x op y` in single, rounded in `mode`.
pub fn arith32(op: Arith, x: f32, y: f32, mode: Round) -> f32 {
    let r = match op {
        Arith::Add => x + y,
        Arith::Sub => x - y,
        Arith::Mul => x * y,
        Arith::Div => x / y,
    };
    if mode == Round::Nearest {
        return r;
    }
    let (x64, y64) = (f64::from(x), f64::from(y));
    // The exact value as a double and its remaining error.
    let (exact, err) = match op {
        Arith::Add | Arith::Sub => {
            let y64 = if op == Arith::Sub { -y64 } else { y64 };
            let s = x64 + y64;
            let yy = s - x64;
            (s, (x64 - (s - yy)) + (y64 - yy))
        }
        // A product of singles is exact in double.
        Arith::Mul => (x64 * y64, 0.0),
        Arith::Div => {
            let q = x64 / y64;
            let rem = (-q).mul_add(y64, x64);
            (q, if y64 < 0.0 { -rem } else { rem })
        }
    };
    let d = exact - f64::from(r);
    let s = if d != 0.0 { side(d) } else { side(err) };
    let finite = x.is_finite() && y.is_finite() && !(op == Arith::Div && y == 0.0);
    directed!(f32, r, s, mode, finite)
}

/// √x in double, rounded in `mode`.
pub fn sqrt64(x: f64, mode: Round) -> f64 {
    let s = x.sqrt();
    let err = (-s).mul_add(s, x);
    directed!(f64, s, side(err), mode, x.is_finite())
}

/// √x in single, rounded in `mode`.
pub fn sqrt32(x: f32, mode: Round) -> f32 {
    let r = x.sqrt();
    if mode == Round::Nearest {
        return r;
    }
    let x64 = f64::from(x);
    let s = x64.sqrt();
    let err = (-s).mul_add(s, x64);
    let d = s - f64::from(r);
    let side = if d != 0.0 { side(d) } else { side(err) };
    directed!(f32, r, side, mode, x.is_finite())
}

/// A double narrowed to a single in `mode`.
pub fn narrow(x: f64, mode: Round) -> f32 {
    let r = x as f32;
    let d = x - f64::from(r);
    directed!(f32, r, side(d), mode, x.is_finite())
}

/// `x` rounded to an integral value in `mode` (ties to even when to nearest).
pub fn integral(x: f64, mode: Round) -> f64 {
    match mode {
        Round::Nearest => x.round_ties_even(),
        Round::Zero => x.trunc(),
        Round::Plus => x.ceil(),
        Round::Minus => x.floor(),
    }
}

/// The IEEE remainder `x − n·y`, `n` the integer nearest `x / y` (ties to even).
pub fn ieee_remainder(x: f64, y: f64) -> f64 {
    if !x.is_finite() || y == 0.0 || y.is_nan() {
        return f64::NAN;
    }
    if y.is_infinite() {
        return x;
    }
    let r = x % y; // exact: x − trunc(x/y)·y
    let half = (y / 2.0).abs();
    let r_abs = r.abs();
    // Round the quotient to nearest: move r by |y| toward zero when past half, or at half with
    // an odd truncated quotient.
    let past_half = r_abs > half || (r_abs == half && ((x - r) / y).rem_euclid(2.0) == 1.0);
    if past_half {
        r - y.abs().copysign(r)
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_modes_bracket_the_exact_result() {
        // 1/3 is not representable: the four modes give the neighbours around it.
        let near = arith64(Arith::Div, 1.0, 3.0, Round::Nearest);
        let down = arith64(Arith::Div, 1.0, 3.0, Round::Minus);
        let up = arith64(Arith::Div, 1.0, 3.0, Round::Plus);
        assert_eq!(arith64(Arith::Div, 1.0, 3.0, Round::Zero), down);
        assert_eq!(up, down.next_up());
        assert!(near == down || near == up);
        assert_eq!(arith64(Arith::Div, -1.0, 3.0, Round::Zero), -down);
        assert_eq!(arith64(Arith::Div, -1.0, 3.0, Round::Minus), -up);
        // Exact results are the same in every mode.
        for mode in [Round::Nearest, Round::Zero, Round::Plus, Round::Minus] {
            assert_eq!(arith64(Arith::Add, 0.5, 0.25, mode), 0.75);
            assert_eq!(arith32(Arith::Mul, 1.5, 2.0, mode), 3.0);
            assert_eq!(sqrt64(4.0, mode), 2.0);
        }
        // 1 + 2^-60 rounds to 1 except upward.
        let tiny = 2f64.powi(-60);
        assert_eq!(arith64(Arith::Add, 1.0, tiny, Round::Nearest), 1.0);
        assert_eq!(
            arith64(Arith::Add, 1.0, tiny, Round::Plus),
            1.0f64.next_up()
        );
        assert_eq!(
            arith64(Arith::Sub, 1.0, tiny, Round::Minus),
            1.0f64.next_down()
        );
        assert_eq!(
            arith64(Arith::Sub, 1.0, tiny, Round::Zero),
            1.0f64.next_down()
        );
        // Singles: 1 + 2^-30 likewise, and 0.1 × 3 on both sides.
        let t32 = 2f32.powi(-30);
        assert_eq!(arith32(Arith::Add, 1.0, t32, Round::Plus), 1.0f32.next_up());
        assert_eq!(arith32(Arith::Add, 1.0, t32, Round::Zero), 1.0);
        let lo = arith32(Arith::Mul, 0.1, 3.0, Round::Minus);
        let hi = arith32(Arith::Mul, 0.1, 3.0, Round::Plus);
        assert_eq!(hi, lo.next_up());
        assert!(f64::from(lo) < 0.1f32 as f64 * 3.0 && 0.1f32 as f64 * 3.0 < f64::from(hi));
    }

    #[test]
    fn overflow_rounds_to_the_largest_finite_value_away_from_infinity() {
        assert_eq!(
            arith64(Arith::Mul, f64::MAX, 2.0, Round::Nearest),
            f64::INFINITY
        );
        assert_eq!(arith64(Arith::Mul, f64::MAX, 2.0, Round::Zero), f64::MAX);
        assert_eq!(arith64(Arith::Mul, f64::MAX, 2.0, Round::Minus), f64::MAX);
        assert_eq!(arith64(Arith::Mul, -f64::MAX, 2.0, Round::Plus), -f64::MAX);
        assert_eq!(
            arith32(Arith::Add, f32::MAX, f32::MAX, Round::Zero),
            f32::MAX
        );
        assert_eq!(narrow(1e300, Round::Zero), f32::MAX);
        assert_eq!(narrow(1e300, Round::Nearest), f32::INFINITY);
        // Division by zero is an infinity in every mode.
        assert_eq!(arith64(Arith::Div, 1.0, 0.0, Round::Zero), f64::INFINITY);
    }

    #[test]
    fn remainders_and_integers_follow_ieee() {
        assert_eq!(ieee_remainder(5.0, 3.0), -1.0);
        assert_eq!(ieee_remainder(4.5, 3.0), -1.5); // 1.5 rounds to 2 (even)
        assert_eq!(ieee_remainder(7.5, 3.0), 1.5); // 2.5 rounds to 2 (even)
        assert_eq!(ieee_remainder(-5.0, 3.0), 1.0);
        assert!(ieee_remainder(1.0, 0.0).is_nan());
        assert_eq!(integral(2.5, Round::Nearest), 2.0);
        assert_eq!(integral(-2.5, Round::Minus), -3.0);
        assert_eq!(integral(-2.5, Round::Zero), -2.0);
        assert_eq!(integral(2.1, Round::Plus), 3.0);
    }

    #[test]
    fn the_stack_pushes_and_pops_three_deep() {
        let mut f = Fpu::default();
        for v in [1.0, 2.0, 3.0] {
            f.push(Real::double(v));
        }
        assert_eq!(f.regs.map(|r| r.value), [3.0, 2.0, 1.0]);
        f.binary(Arith::Sub); // FB − FA = 2 − 3
        assert_eq!(f.regs[0].value, -1.0);
        assert_eq!(f.regs[1].value, 1.0);
        assert!(!f.error);
        f.push(Real::double(0.0));
        f.binary(Arith::Div); // −1 / 0
        assert_eq!(f.regs[0].value, f64::NEG_INFINITY);
        assert!(f.error, "division by zero sets the FP error flag");
    }
}
