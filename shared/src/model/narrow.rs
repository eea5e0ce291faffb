//! Narrow columns: [`Sizes`] (message sizes in 4 bytes an event, where `Vec<u64>` takes 8) and
//! [`Tags`] (tags in 2 bytes, where `Vec<u32>` takes 4), each keeping its rare wide values
//! beside, by index; and [`Requests`] (non-blocking receive requests, which few events have,
//! kept by event index only where they are).

use std::marker::PhantomData;
use std::num::NonZeroU32;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A raw narrow value and the wide value it stands for.
pub trait Narrowing: Copy + Eq + Into<Self::Wide> + TryFrom<Self::Wide> {
    /// The values the column holds.
    type Wide: Copy + Ord + Serialize + for<'de> Deserialize<'de>;
    /// The raw value that says "look beside".
    const ESCAPE: Self;
}

impl Narrowing for u32 {
    type Wide = u64;
    const ESCAPE: u32 = u32::MAX;
}

impl Narrowing for u16 {
    type Wide = u32;
    const ESCAPE: u16 = u16::MAX;
}

/// A column of wide values kept narrow: a value that does not fit (rare) is kept beside, by
/// index. It serializes as a sequence of the wide values, exactly as `Vec<Wide>` did, so stored
/// models, the native binary format and the API are unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrow<R: Narrowing> {
    raw: Vec<R>,
    /// (index, value) of the values that do not fit, by index.
    wide: Vec<(u32, R::Wide)>,
}

/// Message sizes in bytes, 4 bytes each (a size of 4 GiB or more is kept beside).
pub type Sizes = Narrow<u32>;

/// Message and probe tags (and collective communicators), 2 bytes each (a tag of 65,535 or
/// more is kept beside).
pub type Tags = Narrow<u16>;

impl<R: Narrowing> Default for Narrow<R> {
    fn default() -> Self {
        Narrow {
            raw: Vec::new(),
            wide: Vec::new(),
        }
    }
}

impl<R: Narrowing> Narrow<R> {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The value of entry `i`; panics past the end, as indexing a slice does.
    pub fn at(&self, i: usize) -> R::Wide {
        let raw = self.raw[i];
        if raw == R::ESCAPE {
            self.wide_at(i)
        } else {
            raw.into()
        }
    }

    /// Entry `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<R::Wide> {
        (i < self.raw.len()).then(|| self.at(i))
    }

    /// The values in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = R::Wide> + '_ {
        (0..self.raw.len()).map(|i| self.at(i))
    }

    fn wide_at(&self, i: usize) -> R::Wide {
        self.wide
            .binary_search_by_key(&(i as u32), |&(at, _)| at)
            .map_or(R::ESCAPE.into(), |k| self.wide[k].1)
    }

    pub(crate) fn push(&mut self, value: R::Wide) {
        match R::try_from(value) {
            Ok(narrow) if narrow != R::ESCAPE => self.raw.push(narrow),
            _ => {
                self.wide.push((self.raw.len() as u32, value));
                self.raw.push(R::ESCAPE);
            }
        }
    }

    pub(crate) fn reserve(&mut self, n: usize) {
        self.raw.reserve(n);
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.raw.shrink_to_fit();
        self.wide.shrink_to_fit();
    }

    /// The heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.raw.capacity() * std::mem::size_of::<R>()
            + self.wide.capacity() * std::mem::size_of::<(u32, R::Wide)>()
    }
}

impl<R: Narrowing> FromIterator<R::Wide> for Narrow<R> {
    fn from_iter<I: IntoIterator<Item = R::Wide>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut column = Narrow::default();
        column.raw.reserve_exact(iter.size_hint().0);
        for value in iter {
            column.push(value);
        }
        column
    }
}

impl<R: Narrowing> Serialize for Narrow<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// Reads a sequence an element at a time into a column (no intermediate vector).
struct ColumnVisitor<C, T>(PhantomData<(C, T)>);

impl<'de, C, T> Visitor<'de> for ColumnVisitor<C, T>
where
    C: Default + Extend<T>,
    T: Deserialize<'de>,
{
    type Value = C;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<C, A::Error> {
        let mut column = C::default();
        while let Some(value) = seq.next_element::<T>()? {
            column.extend(std::iter::once(value));
        }
        Ok(column)
    }
}

impl<R: Narrowing> Extend<R::Wide> for Narrow<R> {
    fn extend<I: IntoIterator<Item = R::Wide>>(&mut self, iter: I) {
        for value in iter {
            self.push(value);
        }
    }
}

impl<'de, R: Narrowing> Deserialize<'de> for Narrow<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(ColumnVisitor::<Narrow<R>, R::Wide>(PhantomData))
    }
}

