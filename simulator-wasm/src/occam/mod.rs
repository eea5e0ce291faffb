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

pub mod error;
pub mod parse;

use std::collections::HashMap;
use std::fmt::Write as _;

pub use self::error::OccamError;
use self::parse::{Alternative, Expr, Guard, Param, Pos, Proc, Target, Type};

/// Compiles an occam program to the emulator's assembly.
pub fn compile(source: &str) -> Result<String, OccamError> {
    let tree = parse::parse(source)?;
    let mut g = Gen::default();
    let main = g.new_frame(None);
    g.code.push_str("    ajw -FRAME0\n");
    g.process(&tree, main)?;
    g.code.push_str("    stopp\n");
    let mut out = g.code.clone();
    for block in &g.deferred {
        out.push_str(block);
    }
    for (k, f) in g.frames.iter().enumerate() {
        let _ = writeln!(out, "FRAME{k} = {}", f.size());
    }
    out.push_str(&g.constants);
    Ok(out)
}

/// What a name stands for.
#[derive(Debug, Clone)]
enum Sym {
    /// A variable or channel word in a frame's slot.
    Var {
        frame: usize,
        slot: i64,
        ty: Type,
        writable: bool,
    },
    /// A PROC parameter passed by reference (its address in the slot).
    Ref { frame: usize, slot: i64, ty: Type },
    /// A PROC: its label, parameters and frame.
    Procedure {
        label: String,
        params: Vec<Param>,
        frame: usize,
    },
    /// An array of `len` words (variables or channels) from a frame's slot.
    Array {
        frame: usize,
        slot: i64,
        len: i64,
        ty: Type,
    },
    /// A timer (it needs no storage).
    Timer,
}

/// A workspace frame.
#[derive(Debug, Clone, Default)]
struct Frame {
    /// The frame it sits in (a PAR branch's parent) and the constant naming its offset in
    /// words below the parent's Wptr; none for the main program and PROCs.
    parent: Option<(usize, String)>,
    /// The next free slot (W[0] and W[1] are the scratch word and the join count).
    next: i64,
    /// Words needed below Wptr (PAR branches, PROC calls).
    below: i64,
}

impl Frame {
    /// Words from the frame's Wptr up to its last local.
    fn size(&self) -> i64 {
        self.next.max(2)
    }
}

#[derive(Default)]
struct Gen {
    code: String,
    deferred: Vec<String>,
    constants: String,
    frames: Vec<Frame>,
    scopes: Vec<(String, Sym)>,
    labels: usize,
}

