//! occam's layout and syntax: lines, indentation (two spaces a level), tokens, and the tree of
//! processes, declarations and expressions. Every error says its line and column.

use super::error::OccamError;
pub use super::error::Pos;

/// A token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Name(String),
    Num(i64),
    Sym(&'static str),
}

/// One source line: its indentation (in spaces) and its tokens with their columns.
#[derive(Debug, Clone)]
struct Line {
    number: usize,
    indent: usize,
    tokens: Vec<(Tok, usize)>,
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(i64),
    Var(String, Pos),
    Bin(&'static str, Box<Expr>, Box<Expr>, Pos),
    /// An array element, `a[i]`.
    Index(String, Box<Expr>, Pos),
    Not(Box<Expr>),
    Neg(Box<Expr>),
}

/// A declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Int,
    Bool,
    Chan,
    Timer,
}

/// What an assignment or an input writes: a variable or an array element.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Var(String),
    Elem(String, Expr),
}

impl Target {
    /// The variable or array written.
    pub fn name(&self) -> &str {
        match self {
            Target::Var(n) | Target::Elem(n, _) => n,
        }
    }
}

/// What an alternative waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum Guard {
    /// `c ? x`.
    Input(String, Target),
    /// `timer ? AFTER e`.
    After(String, Expr),
    /// `SKIP`: always ready.
    Skip,
}

/// One alternative of an ALT.
#[derive(Debug, Clone, PartialEq)]
pub struct Alternative {
    /// `b &`: the alternative counts only while b holds.
    pub condition: Option<Expr>,
    pub guard: Guard,
    pub body: Proc,
    pub pos: Pos,
}

/// A formal parameter of a PROC.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    /// `VAL`: passed by value.
    pub by_value: bool,
}

/// A process.
#[derive(Debug, Clone, PartialEq)]
pub enum Proc {
    Skip,
    Stop,
    Assign(Target, Expr, Pos),
    Output(String, Expr, Pos),
    Input(String, Target, Pos),
    /// `c[i] ! e`: output on an element of a channel array.
    OutputAt(String, Expr, Expr, Pos),
    /// `c[i] ? x`: input from an element of a channel array.
    InputAt(String, Expr, Target, Pos),
    /// `timer ? AFTER e`: wait until the timer passes `e`.
    After(String, Expr, Pos),
    /// ALT: alternatives, each an optional boolean guard, its input (or timeout or SKIP) and
    /// its process.
    Alt(Vec<Alternative>, Pos),
    /// `[n]TYPE names:` (n a constant), then the process in their scope.
    Array(Type, Expr, Vec<(String, Pos)>, Box<Proc>),
    Seq(Vec<Proc>),
    Par(Vec<Proc>, Pos),
    If(Vec<(Expr, Proc)>),
    While(Expr, Box<Proc>),
    RepSeq(String, Expr, Expr, Box<Proc>),
    /// Variables or channels of a type, then the process in their scope.
    Decl(Type, Vec<(String, Pos)>, Box<Proc>),
    /// `VAL INT name IS expr:`, then the process in its scope.
    Val(String, Expr, Box<Proc>, Pos),
    Call(String, Vec<Expr>, Pos),
    /// A PROC's name, parameters and body, then the process in its scope.
    Define(String, Vec<Param>, Box<Proc>, Box<Proc>, Pos),
}

const SYMBOLS: [&str; 21] = [
    ":=", "<>", "<=", ">=", "!", "?", "(", ")", ",", ":", "=", "<", ">", "+", "-", "*", "/", "\\",
    "[", "]", "&",
];

fn tokenize(source: &str) -> Result<Vec<Line>, OccamError> {
    let mut lines = Vec::new();
    for (k, text) in source.lines().enumerate() {
        let number = k + 1;
        let code = text.split("--").next().unwrap_or("");
        if code.trim().is_empty() {
            continue;
        }
        if code.contains('\t') {
            return Err(OccamError::at(number, 1, "indent with spaces, not tabs"));
        }
        let indent = code.len() - code.trim_start().len();
        let chars: Vec<char> = code.chars().collect();
        let mut tokens = Vec::new();
        let mut i = indent;
        while i < chars.len() {
            let c = chars[i];
            let column = i + 1;
            if c == ' ' {
                i += 1;
            } else if c.is_ascii_alphabetic() {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                    i += 1;
                }
                tokens.push((Tok::Name(chars[start..i].iter().collect()), column));
            } else if c.is_ascii_digit() || c == '#' {
                let start = i;
                i += 1;
                while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                let text: String = chars[start..i].iter().collect();
                let value = match text.strip_prefix('#') {
                    Some(hex) => i64::from_str_radix(hex, 16).ok(),
                    None => text.parse::<i64>().ok(),
                }
                .filter(|v| *v <= i64::from(u32::MAX))
                .ok_or_else(|| {
                    OccamError::at(number, column, format!("\"{text}\" is not a number"))
                })?;
                tokens.push((Tok::Num(value), column));
            } else {
                let rest: String = chars[i..].iter().take(2).collect();
                let sym = SYMBOLS
                    .iter()
                    .find(|s| rest.starts_with(**s))
                    .ok_or_else(|| OccamError::at(number, column, format!("unexpected '{c}'")))?;
                i += sym.len();
                tokens.push((Tok::Sym(sym), column));
            }
        }
        lines.push(Line {
            number,
            indent,
            tokens,
        });
    }
    Ok(lines)
}

