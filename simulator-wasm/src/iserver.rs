//! The iserver's SP protocol, as the INMOS iserver documents it: files (OPEN, CLOSE, READ,
//! WRITE, GETS, PUTS, FLUSH, SEEK, TELL, EOF, FERROR, REMOVE, RENAME), the keyboard (GETKEY,
//! POLLKEY), the environment (GETENV, with IBOARDSIZE answered from the root's memory), TIME,
//! SYSTEM (refused), EXIT, COMMAND, CORE and ID.
//!
//! Files live in a sandbox per run: a map from names to bytes (the CLI fills it from a
//! directory and writes back what changed; the page keeps it in memory and offers what the
//! program wrote as downloads). Names are plain relative paths: no `..`, no absolute path, no
//! drive. Stream 0 is the keyboard (the keys given to the run), 1 and 2 the screen.
//!
//! Every request is parsed with bounds checks: a malformed one is answered with an error,
//! never a panic. Time is the run's virtual time from a fixed epoch, so runs stay
//! deterministic.

use std::collections::{BTreeMap, VecDeque};

/// SP protocol tags and results.
pub mod sp {
    pub const OPEN: u8 = 10;
    pub const CLOSE: u8 = 11;
    pub const READ: u8 = 12;
    pub const WRITE: u8 = 13;
    pub const GETS: u8 = 14;
    pub const PUTS: u8 = 15;
    pub const FLUSH: u8 = 16;
    pub const SEEK: u8 = 17;
    pub const TELL: u8 = 18;
    pub const EOF: u8 = 19;
    pub const FERROR: u8 = 20;
    pub const REMOVE: u8 = 21;
    pub const RENAME: u8 = 22;
    pub const GETKEY: u8 = 30;
    pub const POLLKEY: u8 = 31;
    pub const GETENV: u8 = 32;
    pub const TIME: u8 = 33;
    pub const SYSTEM: u8 = 34;
    pub const EXIT: u8 = 35;
    pub const COMMAND: u8 = 40;
    pub const CORE: u8 = 41;
    pub const ID: u8 = 42;
    pub const OK: u8 = 0;
    pub const NOT_IMPLEMENTED: u8 = 1;
    pub const ERROR: u8 = 128;
    /// `EXIT` with this status means success.
    pub const SUCCESS: i32 = 999_999_999;
}

/// The seconds the run's clock starts from (1 January 1990): TIME answers this plus the
/// virtual time.
pub const EPOCH: u32 = 631_152_000;

/// An open stream.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stream {
    name: String,
    position: usize,
    readable: bool,
    writable: bool,
    append: bool,
    /// The last operation failed (FERROR).
    failed: bool,
}

/// The iserver's state beside the link: files, streams, keys, the screen.
#[derive(Debug, Clone, Default)]
pub struct Server {
    /// The sandbox's files.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Names of the files the program created or changed, in order of first change.
    pub written: Vec<String>,
    streams: BTreeMap<i32, Stream>,
    next_stream: i32,
    /// Keys and standard input, in order.
    pub keys: VecDeque<u8>,
    /// The screen (streams 1 and 2).
    pub output: Vec<u8>,
    /// The status the program exited with.
    pub exit: Option<i32>,
    /// What COMMAND answers.
    pub command_line: String,
    /// The root's memory in bytes (IBOARDSIZE).
    pub board_size: u32,
    /// The virtual time in seconds (TIME).
    pub seconds: u32,
}

/// A request body being read.
struct Reader<'a> {
    body: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.body.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn int16(&mut self) -> Option<usize> {
        let b = self.body.get(self.at..self.at + 2)?;
        self.at += 2;
        Some(usize::from(u16::from_le_bytes([b[0], b[1]])))
    }

    fn int32(&mut self) -> Option<i32> {
        let b = self.body.get(self.at..self.at + 4)?;
        self.at += 4;
        Some(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        let b = self.body.get(self.at..self.at + n)?;
        self.at += n;
        Some(b)
    }

    /// A string: its INT16 length, then its bytes.
    fn string(&mut self) -> Option<String> {
        let n = self.int16()?;
        Some(String::from_utf8_lossy(self.bytes(n)?).into_owned())
    }
}

