//! [`Sizes`]: a column of message sizes in 4 bytes an event, where `Vec<u64>` takes 8.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The raw value that says "look in the large sizes".
const LARGE: u32 = u32::MAX;

/// A column of sizes in bytes, 4 bytes each: a size of 4 GiB or more (rare) is kept beside,
/// by index. It serializes as a sequence of numbers, exactly as `Vec<u64>` did, so stored
/// models, the native binary format and the API are unchanged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sizes {
    raw: Vec<u32>,
    /// (index, size) of the sizes of `LARGE` or more, by index.
    large: Vec<(u32, u64)>,
}

impl Sizes {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The size of entry `i`; panics past the end, as indexing a slice does.
    pub fn at(&self, i: usize) -> u64 {
        match self.raw[i] {
            LARGE => self.large_at(i),
            small => u64::from(small),
        }
    }

    /// Entry `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<u64> {
        (i < self.raw.len()).then(|| self.at(i))
    }

    /// The sizes in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.raw.len()).map(|i| self.at(i))
    }

    fn large_at(&self, i: usize) -> u64 {
        self.large
            .binary_search_by_key(&(i as u32), |&(at, _)| at)
            .map_or(u64::from(LARGE), |k| self.large[k].1)
    }

    pub(crate) fn push(&mut self, size: u64) {
        match u32::try_from(size) {
            Ok(small) if small != LARGE => self.raw.push(small),
            _ => {
                self.large.push((self.raw.len() as u32, size));
                self.raw.push(LARGE);
            }
        }
    }

    pub(crate) fn reserve(&mut self, n: usize) {
        self.raw.reserve(n);
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.raw.shrink_to_fit();
        self.large.shrink_to_fit();
    }

    /// The heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.raw.capacity() * std::mem::size_of::<u32>()
            + self.large.capacity() * std::mem::size_of::<(u32, u64)>()
    }
}

impl FromIterator<u64> for Sizes {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut sizes = Sizes::default();
        sizes.raw.reserve_exact(iter.size_hint().0);
        for size in iter {
            sizes.push(size);
        }
        sizes
    }
}

impl Serialize for Sizes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Sizes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Vec::<u64>::deserialize(deserializer)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_sizes_read_back_and_serialize_as_numbers() {
        let values = [
            0,
            1,
            u64::from(u32::MAX) - 1,
            u64::from(u32::MAX),
            1 << 40,
            7,
            u64::MAX,
        ];
        let sizes: Sizes = values.iter().copied().collect();
        assert_eq!(sizes.iter().collect::<Vec<_>>(), values);
        assert_eq!(sizes.get(6), Some(u64::MAX));
        assert_eq!(sizes.get(7), None);
        assert_eq!(
            sizes.large.len(),
            3,
            "only the sizes of 2^32 − 1 and more are kept beside"
        );
        let json = serde_json::to_string(&sizes).expect("serializes");
        assert_eq!(json, serde_json::to_string(&values).expect("serializes"));
        assert_eq!(serde_json::from_str::<Sizes>(&json).expect("reads"), sizes);
        let bytes = postcard::to_allocvec(&sizes).expect("serializes");
        assert_eq!(
            bytes,
            postcard::to_allocvec(&values.to_vec()).expect("serializes")
        );
    }
}
