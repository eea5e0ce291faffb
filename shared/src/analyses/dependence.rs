//! The dependence description language of the hasse tool (Hofmann, `002_…` §8):
//!
//! ```text
//! DEPENDENCE one-to-one IS
//!     x ON PROCESS B -> y ON PROCESS A
//! END
//! DEPENDENCE fault tolerant protocol IS
//!     send{1,10} ON PROCESS A -> receive ON ALL PROCESSES {B, C}
//! END
//! ```
//!
//! An event name matches an event whose kind is that name (`msg_send`, `recv_call`, …), a probe
//! whose text is that name, or an enter of a region of that name. A range `{a}`, `{a,b}` or
//! `{a,}` keeps the a-th to b-th matching events of each process (1-based).
//! Qualifiers: `ALL` (the default), `SOME`, or a number n. On the cause side they say how many
//! cause instances must be satisfied (all, at least one, at least n processes with one); on the
//! effect side how many of the listed processes must hold an effect that the cause happened
//! before (all, at least one, at least n).
//! Each dependence compiles to happened-before queries on the vector clocks.

use serde::{Deserialize, Serialize};

use crate::analyses::causality::Causality;
use crate::model::{EventIdx, EventKind, ProcessId, Trace};

/// A parse error, with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("dependence description, line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What was found and what was expected.
    pub message: String,
}

/// How many must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Qualifier {
    /// Every one.
    All,
    /// At least one.
    Some,
    /// At least this many.
    AtLeast(u32),
}

/// One side of a dependence: an event name, an optional occurrence range, and processes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSpec {
    /// The event name.
    pub name: String,
    /// The first occurrence kept (1-based).
    pub from: u32,
    /// The last occurrence kept, if bounded.
    pub to: Option<u32>,
    /// How many must hold.
    pub qualifier: Qualifier,
    /// The processes, by name.
    pub processes: Vec<String>,
}

/// A parsed dependence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependence {
    /// Its name.
    pub name: String,
    /// The causing event.
    pub cause: EventSpec,
    /// The dependent event.
    pub effect: EventSpec,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Number(u32),
    Str(String),
    Arrow,
    Open,
    Close,
    Comma,
}

struct Token {
    tok: Tok,
    line: usize,
    column: usize,
}