/// Whether `name` is a plain relative path that stays inside the sandbox.
pub fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && !name.starts_with('\\')
        && !name.contains(':')
        && !name.contains('\0')
        && name
            .split(['/', '\\'])
            .all(|part| !part.is_empty() && part != "..")
}

fn push16(reply: &mut Vec<u8>, n: usize) {
    reply.extend_from_slice(&(n.min(u16::MAX as usize) as u16).to_le_bytes());
}

impl Server {
    /// A server answering `command_line` to COMMAND and handing out `keys`.
    pub fn new(command_line: &str, keys: &[u8]) -> Server {
        Server {
            command_line: command_line.to_owned(),
            keys: keys.iter().copied().collect(),
            ..Server::default()
        }
    }

    /// The reply to one request body (tag first); the result byte first.
    pub fn answer(&mut self, body: &[u8]) -> Vec<u8> {
        let mut reply = vec![sp::OK];
        let mut r = Reader { body, at: 1 };
        let ok = match body.first().copied() {
            Some(sp::OPEN) => self.open(&mut r, &mut reply),
            Some(sp::CLOSE) => r
                .int32()
                .map(|id| self.streams.remove(&id).is_some() || id <= 2),
            Some(sp::READ) => self.read(&mut r, &mut reply, false),
            Some(sp::GETS) => self.read(&mut r, &mut reply, true),
            Some(sp::WRITE) => self.write(&mut r, &mut reply, false),
            Some(sp::PUTS) => self.write(&mut r, &mut reply, true),
            Some(sp::FLUSH) => r.int32().map(|_| true),
            Some(sp::SEEK) => self.seek(&mut r),
            Some(sp::TELL) => r.int32().and_then(|id| {
                let at = self.streams.get(&id)?.position;
                reply.extend_from_slice(&(at as i32).to_le_bytes());
                Some(true)
            }),
            Some(sp::EOF) => r.int32().map(|id| match self.streams.get(&id) {
                Some(s) => s.position >= self.files.get(&s.name).map_or(0, Vec::len),
                None => id == 0 && self.keys.is_empty(),
            }),
            Some(sp::FERROR) => r.int32().map(|id| {
                let failed = self.streams.get(&id).is_some_and(|s| s.failed);
                reply.extend_from_slice(&i32::from(failed).to_le_bytes());
                let text: &[u8] = if failed {
                    b"the last operation failed"
                } else {
                    b""
                };
                push16(&mut reply, text.len());
                reply.extend_from_slice(text);
                true
            }),
            Some(sp::REMOVE) => r.string().map(|name| {
                safe_name(&name) && self.files.remove(&name).is_some() && {
                    self.note_written(&name);
                    true
                }
            }),
            Some(sp::RENAME) => (|| {
                let (from, to) = (r.string()?, r.string()?);
                if !safe_name(&from) || !safe_name(&to) {
                    return Some(false);
                }
                let bytes = self.files.remove(&from)?;
                self.files.insert(to.clone(), bytes);
                self.note_written(&from);
                self.note_written(&to);
                Some(true)
            })(),
            Some(sp::GETKEY) | Some(sp::POLLKEY) => self.keys.pop_front().map(|key| {
                reply.push(key);
                true
            }),
            Some(sp::GETENV) => r.string().map(|name| {
                if name != "IBOARDSIZE" {
                    return false;
                }
                let value = format!("#{:X}", self.board_size);
                push16(&mut reply, value.len());
                reply.extend_from_slice(value.as_bytes());
                true
            }),
            Some(sp::TIME) => {
                let now = EPOCH.wrapping_add(self.seconds);
                reply.extend_from_slice(&now.to_le_bytes());
                reply.extend_from_slice(&now.to_le_bytes());
                Some(true)
            }
            // Running host commands is refused: the sandbox has none.
            Some(sp::SYSTEM) => {
                reply.extend_from_slice(&(-1i32).to_le_bytes());
                Some(false)
            }
            Some(sp::EXIT) => r.int32().map(|status| {
                self.exit = Some(match status {
                    sp::SUCCESS => 0,
                    s if s == -sp::SUCCESS => 1,
                    s => s,
                });
                true
            }),
            Some(sp::COMMAND) => {
                let text = self.command_line.as_bytes();
                let n = text.len().min(500);
                push16(&mut reply, n);
                reply.extend_from_slice(&text[..n]);
                Some(true)
            }
            // No copy of the root's memory was taken at boot (the iserver's analyse mode).
            Some(sp::CORE) => Some(false),
            Some(sp::ID) => {
                // Version 2, host PC, OS DOS, board B004 (the iserver's codes).
                reply.extend_from_slice(&[20, 1, 1, 1]);
                Some(true)
            }
            _ => {
                reply[0] = sp::NOT_IMPLEMENTED;
                return reply;
            }
        };
        if ok != Some(true) {
            reply.truncate(1);
            reply[0] = sp::ERROR;
            if body.first() == Some(&sp::SYSTEM) {
                reply.extend_from_slice(&(-1i32).to_le_bytes());
            }
        }
        reply
    }

