//! occam's layout and syntax: lines, indentation (two spaces a level), tokens, and the tree of
//! processes, declarations and expressions. Every error says its line and column.

use std::collections::HashMap;

use super::error::OccamError;
pub use super::error::Pos;

/// A token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Name(String),
    Num(i64),
    Sym(&'static str),
    /// A string in double quotes (its escapes `*n`, `*c`, `*t`, `*"`, `**` read).
    Str(String),
    /// A real literal (`1.5`, `2.0E-3`), its text kept so it converts exactly to either width.
    Real(String),
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
    /// `~ e`: every bit inverted.
    BitNot(Box<Expr>),
    Neg(Box<Expr>),
    /// A string: only as a probe's text.
    Str(String, Pos),
    /// `SIZE a`: an array's length.
    Size(String, Pos),
    /// A FUNCTION's value: `f (a, b)`.
    Call(String, Vec<Expr>, Pos),
    /// A real literal: its text and its type (`1.5(REAL32)`), or none to take its type from
    /// the other operand or the target.
    Real(String, Option<Type>, Pos),
    /// A table: `[1, 2, 3]` (constants, here).
    Table(Vec<Expr>, Pos),
    /// A slice of an array: `[a FROM i FOR n]`.
    Slice(String, Box<Expr>, Box<Expr>, Pos),
    /// A conversion: `REAL32 ROUND e`, `INT TRUNC e`, `REAL64 e`.
    Convert(Type, Rounding, Box<Expr>, Pos),
}

/// How a conversion rounds: to nearest (ROUND, and when no mode is named), or towards zero
/// (TRUNC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    Round,
    Trunc,
}

/// The most items a sequential protocol has here.
pub const MAX_ITEMS: usize = 8;

/// What one item of a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A word: INT, BOOL or REAL32.
    Word,
    /// Two words: REAL64.
    Double,
    /// A byte: BYTE.
    Byte,
    /// Two bytes: INT16.
    Half,
    /// A whole array of words, `[n]INT`.
    Array,
    /// A count and that many words of an array, `INT::[]INT`.
    Counted,
}

/// A channel's protocol: its items in order (`INT`, `[8]INT`, `INT::[]INT`, `INT; [4]INT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Protocol {
    pub items: [Shape; MAX_ITEMS],
    pub len: u8,
    /// A variant protocol (`PROTOCOL P CASE …`): its number among the program's.
    pub variant: Option<u16>,
}

/// A variant protocol: its name and its tags, each with the items that follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    pub name: String,
    pub tags: Vec<(String, Protocol)>,
}

impl Protocol {
    /// One word: `CHAN OF INT`.
    pub const WORD: Protocol = Protocol {
        items: [Shape::Word; MAX_ITEMS],
        len: 1,
        variant: None,
    };

    /// The items.
    pub fn shapes(&self) -> &[Shape] {
        &self.items[..usize::from(self.len)]
    }
}

/// A declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Int,
    Bool,
    /// A byte, 0 to 255 (a word's low byte as a variable; a byte of an array).
    Byte,
    /// A 16-bit integer (a word as a variable, two bytes of an array).
    Int16,
    /// A 64-bit integer: two words, the low one first.
    Int64,
    Real32,
    Real64,
    Chan(Protocol),
    Timer,
}

impl Type {
    /// Whether this is a channel.
    pub fn is_chan(&self) -> bool {
        matches!(self, Type::Chan(_))
    }

    /// Whether this is REAL32 or REAL64.
    pub fn is_real(&self) -> bool {
        matches!(self, Type::Real32 | Type::Real64)
    }

    /// Words a value of this type takes.
    pub fn words(&self) -> i64 {
        if matches!(self, Type::Real64 | Type::Int64) {
            2
        } else {
            1
        }
    }

    /// The type a data type keyword names (`INT`, `BOOL`, `REAL32`, `REAL64`, `INT32`).
    pub fn named(word: &str) -> Option<Type> {
        match word {
            "INT" | "INT32" => Some(Type::Int),
            "BOOL" => Some(Type::Bool),
            "BYTE" => Some(Type::Byte),
            "INT16" => Some(Type::Int16),
            "INT64" => Some(Type::Int64),
            "REAL32" => Some(Type::Real32),
            "REAL64" => Some(Type::Real64),
            _ => None,
        }
    }
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

/// A channel, or an element of a channel array.
#[derive(Debug, Clone, PartialEq)]
pub struct ChanRef {
    pub name: String,
    pub index: Option<Expr>,
}

/// One item of a message: a value (or a target, for input), or a count and an array
/// (`n::a`).
#[derive(Debug, Clone, PartialEq)]
pub enum Item<T> {
    One(T),
    Counted(T, String),
}

/// What an alternative waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum Guard {
    /// `c ? x`.
    Input(ChanRef, Vec<Item<Target>>),
    /// `c ? CASE`: a tag of a variant protocol (the alternative's process reads it).
    Case(ChanRef),
    /// `timer ? AFTER e`.
    After(String, Expr),
    /// `SKIP`: always ready.
    Skip,
}

/// One alternative of an ALT.
#[derive(Debug, Clone, PartialEq)]
pub struct Alternative {
    /// A replicated alternative (`ALT i = 0 FOR n`) stands for one per index, in order.
    pub rep: Option<Replicator>,
    /// `b &`: the alternative counts only while b holds.
    pub condition: Option<Expr>,
    pub guard: Guard,
    pub body: Proc,
    pub pos: Pos,
}

/// One choice of an IF: a condition and its process; a replicated choice (`IF i = 0 FOR n`)
/// stands for a choice per index, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub rep: Option<Replicator>,
    pub cond: Expr,
    pub body: Proc,
}

/// One tag's branch of a `c ? CASE`: the tag, what it receives, its process.
#[derive(Debug, Clone, PartialEq)]
pub struct Variation {
    pub tag: String,
    pub items: Vec<Item<Target>>,
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
    /// An array: `[n]TYPE` (its size) or `[]TYPE` (none: its length passed with it).
    pub array: Option<Option<Expr>>,
}

/// A replicator: `name = base FOR count`.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicator {
    pub name: String,
    pub base: Expr,
    pub count: Expr,
    pub pos: Pos,
}

/// One `PROCESSOR n` of a PLACED PAR (replicated or not) and the process it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub replicator: Option<Replicator>,
    pub processor: Expr,
    pub body: Proc,
    pub pos: Pos,
}

