//! The memory a node had before it was written: for taking a node back to a checkpoint (see
//! [`crate::cpu::checkpoint`]) without copying its whole memory.

/// Bytes of memory saved at a time: the first write to a block after a checkpoint saves the
/// whole block, so a loop writing the same few words costs one save each, and the journal
/// stays as small as the memory the node touches.
const BLOCK: usize = 64;

/// The blocks written since the checkpoint: a bit for each block, and each block's bytes as
/// they were.
#[derive(Debug, Clone, Default)]
pub struct Journal {
    pub(crate) written: Vec<u64>,
    pub(crate) saved: Vec<(u32, [u8; BLOCK])>,
}

impl Journal {
    /// Notes that `memory[from..to]` is about to change (`from < to`).
    #[inline(always)]
    pub fn note(&mut self, memory: &[u8], from: usize, to: usize) {
        for block in from / BLOCK..=(to - 1) / BLOCK {
            let (word, bit) = (block / 64, 1u64 << (block % 64));
            if self.written[word] & bit == 0 {
                self.written[word] |= bit;
                self.save(memory, block);
            }
        }
    }

    /// As [`Journal::note`] for a write inside one block (a word, at a word's address).
    #[inline(always)]
    pub fn note_block(&mut self, memory: &[u8], at: usize) {
        let block = at / BLOCK;
        let (word, bit) = (block / 64, 1u64 << (block % 64));
        match self.written.get(word) {
            Some(&w) if w & bit != 0 => {}
            _ => self.first_write(memory, block),
        }
    }

    /// The first write to `block` since the journal started.
    #[cold]
    #[inline(never)]
    fn first_write(&mut self, memory: &[u8], block: usize) {
        if let Some(w) = self.written.get_mut(block / 64) {
            *w |= 1u64 << (block % 64);
            self.save(memory, block);
        }
    }

    #[inline(never)]
    fn save(&mut self, memory: &[u8], block: usize) {
        let start = block * BLOCK;
        let end = (start + BLOCK).min(memory.len());
        let mut bytes = [0; BLOCK];
        bytes[..end - start].copy_from_slice(&memory[start..end]);
        self.saved.push((block as u32, bytes));
    }

    /// Starts noting writes to a memory of `len` bytes.
    pub fn start(&mut self, len: usize) {
        self.written.resize(len.div_ceil(BLOCK).div_ceil(64), 0);
    }

    /// Forgets the writes (their blocks are as they should be).
    pub fn clear(&mut self) {
        for (block, _) in self.saved.drain(..) {
            self.written[block as usize / 64] = 0;
        }
    }

    /// Puts the saved blocks back into `memory`.
    pub fn undo(&mut self, memory: &mut [u8]) {
        for (block, bytes) in self.saved.drain(..) {
            let block = block as usize;
            self.written[block / 64] = 0;
            let start = block * BLOCK;
            let end = (start + BLOCK).min(memory.len());
            memory[start..end].copy_from_slice(&bytes[..end - start]);
        }
    }
}