impl Gen {
    fn new_frame(&mut self, parent: Option<(usize, String)>) -> usize {
        self.frames.push(Frame {
            parent,
            next: 2,
            ..Frame::default()
        });
        self.frames.len() - 1
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels)
    }

    fn slot(&mut self, frame: usize) -> i64 {
        let f = &mut self.frames[frame];
        let s = f.next;
        f.next += 1;
        s
    }

    fn emit(&mut self, line: impl AsRef<str>) {
        self.code.push_str("    ");
        self.code.push_str(line.as_ref());
        self.code.push('\n');
    }

    fn lookup(&self, name: &str, pos: Pos) -> Result<Sym, OccamError> {
        self.scopes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
            .ok_or_else(|| OccamError::at_pos(pos, format!("\"{name}\" is not declared")))
    }

    /// How to reach slot `slot` of frame `target` from frame `from`: the slot plus the
    /// offsets of the frames between (an assembler expression).
    fn reach(&self, from: usize, target: usize, slot: i64, pos: Pos) -> Result<String, OccamError> {
        let mut expr = slot.to_string();
        let mut at = from;
        while at != target {
            match &self.frames[at].parent {
                Some((parent, offset)) => {
                    expr.push('+');
                    expr.push_str(offset);
                    at = *parent;
                }
                None => {
                    return Err(OccamError::at_pos(
                        pos,
                        "a PROC uses only its parameters, its own names and VAL constants",
                    ));
                }
            }
        }
        Ok(expr)
    }

    /// Loads the value of `name`.
    fn load(&mut self, name: &str, pos: Pos, frame: usize) -> Result<(), OccamError> {
        match self.lookup(name, pos)? {
            Sym::Var { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldl {at}"));
            }
            Sym::Ref { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldl {at}"));
                self.emit("ldnl 0");
            }
            Sym::Procedure { .. } | Sym::Array { .. } | Sym::Timer => {
                return Err(OccamError::at_pos(
                    pos,
                    format!("\"{name}\" is not a value"),
                ));
            }
        }
        Ok(())
    }

    /// Loads the address of channel (or variable) `name`.
    fn address(
        &mut self,
        name: &str,
        pos: Pos,
        frame: usize,
        want: Type,
    ) -> Result<(), OccamError> {
        let (f, slot, ty, by_ref) = match self.lookup(name, pos)? {
            Sym::Var {
                frame, slot, ty, ..
            } => (frame, slot, ty, false),
            Sym::Ref { frame, slot, ty } => (frame, slot, ty, true),
            Sym::Procedure { .. } | Sym::Array { .. } | Sym::Timer => {
                return Err(OccamError::at_pos(
                    pos,
                    format!("\"{name}\" cannot be used here"),
                ));
            }
        };
        if (want == Type::Chan) != (ty == Type::Chan) {
            let what = if want == Type::Chan {
                "a channel"
            } else {
                "a variable"
            };
            return Err(OccamError::at_pos(pos, format!("\"{name}\" is not {what}")));
        }
        let at = self.reach(frame, f, slot, pos)?;
        self.emit(format!("{} {at}", if by_ref { "ldl" } else { "ldlp" }));
        Ok(())
    }

    /// Stores A into variable `name`.
    fn store(&mut self, name: &str, pos: Pos, frame: usize) -> Result<(), OccamError> {
        match self.lookup(name, pos)? {
            Sym::Var {
                writable: false, ..
            } => Err(OccamError::at_pos(
                pos,
                format!("\"{name}\" is a VAL: it cannot change"),
            )),
            Sym::Var { ty: Type::Chan, .. } | Sym::Ref { ty: Type::Chan, .. } => {
                Err(OccamError::at_pos(pos, format!("\"{name}\" is a channel")))
            }
            Sym::Var { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("stl {at}"));
                Ok(())
            }
            Sym::Ref { frame: f, slot, .. } => {
                let at = self.reach(frame, f, slot, pos)?;
                self.emit(format!("ldl {at}"));
                self.emit("stnl 0");
                Ok(())
            }
            Sym::Procedure { .. } | Sym::Array { .. } | Sym::Timer => Err(OccamError::at_pos(
                pos,
                format!("\"{name}\" cannot be assigned"),
            )),
        }
    }

    /// The address of element `index` of array `name`, its subscript checked (`csub0` sets
    /// the error flag when it is out of range).
    fn element(
        &mut self,
        name: &str,
        index: &Expr,
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        let Sym::Array {
            frame: f,
            slot,
            len,
            ..
        } = self.lookup(name, pos)?
        else {
            return Err(OccamError::at_pos(
                pos,
                format!("\"{name}\" is not an array"),
            ));
        };
        self.expr(index, frame)?;
        self.emit(format!("ldc {len}"));
        self.emit("csub0");
        let at = self.reach(frame, f, slot, pos)?;
        self.emit(format!("ldlp {at}"));
        self.emit("wsub");
        Ok(())
    }

    /// With a channel's address in A: outputs `e` on it (through temporaries when `e` needs
    /// every register).
    fn output(&mut self, e: &Expr, frame: usize) -> Result<(), OccamError> {
        if Self::depth(e) >= 3 {
            let (channel, value) = (self.slot(frame), self.slot(frame));
            self.emit(format!("stl {channel}"));
            self.expr(e, frame)?;
            self.emit(format!("stl {value}"));
            self.emit(format!("ldl {channel}"));
            self.emit(format!("ldl {value}"));
        } else {
            self.expr(e, frame)?;
        }
        self.emit("outword");
        Ok(())
    }

    /// The address `target` is written at: a variable's (or its reference), an element's.
    fn target_address(
        &mut self,
        target: &Target,
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        match target {
            Target::Var(name) => self.address(name, pos, frame, Type::Int),
            Target::Elem(name, index) => self.element(name, index, pos, frame),
        }
    }

    /// The address of element `index` of channel array `name`.
    fn channel_element(
        &mut self,
        name: &str,
        index: &Expr,
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        if !matches!(self.lookup(name, pos)?, Sym::Array { ty: Type::Chan, .. }) {
            return Err(OccamError::at_pos(
                pos,
                format!("\"{name}\" is not an array of channels"),
            ));
        }
        self.element(name, index, pos, frame)
    }

    /// Stores A into `target` (a variable, or an array element through temporaries).
    fn store_target(&mut self, target: &Target, pos: Pos, frame: usize) -> Result<(), OccamError> {
        match target {
            Target::Var(name) => self.store(name, pos, frame),
            Target::Elem(name, index) => {
                let value = self.slot(frame);
                self.emit(format!("stl {value}"));
                self.element(name, index, pos, frame)?;
                let address = self.slot(frame);
                self.emit(format!("stl {address}"));
                self.emit(format!("ldl {value}"));
                self.emit(format!("ldl {address}"));
                self.emit("stnl 0");
                Ok(())
            }
        }
    }

    /// Evaluation-stack registers an expression needs.
    fn depth(e: &Expr) -> usize {
        match e {
            Expr::Num(_) | Expr::Var(..) => 1,
            Expr::Index(_, i, _) => Self::depth(i).max(2),
            Expr::Not(x) => Self::depth(x),
            Expr::Neg(x) => Self::depth(x).max(2),
            Expr::Bin(_, l, r, _) => Self::depth(l).max(Self::depth(r) + 1),
        }
    }

    /// Evaluates `e` into A.
    fn expr(&mut self, e: &Expr, frame: usize) -> Result<(), OccamError> {
        match e {
            Expr::Num(n) => self.emit(format!("ldc {}", *n as i32)),
            Expr::Var(name, pos) => self.load(name, *pos, frame)?,
            Expr::Index(name, index, pos) => {
                self.element(name, index, *pos, frame)?;
                self.emit("ldnl 0");
            }
            Expr::Not(x) => {
                self.expr(x, frame)?;
                self.emit("eqc 0");
            }
            Expr::Neg(x) => {
                self.emit("ldc 0");
                if Self::depth(x) >= 3 {
                    return self.expr(
                        &Expr::Bin("-", Box::new(Expr::Num(0)), x.clone(), Pos::default()),
                        frame,
                    );
                }
                self.expr(x, frame)?;
                self.emit("sub");
            }
            Expr::Bin(op, l, r, _) => {
                if Self::depth(r) >= 3 {
                    // Spill the right operand: it needs every register.
                    let temp = self.slot(frame);
                    self.expr(r, frame)?;
                    self.emit(format!("stl {temp}"));
                    self.expr(l, frame)?;
                    self.emit(format!("ldl {temp}"));
                } else {
                    self.expr(l, frame)?;
                    self.expr(r, frame)?;
                }
                // B = left, A = right.
                let ops: &[&str] = match *op {
                    "+" => &["add"],
                    "-" => &["sub"],
                    "*" => &["mul"],
                    "/" => &["div"],
                    "\\" => &["rem"],
                    "AND" => &["and"],
                    "OR" => &["or"],
                    "=" => &["diff", "eqc 0"],
                    "<>" => &["diff", "eqc 0", "eqc 0"],
                    ">" => &["gt"],
                    "<" => &["rev", "gt"],
                    "<=" => &["gt", "eqc 0"],
                    _ => &["rev", "gt", "eqc 0"],
                };
                for o in ops {
                    self.emit(*o);
                }
            }
        }
        Ok(())
    }

    fn declare(&mut self, name: &str, sym: Sym) {
        self.scopes.push((name.to_owned(), sym));
    }

    fn process(&mut self, p: &Proc, frame: usize) -> Result<(), OccamError> {
        match p {
            Proc::Skip => {}
            Proc::Stop => {
                self.emit("seterr");
                self.emit("stopp");
            }
            Proc::Assign(target, e, pos) => {
                self.expr(e, frame)?;
                self.store_target(target, *pos, frame)?;
            }
            Proc::Output(chan, e, pos) => {
                self.address(chan, *pos, frame, Type::Chan)?;
                self.output(e, frame)?;
            }
            Proc::Input(chan, target, pos) => {
                if let Sym::Timer = self.lookup(chan, *pos)? {
                    // `timer ? t`: the time now.
                    self.emit("ldtimer");
                    return self.store_target(target, *pos, frame);
                }
                let name = target.name();
                if let Sym::Var {
                    writable: false, ..
                } = self.lookup(name, *pos)?
                {
                    return Err(OccamError::at_pos(
                        *pos,
                        format!("\"{name}\" is a VAL: it cannot change"),
                    ));
                }
                // Straight into the variable, its reference or the array element.
                self.target_address(target, *pos, frame)?;
                self.address(chan, *pos, frame, Type::Chan)?;
                self.emit("ldc 4");
                self.emit("in");
            }
            Proc::After(timer, e, pos) => {
                let Sym::Timer = self.lookup(timer, *pos)? else {
                    return Err(OccamError::at_pos(
                        *pos,
                        format!("\"{timer}\" is not a TIMER"),
                    ));
                };
                self.expr(e, frame)?;
                self.emit("tin");
            }
            Proc::OutputAt(chan, index, e, pos) => {
                self.channel_element(chan, index, *pos, frame)?;
                self.output(e, frame)?;
            }
            Proc::InputAt(chan, index, target, pos) => {
                self.channel_element(chan, index, *pos, frame)?;
                let at = self.slot(frame);
                self.emit(format!("stl {at}"));
                self.target_address(target, *pos, frame)?;
                self.emit(format!("ldl {at}"));
                self.emit("ldc 4");
                self.emit("in");
            }
            Proc::Array(ty, size, names, scope) => {
                let len = match size {
                    Expr::Num(n) if *n > 0 => *n,
                    _ => {
                        let pos = names.first().map_or(Pos::default(), |n| n.1);
                        return Err(OccamError::at_pos(
                            pos,
                            "an array's size must be a positive number",
                        ));
                    }
                };
                let depth = self.scopes.len();
                for (name, _) in names {
                    let f = &mut self.frames[frame];
                    let slot = f.next;
                    f.next += len;
                    if *ty == Type::Chan {
                        for k in 0..len {
                            self.emit("mint");
                            self.emit(format!("stl {}", slot + k));
                        }
                    }
                    self.declare(
                        name,
                        Sym::Array {
                            frame,
                            slot,
                            len,
                            ty: *ty,
                        },
                    );
                }
                self.process(scope, frame)?;
                self.scopes.truncate(depth);
            }
            Proc::Decl(Type::Timer, names, scope) => {
                let depth = self.scopes.len();
                for (name, _) in names {
                    self.declare(name, Sym::Timer);
                }
                self.process(scope, frame)?;
                self.scopes.truncate(depth);
            }
            Proc::Seq(list) => {
                for q in list {
                    self.process(q, frame)?;
                }
            }
            Proc::Par(branches, pos) => self.par(branches, *pos, frame)?,
            Proc::Alt(alternatives, _) => self.alt(alternatives, frame)?,
            Proc::If(choices) => {
                let end = self.label();
                for (cond, body) in choices {
                    let next = self.label();
                    self.expr(cond, frame)?;
                    self.emit(format!("cj {next}"));
                    self.process(body, frame)?;
                    self.emit(format!("j {end}"));
                    self.code.push_str(&format!("{next}:\n"));
                }
                // No choice held: IF behaves like STOP.
                self.emit("seterr");
                self.emit("stopp");
                self.code.push_str(&format!("{end}:\n"));
            }
            Proc::While(cond, body) => {
                let (top, end) = (self.label(), self.label());
                self.code.push_str(&format!("{top}:\n"));
                // WHILE TRUE tests nothing.
                if !matches!(cond, Expr::Num(n) if *n != 0) {
                    self.expr(cond, frame)?;
                    self.emit(format!("cj {end}"));
                }
                self.process(body, frame)?;
                self.emit(format!("j {top}"));
                self.code.push_str(&format!("{end}:\n"));
            }
            Proc::RepSeq(name, base, count, body) => {
                let (i, n) = (self.slot(frame), self.slot(frame));
                self.expr(base, frame)?;
                self.emit(format!("stl {i}"));
                self.expr(count, frame)?;
                self.emit(format!("stl {n}"));
                let (top, end) = (self.label(), self.label());
                self.code.push_str(&format!("{top}:\n"));
                self.emit(format!("ldl {n}"));
                self.emit("ldc 0");
                self.emit("gt");
                self.emit(format!("cj {end}"));
                self.declare(
                    name,
                    Sym::Var {
                        frame,
                        slot: i,
                        ty: Type::Int,
                        writable: false,
                    },
                );
                self.process(body, frame)?;
                self.scopes.pop();
                self.emit(format!("ldl {i}"));
                self.emit("adc 1");
                self.emit(format!("stl {i}"));
                self.emit(format!("ldl {n}"));
                self.emit("adc -1");
                self.emit(format!("stl {n}"));
                self.emit(format!("j {top}"));
                self.code.push_str(&format!("{end}:\n"));
            }
            Proc::Decl(ty, names, scope) => {
                let depth = self.scopes.len();
                for (name, _) in names {
                    let slot = self.slot(frame);
                    if *ty == Type::Chan {
                        self.emit("mint");
                        self.emit(format!("stl {slot}"));
                    }
                    self.declare(
                        name,
                        Sym::Var {
                            frame,
                            slot,
                            ty: *ty,
                            writable: true,
                        },
                    );
                }
                self.process(scope, frame)?;
                self.scopes.truncate(depth);
            }
            Proc::Val(name, value, scope, _) => {
                let slot = self.slot(frame);
                self.expr(value, frame)?;
                self.emit(format!("stl {slot}"));
                self.declare(
                    name,
                    Sym::Var {
                        frame,
                        slot,
                        ty: Type::Int,
                        writable: false,
                    },
                );
                self.process(scope, frame)?;
                self.scopes.pop();
            }
            Proc::Define(name, params, body, scope, pos) => {
                self.define(name, params, body, *pos)?;
                self.process(scope, frame)?;
                self.scopes.pop();
            }
            Proc::Call(name, args, pos) => self.call(name, args, *pos, frame)?,
        }
        Ok(())
    }

    /// An ALT: the guards' conditions and times evaluated once into temporaries, each guard
    /// enabled, the wait, each guard disabled with its branch's offset (the first ready one,
    /// in order, is chosen: PRI ALT's rule), then the chosen branch: its input, its process.
    fn alt(&mut self, alternatives: &[Alternative], frame: usize) -> Result<(), OccamError> {
        let timed = alternatives
            .iter()
            .any(|a| matches!(a.guard, Guard::After(..)));
        // Conditions and times, evaluated once.
        let mut held = Vec::new();
        for a in alternatives {
            let cond = self.slot(frame);
            match &a.condition {
                Some(e) => self.expr(e, frame)?,
                None => self.emit("ldc 1"),
            }
            self.emit(format!("stl {cond}"));
            let time = match &a.guard {
                Guard::After(timer, e) => {
                    let Sym::Timer = self.lookup(timer, a.pos)? else {
                        return Err(OccamError::at_pos(
                            a.pos,
                            format!("\"{timer}\" is not a TIMER"),
                        ));
                    };
                    let t = self.slot(frame);
                    self.expr(e, frame)?;
                    self.emit(format!("stl {t}"));
                    Some(t)
                }
                _ => None,
            };
            held.push((cond, time));
        }
        self.emit(if timed { "talt" } else { "alt" });
        for (a, (cond, time)) in alternatives.iter().zip(&held) {
            match &a.guard {
                Guard::Input(chan, _) => {
                    self.address(chan, a.pos, frame, Type::Chan)?;
                    self.emit(format!("ldl {cond}"));
                    self.emit("enbc");
                }
                Guard::After(..) => {
                    self.emit(format!("ldl {}", time.unwrap_or(0)));
                    self.emit(format!("ldl {cond}"));
                    self.emit("enbt");
                }
                Guard::Skip => {
                    self.emit(format!("ldl {cond}"));
                    self.emit("enbs");
                }
            }
        }
        self.emit(if timed { "taltwt" } else { "altwt" });
        let after = self.label();
        let branches: Vec<String> = alternatives.iter().map(|_| self.label()).collect();
        for ((a, (cond, time)), branch) in alternatives.iter().zip(&held).zip(&branches) {
            match &a.guard {
                Guard::Input(chan, _) => {
                    self.address(chan, a.pos, frame, Type::Chan)?;
                    self.emit(format!("ldl {cond}"));
                    self.emit(format!("ldc {branch} - {after}"));
                    self.emit("disc");
                }
                Guard::After(..) => {
                    self.emit(format!("ldl {}", time.unwrap_or(0)));
                    self.emit(format!("ldl {cond}"));
                    self.emit(format!("ldc {branch} - {after}"));
                    self.emit("dist");
                }
                Guard::Skip => {
                    self.emit(format!("ldl {cond}"));
                    self.emit(format!("ldc {branch} - {after}"));
                    self.emit("diss");
                }
            }
        }
        self.emit("altend");
        self.code.push_str(&format!("{after}:\n"));
        let end = self.label();
        for (a, branch) in alternatives.iter().zip(&branches) {
            self.code.push_str(&format!("{branch}:\n"));
            if let Guard::Input(chan, target) = &a.guard {
                self.process(&Proc::Input(chan.clone(), target.clone(), a.pos), frame)?;
            }
            self.process(&a.body, frame)?;
            self.emit(format!("j {end}"));
        }
        self.code.push_str(&format!("{end}:\n"));
        Ok(())
    }

    /// A PAR: every branch started in a frame of its own below this one, this process waiting
    /// at the join (W[0] the continuation, W[1] the count).
    fn par(&mut self, branches: &[Proc], pos: Pos, frame: usize) -> Result<(), OccamError> {
        check_par_usage(branches, pos)?;
        let n = branches.len() as i64;
        let (join, start_at) = (self.label(), self.label());
        self.emit(format!("ldc {join} - {start_at}"));
        self.emit("ldpi");
        self.code.push_str(&format!("{start_at}:\n"));
        self.emit("stl 0");
        self.emit(format!("ldc {}", n + 1));
        self.emit("stl 1");
        let mut offsets = Vec::new();
        for branch in branches {
            let offset = format!("PAR{}", self.labels + 1);
            self.labels += 1;
            let child = self.new_frame(Some((frame, offset.clone())));
            // The branch's code goes after the program's.
            let outer = std::mem::take(&mut self.code);
            let entry = self.label();
            self.code.push_str(&format!("{entry}:\n"));
            self.process(branch, child)?;
            self.emit(format!("ldlp {offset}"));
            self.emit("endp");
            let block = std::mem::replace(&mut self.code, outer);
            self.deferred.push(block);
            let after = self.label();
            self.emit(format!("ldc {entry} - {after}"));
            self.emit(format!("ldlp -{offset}"));
            self.emit("startp");
            self.code.push_str(&format!("{after}:\n"));
            offsets.push((offset, child));
        }
        self.emit("ldlp 0");
        self.emit("endp");
        self.code.push_str(&format!("{join}:\n"));
        // Frames below this one (after this process's own five scheduling words): each
        // branch's locals above its Wptr, the five scheduling words below it, its own needs.
        let mut cursor = 5;
        for (offset, child) in offsets {
            let f = &self.frames[child];
            let at = cursor + f.size() + 1;
            let _ = writeln!(self.constants, "{offset} = {at}");
            cursor = at + 5 + f.below;
        }
        let f = &mut self.frames[frame];
        f.below = f.below.max(cursor);
        Ok(())
    }

    /// A PROC: its code after the program's, its frame of its own.
    fn define(
        &mut self,
        name: &str,
        params: &[Param],
        body: &Proc,
        pos: Pos,
    ) -> Result<(), OccamError> {
        if params.len() > 3 {
            return Err(OccamError::at_pos(
                pos,
                "a PROC takes at most three parameters here",
            ));
        }
        let frame = self.new_frame(None);
        let label = format!("P{}_{}", frame, name.replace('.', "_"));
        let depth = self.scopes.len();
        // The call's frame: W[0] the return address, W[1..3] A, B, C; the body's locals below.
        let size = format!("FRAME{frame}");
        // Parameters sit above the locals, at FRAMEk + 1 + n: generated with the marker slot
        // −1000 − n and resolved once the body is done (`resolve_params`).
        for (k, p) in params.iter().enumerate() {
            let slot = -1000 - k as i64;
            let sym = if p.by_value {
                Sym::Var {
                    frame,
                    slot,
                    ty: p.ty,
                    writable: false,
                }
            } else {
                Sym::Ref {
                    frame,
                    slot,
                    ty: p.ty,
                }
            };
            self.declare(&p.name, sym);
        }
        let deferred_before = self.deferred.len();
        let outer = std::mem::take(&mut self.code);
        self.code.push_str(&format!("{label}:\n"));
        self.emit(format!("ajw -{size}"));
        self.process(body, frame)?;
        self.emit(format!("ajw {size}"));
        self.emit("ret");
        let block = std::mem::replace(&mut self.code, outer);
        // The body's PAR branches reach the parameters too.
        for branch in &mut self.deferred[deferred_before..] {
            *branch = resolve_params(branch, &size);
        }
        self.deferred.push(resolve_params(&block, &size));
        self.scopes.truncate(depth);
        self.declare(
            name,
            Sym::Procedure {
                label,
                params: params.to_vec(),
                frame,
            },
        );
        Ok(())
    }

    /// A call: the library's `probe`, or a PROC with its arguments in A, B and C.
    fn call(
        &mut self,
        name: &str,
        args: &[Expr],
        pos: Pos,
        frame: usize,
    ) -> Result<(), OccamError> {
        if name == "probe" {
            if args.len() != 1 {
                return Err(OccamError::at_pos(pos, "probe takes one argument: a tag"));
            }
            self.emit("ldc 0");
            self.emit("ldc 0");
            self.expr(&args[0], frame)?;
            self.emit("probe");
            return Ok(());
        }
        let Sym::Procedure {
            label,
            params,
            frame: callee,
        } = self.lookup(name, pos)?
        else {
            return Err(OccamError::at_pos(pos, format!("\"{name}\" is not a PROC")));
        };
        if params.len() != args.len() {
            return Err(OccamError::at_pos(
                pos,
                format!(
                    "{name} takes {} arguments, not {}",
                    params.len(),
                    args.len()
                ),
            ));
        }
        // Arguments into temporaries, then loaded C, B, A (the first in A).
        let mut temps = Vec::new();
        for (p, a) in params.iter().zip(args) {
            let temp = self.slot(frame);
            match (p.by_value, p.ty, a) {
                (true, Type::Int | Type::Bool, _) => self.expr(a, frame)?,
                (_, ty, Expr::Var(v, vpos)) => {
                    let want = if ty == Type::Chan {
                        Type::Chan
                    } else {
                        Type::Int
                    };
                    self.address(v, *vpos, frame, want)?;
                }
                _ => {
                    return Err(OccamError::at_pos(
                        pos,
                        format!(
                            "{name}'s parameter {} needs a variable or a channel",
                            p.name
                        ),
                    ));
                }
            }
            self.emit(format!("stl {temp}"));
            temps.push(temp);
        }
        for temp in temps.iter().rev() {
            self.emit(format!("ldl {temp}"));
        }
        self.emit(format!("call {label}"));
        let f_below = 4 + self.frames[callee].size() + self.frames[callee].below;
        let f = &mut self.frames[frame];
        f.below = f.below.max(f_below);
        Ok(())
    }
}

