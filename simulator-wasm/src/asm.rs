//! The assembler and disassembler.
//!
//! One instruction or directive a line; `;` starts a comment; `name:` defines a label at the
//! current address (an instruction may follow it on the line); `name = expression` (or
//! `.set name expression`) a constant. Instructions are the 16 direct functions with an operand
//! expression (`j`, `cj` and `call` take a target label and are encoded relative to the next
//! instruction), and operations by name (`add`, `ladd`, `in`, `probe`, …), which become `opr`
//! with prefixes. `.byte`, `.word` (numbers, labels, strings in double quotes) and `.align n`
//! place data. Expressions are terms joined by `+` and `-`: decimal numbers, `#1F` or `0x1F`
//! hexadecimal, labels and constants.
//!
//! Every operand gets its shortest prefix sequence; as jump distances depend on the lengths
//! of the instructions between, the encoding is repeated until no length changes (lengths only
//! grow, so this ends).

use std::collections::HashMap;

use crate::error::AsmError;
use crate::isa::{CycleTable, DIRECT, direct_code, fp_entry_named};

/// An assembled program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Where it is loaded.
    pub origin: u32,
    /// Its bytes.
    pub code: Vec<u8>,
    /// Its labels and constants, by name.
    pub symbols: HashMap<String, u32>,
}

impl Program {
    /// The value of a label or constant.
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.symbols.get(name).copied()
    }
}

/// The bytes of direct function `function` with operand `value`, prefixes first.
pub fn encode(function: u8, value: i64) -> Vec<u8> {
    let value = value as i32;
    let mut out = Vec::new();
    prefix(value, &mut out);
    out.push((function << 4) | (value & 0xF) as u8);
    out
}

fn prefix(value: i32, out: &mut Vec<u8>) {
    if (0..16).contains(&value) {
        return;
    }
    if value >= 16 {
        prefix(value >> 4, out);
        out.push(0x20 | ((value >> 4) & 0xF) as u8);
    } else {
        let rest = (!value) >> 4;
        prefix(rest, out);
        out.push(0x60 | (rest & 0xF) as u8);
    }
}

#[derive(Debug, Clone)]
enum Item {
    /// A direct function and its operand expression; `relative` for j, cj and call.
    Direct {
        function: u8,
        operand: String,
        relative: bool,
    },
    /// An operation (`opr` with its code).
    Operation(u32),
    /// Bytes or words of data.
    Data { words: bool, values: Vec<String> },
    /// Padding to a multiple.
    Align(u32),
}

struct Line {
    number: usize,
    label: Option<String>,
    item: Option<Item>,
}

fn error(line: usize, message: impl Into<String>) -> AsmError {
    AsmError {
        line,
        message: message.into(),
    }
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '.')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

fn number(term: &str) -> Option<i64> {
    let (digits, radix) = if let Some(hex) = term.strip_prefix('#') {
        (hex, 16)
    } else if let Some(hex) = term.strip_prefix("0x").or_else(|| term.strip_prefix("0X")) {
        (hex, 16)
    } else {
        (term, 10)
    };
    i64::from_str_radix(digits, radix).ok()
}

/// Evaluates `a + b - c` with `symbols`; `None` in `symbols` means "not known yet".
fn eval(expr: &str, symbols: &HashMap<String, i64>, line: usize) -> Result<i64, AsmError> {
    let expr = expr.trim();
    if expr.is_empty() {
        return Err(error(line, "expected an operand"));
    }
    let mut total = 0i64;
    let mut sign = 1i64;
    let mut term = String::new();
    let flush = |term: &mut String, sign: i64, total: &mut i64| -> Result<(), AsmError> {
        let t = term.trim();
        if t.is_empty() {
            return Err(error(
                line,
                format!("expected a number or a name in \"{expr}\""),
            ));
        }
        let value = match number(t) {
            Some(v) => v,
            None if is_name(t) => *symbols
                .get(t)
                .ok_or_else(|| error(line, format!("unknown name \"{t}\"")))?,
            None => return Err(error(line, format!("\"{t}\" is not a number or a name"))),
        };
        *total = total.wrapping_add(sign.wrapping_mul(value));
        term.clear();
        Ok(())
    };
    for (k, ch) in expr.char_indices() {
        match ch {
            '+' | '-' if !term.trim().is_empty() => {
                flush(&mut term, sign, &mut total)?;
                sign = if ch == '-' { -1 } else { 1 };
            }
            '-' if k == 0 || term.trim().is_empty() => sign = -sign,
            '+' => {}
            _ => term.push(ch),
        }
    }
    flush(&mut term, sign, &mut total)?;
    Ok(total)
}

