//! Memory, the workspace and the evaluation stack: byte and word access with bounds
//! checks, workspace slots, push and pop, block copies.

use super::*;

/// Whole words holding `bytes` bytes.
pub(super) fn words(bytes: u32) -> u32 {
    bytes.div_ceil(4)
}

impl Node {
    #[inline(always)]
    pub(super) fn index(&self, address: u32) -> Result<usize, SimError> {
        let offset = address.wrapping_sub(NOT_PROCESS) as usize & self.alias_mask;
        if offset < self.memory.len() {
            Ok(offset)
        } else {
            Err(self.memory_error(address))
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn memory_error(&self, address: u32) -> SimError {
        SimError::Memory {
            address,
            size: self.memory_size(),
            iptr: self.iptr,
        }
    }

    /// The byte at `address`.
    #[inline]
    pub fn read_byte(&self, address: u32) -> Result<u8, SimError> {
        Ok(self.memory[self.index(address)?])
    }

    /// Writes the byte at `address`.
    #[inline]
    pub fn write_byte(&mut self, address: u32, value: u8) -> Result<(), SimError> {
        let k = self.index(address)?;
        if self.journaling {
            self.journal.note(&self.memory, k, k + 1);
        }
        self.memory[k] = value;
        Ok(())
    }

    /// The word at `address` (rounded down to a word boundary), little-endian.
    #[inline(always)]
    pub fn read_word(&self, address: u32) -> Result<u32, SimError> {
        let k = (address.wrapping_sub(NOT_PROCESS) & !3) as usize & self.alias_mask;
        // `k + 4` cannot overflow once `k` is inside the memory.
        match self
            .memory
            .get(k.min(self.memory.len())..)
            .and_then(|m| m.get(..4))
        {
            Some(&[b0, b1, b2, b3]) => Ok(u32::from_le_bytes([b0, b1, b2, b3])),
            _ => Err(self.memory_error(address)),
        }
    }

    /// Writes the word at `address` (rounded down to a word boundary).
    #[inline(always)]
    pub fn write_word(&mut self, address: u32, value: u32) -> Result<(), SimError> {
        let k = (address.wrapping_sub(NOT_PROCESS) & !3) as usize & self.alias_mask;
        let len = self.memory.len();
        if self.journaling && k < len {
            // A word's address is a multiple of 4: its bytes lie in one block.
            self.journal.note_block(&self.memory, k);
        }
        match self
            .memory
            .get_mut(k.min(len)..)
            .and_then(|m| m.get_mut(..4))
        {
            Some(word) => {
                word.copy_from_slice(&value.to_le_bytes());
                Ok(())
            }
            None => Err(self.memory_error(address)),
        }
    }

    #[inline]
    pub(super) fn ws(&self, wptr: u32, slot: i32) -> u32 {
        wptr.wrapping_add((slot * 4) as u32)
    }

    #[inline]
    pub(super) fn wdesc(&self) -> u32 {
        self.wptr | self.pri
    }

    #[inline]
    pub(super) fn push(&mut self, value: u32) {
        self.c = self.b;
        self.b = self.a;
        self.a = value;
    }

    #[inline]
    pub(super) fn pop(&mut self) -> u32 {
        let a = self.a;
        self.a = self.b;
        self.b = self.c;
        a
    }

    pub(super) fn copy(&mut self, from: u32, to: u32, len: u32) -> Result<(), SimError> {
        // Offsets in memory, aliased as single bytes are: a block that lies in memory from
        // its aliased start is the block the bytes one by one would copy.
        let (f, t, n) = (
            from.wrapping_sub(NOT_PROCESS) as usize & self.alias_mask,
            to.wrapping_sub(NOT_PROCESS) as usize & self.alias_mask,
            len as usize,
        );
        let size = self.memory.len();
        let inside = |at: usize| at <= size && n <= size - at;
        if inside(f) && inside(t) && (f + n <= t || t + n <= f) {
            // Both blocks in memory and apart: one move.
            if self.journaling && n > 0 {
                self.journal.note(&self.memory, t, t + n);
            }
            self.memory.copy_within(f..f + n, t);
            return Ok(());
        }
        // Overlapping blocks are copied a byte at a time, lowest address first; a block that
        // leaves memory fails at its first byte outside.
        for k in 0..len {
            let byte = self.read_byte(from.wrapping_add(k))?;
            self.write_byte(to.wrapping_add(k), byte)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Chip;

    /// 48 KB installed: addresses alias every 64 KB, the last 16 KB of each 64 are not there.
    fn aliased_node() -> Node {
        let mut node = Node::new(Chip::T800, 20_000_000, 48 * 1024);
        node.set_aliasing(false);
        for k in 0..48 * 1024u32 {
            node.write_byte(NOT_PROCESS.wrapping_add(k), (k * 7 + k / 256) as u8)
                .expect("installed");
        }
        node
    }

    #[test]
    fn a_block_copied_through_aliased_addresses_moves_what_bytes_one_by_one_would() {
        let at = |offset: u32| NOT_PROCESS.wrapping_add(offset);
        let alias = 64 * 1024;
        for (from, to, len) in [
            (at(alias + 0x100), at(0x200), 4),
            (at(0x100), at(3 * alias + 0x2000), 16),
            (at(alias + 0x100), at(0x102), 8),
            (at(0x102), at(alias + 0x100), 8),
            (at(2 * alias + 0x100), at(0x100), 64),
            (at(48 * 1024 - 2), at(0x100), 4),
            (at(0x100), at(alias - 2), 4),
            (at(alias - 1), at(0x100), 2),
        ] {
            let (mut block, mut bytes) = (aliased_node(), aliased_node());
            let moved = block.copy(from, to, len);
            let one_by_one = (0..len).try_for_each(|k| {
                let byte = bytes.read_byte(from.wrapping_add(k))?;
                bytes.write_byte(to.wrapping_add(k), byte)
            });
            assert_eq!(
                moved.is_ok(),
                one_by_one.is_ok(),
                "{from:#x} -> {to:#x}, {len}"
            );
            assert!(
                block.memory == bytes.memory,
                "{from:#x} -> {to:#x}, {len}: memories differ"
            );
        }
    }
}