/// Parses a whole program: one process at indentation 0.
pub fn parse(source: &str) -> Result<Proc, OccamError> {
    let lines = tokenize(source)?;
    let mut p = Parser { lines, at: 0 };
    if p.lines.is_empty() {
        return Err(OccamError::at(1, 1, "expected a process"));
    }
    let proc = p.process(0)?;
    if let Some(line) = p.lines.get(p.at) {
        return Err(OccamError::at(
            line.number,
            line.indent + 1,
            "expected the end of the program (is this line indented right?)",
        ));
    }
    Ok(proc)
}

struct Parser {
    lines: Vec<Line>,
    at: usize,
}

/// The tokens of one line being read.
struct Cursor<'a> {
    line: &'a Line,
    k: usize,
}

impl Cursor<'_> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line.number,
            column: self
                .line
                .tokens
                .get(self.k)
                .map_or(self.line.indent + 1, |t| t.1),
        }
    }

    fn err(&self, message: impl Into<String>) -> OccamError {
        let p = self.pos();
        OccamError::at(p.line, p.column, message)
    }

    fn peek(&self) -> Option<&Tok> {
        self.line.tokens.get(self.k).map(|t| &t.0)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.line.tokens.get(self.k).map(|t| t.0.clone());
        self.k += 1;
        t
    }

    fn is(&self, sym: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym)
    }

    fn expect(&mut self, sym: &str) -> Result<(), OccamError> {
        if self.is(sym) {
            self.k += 1;
            Ok(())
        } else {
            Err(self.err(format!("expected \"{sym}\"")))
        }
    }

    fn name(&mut self) -> Result<(String, Pos), OccamError> {
        let pos = self.pos();
        match self.next() {
            Some(Tok::Name(n)) if !is_keyword(&n) => Ok((n, pos)),
            _ => Err(OccamError::at(pos.line, pos.column, "expected a name")),
        }
    }

    /// `[e]` after a name, if there is one.
    fn index(&mut self) -> Result<Option<Expr>, OccamError> {
        if !self.is("[") {
            return Ok(None);
        }
        self.k += 1;
        let index = self.expression()?;
        self.expect("]")?;
        Ok(Some(index))
    }

    /// What an assignment or input writes: a name, or an array element.
    fn target(&mut self) -> Result<Target, OccamError> {
        let (name, _) = self.name()?;
        Ok(match self.index()? {
            Some(i) => Target::Elem(name, i),
            None => Target::Var(name),
        })
    }

    fn done(&self) -> Result<(), OccamError> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.err("unexpected text at the end of the line")),
        }
    }

    fn keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(n)) if n == word)
    }

    /// An operand: a number, a name, TRUE, FALSE, NOT or a minus sign and an operand, or a
    /// bracketed expression.
    fn operand(&mut self) -> Result<Expr, OccamError> {
        let pos = self.pos();
        match self.next() {
            Some(Tok::Num(n)) => Ok(Expr::Num(n)),
            Some(Tok::Name(n)) if n == "TRUE" => Ok(Expr::Num(1)),
            Some(Tok::Name(n)) if n == "FALSE" => Ok(Expr::Num(0)),
            Some(Tok::Name(n)) if n == "NOT" => Ok(Expr::Not(Box::new(self.operand()?))),
            Some(Tok::Sym("-")) => Ok(Expr::Neg(Box::new(self.operand()?))),
            Some(Tok::Name(n)) if !is_keyword(&n) => Ok(match self.index()? {
                Some(index) => Expr::Index(n, Box::new(index), pos),
                None => Expr::Var(n, pos),
            }),
            Some(Tok::Sym("(")) => {
                let e = self.expression()?;
                self.expect(")")?;
                Ok(e)
            }
            _ => Err(OccamError::at(pos.line, pos.column, "expected an operand")),
        }
    }

    /// An expression: operands joined by one operator (occam has no precedence: mixing
    /// operators needs brackets).
    fn expression(&mut self) -> Result<Expr, OccamError> {
        let mut left = self.operand()?;
        let mut first: Option<&'static str> = None;
        loop {
            let pos = self.pos();
            let op = match self.peek() {
                Some(Tok::Sym(s))
                    if ["=", "<>", "<", ">", "<=", ">=", "+", "-", "*", "/", "\\"].contains(s) =>
                {
                    *s
                }
                Some(Tok::Name(n)) if n == "AND" || n == "OR" => {
                    if n == "AND" {
                        "AND"
                    } else {
                        "OR"
                    }
                }
                _ => return Ok(left),
            };
            match first {
                Some(f) if f != op || !["+", "*", "AND", "OR"].contains(&op) => {
                    return Err(OccamError::at(
                        pos.line,
                        pos.column,
                        "occam has no operator precedence: bracket the expression",
                    ));
                }
                _ => first = Some(op),
            }
            self.k += 1;
            let right = self.operand()?;
            left = Expr::Bin(op, Box::new(left), Box::new(right), pos);
        }
    }
}