fn tokenize(text: &str) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    for (line_no, line) in text.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let (line, column) = (line_no + 1, i + 1);
            let push = |out: &mut Vec<Token>, tok| out.push(Token { tok, line, column });
            if c.is_whitespace() {
                i += 1;
            } else if c == '#' {
                break;
            } else if c == '{' || c == '}' || c == ',' || c == '→' {
                push(
                    &mut out,
                    match c {
                        '{' => Tok::Open,
                        '}' => Tok::Close,
                        ',' => Tok::Comma,
                        _ => Tok::Arrow,
                    },
                );
                i += 1;
            } else if c == '-' && chars.get(i + 1) == Some(&'>') {
                push(&mut out, Tok::Arrow);
                i += 2;
            } else if c == '"' {
                let end = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '"')
                    .ok_or_else(|| ParseError {
                        line,
                        column,
                        message: "unterminated string: expected a closing \"".to_owned(),
                    })?;
                push(
                    &mut out,
                    Tok::Str(chars[i + 1..i + 1 + end].iter().collect()),
                );
                i += end + 2;
            } else if c.is_ascii_digit() {
                let len = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                let digits: String = chars[i..i + len].iter().collect();
                let number = digits.parse().map_err(|_| ParseError {
                    line,
                    column,
                    message: format!("number {digits} is too large"),
                })?;
                push(&mut out, Tok::Number(number));
                i += len;
            } else if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' || c == ':' {
                let len = chars[i..]
                    .iter()
                    .take_while(|&&c| {
                        c.is_alphanumeric() || c == '_' || c == '.' || c == ':' || c == '-'
                    })
                    .count();
                // A trailing '-' starts an arrow, not a name.
                let mut len = len;
                if chars.get(i + len - 1) == Some(&'-') && chars.get(i + len) == Some(&'>') {
                    len -= 1;
                }
                push(&mut out, Tok::Word(chars[i..i + len].iter().collect()));
                i += len.max(1);
            } else {
                return Err(ParseError {
                    line,
                    column,
                    message: format!("unexpected character {c:?}"),
                });
            }
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end: (usize, usize),
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    fn error(&self, expected: &str) -> ParseError {
        let (line, column, found) = match self.tokens.get(self.pos) {
            Some(t) => (t.line, t.column, format!("{:?}", t.tok)),
            None => (self.end.0, self.end.1, "the end of the text".to_owned()),
        };
        let found = found
            .replace("Word(", "word ")
            .replace("Number(", "number ")
            .replace("Str(", "string ");
        ParseError {
            line,
            column,
            message: format!("expected {expected}, found {}", found.trim_end_matches(')')),
        }
    }

    fn keyword(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(word)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_keyword(&mut self, word: &str) -> Result<(), ParseError> {
        if self.keyword(word) {
            Ok(())
        } else {
            Err(self.error(word))
        }
    }

    fn expect(&mut self, tok: &Tok, what: &str) -> Result<(), ParseError> {
        if self.peek() == Some(tok) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    fn name(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek().cloned() {
            Some(Tok::Word(w)) if !is_keyword(&w) => {
                self.pos += 1;
                Ok(w)
            }
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(s)
            }
            Some(Tok::Number(n)) => {
                self.pos += 1;
                Ok(n.to_string())
            }
            _ => Err(self.error(what)),
        }
    }

    fn number(&mut self, what: &str) -> Result<u32, ParseError> {
        match self.peek() {
            Some(&Tok::Number(n)) => {
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.error(what)),
        }
    }

    fn dependence(&mut self) -> Result<Dependence, ParseError> {
        self.expect_keyword("DEPENDENCE")?;
        let mut words = Vec::new();
        while !self.keyword("IS") {
            words.push(self.name("a dependence name or IS")?);
        }
        if words.is_empty() {
            return Err(self.error("a dependence name before IS"));
        }
        let cause = self.event_spec()?;
        self.expect(
            &Tok::Arrow,
            "-> between the causing and the dependent event",
        )?;
        let effect = self.event_spec()?;
        self.expect_keyword("END")?;
        Ok(Dependence {
            name: words.join(" "),
            cause,
            effect,
        })
    }

    fn event_spec(&mut self) -> Result<EventSpec, ParseError> {
        let name = self.name("an event name")?;
        let (mut from, mut to) = (1, None);
        if self.peek() == Some(&Tok::Open) {
            self.pos += 1;
            from = self.number("the first occurrence of the range")?;
            to = Some(from);
            if self.peek() == Some(&Tok::Comma) {
                self.pos += 1;
                to = match self.peek() {
                    Some(Tok::Number(_)) => Some(self.number("the last occurrence")?),
                    _ => None,
                };
            }
            self.expect(&Tok::Close, "} closing the range")?;
            if from == 0 || to.is_some_and(|to| to < from) {
                return Err(self.error("a range {a}, {a,b} or {a,} with 1 ≤ a ≤ b (before this)"));
            }
        }
        self.expect_keyword("ON")?;
        let qualifier = if self.keyword("ALL") {
            Qualifier::All
        } else if self.keyword("SOME") {
            Qualifier::Some
        } else if let Some(&Tok::Number(n)) = self.peek() {
            self.pos += 1;
            Qualifier::AtLeast(n)
        } else {
            Qualifier::All
        };
        if !(self.keyword("PROCESS") || self.keyword("PROCESSES")) {
            return Err(self.error("PROCESS or PROCESSES"));
        }
        self.keyword("OF");
        let mut processes = Vec::new();
        if self.peek() == Some(&Tok::Open) {
            self.pos += 1;
            loop {
                processes.push(self.name("a process name")?);
                if self.peek() == Some(&Tok::Comma) {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            self.expect(&Tok::Close, "} closing the process list")?;
        } else {
            processes.push(self.name("a process name or a {list}")?);
        }
        Ok(EventSpec {
            name,
            from,
            to,
            qualifier,
            processes,
        })
    }
}

fn is_keyword(w: &str) -> bool {
    [
        "DEPENDENCE",
        "IS",
        "ON",
        "ALL",
        "SOME",
        "PROCESS",
        "PROCESSES",
        "OF",
        "END",
    ]
    .iter()
    .any(|k| w.eq_ignore_ascii_case(k))
}

/// Parses every dependence in `text`.
pub fn parse(text: &str) -> Result<Vec<Dependence>, ParseError> {
    let tokens = tokenize(text)?;
    let lines: Vec<&str> = text.lines().collect();
    let end = (
        lines.len().max(1),
        lines.last().map_or(1, |l| l.chars().count() + 1),
    );
    let mut parser = Parser {
        tokens,
        pos: 0,
        end,
    };
    let mut out = Vec::new();
    while parser.peek().is_some() {
        out.push(parser.dependence()?);
    }
    Ok(out)
}

/// One cause instance and the effects it reaches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// The causing event.
    pub cause: EventIdx,
    /// For each effect process, the first matching effect the cause happened before.
    pub effects: Vec<EventIdx>,
    /// Whether enough effect processes hold one.
    pub satisfied: bool,
}

/// A dependence evaluated over a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The dependence's name.
    pub name: String,
    /// Whether it holds.
    pub satisfied: bool,
    /// Every cause instance.
    pub instances: Vec<Instance>,
    /// Process names that match no process of the trace.
    pub unknown_processes: Vec<String>,
}