/// A process.
#[derive(Debug, Clone, PartialEq)]
pub enum Proc {
    Skip,
    Stop,
    Assign(Target, Expr, Pos),
    /// `c ! e1; e2` (items of the channel's protocol).
    Output(ChanRef, Vec<Item<Expr>>, Pos),
    /// `c ? x; y`, or `timer ? x`.
    Input(ChanRef, Vec<Item<Target>>, Pos),
    /// `timer ? AFTER e`: wait until the timer passes `e`.
    After(String, Expr, Pos),
    /// ALT: alternatives, each an optional boolean guard, its input (or timeout or SKIP) and
    /// its process.
    Alt(Vec<Alternative>, Pos),
    /// `[n]TYPE names:` (n a constant), then the process in their scope.
    Array(Type, Expr, Vec<(String, Pos)>, Box<Proc>),
    Seq(Vec<Proc>),
    Par(Vec<Proc>, Pos),
    /// PRI PAR: the first branch at high priority, the others at the parent's.
    PriPar(Vec<Proc>, Pos),
    /// `PAR i = base FOR count` (count a constant): a branch per index.
    RepPar(Replicator, Box<Proc>),
    If(Vec<Choice>),
    /// `CASE e`: choices of constant values (an empty list is ELSE).
    Case(Expr, Vec<(Vec<Expr>, Proc)>, Pos),
    While(Expr, Box<Proc>),
    RepSeq(String, Expr, Expr, Box<Proc>),
    /// Variables or channels of a type, then the process in their scope.
    Decl(Type, Vec<(String, Pos)>, Box<Proc>),
    /// `VAL INT name IS expr:`, then the process in its scope.
    Val(String, Expr, Box<Proc>, Pos),
    Call(String, Vec<Expr>, Pos),
    /// A PROC's name, parameters and body, then the process in its scope.
    Define(String, Vec<Param>, Box<Proc>, Box<Proc>, Pos),
    /// `a, b := e1, e2` (or `a, b := f (x)`, a FUNCTION's results).
    MultiAssign(Vec<Target>, Vec<Expr>, Pos),
    /// `VALOF` a process `RESULT` an expression: a FUNCTION's body.
    Valof(Box<Proc>, Expr, Pos),
    /// An abbreviation, `x IS a[i]:` or `[]INT s IS [a FROM i FOR n]:`: a new name for a
    /// variable, an element or a slice, then the process in its scope.
    Abbrev(String, Expr, Box<Proc>, Pos),
    /// `c ? CASE`: a tag of a variant protocol, then the items and the process of that tag.
    CaseInput(ChanRef, Vec<Variation>, Pos),
    /// `PLACE c AT n:`: channel c on a link (INMOS's numbering: 0 to 3 the links' outputs, 4
    /// to 7 their inputs), then the process in its scope.
    Place(String, Expr, Box<Proc>, Pos),
    /// A PLACED PAR: processes placed on the network's processors.
    Placed(Vec<Placement>, Pos),
}

const SYMBOLS: [&str; 29] = [
    ":=", "::", "<<", ">>", "><", "/\\", "\\/", "<>", "<=", ">=", "!", "?", "(", ")", ",", ":",
    "=", "<", ">", "+", "-", "*", "/", "\\", "[", "]", "&", ";", "~",
];

/// The binary operators, as symbols and as words.
const OPERATORS: [&str; 22] = [
    "=", "<>", "<", ">", "<=", ">=", "+", "-", "*", "/", "\\", "<<", ">>", "><", "/\\", "\\/",
    "AND", "OR", "PLUS", "MINUS", "TIMES", "REM",
];

/// The operators a chain may repeat without brackets (`a + b + c`).
const ASSOCIATIVE: [&str; 9] = ["+", "*", "AND", "OR", "/\\", "\\/", "><", "PLUS", "TIMES"];