    fn note_written(&mut self, name: &str) {
        if !self.written.iter().any(|n| n == name) {
            self.written.push(name.to_owned());
        }
    }

    /// OPEN: name, type (1 binary, 2 text), mode (1 input, 2 output, 3 append, 4 existing
    /// update, 5 new update, 6 append update); answers the stream id.
    fn open(&mut self, r: &mut Reader<'_>, reply: &mut Vec<u8>) -> Option<bool> {
        let name = r.string()?;
        let _kind = r.byte()?;
        let mode = r.byte()?;
        if !safe_name(&name) {
            return Some(false);
        }
        let exists = self.files.contains_key(&name);
        let (readable, writable, append, create, truncate) = match mode {
            1 => (true, false, false, false, false),
            2 => (false, true, false, true, true),
            3 => (false, true, true, true, false),
            4 => (true, true, false, false, false),
            5 => (true, true, false, true, true),
            6 => (true, true, true, true, false),
            _ => return Some(false),
        };
        if !exists && !create {
            return Some(false);
        }
        if truncate || !exists {
            self.files.insert(name.clone(), Vec::new());
            self.note_written(&name);
        }
        self.next_stream = self.next_stream.max(3);
        let id = self.next_stream;
        self.next_stream += 1;
        let position = if append {
            self.files.get(&name).map_or(0, Vec::len)
        } else {
            0
        };
        self.streams.insert(
            id,
            Stream {
                name,
                position,
                readable,
                writable,
                append,
                failed: false,
            },
        );
        reply.extend_from_slice(&id.to_le_bytes());
        Some(true)
    }

    /// READ (up to a count) or GETS (a line, without its newline, up to a count).
    fn read(&mut self, r: &mut Reader<'_>, reply: &mut Vec<u8>, line: bool) -> Option<bool> {
        let id = r.int32()?;
        let limit = r.int16()?.min(500);
        let data: Vec<u8> = if id == 0 {
            let mut out = Vec::new();
            while out.len() < limit {
                match self.keys.pop_front() {
                    Some(b'\n' | b'\r') if line => break,
                    Some(b) => out.push(b),
                    None => break,
                }
            }
            if out.is_empty() && line && self.keys.is_empty() {
                return Some(false);
            }
            out
        } else {
            let stream = self.streams.get_mut(&id)?;
            if !stream.readable {
                stream.failed = true;
                return Some(false);
            }
            let file = self.files.get(&stream.name)?;
            let rest = file.get(stream.position..).unwrap_or(&[]);
            let mut n = rest.len().min(limit);
            let mut skip = 0;
            if line {
                if rest.is_empty() {
                    return Some(false);
                }
                if let Some(k) = rest[..n].iter().position(|&b| b == b'\n') {
                    n = k;
                    skip = 1;
                }
            }
            let out = rest[..n].to_vec();
            stream.position += n + skip;
            out
        };
        push16(reply, data.len());
        reply.extend_from_slice(&data);
        Some(true)
    }

