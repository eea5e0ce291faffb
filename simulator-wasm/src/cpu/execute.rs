//! Decode and execute: direct functions, the operations (in groups), their costs, and the
//! wait states of off-chip memory.

use super::memory::words;
use super::*;

impl Node {
    /// Decodes the instruction at `Iptr`: its function code and full operand (prefixes folded
    /// in) and how many bytes it took.
    pub fn fetch(&self) -> Result<(u8, u32, u32), SimError> {
        let mut oreg = self.oreg;
        let mut at = self.iptr;
        loop {
            let byte = self.read_byte(at)?;
            at = at.wrapping_add(1);
            let (function, data) = (byte >> 4, u32::from(byte & 0xF));
            match function {
                0x2 => oreg = (oreg | data) << 4,
                0x6 => oreg = (!(oreg | data)) << 4,
                _ => return Ok((function, oreg | data, at.wrapping_sub(self.iptr))),
            }
        }
    }

    /// Executes direct function `function` with the data nibble `data` (and `Oreg`, built by
    /// earlier prefixes); `Iptr` already points past the byte.
    #[inline(always)]
    pub fn execute(&mut self, function: u8, data: u32) -> Result<(), SimError> {
        let function = function & 0xF;
        let operand = self.oreg | data;
        let cost = self.table.direct[usize::from(function)];
        match function {
            0x2 => {
                self.oreg = operand << 4;
                self.cycles += u64::from(cost);
                return Ok(());
            }
            0x6 => {
                self.oreg = (!operand) << 4;
                self.cycles += u64::from(cost);
                return Ok(());
            }
            _ => self.oreg = 0,
        }
        match function {
            0x0 => {
                // j: a deschedule point.
                self.iptr = self.iptr.wrapping_add(operand);
                self.cycles += u64::from(cost);
                self.timeslice()?;
                return Ok(());
            }
            0x1 => self.push(self.wptr.wrapping_add(operand.wrapping_mul(4))),
            0x3 => {
                let at = self.a.wrapping_add(operand.wrapping_mul(4));
                self.wait(at);
                self.a = self.read_word(at)?;
            }
            0x4 => self.push(operand),
            0x5 => self.a = self.a.wrapping_add(operand.wrapping_mul(4)),
            0x7 => {
                let at = self.wptr.wrapping_add(operand.wrapping_mul(4));
                self.wait(at);
                let v = self.read_word(at)?;
                self.push(v);
            }
            0x8 => {
                let (sum, overflow) = (self.a as i32).overflowing_add(operand as i32);
                self.a = sum as u32;
                if overflow {
                    self.set_error()?;
                }
            }
            0x9 => {
                // call: push the return address and A, B, C into a new four-word frame.
                self.wptr = self.wptr.wrapping_sub(16);
                self.write_word(self.wptr, self.iptr)?;
                self.write_word(self.wptr.wrapping_add(4), self.a)?;
                self.write_word(self.wptr.wrapping_add(8), self.b)?;
                self.write_word(self.wptr.wrapping_add(12), self.c)?;
                self.a = self.iptr;
                self.iptr = self.iptr.wrapping_add(operand);
            }
            0xA => {
                if self.a == 0 {
                    self.iptr = self.iptr.wrapping_add(operand);
                } else {
                    self.pop();
                    self.cycles += u64::from(self.table.cj_not_taken);
                    return Ok(());
                }
            }
            0xB => self.wptr = self.wptr.wrapping_add(operand.wrapping_mul(4)),
            0xC => self.a = u32::from(self.a == operand),
            0xD => {
                let at = self.wptr.wrapping_add(operand.wrapping_mul(4));
                self.wait(at);
                self.write_word(at, self.a)?;
                self.pop();
            }
            0xE => {
                let at = self.a.wrapping_add(operand.wrapping_mul(4));
                self.wait(at);
                self.write_word(at, self.b)?;
                self.pop();
                self.pop();
            }
            0xF => return self.operate(operand),
            _ => {}
        }
        self.cycles += u64::from(cost);
        Ok(())
    }