/// Each event's non-blocking receive request, kept only for the events that have one (a
/// `recv_post` and its completing `msg_arr`), by index. It serializes as a sequence of `null`
/// or the request, one per event, exactly as `Vec<Option<NonZeroU32>>` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requests {
    len: usize,
    /// The events that have a request, ascending.
    at: Vec<u32>,
    /// Their requests.
    request: Vec<NonZeroU32>,
}

impl Requests {
    /// The number of events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The request of event `i`, if it has one (`None` past the end too).
    pub fn at(&self, i: usize) -> Option<NonZeroU32> {
        let i = u32::try_from(i).ok()?;
        self.at.binary_search(&i).ok().map(|k| self.request[k])
    }

    /// The events that have a request, with it, by index.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (usize, NonZeroU32)> + '_ {
        self.at
            .iter()
            .zip(&self.request)
            .map(|(&i, &r)| (i as usize, r))
    }

    /// Every event's request or `None`, in order.
    pub fn iter(&self) -> impl Iterator<Item = Option<NonZeroU32>> + '_ {
        let mut next = 0;
        (0..self.len).map(move |i| match self.at.get(next) {
            Some(&at) if at as usize == i => {
                next += 1;
                Some(self.request[next - 1])
            }
            _ => None,
        })
    }

    pub(crate) fn push(&mut self, request: Option<NonZeroU32>) {
        if let Some(request) = request {
            self.at.push(self.len as u32);
            self.request.push(request);
        }
        self.len += 1;
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.at.shrink_to_fit();
        self.request.shrink_to_fit();
    }

    /// The heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        (self.at.capacity() + self.request.capacity()) * std::mem::size_of::<u32>()
    }
}

impl FromIterator<Option<NonZeroU32>> for Requests {
    fn from_iter<I: IntoIterator<Item = Option<NonZeroU32>>>(iter: I) -> Self {
        let mut requests = Requests::default();
        requests.extend(iter);
        requests
    }
}

impl Extend<Option<NonZeroU32>> for Requests {
    fn extend<I: IntoIterator<Item = Option<NonZeroU32>>>(&mut self, iter: I) {
        for request in iter {
            self.push(request);
        }
    }
}

impl Serialize for Requests {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Requests {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(ColumnVisitor::<Requests, Option<NonZeroU32>>(PhantomData))
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
            sizes.wide.len(),
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

    #[test]
    fn tags_and_requests_read_back_and_serialize_as_before() {
        let tags = [0u32, 7, 65_534, 65_535, 1 << 20, u32::MAX, 3];
        let column: Tags = tags.iter().copied().collect();
        assert_eq!(column.iter().collect::<Vec<_>>(), tags);
        assert_eq!(
            column.wide.len(),
            3,
            "only tags of 65,535 and more are kept beside"
        );
        assert!(column.heap_bytes() <= 2 * tags.len() + 3 * 8 + 16);
        let json = serde_json::to_string(&column).expect("serializes");
        assert_eq!(json, serde_json::to_string(&tags).expect("serializes"));
        assert_eq!(serde_json::from_str::<Tags>(&json).expect("reads"), column);
        let bytes = postcard::to_allocvec(&column).expect("serializes");
        assert_eq!(
            bytes,
            postcard::to_allocvec(&tags.to_vec()).expect("serializes")
        );
        assert_eq!(postcard::from_bytes::<Tags>(&bytes).expect("reads"), column);

        let requests: Vec<Option<NonZeroU32>> = [
            None,
            NonZeroU32::new(5),
            None,
            None,
            NonZeroU32::new(u32::MAX),
            None,
        ]
        .to_vec();
        let column: Requests = requests.iter().copied().collect();
        assert_eq!(column.len(), 6);
        assert_eq!(column.iter().collect::<Vec<_>>(), requests);
        assert_eq!(
            (0..7).map(|i| column.at(i)).collect::<Vec<_>>()[..6],
            requests[..]
        );
        assert_eq!(column.at(6), None);
        assert_eq!(
            column.entries().collect::<Vec<_>>(),
            [(1, NonZeroU32::new(5).expect("5")), (4, NonZeroU32::MAX)]
        );
        let json = serde_json::to_string(&column).expect("serializes");
        assert_eq!(json, serde_json::to_string(&requests).expect("serializes"));
        assert_eq!(
            serde_json::from_str::<Requests>(&json).expect("reads"),
            column
        );
        let bytes = postcard::to_allocvec(&column).expect("serializes");
        assert_eq!(bytes, postcard::to_allocvec(&requests).expect("serializes"));
        assert_eq!(
            postcard::from_bytes::<Requests>(&bytes).expect("reads"),
            column
        );
    }
}