/// A PROC's parameters are slots above its locals: `FRAMEk + 1 + n`. The body was generated
/// with marker slots (−1000 − n); they become those expressions.
fn resolve_params(block: &str, size: &str) -> String {
    let mut out = block.to_owned();
    for k in 0..3i64 {
        out = out.replace(&format!(" {}", -1000 - k), &format!(" {size}+{}", k + 1));
    }
    out
}

/// The names a process assigns (or inputs into) and the channels it inputs from and outputs
/// to, declared outside it.
fn usage(
    p: &Proc,
    assigned: &mut Vec<String>,
    inputs: &mut Vec<String>,
    outputs: &mut Vec<String>,
    local: &mut Vec<String>,
) {
    let free = |n: &String, local: &Vec<String>| !local.contains(n);
    match p {
        // Array elements are not checked: branches of a replicated PAR write their own.
        Proc::Assign(Target::Var(n), ..) if free(n, local) => assigned.push(n.clone()),
        Proc::Input(c, t, _) => {
            if free(c, local) {
                inputs.push(c.clone());
            }
            if let Target::Var(n) = t
                && free(n, local)
            {
                assigned.push(n.clone());
            }
        }
        Proc::Output(c, ..) if free(c, local) => outputs.push(c.clone()),
        Proc::Alt(alternatives, _) => {
            for a in alternatives {
                if let Guard::Input(c, t) = &a.guard {
                    usage(
                        &Proc::Input(c.clone(), t.clone(), a.pos),
                        assigned,
                        inputs,
                        outputs,
                        local,
                    );
                }
                usage(&a.body, assigned, inputs, outputs, local);
            }
        }
        Proc::Seq(list) | Proc::Par(list, _) => {
            for q in list {
                usage(q, assigned, inputs, outputs, local);
            }
        }
        Proc::If(choices) => {
            for (_, q) in choices {
                usage(q, assigned, inputs, outputs, local);
            }
        }
        Proc::While(_, q) => usage(q, assigned, inputs, outputs, local),
        Proc::RepSeq(n, _, _, q) | Proc::Val(n, _, q, _) => {
            local.push(n.clone());
            usage(q, assigned, inputs, outputs, local);
            local.pop();
        }
        Proc::Decl(_, names, q) | Proc::Array(_, _, names, q) => {
            let before = local.len();
            local.extend(names.iter().map(|(n, _)| n.clone()));
            usage(q, assigned, inputs, outputs, local);
            local.truncate(before);
        }
        Proc::Define(_, _, _, q, _) => usage(q, assigned, inputs, outputs, local),
        _ => {}
    }
}

/// occam's usage rules for a PAR: no variable assigned in two branches, no channel used for
/// input (or for output) in two branches.
fn check_par_usage(branches: &[Proc], pos: Pos) -> Result<(), OccamError> {
    let mut seen: [HashMap<String, usize>; 3] = Default::default();
    for (k, b) in branches.iter().enumerate() {
        let (mut a, mut i, mut o, mut l) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        usage(b, &mut a, &mut i, &mut o, &mut l);
        for (what, names, map) in [
            ("assigned", a, 0),
            ("used for input", i, 1),
            ("used for output", o, 2),
        ] {
            for n in names {
                if let Some(&other) = seen[map].get(&n)
                    && other != k
                {
                    return Err(OccamError::at_pos(
                        pos,
                        format!("\"{n}\" is {what} in two branches of this PAR"),
                    ));
                }
                seen[map].insert(n, k);
            }
        }
    }
    Ok(())
}