    /// Charges the memory wait states of an access to `address` when it is off the chip.
    /// Modelled: instruction fetches (a word per four bytes) and the load/store direct
    /// functions (`ldl`, `stl`, `ldnl`, `stnl`); operations' other accesses are in their counts.
    #[inline]
    pub(super) fn wait(&mut self, address: u32) {
        let wait_states = self.table.wait_states;
        if wait_states != 0 && address.wrapping_sub(NOT_PROCESS) >= self.table.chip.on_chip_bytes()
        {
            self.cycles += u64::from(wait_states);
        }
    }

    #[inline]
    pub(super) fn charge(&mut self, cost: Cost, n: u32, condition: bool) {
        let cycles = match cost {
            Cost::Fixed(c) => c,
            Cost::PerWord { base, per } => base + per * n,
            Cost::PerBit { base } => base + n,
            Cost::Either { yes, no } => {
                if condition {
                    yes
                } else {
                    no
                }
            }
        };
        self.cycles += u64::from(cycles);
    }

    /// Executes operation `code`. One match over every operation: splitting it into groups
    /// tried in turn cost the mesh benchmark 30–45 % (measured with `cargo bench -p
    /// simulator-wasm --bench emulator`), so the groups are marked by comments instead.
    #[inline(never)]
    fn operate(&mut self, code: u32) -> Result<(), SimError> {
        let Some(&info) = self.table.op(code) else {
            return Err(self.unimplemented(code, "?"));
        };
        let (mut n, mut condition) = (0u32, true);
        let (a, b, c) = (self.a, self.b, self.c);
        match info.op {
            // The stack, arithmetic, logic, shifts, byte and word addressing, block moves.
            Op::Rev => {
                self.a = b;
                self.b = a;
            }
            Op::Dup => self.push(a),
            Op::Move2dinit => {
                // A: rows, B: destination stride, C: source stride.
                self.move2d = (a, b, c);
                self.pop();
                self.pop();
                self.pop();
            }
            Op::Move2dall | Op::Move2dnonzero | Op::Move2dzero => {
                // A: the row's width in bytes, B: destination, C: source.
                let (rows, dst_stride, src_stride) = self.move2d;
                self.pop();
                self.pop();
                self.pop();
                for r in 0..rows {
                    let from = c.wrapping_add(r.wrapping_mul(src_stride));
                    let to = b.wrapping_add(r.wrapping_mul(dst_stride));
                    for k in 0..a {
                        let byte = self.read_byte(from.wrapping_add(k))?;
                        let copy = match info.op {
                            Op::Move2dnonzero => byte != 0,
                            Op::Move2dzero => byte == 0,
                            _ => true,
                        };
                        if copy {
                            self.write_byte(to.wrapping_add(k), byte)?;
                        }
                    }
                    self.charge(info.cost, words(a), true);
                }
                return Ok(());
            }
            Op::Add | Op::Sub | Op::Mul => {
                let (x, y) = (b as i32, a as i32);
                let (v, overflow) = match info.op {
                    Op::Add => x.overflowing_add(y),
                    Op::Sub => x.overflowing_sub(y),
                    _ => x.overflowing_mul(y),
                };
                self.pop();
                self.a = v as u32;
                if overflow {
                    self.set_error()?;
                }
            }
            Op::Sum | Op::Diff | Op::Prod => {
                self.pop();
                self.a = match info.op {
                    Op::Sum => b.wrapping_add(a),
                    Op::Diff => b.wrapping_sub(a),
                    _ => b.wrapping_mul(a),
                };
                n = 32 - a.leading_zeros();
            }
            Op::Div | Op::Rem => {
                self.pop();
                let (x, y) = (b as i32, a as i32);
                if y == 0 || (x == i32::MIN && y == -1) {
                    self.set_error()?;
                } else {
                    self.a = if info.op == Op::Div { x / y } else { x % y } as u32;
                }
            }
            Op::Gt => {
                self.pop();
                self.a = u32::from((b as i32) > (a as i32));
            }
            Op::And | Op::Or | Op::Xor => {
                self.pop();
                self.a = match info.op {
                    Op::And => b & a,
                    Op::Or => b | a,
                    _ => b ^ a,
                };
            }
            Op::Not => self.a = !a,
            Op::Shl | Op::Shr => {
                self.pop();
                n = a.min(32);
                self.a = match (info.op, a) {
                    (_, 32..) => 0,
                    (Op::Shl, _) => b << a,
                    _ => b >> a,
                };
            }
            Op::Mint => self.push(NOT_PROCESS),
            Op::Bsub => {
                self.pop();
                self.a = a.wrapping_add(b);
            }
            Op::Wsub => {
                self.pop();
                self.a = a.wrapping_add(b.wrapping_mul(4));
            }
            Op::Wsubdb => {
                self.pop();
                self.a = a.wrapping_add(b.wrapping_mul(8));
            }
            Op::Bcnt => self.a = a.wrapping_mul(4),
            Op::Wcnt => {
                self.a = ((a as i32) >> 2) as u32;
                self.c = self.b;
                self.b = a & 3;
            }
            Op::Lb => self.a = u32::from(self.read_byte(a)?),
            Op::Sb => {
                self.write_byte(a, b as u8)?;
                self.pop();
                self.pop();
            }
            Op::Move => {
                self.copy(c, b, a)?;
                n = words(a);
                self.pop();
                self.pop();
                self.pop();
            }
            // Calls and returns, the error flags, range checks and sign extension.
            Op::Ldpi => self.a = self.iptr.wrapping_add(a),
            Op::Ldpri => self.push(self.pri),
            Op::Gcall => {
                self.a = self.iptr;
                self.iptr = a;
            }
            Op::Gajw => {
                self.a = self.wptr;
                self.wptr = a & !3;
            }
            Op::Ret => {
                self.iptr = self.read_word(self.wptr)?;
                self.wptr = self.wptr.wrapping_add(16);
            }
            Op::Seterr => self.set_error()?,
            Op::Testerr => {
                condition = !self.error;
                self.push(u32::from(!self.error));
                self.error = false;
            }
            Op::Stoperr => {
                if self.error {
                    self.charge(info.cost, n, condition);
                    self.record_wait(WaitReason::Stopped, 0);
                    self.deschedule(false)?;
                    return Ok(());
                }
            }
            Op::Clrhalterr => self.halt_on_error = false,
            Op::Sethalterr => self.halt_on_error = true,
            Op::Testhalterr => self.push(u32::from(self.halt_on_error)),
            Op::Testpranal => self.push(0),
            Op::Csub0 => {
                self.pop();
                if b >= a {
                    self.set_error()?;
                }
            }
            Op::Ccnt1 => {
                self.pop();
                if b == 0 || b > a {
                    self.set_error()?;
                }
            }
            Op::Cword => {
                self.pop();
                let (v, bits) = (i64::from(b as i32), i64::from(a));
                if v < -bits || v >= bits {
                    self.set_error()?;
                }
            }
            Op::Csngl => {
                // A keeps the low word; C moves up into B.
                self.b = self.c;
                let fits = (b == 0 && (a as i32) >= 0) || (b == u32::MAX && (a as i32) < 0);
                if !fits {
                    self.set_error()?;
                }
            }
            Op::Xword => {
                self.pop();
                self.a = if a != 0 && b & a != 0 {
                    b.wrapping_sub(a.wrapping_mul(2))
                } else {
                    b
                };
            }
            Op::Xdble => {
                let hi = if (a as i32) < 0 { u32::MAX } else { 0 };
                self.c = self.b;
                self.b = hi;
            }
            // Multiple-length arithmetic, normalising, bit and CRC operations.
            Op::Ladd | Op::Lsub => {
                self.pop();
                self.pop();
                let carry = i64::from(c & 1);
                let v = if info.op == Op::Ladd {
                    i64::from(b as i32) + i64::from(a as i32) + carry
                } else {
                    i64::from(b as i32) - i64::from(a as i32) - carry
                };
                self.a = v as u32;
                if v != i64::from(v as i32) {
                    self.set_error()?;
                }
            }
            Op::Lsum => {
                let v = u64::from(b) + u64::from(a) + u64::from(c & 1);
                self.a = v as u32;
                self.b = (v >> 32) as u32;
            }
            Op::Ldiff => {
                let v = i64::from(b) - i64::from(a) - i64::from(c & 1);
                self.a = v as u32;
                self.b = u32::from(v < 0);
            }
            Op::Lmul => {
                let v = u64::from(b) * u64::from(a) + u64::from(c);
                self.a = v as u32;
                self.b = (v >> 32) as u32;
            }
            Op::Ldiv => {
                // (C:B) / A, with C < A.
                if c >= a {
                    self.set_error()?;
                } else {
                    let x = (u64::from(c) << 32) | u64::from(b);
                    self.a = (x / u64::from(a)) as u32;
                    self.b = (x % u64::from(a)) as u32;
                }
            }
            Op::Lshl | Op::Lshr => {
                let x = (u64::from(c) << 32) | u64::from(b);
                n = a.min(64);
                let v = match (info.op, a) {
                    (_, 64..) => 0,
                    (Op::Lshl, _) => x << a,
                    _ => x >> a,
                };
                self.a = v as u32;
                self.b = (v >> 32) as u32;
            }
            Op::Norm => {
                let x = (u64::from(b) << 32) | u64::from(a);
                let shift = if x == 0 { 64 } else { x.leading_zeros() };
                let v = if shift >= 64 { 0 } else { x << shift };
                n = shift;
                self.a = v as u32;
                self.b = (v >> 32) as u32;
                self.c = shift;
            }
            Op::Bitcnt => {
                self.pop();
                n = 32 - a.leading_zeros();
                self.a = a.count_ones().wrapping_add(b);
            }
            Op::Bitrevword => self.a = a.reverse_bits(),
            Op::Bitrevnbits => {
                self.pop();
                n = a.min(32);
                self.a = if a == 0 {
                    0
                } else if a >= 32 {
                    b.reverse_bits()
                } else {
                    b.reverse_bits() >> (32 - a)
                };
            }
            Op::Crcword | Op::Crcbyte => {
                // A = generator, B = CRC, C = data (its top byte for crcbyte).
                let (bits, mut data) = if info.op == Op::Crcword {
                    (32, c)
                } else {
                    (8, c)
                };
                let mut crc = b;
                for _ in 0..bits {
                    let top = crc >> 31;
                    crc = (crc << 1) | (data >> 31);
                    data <<= 1;
                    if top == 1 {
                        crc ^= a;
                    }
                }
                self.pop();
                self.pop();
                self.a = crc;
            }
            // Timers, processes, channels and ALT: the scheduler's operations.
            Op::Ldtimer => self.push(self.timer(self.pri)),
            Op::Sttimer => {
                self.pop();
                for pri in 0..2u32 {
                    let now = self.timer(pri).wrapping_sub(self.timer_base[pri as usize]);
                    self.timer_base[pri as usize] = a.wrapping_sub(now);
                }
            }
            Op::Tin => {
                self.pop();
                let future = (self.timer(self.pri).wrapping_sub(a) as i32) < 0;
                self.charge(info.cost, 0, future);
                if future {
                    let wdesc = self.wdesc();
                    self.write_word(self.ws(self.wptr, W_POINTER), 0)?;
                    self.add_timer(a, wdesc);
                    self.record_wait(WaitReason::Timer, 0);
                    self.deschedule(false)?;
                }
                return Ok(());
            }
            Op::Saveh | Op::Savel => {
                let pri = usize::from(info.op == Op::Savel);
                self.write_word(a, self.fptr[pri])?;
                self.write_word(a.wrapping_add(4), self.bptr[pri])?;
                self.pop();
            }
            Op::Sthf | Op::Sthb | Op::Stlf | Op::Stlb => {
                let pri = usize::from(matches!(info.op, Op::Stlf | Op::Stlb));
                if matches!(info.op, Op::Sthf | Op::Stlf) {
                    self.fptr[pri] = a;
                } else {
                    self.bptr[pri] = a;
                }
                self.pop();
            }
            Op::Startp => {
                // A: the new process's workspace, B: its code's offset from the next
                // instruction. Same priority as the parent.
                let w = a & !3;
                let start = self.iptr.wrapping_add(b);
                self.write_word(self.ws(w, W_IPTR), start)?;
                self.pop();
                self.pop();
                let (child, parent) = (w | self.pri, self.wdesc());
                self.record(EventKind::Start, child, start, 0, parent);
                self.enqueue(child)?;
            }
            Op::Runp => {
                self.pop();
                let parent = self.wdesc();
                // Its code: the Iptr saved in its workspace (unknown if unreadable).
                let start = if self.tracing {
                    self.read_word(self.ws(a & !3, W_IPTR)).unwrap_or(0)
                } else {
                    0
                };
                self.record(EventKind::Start, a, start, 0, parent);
                self.enqueue(a)?;
            }
            Op::Endp => {
                // A: the join block (W[0] the successor's Iptr, W[1] the count of processes
                // still running).
                let count = self.read_word(a.wrapping_add(4))?;
                let me = self.wdesc();
                // A process ending on its own workspace is a PAR's parent: it waits for its
                // branches, and the last of them to end makes it go on.
                let parent = a == self.wptr;
                if count <= 1 && !parent {
                    self.record(
                        EventKind::Wait,
                        a | self.pri,
                        me,
                        WaitReason::Ready.code(),
                        me,
                    );
                }
                if !parent {
                    self.record(EventKind::End, me, 0, 0, 0);
                } else if count > 1 {
                    self.record_wait(WaitReason::Children, a);
                }
                self.charge(info.cost, 0, true);
                if count <= 1 {
                    self.wptr = a;
                    self.iptr = self.read_word(a)?;
                    self.write_word(a.wrapping_add(4), 0)?;
                    if !parent {
                        let successor = self.wdesc();
                        self.record(EventKind::Run, successor, 0, 0, 0);
                    }
                } else {
                    self.write_word(a.wrapping_add(4), count - 1)?;
                    self.running = false;
                    self.schedule()?;
                }
                return Ok(());
            }
            Op::Stopp => {
                let me = self.wdesc();
                self.record(EventKind::End, me, 0, 0, 0);
                self.charge(info.cost, 0, true);
                self.deschedule(false)?;
                return Ok(());
            }
            Op::Resetch => {
                if let Some((k, input)) = link_channel(a) {
                    let l = &mut self.links[k];
                    if input {
                        self.a = l.in_wdesc;
                        l.in_wdesc = NOT_PROCESS;
                        l.buffered = None;
                        l.alt_wdesc = NOT_PROCESS;
                    } else {
                        self.a = l.out_wdesc;
                        l.out_wdesc = NOT_PROCESS;
                        l.out_remaining = 0;
                    }
                } else {
                    self.a = self.read_word(a)?;
                    self.write_word(a, NOT_PROCESS)?;
                }
            }
            Op::Lend => {
                // A: the jump back, B: the loop block (W[0] the index, W[1] the count).
                let count = self.read_word(b.wrapping_add(4))?.wrapping_sub(1);
                self.write_word(b.wrapping_add(4), count)?;
                condition = (count as i32) > 0;
                self.pop();
                self.pop();
                self.charge(info.cost, 0, condition);
                if condition {
                    let index = self.read_word(b)?.wrapping_add(1);
                    self.write_word(b, index)?;
                    self.iptr = self.iptr.wrapping_sub(a);
                }
                self.timeslice()?;
                return Ok(());
            }
            Op::In | Op::Out | Op::Outbyte | Op::Outword => {
                return self.communicate(info.op, info.cost);
            }
            Op::Alt | Op::Talt => {
                self.write_word(self.ws(self.wptr, W_POINTER), ENABLING)?;
                if info.op == Op::Talt {
                    self.write_word(self.ws(self.wptr, W_TLINK), TIME_NOT_SET)?;
                }
            }
            Op::Enbs => {
                if a != 0 {
                    self.write_word(self.ws(self.wptr, W_POINTER), READY)?;
                }
            }
            Op::Enbc => {
                // A: the guard, B: the channel.
                self.b = c;
                condition = false;
                if let (true, Some((k, true))) = (a != 0, link_channel(b)) {
                    if self.links[k].buffered.is_some() {
                        condition = true;
                        self.write_word(self.ws(self.wptr, W_POINTER), READY)?;
                    } else {
                        self.links[k].alt_wdesc = self.wdesc();
                    }
                } else if a != 0 {
                    let word = self.read_word(b)?;
                    let me = self.wdesc();
                    if word == NOT_PROCESS {
                        self.write_word(b, me)?;
                    } else if word != me {
                        condition = true;
                        self.write_word(self.ws(self.wptr, W_POINTER), READY)?;
                    }
                }
            }
            Op::Enbt => {
                // A: the guard, B: the time.
                self.b = c;
                if a != 0 {
                    let state = self.read_word(self.ws(self.wptr, W_TLINK))?;
                    let earliest = self.read_word(self.ws(self.wptr, W_TIME))?;
                    if state == TIME_NOT_SET || (b.wrapping_sub(earliest) as i32) < 0 {
                        self.write_word(self.ws(self.wptr, W_TLINK), TIME_SET)?;
                        self.write_word(self.ws(self.wptr, W_TIME), b)?;
                    }
                }
            }
            Op::Altwt | Op::Taltwt => {
                self.write_word(self.wptr, NONE_SELECTED)?;
                let state_at = self.ws(self.wptr, W_POINTER);
                let mut ready = self.read_word(state_at)? == READY;
                let mut time = None;
                if !ready
                    && info.op == Op::Taltwt
                    && self.read_word(self.ws(self.wptr, W_TLINK))? == TIME_SET
                {
                    let t = self.read_word(self.ws(self.wptr, W_TIME))?;
                    if (self.timer(self.pri).wrapping_sub(t) as i32) >= 0 {
                        ready = true;
                    } else {
                        time = Some(t);
                    }
                }
                self.charge(info.cost, 0, ready);
                if !ready {
                    self.write_word(state_at, WAITING)?;
                    if let Some(t) = time {
                        let wdesc = self.wdesc();
                        self.add_timer(t, wdesc);
                    }
                    self.record_wait(WaitReason::Alt, 0);
                    self.deschedule(false)?;
                }
                return Ok(());
            }
            Op::Disc => {
                // A: the branch offset, B: the guard, C: the channel.
                let me = self.wdesc();
                if let Some((k, true)) = link_channel(c) {
                    let l = &mut self.links[k];
                    let ready = b != 0 && l.buffered.is_some();
                    if l.alt_wdesc == me {
                        l.alt_wdesc = NOT_PROCESS;
                    }
                    self.select(a, ready)?;
                } else {
                    let word = self.read_word(c)?;
                    let ready = b != 0 && word != NOT_PROCESS && word != me;
                    if b != 0 && word == me {
                        self.write_word(c, NOT_PROCESS)?;
                    }
                    self.select(a, ready)?;
                }
            }
            Op::Diss => {
                self.select(a, b != 0)?;
                self.b = c;
            }
            Op::Dist => {
                // A: the branch offset, B: the guard, C: the time.
                let me = self.wdesc();
                self.remove_timer(me);
                let timed = self.read_word(self.ws(self.wptr, W_TLINK))? == TIME_SET;
                let ready = b != 0 && timed && (self.timer(self.pri).wrapping_sub(c) as i32) >= 0;
                self.select(a, ready)?;
            }
            Op::Altend => {
                let offset = self.read_word(self.wptr)?;
                self.iptr = self.iptr.wrapping_add(offset);
            }
            // Probes: Tracescope's instrumentation.
            Op::Probe => {
                // A: the tag, B: the text's address, C: its length.
                self.pop();
                self.pop();
                self.pop();
                let me = self.wdesc();
                if self.tracing {
                    let mut text = Vec::with_capacity(c.min(256) as usize);
                    for k in 0..c.min(256) {
                        text.push(self.read_byte(b.wrapping_add(k))?);
                    }
                    self.probe_texts
                        .push(String::from_utf8_lossy(&text).into_owned());
                }
                let index = self.probe_texts.len().saturating_sub(1) as u32;
                self.record(EventKind::Probe, me, index, c, a);
            }
            Op::Fp(f) => condition = self.float(f, code)?,
            Op::Fmul => {
                // Fractional multiply: A × B as fixed-point fractions of 31 bits (the 64-bit
                // product shifted right 31), rounded to nearest.
                let product = i64::from(a as i32) * i64::from(b as i32);
                let rounded = (product + (1 << 30)) >> 31;
                if rounded > i64::from(i32::MAX) {
                    self.set_error()?;
                }
                self.a = rounded as u32;
                self.b = c;
            }
            // The T414's support for single-length floating point in software.
            Op::Unpacksn => {
                // A: a single; B: a count n. A' = the fraction left-aligned (with its hidden
                // bit when normal), B' = the biased exponent, C' = 4n + its type (0 zero,
                // 1 number, 2 infinity, 3 NaN). A denormal gets exponent 1, no hidden bit.
                let (exponent, fraction) = ((a >> 23) & 0xFF, (a & 0x7F_FFFF) << 8);
                let (exponent, fraction, kind) = match (exponent, fraction) {
                    (0, 0) => (0, 0, 0),
                    (0, f) => (1, f, 1),
                    (0xFF, 0) => (0xFF, 0, 2),
                    (0xFF, f) => (0xFF, f, 3),
                    (e, f) => (e, f | 0x8000_0000, 1),
                };
                self.a = fraction;
                self.b = exponent;
                self.c = b.wrapping_mul(4).wrapping_add(kind);
            }
            Op::Postnormsn => {
                // A: the guard word, B: the fraction, C: the places normalisation shifted,
                // W[0]: the exponent. The exponent less the shift; a result too small for a
                // normal single is shifted into a denormal, or to zero.
                let exponent = (self.read_word(self.wptr)? as i32).wrapping_sub(c as i32);
                let (guard, fraction, exponent) = if exponent <= -32 {
                    (0, 0, 0)
                } else if exponent <= 0 {
                    let wide = (u64::from(b) << 32 | u64::from(a)) >> (1 - exponent);
                    (wide as u32, (wide >> 32) as u32, 0)
                } else {
                    (a, b, exponent as u32)
                };
                self.a = guard;
                self.b = fraction;
                self.c = exponent;
            }
            Op::Roundsn => {
                // A: the guard word, B: the fraction, C: the exponent. Packs the single,
                // rounded to nearest even; an exponent past 254 gives infinity. (The sign is
                // the caller's to add.)
                self.a = if c >= 0xFF {
                    0x7F80_0000
                } else {
                    let packed = (c & 0xFF) << 23 | ((b >> 8) & 0x7F_FFFF);
                    let round_up = b & 0x80 != 0 && (a | (b & 0x7F) | (packed & 1)) != 0;
                    packed + u32::from(round_up)
                };
            }
            Op::Ldinf => self.push(0x7F80_0000),
            Op::Cflerr => {
                // The Error flag when A holds an infinity or a NaN.
                if a & 0x7F80_0000 == 0x7F80_0000 {
                    self.set_error()?;
                }
            }
        }
        self.charge(info.cost, n, condition);
        Ok(())
    }

    /// The end of a guard's disabling: the first ready guard's branch is chosen (PRI ALT order:
    /// the order the guards are disabled in). Leaves A = whether this guard fired.
    pub(super) fn select(&mut self, offset: u32, ready: bool) -> Result<(), SimError> {
        let chosen = ready && self.read_word(self.wptr)? == NONE_SELECTED;
        if chosen {
            self.write_word(self.wptr, offset)?;
        }
        self.pop();
        self.pop();
        self.a = u32::from(chosen);
        Ok(())
    }

    pub(super) fn unimplemented(&self, code: u32, name: &'static str) -> SimError {
        SimError::Unimplemented {
            code,
            name,
            iptr: self.iptr.wrapping_sub(1),
            chip: self.table.chip.name(),
        }
    }
}