fn split_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for ch in text.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                current.push(ch);
            }
            ',' if !quoted => out.push(std::mem::take(&mut current).trim().to_owned()),
            _ => current.push(ch),
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (k, ch) in line.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            ';' if !quoted => return &line[..k],
            _ => {}
        }
    }
    line
}

/// Assembles `source` for the chip of `table`, to be loaded at `origin`.
pub fn assemble(source: &str, table: &CycleTable, origin: u32) -> Result<Program, AsmError> {
    let mut lines = Vec::new();
    let mut constants: Vec<(usize, String, String)> = Vec::new();
    for (k, raw) in source.lines().enumerate() {
        let number = k + 1;
        let mut text = strip_comment(raw).trim();
        let mut label = None;
        if let Some(colon) = text.find(':')
            && is_name(text[..colon].trim())
            && !text[..colon].contains('"')
        {
            label = Some(text[..colon].trim().to_owned());
            text = text[colon + 1..].trim();
        }
        if text.is_empty() {
            lines.push(Line {
                number,
                label,
                item: None,
            });
            continue;
        }
        let (word, rest) = match text.find(char::is_whitespace) {
            Some(at) => (&text[..at], text[at..].trim()),
            None => (text, ""),
        };
        if let Some(value) = rest.strip_prefix('=') {
            if !is_name(word) {
                return Err(error(number, format!("\"{word}\" is not a name")));
            }
            constants.push((number, word.to_owned(), value.trim().to_owned()));
            continue;
        }
        let item = match word.to_ascii_lowercase().as_str() {
            ".set" => {
                let (name, value) = rest
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| error(number, "expected .set name value"))?;
                constants.push((number, name.to_owned(), value.trim().to_owned()));
                continue;
            }
            ".byte" | ".word" => Item::Data {
                words: word.eq_ignore_ascii_case(".word"),
                values: split_values(rest),
            },
            ".align" => Item::Align(
                number_or(rest, number)?
                    .try_into()
                    .ok()
                    .filter(|&n: &u32| n > 0)
                    .ok_or_else(|| error(number, "expected a positive alignment"))?,
            ),
            mnemonic => {
                if let Some(function) = direct_code(mnemonic) {
                    if function == 0xF && rest.is_empty() {
                        return Err(error(number, "opr needs an operation code"));
                    }
                    Item::Direct {
                        function,
                        operand: rest.to_owned(),
                        relative: matches!(mnemonic, "j" | "cj" | "call"),
                    }
                } else if let Some(op) = table.op_named(mnemonic) {
                    if !rest.is_empty() {
                        return Err(error(number, format!("{mnemonic} takes no operand")));
                    }
                    Item::Operation(u32::from(op.code))
                } else if let (Some(selector), Some(entry)) =
                    (fp_entry_named(mnemonic), table.op_named("fpentry"))
                {
                    // An fpentry selector (`fpurz`, `fpusqrtfirst`, …): `ldc SELECTOR`, then
                    // `fpentry`.
                    if !rest.is_empty() {
                        return Err(error(number, format!("{mnemonic} takes no operand")));
                    }
                    lines.push(Line {
                        number,
                        label,
                        item: Some(Item::Direct {
                            function: 0x4,
                            operand: selector.to_string(),
                            relative: false,
                        }),
                    });
                    lines.push(Line {
                        number,
                        label: None,
                        item: Some(Item::Operation(u32::from(entry.code))),
                    });
                    continue;
                } else {
                    return Err(error(
                        number,
                        format!(
                            "unknown instruction \"{word}\" (expected a direct function, an operation of the {} or a directive)",
                            table.chip.name()
                        ),
                    ));
                }
            }
        };
        lines.push(Line {
            number,
            label,
            item: Some(item),
        });
    }

    // Lengths start at one byte and grow until every operand fits.
    let mut lengths = vec![1usize; lines.len()];
    for _round in 0..64 {
        let symbols = symbols_at(&lines, &lengths, &constants, origin)?;
        let mut changed = false;
        let mut code = Vec::new();
        let mut address = i64::from(origin);
        for (k, line) in lines.iter().enumerate() {
            let bytes = encode_line(line, &symbols, address, lengths[k])?;
            if bytes.len() > lengths[k] {
                lengths[k] = bytes.len();
                changed = true;
            }
            // A shorter encoding is padded with `pfix 0` to keep the addresses already used.
            let mut bytes = bytes;
            if bytes.len() < lengths[k]
                && matches!(
                    line.item,
                    Some(Item::Direct { .. }) | Some(Item::Operation(_))
                )
            {
                let pad = lengths[k] - bytes.len();
                bytes.splice(0..0, std::iter::repeat_n(0x20, pad));
            }
            address += bytes.len() as i64;
            code.extend(bytes);
        }
        if !changed {
            return Ok(Program {
                origin,
                code,
                symbols: symbols
                    .into_iter()
                    .map(|(name, value)| (name, value as u32))
                    .collect(),
            });
        }
    }
    Err(error(0, "the encoding did not settle"))
}

