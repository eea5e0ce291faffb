//! The two-priority scheduler: run queues, timer queues, timeslicing, the error flag.

use super::*;

impl Node {
    /// The timer of priority `pri`: 1 µs ticks (high), 64 µs ticks (low).
    #[inline]
    pub fn timer(&self, pri: u32) -> u32 {
        let us = self.nanoseconds() / 1_000;
        let ticks = if pri == 0 { us } else { us / 64 };
        (ticks as u32).wrapping_add(self.timer_base[(pri & 1) as usize])
    }

    #[inline]
    pub(super) fn slices(&self) -> u64 {
        // 5120 periods of the 5 MHz input clock, whatever the processor clock.
        self.nanoseconds() / 1_024_000
    }

    #[inline]
    pub(super) fn set_error(&mut self) -> Result<(), SimError> {
        self.error = true;
        if self.halt_on_error {
            return Err(SimError::HaltedOnError { iptr: self.iptr });
        }
        Ok(())
    }

    /// Puts a process on the back of its priority's run queue.
    #[inline]
    pub(super) fn enqueue(&mut self, wdesc: u32) -> Result<(), SimError> {
        let pri = (wdesc & 1) as usize;
        let w = wdesc & !3;
        if self.fptr[pri] == NOT_PROCESS {
            self.fptr[pri] = w;
        } else {
            let back = self.bptr[pri];
            self.write_word(self.ws(back, W_LINK), w)?;
        }
        self.bptr[pri] = w;
        if pri == 0 && self.running && self.pri == 1 {
            self.preempt = true;
            self.horizon = 0;
        }
        Ok(())
    }

    #[inline]
    pub(super) fn dequeue(&mut self, pri: usize) -> Result<Option<u32>, SimError> {
        let front = self.fptr[pri];
        if front == NOT_PROCESS {
            return Ok(None);
        }
        if front == self.bptr[pri] {
            self.fptr[pri] = NOT_PROCESS;
            self.bptr[pri] = NOT_PROCESS;
        } else {
            self.fptr[pri] = self.read_word(self.ws(front, W_LINK))?;
        }
        Ok(Some(front))
    }

    /// Records that the running process stops running to wait for `reason` on `on` (a
    /// channel's address, 0 for none): what the trace's scheduler states come from.
    #[inline]
    pub(super) fn record_wait(&mut self, reason: WaitReason, on: u32) {
        let me = self.wdesc();
        self.record(EventKind::Wait, me, on, reason.code(), 0);
    }

    /// Makes a waiting process ready to run: records it, with the process whose action
    /// released it (`by`, 0 when a timer or a link did), and queues it.
    #[inline]
    pub(super) fn release(&mut self, wdesc: u32, by: u32) -> Result<(), SimError> {
        // The releaser in `channel` too: the log predicts an event from the one before by its
        // kind, process and channel, and a release must not look like the process's own end.
        self.record(EventKind::Wait, wdesc, by, WaitReason::Ready.code(), by);
        self.enqueue(wdesc)
    }

    /// Saves the running process's `Iptr`, optionally puts it back on its run queue, and runs
    /// the next process.
    pub(super) fn deschedule(&mut self, requeue: bool) -> Result<(), SimError> {
        self.write_word(self.ws(self.wptr, W_IPTR), self.iptr)?;
        if requeue {
            let wdesc = self.wdesc();
            self.record_wait(WaitReason::Ready, 0);
            self.enqueue(wdesc)?;
        }
        self.running = false;
        self.schedule()
    }

    /// Runs the next process: high priority first, then an interrupted low-priority process,
    /// then the low-priority queue.
    pub(super) fn schedule(&mut self) -> Result<(), SimError> {
        self.preempt = false;
        if let Some(w) = self.dequeue(0)? {
            self.start_running(w, 0)?;
        } else if let Some(saved) = self.interrupted.take() {
            self.wptr = saved.wptr;
            self.iptr = saved.iptr;
            self.a = saved.a;
            self.b = saved.b;
            self.c = saved.c;
            self.pri = 1;
            self.slices_at = saved.slices_at;
            self.fpu = saved.fpu;
            self.running = true;
            let me = self.wdesc();
            self.record(EventKind::Run, me, 0, 0, 0);
        } else if let Some(w) = self.dequeue(1)? {
            self.start_running(w, 1)?;
            self.slices_at = self.slices();
        }
        if !self.running {
            // Nothing to run: a burst ends here. Another process running changes none of
            // what ends a burst (the next link action or timer, the limit), so a burst runs
            // on through process switches (COMSTIME switches every ~8 instructions).
            self.horizon = 0;
        }
        Ok(())
    }

    pub(super) fn start_running(&mut self, w: u32, pri: u32) -> Result<(), SimError> {
        self.wptr = w;
        self.pri = pri;
        self.iptr = self.read_word(self.ws(w, W_IPTR))?;
        self.running = true;
        self.record(EventKind::Run, w | pri, 0, 0, 0);
        Ok(())
    }

    /// Wakes the timer waiters whose time has come, in time order.
    pub(super) fn wake_timers(&mut self) -> Result<(), SimError> {
        for pri in 0..2u32 {
            if self.timers[pri as usize].is_empty() {
                continue;
            }
            let now = self.timer(pri);
            while let Some(&(time, wdesc)) = self.timers[pri as usize].first() {
                if (now.wrapping_sub(time) as i32) < 0 {
                    break;
                }
                self.timers[pri as usize].remove(0);
                let w = wdesc & !3;
                // A timer ALT becomes ready; a plain `tin` just continues.
                let state = self.read_word(self.ws(w, W_POINTER))?;
                if state == WAITING || state == ENABLING {
                    self.write_word(self.ws(w, W_POINTER), READY)?;
                }
                self.release(wdesc, 0)?;
            }
        }
        Ok(())
    }

    pub(super) fn add_timer(&mut self, time: u32, wdesc: u32) {
        let pri = (wdesc & 1) as usize;
        let now = self.timer(wdesc & 1);
        self.horizon = 0;
        let list = &mut self.timers[pri];
        let key = |t: u32| t.wrapping_sub(now) as i32;
        let at = list.partition_point(|&(t, _)| key(t) <= key(time));
        list.insert(at, (time, wdesc));
    }

    pub(super) fn remove_timer(&mut self, wdesc: u32) {
        for list in &mut self.timers {
            list.retain(|&(_, w)| w != wdesc);
        }
    }

    /// The cycle at which the earliest timer waiter wakes, if any.
    pub(super) fn next_timer_cycle(&self) -> Option<u64> {
        (0..2u32)
            .filter_map(|pri| {
                let &(time, _) = self.timers[pri as usize].first()?;
                let now = self.timer(pri);
                let ahead = u64::from(time.wrapping_sub(now).max(1));
                let tick_ns = if pri == 0 { 1_000 } else { 64_000 };
                // The first cycle whose time reaches the waiter's tick.
                let target_ns = (self.nanoseconds() / tick_ns + ahead) * tick_ns;
                let cycles =
                    (u128::from(target_ns) * u128::from(self.clock_hz)).div_ceil(1_000_000_000);
                Some(u64::try_from(cycles).unwrap_or(u64::MAX))
            })
            .min()
    }

    /// At `j` and `lend`: a low-priority process that has run for two timeslice periods goes
    /// to the back of its queue when another low-priority process is waiting.
    #[inline]
    pub(super) fn timeslice(&mut self) -> Result<(), SimError> {
        if self.pri == 1 && self.slices() >= self.slices_at + 2 && self.fptr[1] != NOT_PROCESS {
            self.deschedule(true)?;
        }
        Ok(())
    }
}