/// Whether event `i` has the name `name`.
fn matches_name(trace: &Trace, i: usize, name: &str) -> bool {
    let e = &trace.events;
    let kind = e.kind()[i];
    kind.name() == name
        || (kind == EventKind::Probe && e.text().at(i).and_then(|s| trace.string(s)) == Some(name))
        || (kind == EventKind::Enter
            && e.region()
                .at(i)
                .and_then(|r| trace.regions.get(r.index()))
                .is_some_and(|r| r.name == name))
}

/// The events matching a spec on one process, in program order, within the range.
fn matching(
    trace: &Trace,
    causality: &Causality,
    process: ProcessId,
    spec: &EventSpec,
) -> Vec<EventIdx> {
    let mut events: Vec<EventIdx> = trace
        .process_events(process)
        .filter(|&i| matches_name(trace, i, &spec.name))
        .map(|i| EventIdx(i as u32))
        .collect();
    events.sort_by_key(|&v| causality.position(v));
    let from = (spec.from as usize).saturating_sub(1);
    let to = spec
        .to
        .map_or(events.len(), |to| (to as usize).min(events.len()));
    events
        .get(from..to.max(from))
        .map(<[EventIdx]>::to_vec)
        .unwrap_or_default()
}

fn enough(q: Qualifier, held: usize, total: usize) -> bool {
    match q {
        Qualifier::All => held == total && total > 0,
        Qualifier::Some => held >= 1,
        Qualifier::AtLeast(n) => held >= n as usize,
    }
}

/// Evaluates a dependence with happened-before queries.
pub fn evaluate(trace: &Trace, causality: &Causality, dependence: &Dependence) -> Evaluation {
    let mut unknown = Vec::new();
    let mut resolve = |names: &[String]| -> Vec<ProcessId> {
        names
            .iter()
            .filter_map(|name| {
                let found = trace
                    .processes
                    .iter()
                    .position(|p| p.name == *name)
                    .map(|i| ProcessId(i as u32));
                if found.is_none() {
                    unknown.push(name.clone());
                }
                found
            })
            .collect()
    };
    let cause_processes = resolve(&dependence.cause.processes);
    let effect_processes = resolve(&dependence.effect.processes);
    let effects: Vec<Vec<EventIdx>> = effect_processes
        .iter()
        .map(|&q| matching(trace, causality, q, &dependence.effect))
        .collect();
    let mut instances = Vec::new();
    let mut satisfied_processes = 0;
    for &p in &cause_processes {
        let mut any = false;
        for cause in matching(trace, causality, p, &dependence.cause) {
            let reached: Vec<EventIdx> = effects
                .iter()
                .filter_map(|candidates| {
                    candidates
                        .iter()
                        .copied()
                        .find(|&f| causality.happened_before(cause, f))
                })
                .collect();
            let satisfied = enough(
                dependence.effect.qualifier,
                reached.len(),
                effect_processes.len(),
            );
            any |= satisfied;
            instances.push(Instance {
                cause,
                effects: reached,
                satisfied,
            });
        }
        satisfied_processes += usize::from(any);
    }
    let held = instances.iter().filter(|i| i.satisfied).count();
    let satisfied = unknown.is_empty()
        && match dependence.cause.qualifier {
            Qualifier::All => enough(Qualifier::All, held, instances.len()),
            Qualifier::Some => held >= 1,
            Qualifier::AtLeast(n) => satisfied_processes >= n as usize,
        };
    Evaluation {
        name: dependence.name.clone(),
        satisfied,
        instances,
        unknown_processes: unknown,
    }
}