fn number_or(text: &str, line: usize) -> Result<i64, AsmError> {
    number(text.trim()).ok_or_else(|| error(line, format!("expected a number, found \"{text}\"")))
}

fn symbols_at(
    lines: &[Line],
    lengths: &[usize],
    constants: &[(usize, String, String)],
    origin: u32,
) -> Result<HashMap<String, i64>, AsmError> {
    let mut symbols = HashMap::new();
    let mut address = i64::from(origin);
    for (k, line) in lines.iter().enumerate() {
        if let Some(item) = &line.item
            && let Item::Align(n) = item
        {
            address += (i64::from(*n) - address.rem_euclid(i64::from(*n))) % i64::from(*n);
        }
        if let Some(label) = &line.label
            && symbols.insert(label.clone(), address).is_some()
        {
            return Err(error(
                line.number,
                format!("label \"{label}\" defined twice"),
            ));
        }
        address += match &line.item {
            None | Some(Item::Align(_)) => 0,
            Some(Item::Data { words, values }) => data_len(*words, values) as i64,
            Some(_) => lengths[k] as i64,
        };
    }
    // Constants may use labels and constants defined before them.
    for (line, name, value) in constants {
        let v = eval(value, &symbols, *line)?;
        if symbols.insert(name.clone(), v).is_some() {
            return Err(error(*line, format!("\"{name}\" defined twice")));
        }
    }
    Ok(symbols)
}

fn data_len(words: bool, values: &[String]) -> usize {
    values
        .iter()
        .map(
            |v| match v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                Some(text) if !words => text.len(),
                Some(text) => text.len().div_ceil(4) * 4,
                None if words => 4,
                None => 1,
            },
        )
        .sum()
}

fn encode_line(
    line: &Line,
    symbols: &HashMap<String, i64>,
    address: i64,
    length: usize,
) -> Result<Vec<u8>, AsmError> {
    Ok(match &line.item {
        None => Vec::new(),
        Some(Item::Align(n)) => {
            vec![0; ((i64::from(*n) - address.rem_euclid(i64::from(*n))) % i64::from(*n)) as usize]
        }
        Some(Item::Data { words, values }) => {
            let mut out = Vec::new();
            for v in values {
                if let Some(text) = v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                    out.extend(text.bytes());
                    if *words {
                        out.resize(out.len().div_ceil(4) * 4, 0);
                    }
                } else {
                    let value = eval(v, symbols, line.number)?;
                    if *words {
                        out.extend((value as u32).to_le_bytes());
                    } else {
                        out.push(value as u8);
                    }
                }
            }
            out
        }
        Some(Item::Operation(code)) => encode(0xF, i64::from(*code)),
        Some(Item::Direct {
            function,
            operand,
            relative,
        }) => {
            let value = eval(operand, symbols, line.number)?;
            if *relative {
                // Relative to the next instruction, whose address depends on this one's length.
                encode(*function, value - (address + length as i64))
            } else {
                encode(*function, value)
            }
        }
    })
}

/// One disassembled instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disassembled {
    /// Its address.
    pub address: u32,
    /// Its bytes, prefixes included.
    pub bytes: Vec<u8>,
    /// Its text: `ldc 300`, `ladd`, `j 0x80000120`.
    pub text: String,
}

/// Disassembles `code` loaded at `origin`, folding prefixes into their instruction.
pub fn disassemble(code: &[u8], origin: u32, table: &CycleTable) -> Vec<Disassembled> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < code.len() {
        let start = k;
        let mut oreg: u32 = 0;
        let mut text = None;
        while k < code.len() {
            let (function, data) = (code[k] >> 4, u32::from(code[k] & 0xF));
            k += 1;
            match function {
                0x2 => oreg = (oreg | data) << 4,
                0x6 => oreg = (!(oreg | data)) << 4,
                _ => {
                    let operand = oreg | data;
                    let next = origin.wrapping_add(k as u32);
                    text = Some(match function {
                        0xF => table
                            .op(operand)
                            .map_or_else(|| format!("opr {:#x}", operand), |op| op.name.to_owned()),
                        0x0 | 0x9 | 0xA => format!(
                            "{} {:#010x}",
                            DIRECT[usize::from(function)],
                            next.wrapping_add(operand)
                        ),
                        _ => format!("{} {}", DIRECT[usize::from(function)], operand as i32),
                    });
                    break;
                }
            }
        }
        out.push(Disassembled {
            address: origin.wrapping_add(start as u32),
            bytes: code[start..k].to_vec(),
            text: text.unwrap_or_else(|| "(prefix without an instruction)".to_owned()),
        });
    }
    out
}