fn tokenize(source: &str) -> Result<Vec<Line>, OccamError> {
    let mut lines = Vec::new();
    for (k, text) in source.lines().enumerate() {
        let number = k + 1;
        let code = &text[..comment_start(text)];
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
            } else if c == '"' || c == '\'' {
                let (text, end) = quoted(&chars, i).ok_or_else(|| {
                    OccamError::at(number, column, format!("a {c} without its closing {c}"))
                })?;
                i = end;
                if c == '"' {
                    tokens.push((Tok::Str(text), column));
                } else {
                    let mut bytes = text.bytes();
                    match (bytes.next(), bytes.next()) {
                        (Some(b), None) => tokens.push((Tok::Num(i64::from(b)), column)),
                        _ => {
                            return Err(OccamError::at(
                                number,
                                column,
                                "a character in single quotes is one byte",
                            ));
                        }
                    }
                }
            } else if c.is_ascii_digit()
                && let Some(end) = real_end(&chars, i)
            {
                tokens.push((Tok::Real(chars[i..end].iter().collect()), column));
                i = end;
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

/// The end of a real literal starting at `chars[start]` (digits, `.`, digits, an optional
/// exponent `E+dd`), or None when the number there is an integer.
fn real_end(chars: &[char], start: usize) -> Option<usize> {
    let digits = |mut k: usize| {
        while k < chars.len() && chars[k].is_ascii_digit() {
            k += 1;
        }
        k
    };
    let k = digits(start);
    if chars.get(k) != Some(&'.') || !chars.get(k + 1).is_some_and(char::is_ascii_digit) {
        return None;
    }
    let mut end = digits(k + 1);
    if matches!(chars.get(end), Some('E' | 'e'))
        && matches!(chars.get(end + 1), Some('+' | '-'))
        && chars.get(end + 2).is_some_and(char::is_ascii_digit)
    {
        end = digits(end + 2);
    }
    Some(end)
}

/// Where a line's comment (`--` outside quotes) starts, or its length.
fn comment_start(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut quote = None;
    let mut k = 0;
    while k < bytes.len() {
        let b = bytes[k];
        match quote {
            Some(_) if b == b'*' => k += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'-' && bytes.get(k + 1) == Some(&b'-') => return k,
            None => {}
        }
        k += 1;
    }
    text.len()
}

/// The text of a quoted string or character starting at `chars[start]` (occam's escapes:
/// `*n`, `*c`, `*t`, `*s`, `**`, `*"`, `*'`) and the index after its closing quote.
fn quoted(chars: &[char], start: usize) -> Option<(String, usize)> {
    let quote = chars[start];
    let mut out = String::new();
    let mut k = start + 1;
    loop {
        match *chars.get(k)? {
            c if c == quote => return Some((out, k + 1)),
            '*' => {
                out.push(match *chars.get(k + 1)? {
                    'n' | 'N' => '\n',
                    'c' | 'C' => '\r',
                    't' | 'T' => '\t',
                    's' | 'S' => ' ',
                    other => other,
                });
                k += 2;
            }
            c => {
                out.push(c);
                k += 1;
            }
        }
    }
}

/// Parses a whole program: one process at indentation 0.
pub fn parse(source: &str) -> Result<Proc, OccamError> {
    parse_program(source).map(|(p, _)| p)
}

/// Parses a whole program: its process and its variant protocols.
pub fn parse_program(source: &str) -> Result<(Proc, Vec<Variant>), OccamError> {
    let lines = tokenize(source)?;
    let mut p = Parser {
        lines,
        at: 0,
        protocols: HashMap::new(),
        variants: Vec::new(),
    };
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
    Ok((proc, p.variants))
}

struct Parser {
    lines: Vec<Line>,
    at: usize,
    /// Named protocols (`PROTOCOL P IS INT; [4]INT:`).
    protocols: HashMap<String, Protocol>,
    /// Variant protocols, by number.
    variants: Vec<Variant>,
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
        let pos = self.pos();
        let mut indices = Vec::new();
        while self.is("[") {
            self.k += 1;
            indices.push(self.expression()?);
            self.expect("]")?;
        }
        // `a[i][j]`: the subscripts as a list.
        Ok(Some(one_or_list(indices, pos)))
    }

    /// What an assignment or input writes: a name, or an array element.
    fn target(&mut self) -> Result<Target, OccamError> {
        let (name, _) = self.name()?;
        Ok(match self.index()? {
            Some(i) => Target::Elem(name, i),
            None => Target::Var(name),
        })
    }

    /// A data type's name (`INT`, `REAL32`, …) if one is next (read).
    fn data_type(&mut self) -> Option<Type> {
        let ty = match self.peek() {
            Some(Tok::Name(n)) => Type::named(n),
            _ => None,
        };
        if ty.is_some() {
            self.k += 1;
        }
        ty
    }

    /// Expressions separated by commas: one, or several as a list (a RESULT's values).
    fn expression_list(&mut self, pos: Pos) -> Result<Expr, OccamError> {
        let mut values = vec![self.expression()?];
        while self.is(",") {
            self.k += 1;
            values.push(self.expression()?);
        }
        Ok(one_or_list(values, pos))
    }

    /// A channel or a channel array's element: `c`, `c[i]`.
    fn chan_ref(&mut self) -> Result<(ChanRef, Pos), OccamError> {
        let (name, pos) = self.name()?;
        let index = self.index()?;
        Ok((ChanRef { name, index }, pos))
    }

    /// A protocol after `CHAN OF`: items separated by `;` (`INT`, `BOOL`, `[n]INT`,
    /// `INT::[]INT`).
    fn protocol(&mut self) -> Result<Protocol, OccamError> {
        let mut p = Protocol {
            items: [Shape::Word; MAX_ITEMS],
            len: 0,
            variant: None,
        };
        loop {
            if usize::from(p.len) == MAX_ITEMS {
                return Err(self.err(format!("a protocol has at most {MAX_ITEMS} items here")));
            }
            let shape = if self.keyword("BYTE") {
                self.k += 1;
                Shape::Byte
            } else if self.keyword("INT16") {
                self.k += 1;
                Shape::Half
            } else if self.keyword("INT64") {
                self.k += 1;
                Shape::Double
            } else if self.keyword("REAL32") {
                self.k += 1;
                Shape::Word
            } else if self.keyword("REAL64") {
                self.k += 1;
                Shape::Double
            } else if self.keyword("INT") || self.keyword("BOOL") {
                self.k += 1;
                if self.is("::") {
                    self.k += 1;
                    self.expect("[")?;
                    self.expect("]")?;
                    if self.keyword("BYTE") {
                        self.k += 1;
                    } else {
                        self.word_type("a counted array: INT::[]INT")?;
                    }
                    Shape::Counted
                } else {
                    Shape::Word
                }
            } else if self.is("[") {
                self.k += 1;
                self.expression()?;
                self.expect("]")?;
                if self.keyword("BYTE") {
                    self.k += 1;
                } else {
                    self.word_type("an array: [n]INT")?;
                }
                Shape::Array
            } else {
                return Err(self.err("expected a protocol: INT, BOOL, [n]INT or INT::[]INT"));
            };
            p.items[usize::from(p.len)] = shape;
            p.len += 1;
            if !self.is(";") {
                return Ok(p);
            }
            self.k += 1;
        }
    }

    /// INT or BOOL, as part of `what`.
    fn word_type(&mut self, what: &str) -> Result<(), OccamError> {
        if self.keyword("INT") || self.keyword("BOOL") {
            self.k += 1;
            Ok(())
        } else {
            Err(self.err(format!("expected INT ({what})")))
        }
    }

    /// `CHAN OF protocol`, from CHAN.
    fn chan_type(&mut self, named: &HashMap<String, Protocol>) -> Result<Type, OccamError> {
        self.k += 1;
        if !self.keyword("OF") {
            return Err(self.err("expected OF (CHAN OF INT)"));
        }
        self.k += 1;
        if let Some(Tok::Name(n)) = self.peek()
            && let Some(p) = named.get(n)
        {
            self.k += 1;
            return Ok(Type::Chan(*p));
        }
        Ok(Type::Chan(self.protocol()?))
    }

    /// What an output sends (`read` an expression) or an input receives into (`read` a
    /// target): items separated by `;`, each one or `count::array`.
    fn items<T>(
        &mut self,
        read: fn(&mut Self) -> Result<T, OccamError>,
    ) -> Result<Vec<Item<T>>, OccamError> {
        let mut items = Vec::new();
        loop {
            let first = read(self)?;
            if self.is("::") {
                self.k += 1;
                items.push(Item::Counted(first, self.name()?.0));
            } else {
                items.push(Item::One(first));
            }
            if !self.is(";") {
                return Ok(items);
            }
            self.k += 1;
        }
    }

    /// `name = base FOR count`.
    fn replicator(&mut self) -> Result<Replicator, OccamError> {
        let (name, pos) = self.name()?;
        self.expect("=")?;
        let base = self.expression()?;
        if !self.keyword("FOR") {
            return Err(self.err("expected FOR"));
        }
        self.k += 1;
        let count = self.expression()?;
        Ok(Replicator {
            name,
            base,
            count,
            pos,
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
            Some(Tok::Num(n)) => {
                // A decoration: `1(INT)`.
                if self.decoration().is_some_and(|t| t.is_real()) {
                    return Err(OccamError::at(
                        pos.line,
                        pos.column,
                        "a whole number is not a REAL: write 1.0(REAL32)",
                    ));
                }
                Ok(Expr::Num(n))
            }
            Some(Tok::Real(text)) => {
                let ty = self.decoration();
                if ty.is_some_and(|t| !t.is_real()) {
                    return Err(OccamError::at(
                        pos.line,
                        pos.column,
                        "a real literal is REAL32 or REAL64",
                    ));
                }
                Ok(Expr::Real(text, ty, pos))
            }
            Some(Tok::Name(n)) if Type::named(&n).is_some() => {
                // A conversion: `REAL32 ROUND e`, `INT TRUNC x`, `REAL64 i`.
                let ty = Type::named(&n).unwrap_or(Type::Int);
                let rounding = if self.keyword("TRUNC") {
                    self.k += 1;
                    Rounding::Trunc
                } else {
                    if self.keyword("ROUND") {
                        self.k += 1;
                    }
                    Rounding::Round
                };
                Ok(Expr::Convert(ty, rounding, Box::new(self.operand()?), pos))
            }
            Some(Tok::Name(n)) if n == "TRUE" => Ok(Expr::Num(1)),
            Some(Tok::Name(n)) if n == "FALSE" => Ok(Expr::Num(0)),
            Some(Tok::Name(n)) if n == "NOT" => Ok(Expr::Not(Box::new(self.operand()?))),
            Some(Tok::Sym("~")) => Ok(Expr::BitNot(Box::new(self.operand()?))),
            Some(Tok::Name(n)) if n == "BITNOT" => Ok(Expr::BitNot(Box::new(self.operand()?))),
            Some(Tok::Sym("-")) => Ok(Expr::Neg(Box::new(self.operand()?))),
            Some(Tok::Name(n)) if !is_keyword(&n) && self.is("(") => {
                self.k += 1;
                let mut args = Vec::new();
                while !self.is(")") {
                    if !args.is_empty() {
                        self.expect(",")?;
                    }
                    args.push(self.expression()?);
                }
                self.k += 1;
                Ok(Expr::Call(n, args, pos))
            }
            Some(Tok::Name(n)) if !is_keyword(&n) => Ok(match self.index()? {
                Some(index) => Expr::Index(n, Box::new(index), pos),
                None => Expr::Var(n, pos),
            }),
            Some(Tok::Str(text)) => Ok(Expr::Str(text, pos)),
            Some(Tok::Sym("["))
                if !matches!(
                    self.line.tokens.get(self.k + 1),
                    Some((Tok::Name(from), _)) if from == "FROM"
                ) =>
            {
                // A table: `[1, 2, 3]`.
                let mut items = vec![self.expression()?];
                while self.is(",") {
                    self.k += 1;
                    items.push(self.expression()?);
                }
                self.expect("]")?;
                Ok(Expr::Table(items, pos))
            }
            Some(Tok::Sym("[")) => {
                // `[a FROM i FOR n]`
                let (name, _) = self.name()?;
                if !self.keyword("FROM") {
                    return Err(self.err("expected FROM ([a FROM i FOR n])"));
                }
                self.k += 1;
                let from = self.expression()?;
                if !self.keyword("FOR") {
                    return Err(self.err("expected FOR ([a FROM i FOR n])"));
                }
                self.k += 1;
                let count = self.expression()?;
                self.expect("]")?;
                Ok(Expr::Slice(name, Box::new(from), Box::new(count), pos))
            }
            Some(Tok::Name(n)) if n == "SIZE" => {
                let (name, at) = self.name()?;
                Ok(Expr::Size(name, at))
            }
            Some(Tok::Sym("(")) => {
                let e = self.expression()?;
                self.expect(")")?;
                Ok(e)
            }
            _ => Err(OccamError::at(pos.line, pos.column, "expected an operand")),
        }
    }

    /// A literal's type decoration, `(REAL32)`, if one follows (read).
    fn decoration(&mut self) -> Option<Type> {
        let ty = match (
            self.line.tokens.get(self.k),
            self.line.tokens.get(self.k + 1),
            self.line.tokens.get(self.k + 2),
        ) {
            (Some((Tok::Sym("("), _)), Some((Tok::Name(n), _)), Some((Tok::Sym(")"), _))) => {
                Type::named(n)
            }
            _ => None,
        };
        if ty.is_some() {
            self.k += 3;
        }
        ty
    }

    /// An expression: operands joined by one operator (occam has no precedence: mixing
    /// operators needs brackets).
    fn expression(&mut self) -> Result<Expr, OccamError> {
        let mut left = self.operand()?;
        let mut first: Option<&'static str> = None;
        loop {
            let pos = self.pos();
            let op = match self.peek() {
                Some(Tok::Sym(s)) if OPERATORS.contains(s) => *s,
                Some(Tok::Name(n)) if OPERATORS.contains(&n.as_str()) => {
                    OPERATORS.iter().copied().find(|o| o == n).unwrap_or("+")
                }
                _ => return Ok(left),
            };
            match first {
                Some(f) if f != op || !ASSOCIATIVE.contains(&op) => {
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

/// occam's reserved words (of the subset taken here).
const KEYWORDS: [&str; 48] = [
    "SEQ",
    "PAR",
    "IF",
    "WHILE",
    "SKIP",
    "STOP",
    "INT",
    "BOOL",
    "CHAN",
    "OF",
    "VAL",
    "IS",
    "PROC",
    "FOR",
    "TRUE",
    "FALSE",
    "NOT",
    "AND",
    "OR",
    "TIMER",
    "AFTER",
    "ALT",
    "PRI",
    "PLACED",
    "PROCESSOR",
    "CASE",
    "ELSE",
    "SIZE",
    "FUNCTION",
    "VALOF",
    "RESULT",
    "PLUS",
    "MINUS",
    "TIMES",
    "REM",
    "BITNOT",
    "REAL32",
    "REAL64",
    "INT32",
    "ROUND",
    "TRUNC",
    "PROTOCOL",
    "FROM",
    "PLACE",
    "AT",
    "BYTE",
    "INT16",
    "INT64",
];

fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
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
        if c.is("[") && matches!(line.tokens.get(1), Some((Tok::Sym("]"), _))) {
            // `[]INT s IS [a FROM i FOR n]:`
            c.k += 2;
            c.k += 1;
            return self.abbreviation(&mut c, indent);
        }
        if c.is("[") {
            // `[n]INT a, b:`, `[n][m]INT grid:`
            let pos = c.pos();
            let mut sizes = Vec::new();
            while c.is("[") {
                c.k += 1;
                sizes.push(c.expression()?);
                c.expect("]")?;
            }
            let size = one_or_list(sizes, pos);
            let ty = if let Some(t) = c.data_type() {
                t
            } else if c.keyword("CHAN") {
                c.chan_type(&self.protocols)?
            } else {
                return Err(c.err("expected INT, BOOL, REAL32, REAL64 or CHAN OF INT"));
            };
            let names = names(&mut c)?;
            let scope = self.process(indent)?;
            return Ok(Proc::Array(ty, size, names, Box::new(scope)));
        }
        let mut word = match c.peek() {
            Some(Tok::Name(n)) => n.clone(),
            _ => return Err(c.err("expected a process or a declaration")),
        };
        let pri = word == "PRI";
        if pri {
            // PRI ALT takes the first ready alternative in order, as every ALT here does; PRI
            // PAR runs its first branch at high priority.
            c.k += 1;
            word = match c.peek() {
                Some(Tok::Name(n)) if n == "ALT" || n == "PAR" => n.clone(),
                _ => return Err(c.err("expected ALT or PAR after PRI")),
            };
        }
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
                    let r = c.replicator()?;
                    c.done()?;
                    let body = Proc::Seq(self.block(indent + 2, "a replicated process", start)?);
                    return Ok(if word == "SEQ" {
                        Proc::RepSeq(r.name, r.base, r.count, Box::new(body))
                    } else {
                        Proc::RepPar(r, Box::new(body))
                    });
                }
                let body = self.block(indent + 2, &word, start)?;
                Ok(if word == "SEQ" {
                    Proc::Seq(body)
                } else if pri {
                    Proc::PriPar(body, start)
                } else {
                    Proc::Par(body, start)
                })
            }
            "PLACED" => {
                c.k += 1;
                if !c.keyword("PAR") {
                    return Err(c.err("expected PAR (PLACED PAR)"));
                }
                c.k += 1;
                let replicator = if c.peek().is_some() {
                    Some(c.replicator()?)
                } else {
                    None
                };
                c.done()?;
                let mut placements = Vec::new();
                let mut nested = Vec::new();
                while let Some(line) = self.choice(indent + 2)? {
                    let mut g = Cursor { line: &line, k: 0 };
                    let pos = g.pos();
                    if g.keyword("PLACED") && replicator.is_none() {
                        // A replicated PLACED PAR among the PROCESSORs.
                        self.at -= 1;
                        if let Proc::Placed(inner, _) = self.process(indent + 2)? {
                            nested.extend(inner);
                        }
                        continue;
                    }
                    if !g.keyword("PROCESSOR") {
                        return Err(g.err("expected PROCESSOR n under a PLACED PAR"));
                    }
                    g.k += 1;
                    let processor = g.expression()?;
                    // The processor's type (`T8`, `T800`), as INMOS configurations write it.
                    if matches!(g.peek(), Some(Tok::Name(_))) {
                        g.k += 1;
                    }
                    g.done()?;
                    let body = Proc::Seq(self.block(indent + 4, "PROCESSOR", pos)?);
                    placements.push(Placement {
                        replicator: None,
                        processor,
                        body,
                        pos,
                    });
                }
                match (replicator, placements.len()) {
                    (None, _) if !nested.is_empty() => {
                        placements.extend(nested);
                        Ok(Proc::Placed(placements, start))
                    }
                    (_, 0) => Err(c.err("PLACED PAR needs PROCESSORs indented under it")),
                    (Some(r), 1) => {
                        placements[0].replicator = Some(r);
                        Ok(Proc::Placed(placements, start))
                    }
                    (Some(_), _) => Err(OccamError::at_pos(
                        placements[1].pos,
                        "a replicated PLACED PAR places one PROCESSOR",
                    )),
                    (None, _) => Ok(Proc::Placed(placements, start)),
                }
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
                let alternatives = self.alternatives(&mut c, indent)?;
                if alternatives.is_empty() {
                    return Err(c.err("ALT needs alternatives indented under it"));
                }
                Ok(Proc::Alt(alternatives, start))
            }
            "IF" => {
                c.k += 1;
                let choices = self.choices(&mut c, indent)?;
                if choices.is_empty() {
                    return Err(c.err("IF needs choices indented under it"));
                }
                Ok(Proc::If(choices))
            }
            "CASE" => {
                c.k += 1;
                let selector = c.expression()?;
                c.done()?;
                let mut choices = Vec::new();
                while let Some(choice) = self.choice(indent + 2)? {
                    let mut g = Cursor {
                        line: &choice,
                        k: 0,
                    };
                    let pos = g.pos();
                    let mut values = Vec::new();
                    if g.keyword("ELSE") {
                        g.k += 1;
                    } else {
                        values.push(g.expression()?);
                        while g.is(",") {
                            g.k += 1;
                            values.push(g.expression()?);
                        }
                    }
                    g.done()?;
                    let body = self.block(indent + 4, "a CASE choice", pos)?;
                    choices.push((values, Proc::Seq(body)));
                }
                if choices.is_empty() {
                    return Err(c.err("CASE needs choices indented under it"));
                }
                Ok(Proc::Case(selector, choices, start))
            }
            "INT" | "INT32" | "BOOL" | "BYTE" | "REAL32" | "REAL64" if function_line(&line) => {
                // `INT FUNCTION f`, `INT, INT FUNCTION f`: the result types, then FUNCTION.
                let mut types = Vec::new();
                while let Some(Tok::Name(n)) = c.peek() {
                    let Some(ty) = Type::named(n) else { break };
                    types.push(ty);
                    c.k += 1;
                    if c.is(",") {
                        c.k += 1;
                    }
                }
                if types.len() > 3 || (types.len() > 1 && types.iter().any(Type::is_real)) {
                    return Err(c.err(
                        "a FUNCTION gives one value, or up to three INT, BOOL or BYTE values",
                    ));
                }
                self.define(&mut c, indent, start, Some(types))
            }
            "VALOF" => {
                c.k += 1;
                c.done()?;
                let body = self.process(indent + 2)?;
                let result = self.line().cloned().ok_or_else(|| {
                    OccamError::at(start.line, start.column, "expected RESULT after VALOF")
                })?;
                let mut r = Cursor {
                    line: &result,
                    k: 0,
                };
                if result.indent != indent + 2 || !r.keyword("RESULT") {
                    return Err(OccamError::at(
                        result.number,
                        result.indent + 1,
                        "expected RESULT, indented under VALOF",
                    ));
                }
                self.at += 1;
                r.k += 1;
                let value = r.expression_list(start)?;
                r.done()?;
                Ok(Proc::Valof(Box::new(body), value, start))
            }
            "INT" | "INT16" | "INT32" | "INT64" | "BOOL" | "BYTE" | "REAL32" | "REAL64"
            | "CHAN" | "TIMER" => {
                let ty = match word.as_str() {
                    "TIMER" => Type::Timer,
                    "CHAN" => c.chan_type(&self.protocols)?,
                    other => Type::named(other).unwrap_or(Type::Int),
                };
                if !ty.is_chan() {
                    c.k += 1;
                }
                if matches!(line.tokens.get(c.k + 1), Some((Tok::Name(is), _)) if is == "IS") {
                    return self.abbreviation(&mut c, indent);
                }
                let names = names(&mut c)?;
                let scope = self.process(indent)?;
                Ok(Proc::Decl(ty, names, Box::new(scope)))
            }
            "VAL" if matches!(line.tokens.get(1), Some((Tok::Sym("["), _))) => {
                // `VAL []BYTE s IS "text":`, `VAL []INT t IS a:`: an abbreviation.
                c.k += 1;
                while c.peek().is_some()
                    && !matches!(line.tokens.get(c.k + 1), Some((Tok::Name(is), _)) if is == "IS")
                {
                    c.k += 1;
                }
                self.abbreviation(&mut c, indent)
            }
            "VAL" => {
                c.k += 1;
                let ty = c
                    .data_type()
                    .ok_or_else(|| c.err("expected a type: INT, BOOL, REAL32 or REAL64"))?;
                let (name, pos) = c.name()?;
                if !c.keyword("IS") {
                    return Err(c.err("expected IS"));
                }
                c.k += 1;
                let mut value = c.expression()?;
                if ty.is_real() {
                    // The value as that type (a literal takes it).
                    value = Expr::Convert(ty, Rounding::Round, Box::new(value), pos);
                }
                c.expect(":")?;
                c.done()?;
                let scope = self.process(indent)?;
                Ok(Proc::Val(name, value, Box::new(scope), pos))
            }
            "PROC" => self.define(&mut c, indent, start, None),
            "PLACE" => {
                c.k += 1;
                let (name, pos) = c.name()?;
                if !c.keyword("AT") {
                    return Err(c.err("expected AT (PLACE c AT 4:)"));
                }
                c.k += 1;
                let at = c.expression()?;
                c.expect(":")?;
                c.done()?;
                let scope = self.process(indent)?;
                Ok(Proc::Place(name, at, Box::new(scope), pos))
            }
            "PROTOCOL" if line.tokens.len() == 2 => {
                // `PROTOCOL name`, `CASE`, a tag (and its items) a line, `:`.
                c.k += 1;
                let (name, pos) = c.name()?;
                let case = self.choice(indent + 2)?.ok_or_else(|| {
                    OccamError::at_pos(pos, "expected CASE under a variant PROTOCOL")
                })?;
                let mut k = Cursor { line: &case, k: 0 };
                if !k.keyword("CASE") {
                    return Err(k.err("expected CASE (a variant protocol's tags follow)"));
                }
                k.k += 1;
                k.done()?;
                let mut tags = Vec::new();
                while let Some(tag) = self.choice(indent + 4)? {
                    let mut t = Cursor { line: &tag, k: 0 };
                    let (tag_name, _) = t.name()?;
                    let items = if t.is(";") {
                        t.k += 1;
                        t.protocol()?
                    } else {
                        Protocol {
                            len: 0,
                            ..Protocol::WORD
                        }
                    };
                    t.done()?;
                    tags.push((tag_name, items));
                }
                if tags.is_empty() || tags.len() > 255 {
                    return Err(OccamError::at_pos(
                        pos,
                        "a variant PROTOCOL has 1 to 255 tags",
                    ));
                }
                let end = self.line().cloned();
                match end {
                    Some(l)
                        if l.indent == indent
                            && l.tokens.first().map(|t| &t.0) == Some(&Tok::Sym(":")) =>
                    {
                        self.at += 1;
                    }
                    _ => {
                        return Err(OccamError::at_pos(
                            pos,
                            "expected \":\" ending the PROTOCOL",
                        ));
                    }
                }
                let id = self.variants.len() as u16;
                self.variants.push(Variant {
                    name: name.clone(),
                    tags,
                });
                self.protocols.insert(
                    name,
                    Protocol {
                        len: 0,
                        variant: Some(id),
                        ..Protocol::WORD
                    },
                );
                self.process(indent)
            }
            "PROTOCOL" => {
                // `PROTOCOL name IS items:`, then the process in its scope.
                c.k += 1;
                let (name, _) = c.name()?;
                if !c.keyword("IS") {
                    return Err(c.err("expected IS (PROTOCOL P IS INT; [4]INT:)"));
                }
                c.k += 1;
                let protocol = c.protocol()?;
                c.expect(":")?;
                c.done()?;
                self.protocols.insert(name, protocol);
                self.process(indent)
            }
            _ if line.tokens.iter().any(|t| t.0 == Tok::Sym("?"))
                && matches!(line.tokens.last(), Some((Tok::Name(case), _)) if case == "CASE") =>
            {
                // `c ? CASE`, then a tag's line and its process, for each tag taken.
                let (chan, pos) = c.chan_ref()?;
                c.expect("?")?;
                c.k += 1;
                c.done()?;
                let variations = self.variations(indent, pos)?;
                Ok(Proc::CaseInput(chan, variations, pos))
            }
            _ if matches!(line.tokens.get(1), Some((Tok::Name(is), _)) if is == "IS") => {
                self.abbreviation(&mut c, indent)
            }
            _ => {
                let result = statement(&mut c)?;
                c.done()?;
                Ok(result)
            }
        }
    }

    /// An IF's choices, after `IF` (and its replicator, if any) on the line `c` reads: a
    /// replicated IF has one choice; a nested IF among the choices adds its own.
    fn choices(&mut self, c: &mut Cursor<'_>, indent: usize) -> Result<Vec<Choice>, OccamError> {
        let rep = if c.peek().is_some() {
            Some(c.replicator()?)
        } else {
            None
        };
        c.done()?;
        let mut choices = Vec::new();
        while let Some(line) = self.choice(indent + 2)? {
            let mut g = Cursor { line: &line, k: 0 };
            if g.keyword("IF") {
                g.k += 1;
                let nested = self.choices(&mut g, indent + 2)?;
                choices.extend(nested.into_iter().map(|mut ch| {
                    ch.rep = ch.rep.or_else(|| rep.clone());
                    ch
                }));
                continue;
            }
            let cond = g.expression()?;
            g.done()?;
            let body = self.block(indent + 4, "an IF choice", g.pos())?;
            choices.push(Choice {
                rep: rep.clone(),
                cond,
                body: Proc::Seq(body),
            });
            if rep.is_some() {
                break;
            }
        }
        Ok(choices)
    }

    /// An ALT's alternatives, after `ALT` (and its replicator, if any) on the line `c` reads:
    /// a replicated ALT has one alternative; a nested ALT among them adds its own.
    fn alternatives(
        &mut self,
        c: &mut Cursor<'_>,
        indent: usize,
    ) -> Result<Vec<Alternative>, OccamError> {
        let rep = if c.peek().is_some() {
            Some(c.replicator()?)
        } else {
            None
        };
        c.done()?;
        let mut alternatives = Vec::new();
        while let Some(guard) = self.choice(indent + 2)? {
            let mut g = Cursor { line: &guard, k: 0 };
            if g.keyword("ALT") || (g.keyword("PRI") && guard.tokens.len() > 1) {
                if g.keyword("PRI") {
                    g.k += 1;
                }
                g.k += 1;
                let nested = self.alternatives(&mut g, indent + 2)?;
                alternatives.extend(nested.into_iter().map(|mut a| {
                    a.rep = a.rep.or_else(|| rep.clone());
                    a
                }));
                continue;
            }
            let mut a = self.alternative(&guard, indent)?;
            a.rep = rep.clone();
            alternatives.push(a);
            if rep.is_some() {
                break;
            }
        }
        Ok(alternatives)
    }

    /// `name IS expression:` (after its type, if any), then the process in its scope.
    fn abbreviation(&mut self, c: &mut Cursor<'_>, indent: usize) -> Result<Proc, OccamError> {
        let (name, pos) = c.name()?;
        c.k += 1;
        let value = c.expression()?;
        c.expect(":")?;
        c.done()?;
        let scope = self.process(indent)?;
        Ok(Proc::Abbrev(name, value, Box::new(scope), pos))
    }

    /// The tags of a `c ? CASE` at `indent` + 2, each with what it receives and its process.
    fn variations(&mut self, indent: usize, pos: Pos) -> Result<Vec<Variation>, OccamError> {
        let mut variations = Vec::new();
        while let Some(tag) = self.choice(indent + 2)? {
            let mut t = Cursor { line: &tag, k: 0 };
            let tpos = t.pos();
            let (tag_name, _) = t.name()?;
            let items = if t.is(";") {
                t.k += 1;
                t.items(Cursor::target)?
            } else {
                Vec::new()
            };
            t.done()?;
            let body = self.block(indent + 4, "a tag", tpos)?;
            variations.push(Variation {
                tag: tag_name,
                items,
                body: Proc::Seq(body),
                pos: tpos,
            });
        }
        if variations.is_empty() {
            return Err(OccamError::at_pos(
                pos,
                "? CASE needs its tags indented under it",
            ));
        }
        Ok(variations)
    }

    /// One alternative of an ALT: its guard line (read) and its process.
    fn alternative(&mut self, guard: &Line, indent: usize) -> Result<Alternative, OccamError> {
        let mut g = Cursor { line: guard, k: 0 };
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
            let (chan, _) = g.chan_ref()?;
            g.expect("?")?;
            if g.keyword("AFTER") && chan.index.is_none() {
                g.k += 1;
                Guard::After(chan.name, g.expression()?)
            } else if g.keyword("CASE") {
                g.k += 1;
                Guard::Case(chan)
            } else {
                Guard::Input(chan, g.items(Cursor::target)?)
            }
        };
        g.done()?;
        if let Guard::Case(chan) = &what {
            // The tags and their processes, indented under the guard.
            let variations = self.variations(indent + 2, pos)?;
            return Ok(Alternative {
                rep: None,
                condition,
                guard: what.clone(),
                body: Proc::CaseInput(chan.clone(), variations, pos),
                pos,
            });
        }
        let body = self.block(indent + 4, "an ALT alternative", pos)?;
        Ok(Alternative {
            rep: None,
            condition,
            guard: what,
            body: Proc::Seq(body),
            pos,
        })
    }

    /// `PROC name (params)`, its body and the `:` ending it, then the process in its scope.
    fn define(
        &mut self,
        c: &mut Cursor<'_>,
        indent: usize,
        start: Pos,
        function: Option<Vec<Type>>,
    ) -> Result<Proc, OccamError> {
        c.k += 1;
        let (name, pos) = c.name()?;
        c.expect("(")?;
        let mut params: Vec<Param> = Vec::new();
        while !c.is(")") {
            if !params.is_empty() {
                c.expect(",")?;
            }
            // `VAL INT a, b`: a name alone takes the type before it.
            if let (Some(Tok::Name(n)), Some(last)) = (c.peek(), params.last())
                && !is_keyword(n)
            {
                let (pname, _) = c.name()?;
                params.push(Param {
                    name: pname,
                    ..last.clone()
                });
                continue;
            }
            let by_value = c.keyword("VAL");
            if by_value {
                c.k += 1;
            }
            let array = if c.is("[") {
                c.k += 1;
                let size = if c.is("]") {
                    None
                } else {
                    Some(c.expression()?)
                };
                c.expect("]")?;
                Some(size)
            } else {
                None
            };
            let ty = if let Some(t) = c.data_type() {
                t
            } else if c.keyword("CHAN") {
                c.chan_type(&self.protocols)?
            } else {
                return Err(c.err(
                    "expected a parameter: VAL INT, INT, REAL32, CHAN OF INT, or an array of them ([]INT)",
                ));
            };
            let (pname, _) = c.name()?;
            params.push(Param {
                name: pname,
                ty,
                by_value,
                array,
            });
        }
        c.expect(")")?;
        if function.is_some()
            && let Some(p) = params.iter().find(|p| !p.by_value)
        {
            return Err(c.err(format!(
                "a FUNCTION's parameters are VALs: {} is not",
                p.name
            )));
        }
        if let Some(types) = &function
            && c.keyword("IS")
        {
            // `INT FUNCTION f (VAL INT x) IS expression:`, its value as the FUNCTION's type.
            c.k += 1;
            let mut value = c.expression_list(pos)?;
            typed_results(&mut value, types, pos);
            c.expect(":")?;
            c.done()?;
            let scope = self.process(indent)?;
            return Ok(Proc::Define(
                name,
                params,
                Box::new(Proc::Valof(Box::new(Proc::Skip), value, pos)),
                Box::new(scope),
                pos,
            ));
        }
        c.done()?;
        let body = if let Some(types) = &function {
            let mut body = self.process(indent + 2)?;
            if !result_as(&mut body, types) {
                return Err(OccamError::at_pos(
                    start,
                    "a FUNCTION's body is VALOF … RESULT (after its declarations)",
                ));
            }
            vec![body]
        } else {
            self.block(indent + 2, "PROC", start)?
        };
        let end = self
            .line()
            .cloned()
            .ok_or_else(|| OccamError::at(start.line, 1, "expected \":\" ending the PROC"))?;
        if end.indent != indent || end.tokens.first().map(|t| &t.0) != Some(&Tok::Sym(":")) {
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
}

/// Makes a FUNCTION body's RESULT a value of the FUNCTION's type; false when the body is not
/// a VALOF (after declarations).
fn result_as(p: &mut Proc, types: &[Type]) -> bool {
    match p {
        Proc::Valof(_, result, pos) => {
            typed_results(result, types, *pos);
            true
        }
        Proc::Decl(_, _, q)
        | Proc::Array(_, _, _, q)
        | Proc::Val(_, _, q, _)
        | Proc::Define(_, _, _, q, _) => result_as(q, types),
        Proc::Seq(list) if list.len() == 1 => result_as(&mut list[0], types),
        _ => false,
    }
}

/// A RESULT's values (one, or a list of them) as the FUNCTION's types; a count that differs
/// is left for the compiler to report.
fn typed_results(result: &mut Expr, types: &[Type], pos: Pos) {
    let convert = |e: Expr, ty: Type| Expr::Convert(ty, Rounding::Round, Box::new(e), pos);
    match result {
        Expr::Table(values, _) if values.len() == types.len() => {
            for (v, ty) in values.iter_mut().zip(types) {
                let e = std::mem::replace(v, Expr::Num(0));
                *v = convert(e, *ty);
            }
        }
        Expr::Table(..) => {}
        _ => {
            if let Some(ty) = types.first() {
                let e = std::mem::replace(result, Expr::Num(0));
                *result = convert(e, *ty);
            }
        }
    }
}

/// Whether a line starts a FUNCTION: result types (separated by commas), then FUNCTION.
fn function_line(line: &Line) -> bool {
    for (tok, _) in &line.tokens {
        match tok {
            Tok::Name(n) if n == "FUNCTION" => return true,
            Tok::Name(n) if Type::named(n).is_some() => {}
            Tok::Sym(",") => {}
            _ => return false,
        }
    }
    false
}

/// How many values a FUNCTION body's RESULT gives.
pub fn result_count(p: &Proc) -> usize {
    match p {
        Proc::Valof(_, Expr::Table(values, _), _) => values.len(),
        Proc::Valof(..) => 1,
        Proc::Decl(_, _, q)
        | Proc::Array(_, _, _, q)
        | Proc::Val(_, _, q, _)
        | Proc::Define(_, _, _, q, _) => result_count(q),
        Proc::Seq(list) if list.len() == 1 => result_count(&list[0]),
        _ => 0,
    }
}

/// The type a FUNCTION body's RESULT has (set by `result_as`).
pub fn result_type(p: &Proc) -> Option<Type> {
    match p {
        Proc::Valof(_, Expr::Convert(ty, ..), _) => Some(*ty),
        Proc::Valof(_, Expr::Table(values, _), _) => match values.first() {
            Some(Expr::Convert(ty, ..)) => Some(*ty),
            _ => None,
        },
        Proc::Decl(_, _, q)
        | Proc::Array(_, _, _, q)
        | Proc::Val(_, _, q, _)
        | Proc::Define(_, _, _, q, _) => result_type(q),
        Proc::Seq(list) if list.len() == 1 => result_type(&list[0]),
        _ => None,
    }
}

/// Whether a process is a VALOF (after declarations): a FUNCTION's body.
pub fn ends_in_valof(p: &Proc) -> bool {
    match p {
        Proc::Valof(..) => true,
        Proc::Decl(_, _, q)
        | Proc::Array(_, _, _, q)
        | Proc::Val(_, _, q, _)
        | Proc::Define(_, _, _, q, _) => ends_in_valof(q),
        Proc::Seq(list) => list.len() == 1 && ends_in_valof(&list[0]),
        _ => false,
    }
}

/// One expression as itself, several as a list (`a[i][j]`'s subscripts, `[n][m]`'s sizes, a
/// RESULT's values).
fn one_or_list(mut values: Vec<Expr>, pos: Pos) -> Expr {
    if values.len() == 1 {
        values.remove(0)
    } else {
        Expr::Table(values, pos)
    }
}

/// The names of a declaration and its closing `:`.
fn names(c: &mut Cursor<'_>) -> Result<Vec<(String, Pos)>, OccamError> {
    let mut names = vec![c.name()?];
    while c.is(",") {
        c.k += 1;
        names.push(c.name()?);
    }
    c.expect(":")?;
    c.done()?;
    Ok(names)
}

/// A simple process: an assignment, an output, an input, a timeout or a PROC call.
fn statement(c: &mut Cursor<'_>) -> Result<Proc, OccamError> {
    let (name, pos) = c.name()?;
    let index = c.index()?;
    if c.is(",") {
        // `a, b := e1, e2`
        let mut targets = vec![match index {
            Some(i) => Target::Elem(name, i),
            None => Target::Var(name),
        }];
        while c.is(",") {
            c.k += 1;
            targets.push(c.target()?);
        }
        c.expect(":=")?;
        let mut values = vec![c.expression()?];
        while c.is(",") {
            c.k += 1;
            values.push(c.expression()?);
        }
        return Ok(Proc::MultiAssign(targets, values, pos));
    }
    if c.is(":=") {
        c.k += 1;
        let target = match index {
            Some(i) => Target::Elem(name, i),
            None => Target::Var(name),
        };
        return Ok(Proc::Assign(target, c.expression()?, pos));
    }
    let chan = ChanRef { name, index };
    if c.is("!") {
        c.k += 1;
        return Ok(Proc::Output(chan, c.items(Cursor::expression)?, pos));
    }
    if c.is("?") {
        c.k += 1;
        if c.keyword("AFTER") && chan.index.is_none() {
            c.k += 1;
            return Ok(Proc::After(chan.name, c.expression()?, pos));
        }
        return Ok(Proc::Input(chan, c.items(Cursor::target)?, pos));
    }
    if c.is("(") && chan.index.is_none() {
        c.k += 1;
        let mut args = Vec::new();
        while !c.is(")") {
            if !args.is_empty() {
                c.expect(",")?;
            }
            args.push(c.expression()?);
        }
        c.k += 1;
        return Ok(Proc::Call(chan.name, args, pos));
    }
    Err(c.err("expected :=, !, ? or a PROC call"))
}