fn is_keyword(word: &str) -> bool {
    [
        "SEQ", "PAR", "IF", "WHILE", "SKIP", "STOP", "INT", "BOOL", "CHAN", "OF", "VAL", "IS",
        "PROC", "FOR", "TRUE", "FALSE", "NOT", "AND", "OR", "TIMER", "AFTER", "ALT",
    ]
    .contains(&word)
}

impl Parser {
    fn line(&self) -> Option<&Line> {
        self.lines.get(self.at)
    }

    /// The next choice line of an IF or ALT at `indent` (consumed), until the indentation
    /// drops.
    fn choice(&mut self, indent: usize) -> Result<Option<Line>, OccamError> {
        let Some(line) = self.line().cloned() else {
            return Ok(None);
        };
        if line.indent < indent {
            return Ok(None);
        }
        if line.indent > indent {
            return Err(OccamError::at(
                line.number,
                line.indent + 1,
                "indented too far",
            ));
        }
        self.at += 1;
        Ok(Some(line))
    }

    /// The processes indented exactly `indent` under a construct, until the indentation
    /// drops.
    fn block(&mut self, indent: usize, what: &str, after: Pos) -> Result<Vec<Proc>, OccamError> {
        let mut out = Vec::new();
        while let Some(line) = self.line() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent {
                return Err(OccamError::at(
                    line.number,
                    line.indent + 1,
                    "indented too far",
                ));
            }
            out.push(self.process(indent)?);
        }
        if out.is_empty() {
            return Err(OccamError::at(
                after.line,
                after.column,
                format!("{what} needs processes indented under it"),
            ));
        }
        Ok(out)
    }

    /// One process at `indent` (with the declarations before it).
    fn process(&mut self, indent: usize) -> Result<Proc, OccamError> {
        let line = self
            .line()
            .cloned()
            .ok_or_else(|| OccamError::at(1, 1, "expected a process"))?;
        if line.indent != indent {
            return Err(OccamError::at(
                line.number,
                line.indent + 1,
                format!("expected a process indented {indent} spaces"),
            ));
        }
        self.at += 1;
        let mut c = Cursor { line: &line, k: 0 };
        let start = c.pos();
        if c.is("[") {
            // `[n]INT a, b:`
            c.k += 1;
            let size = c.expression()?;
            c.expect("]")?;
            let ty = if c.keyword("INT") {
                Type::Int
            } else if c.keyword("BOOL") {
                Type::Bool
            } else if c.keyword("CHAN") {
                c.k += 1;
                if !c.keyword("OF") {
                    return Err(c.err("expected OF (CHAN OF INT)"));
                }
                c.k += 1;
                if !(c.keyword("INT") || c.keyword("BOOL")) {
                    return Err(c.err("expected a protocol: INT or BOOL"));
                }
                Type::Chan
            } else {
                return Err(c.err("expected INT, BOOL or CHAN OF INT"));
            };
            c.k += 1;
            let mut names = vec![c.name()?];
            while c.is(",") {
                c.k += 1;
                names.push(c.name()?);
            }
            c.expect(":")?;
            c.done()?;
            let scope = self.process(indent)?;
            return Ok(Proc::Array(ty, size, names, Box::new(scope)));
        }
        let word = match c.peek() {
            Some(Tok::Name(n)) => n.clone(),
            _ => return Err(c.err("expected a process or a declaration")),
        };
        match word.as_str() {
            "SKIP" | "STOP" => {
                c.k += 1;
                c.done()?;
                Ok(if word == "SKIP" {
                    Proc::Skip
                } else {
                    Proc::Stop
                })
            }
            "SEQ" | "PAR" => {
                c.k += 1;
                if c.peek().is_some() {
                    let (name, name_pos) = c.name()?;
                    c.expect("=")?;
                    let base = c.expression()?;
                    if !c.keyword("FOR") {
                        return Err(c.err("expected FOR"));
                    }
                    c.k += 1;
                    let count_pos = c.pos();
                    let count = c.expression()?;
                    c.done()?;
                    let body = Proc::Seq(self.block(indent + 2, "a replicated process", start)?);
                    if word == "SEQ" {
                        return Ok(Proc::RepSeq(name, base, count, Box::new(body)));
                    }
                    // A replicated PAR: its count is a constant, so it is that many branches,
                    // each with its own index (`VAL INT i IS base + k:`).
                    let n = match count {
                        Expr::Num(n) if (1..=256).contains(&n) => n,
                        _ => {
                            return Err(OccamError::at(
                                count_pos.line,
                                count_pos.column,
                                "a replicated PAR's count must be a number from 1 to 256",
                            ));
                        }
                    };
                    let branches = (0..n)
                        .map(|k| {
                            let index = Expr::Bin(
                                "+",
                                Box::new(base.clone()),
                                Box::new(Expr::Num(k)),
                                name_pos,
                            );
                            Proc::Val(name.clone(), index, Box::new(body.clone()), name_pos)
                        })
                        .collect();
                    return Ok(Proc::Par(branches, start));
                }
                let body = self.block(indent + 2, &word, start)?;
                Ok(if word == "SEQ" {
                    Proc::Seq(body)
                } else {
                    Proc::Par(body, start)
                })
            }
            "WHILE" => {
                c.k += 1;
                let cond = c.expression()?;
                c.done()?;
                let body = self.block(indent + 2, "WHILE", start)?;
                Ok(Proc::While(cond, Box::new(Proc::Seq(body))))
            }
            "ALT" => {
                c.k += 1;
                c.done()?;
                let mut alternatives = Vec::new();
                while let Some(guard) = self.choice(indent + 2)? {
                    let mut g = Cursor { line: &guard, k: 0 };
                    let pos = g.pos();
                    let has_condition = guard.tokens.iter().any(|t| t.0 == Tok::Sym("&"));
                    let condition = if has_condition {
                        let e = g.expression()?;
                        g.expect("&")?;
                        Some(e)
                    } else {
                        None
                    };
                    let what = if g.keyword("SKIP") {
                        g.k += 1;
                        Guard::Skip
                    } else {
                        let (chan, _) = g.name()?;
                        g.expect("?")?;
                        if g.keyword("AFTER") {
                            g.k += 1;
                            Guard::After(chan, g.expression()?)
                        } else {
                            let (target, _) = g.name()?;
                            Guard::Input(chan, Target::Var(target))
                        }
                    };
                    g.done()?;
                    let body = self.block(indent + 4, "an ALT alternative", pos)?;
                    alternatives.push(Alternative {
                        condition,
                        guard: what,
                        body: Proc::Seq(body),
                        pos,
                    });
                }
                if alternatives.is_empty() {
                    return Err(c.err("ALT needs alternatives indented under it"));
                }
                Ok(Proc::Alt(alternatives, start))
            }
            "IF" => {
                c.k += 1;
                c.done()?;
                let mut choices = Vec::new();
                while let Some(guard) = self.choice(indent + 2)? {
                    let mut g = Cursor { line: &guard, k: 0 };
                    let cond = g.expression()?;
                    g.done()?;
                    let body = self.block(indent + 4, "an IF choice", g.pos())?;
                    choices.push((cond, Proc::Seq(body)));
                }
                if choices.is_empty() {
                    return Err(c.err("IF needs choices indented under it"));
                }
                Ok(Proc::If(choices))
            }
            "INT" | "BOOL" | "CHAN" | "TIMER" => {
                c.k += 1;
                let ty = match word.as_str() {
                    "INT" => Type::Int,
                    "BOOL" => Type::Bool,
                    "TIMER" => Type::Timer,
                    _ => {
                        if !c.keyword("OF") {
                            return Err(c.err("expected OF (CHAN OF INT)"));
                        }
                        c.k += 1;
                        if !(c.keyword("INT") || c.keyword("BOOL")) {
                            return Err(c.err("expected a protocol: INT or BOOL"));
                        }
                        c.k += 1;
                        Type::Chan
                    }
                };
                let mut names = vec![c.name()?];
                while c.is(",") {
                    c.k += 1;
                    names.push(c.name()?);
                }
                c.expect(":")?;
                c.done()?;
                let scope = self.process(indent)?;
                Ok(Proc::Decl(ty, names, Box::new(scope)))
            }
            "VAL" => {
                c.k += 1;
                if !(c.keyword("INT") || c.keyword("BOOL")) {
                    return Err(c.err("expected INT or BOOL"));
                }
                c.k += 1;
                let (name, pos) = c.name()?;
                if !c.keyword("IS") {
                    return Err(c.err("expected IS"));
                }
                c.k += 1;
                let value = c.expression()?;
                c.expect(":")?;
                c.done()?;
                let scope = self.process(indent)?;
                Ok(Proc::Val(name, value, Box::new(scope), pos))
            }
            "PROC" => {
                c.k += 1;
                let (name, pos) = c.name()?;
                c.expect("(")?;
                let mut params = Vec::new();
                while !c.is(")") {
                    if !params.is_empty() {
                        c.expect(",")?;
                    }
                    let by_value = c.keyword("VAL");
                    if by_value {
                        c.k += 1;
                    }
                    let ty = if c.keyword("INT") {
                        c.k += 1;
                        Type::Int
                    } else if c.keyword("BOOL") {
                        c.k += 1;
                        Type::Bool
                    } else if c.keyword("CHAN") {
                        c.k += 1;
                        if !c.keyword("OF") {
                            return Err(c.err("expected OF"));
                        }
                        c.k += 2;
                        Type::Chan
                    } else {
                        return Err(c.err("expected a parameter: VAL INT, INT or CHAN OF INT"));
                    };
                    let (pname, _) = c.name()?;
                    params.push(Param {
                        name: pname,
                        ty,
                        by_value,
                    });
                }
                c.expect(")")?;
                c.done()?;
                let body = self.block(indent + 2, "PROC", start)?;
                let end = self.line().cloned().ok_or_else(|| {
                    OccamError::at(line.number, 1, "expected \":\" ending the PROC")
                })?;
                if end.indent != indent || end.tokens.first().map(|t| &t.0) != Some(&Tok::Sym(":"))
                {
                    return Err(OccamError::at(
                        end.number,
                        end.indent + 1,
                        "expected \":\" ending the PROC",
                    ));
                }
                self.at += 1;
                let scope = self.process(indent)?;
                Ok(Proc::Define(
                    name,
                    params,
                    Box::new(Proc::Seq(body)),
                    Box::new(scope),
                    pos,
                ))
            }
            _ => {
                let (name, pos) = c.name()?;
                let element = c.index()?;
                let result = if c.is(":=") {
                    c.k += 1;
                    let target = match element {
                        Some(i) => Target::Elem(name, i),
                        None => Target::Var(name),
                    };
                    Proc::Assign(target, c.expression()?, pos)
                } else if let Some(index) = element {
                    // An element of a channel array.
                    if c.is("!") {
                        c.k += 1;
                        Proc::OutputAt(name, index, c.expression()?, pos)
                    } else if c.is("?") {
                        c.k += 1;
                        Proc::InputAt(name, index, c.target()?, pos)
                    } else {
                        return Err(c.err("expected :=, ! or ? after an array element"));
                    }
                } else if c.is("!") {
                    c.k += 1;
                    Proc::Output(name, c.expression()?, pos)
                } else if c.is("?") {
                    c.k += 1;
                    if c.keyword("AFTER") {
                        c.k += 1;
                        Proc::After(name, c.expression()?, pos)
                    } else {
                        Proc::Input(name, c.target()?, pos)
                    }
                } else if c.is("(") {
                    c.k += 1;
                    let mut args = Vec::new();
                    while !c.is(")") {
                        if !args.is_empty() {
                            c.expect(",")?;
                        }
                        args.push(c.expression()?);
                    }
                    c.k += 1;
                    Proc::Call(name, args, pos)
                } else {
                    return Err(c.err("expected :=, !, ? or a PROC call"));
                };
                c.done()?;
                Ok(result)
            }
        }
    }
}