    /// WRITE (answers the count written) or PUTS (adds a newline, answers nothing more).
    fn write(&mut self, r: &mut Reader<'_>, reply: &mut Vec<u8>, line: bool) -> Option<bool> {
        let id = r.int32()?;
        let n = r.int16()?;
        let data = r.bytes(n.min(r.body.len().saturating_sub(r.at)))?.to_vec();
        let mut bytes = data.clone();
        if line {
            bytes.push(b'\n');
        }
        match id {
            1 | 2 => self.output.extend_from_slice(&bytes),
            0 => return Some(false),
            _ => {
                let stream = self.streams.get_mut(&id)?;
                if !stream.writable {
                    stream.failed = true;
                    return Some(false);
                }
                let file = self.files.entry(stream.name.clone()).or_default();
                if stream.append {
                    stream.position = file.len();
                }
                let end = stream.position + bytes.len();
                if file.len() < end {
                    file.resize(end, 0);
                }
                file[stream.position..end].copy_from_slice(&bytes);
                stream.position = end;
                let name = stream.name.clone();
                self.note_written(&name);
            }
        }
        if !line {
            push16(reply, data.len());
        }
        Some(true)
    }

    /// SEEK: offset from the start (1), the current position (2) or the end (3).
    fn seek(&mut self, r: &mut Reader<'_>) -> Option<bool> {
        let id = r.int32()?;
        let offset = i64::from(r.int32()?);
        let origin = r.int32()?;
        let stream = self.streams.get_mut(&id)?;
        let len = self.files.get(&stream.name).map_or(0, Vec::len) as i64;
        let base = match origin {
            1 => 0,
            2 => stream.position as i64,
            3 => len,
            _ => return Some(false),
        };
        let at = base + offset;
        if at < 0 {
            stream.failed = true;
            return Some(false);
        }
        stream.position = at as usize;
        Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(tag: u8, parts: &[&[u8]]) -> Vec<u8> {
        let mut body = vec![tag];
        for p in parts {
            body.extend_from_slice(p);
        }
        body
    }

    fn s16(text: &str) -> Vec<u8> {
        let mut v = (text.len() as u16).to_le_bytes().to_vec();
        v.extend_from_slice(text.as_bytes());
        v
    }

    #[test]
    fn files_open_write_seek_read_and_close_in_the_sandbox() {
        let mut s = Server::default();
        let open = s.answer(&req(sp::OPEN, &[&s16("out/ray.ppm"), &[1, 2]]));
        assert_eq!(open[0], sp::OK);
        let id = i32::from_le_bytes([open[1], open[2], open[3], open[4]]);
        assert_eq!(id, 3);
        let w = s.answer(&req(
            sp::WRITE,
            &[&id.to_le_bytes(), &5u16.to_le_bytes(), b"P6\nab"],
        ));
        assert_eq!(w, [sp::OK, 5, 0]);
        assert_eq!(
            s.answer(&req(
                sp::PUTS,
                &[&id.to_le_bytes(), &2u16.to_le_bytes(), b"cd"]
            ))[0],
            sp::OK
        );
        assert_eq!(s.files["out/ray.ppm"], b"P6\nabcd\n");
        assert_eq!(s.written, ["out/ray.ppm"]);
        // A write-only stream cannot be read; FERROR says so.
        assert_eq!(
            s.answer(&req(sp::READ, &[&id.to_le_bytes(), &4u16.to_le_bytes()]))[0],
            sp::ERROR
        );
        assert_eq!(s.answer(&req(sp::FERROR, &[&id.to_le_bytes()]))[1], 1);
        assert_eq!(s.answer(&req(sp::CLOSE, &[&id.to_le_bytes()]))[0], sp::OK);
        // Read it back a line at a time, seek, tell, end of file.
        let open = s.answer(&req(sp::OPEN, &[&s16("out/ray.ppm"), &[2, 1]]));
        let id = i32::from_le_bytes([open[1], open[2], open[3], open[4]]);
        let line = s.answer(&req(sp::GETS, &[&id.to_le_bytes(), &80u16.to_le_bytes()]));
        assert_eq!(line, [&[sp::OK, 2, 0][..], b"P6"].concat());
        let seek = s.answer(&req(
            sp::SEEK,
            &[
                &id.to_le_bytes(),
                &(-2i32).to_le_bytes(),
                &3i32.to_le_bytes(),
            ],
        ));
        assert_eq!(seek[0], sp::OK);
        let tell = s.answer(&req(sp::TELL, &[&id.to_le_bytes()]));
        assert_eq!(tell[1..5], 6i32.to_le_bytes());
        let rest = s.answer(&req(sp::READ, &[&id.to_le_bytes(), &10u16.to_le_bytes()]));
        assert_eq!(rest, [&[sp::OK, 2, 0][..], b"d\n"].concat());
        assert_eq!(s.answer(&req(sp::EOF, &[&id.to_le_bytes()]))[0], sp::OK);
        // Rename and remove; a missing file does not open for input.
        assert_eq!(
            s.answer(&req(sp::RENAME, &[&s16("out/ray.ppm"), &s16("ray.ppm")]))[0],
            sp::OK
        );
        assert!(s.files.contains_key("ray.ppm"));
        assert_eq!(
            s.answer(&req(sp::OPEN, &[&s16("nothing"), &[1, 1]]))[0],
            sp::ERROR
        );
        assert_eq!(s.answer(&req(sp::REMOVE, &[&s16("ray.ppm")]))[0], sp::OK);
        assert!(s.files.is_empty());
    }

    #[test]
    fn names_outside_the_sandbox_are_refused() {
        for name in [
            "../etc/passwd",
            "/etc/passwd",
            "a/../../b",
            "C:\\x",
            "a//b",
            "",
        ] {
            assert!(!safe_name(name), "{name}");
        }
        assert!(safe_name("out/ray.ppm"));
        let mut s = Server::default();
        assert_eq!(
            s.answer(&req(sp::OPEN, &[&s16("../x"), &[1, 2]]))[0],
            sp::ERROR
        );
        assert!(s.files.is_empty());
    }

    #[test]
    fn keys_environment_time_id_system_and_bad_requests() {
        let mut s = Server::new("", b"42\rx");
        s.board_size = 2 * 1024 * 1024;
        s.seconds = 5;
        // Standard input a line at a time, then a key.
        let line = s.answer(&req(sp::GETS, &[&0i32.to_le_bytes(), &80u16.to_le_bytes()]));
        assert_eq!(line, [&[sp::OK, 2, 0][..], b"42"].concat());
        assert_eq!(s.answer(&[sp::GETKEY]), [sp::OK, b'x']);
        assert_eq!(s.answer(&[sp::POLLKEY]), [sp::ERROR], "no key left");
        let env = s.answer(&req(sp::GETENV, &[&s16("IBOARDSIZE")]));
        assert_eq!(env, [&[sp::OK, 7, 0][..], b"#200000"].concat());
        assert_eq!(s.answer(&req(sp::GETENV, &[&s16("PATH")]))[0], sp::ERROR);
        assert_eq!(s.answer(&[sp::TIME])[1..5], (EPOCH + 5).to_le_bytes());
        assert_eq!(s.answer(&[sp::ID]), [sp::OK, 20, 1, 1, 1]);
        assert_eq!(
            s.answer(&req(sp::SYSTEM, &[&s16("rm -rf /")])),
            [sp::ERROR, 255, 255, 255, 255]
        );
        // Truncated requests are errors, not panics.
        for body in [
            &[sp::OPEN][..],
            &[sp::READ, 1],
            &[sp::WRITE, 3, 0, 0, 0, 9],
            &[sp::SEEK, 3],
        ] {
            assert_eq!(s.answer(body)[0], sp::ERROR, "{body:?}");
        }
        assert_eq!(s.answer(&[99]), [sp::NOT_IMPLEMENTED]);
    }
}
