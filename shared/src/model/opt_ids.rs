//! [`OptIds`]: a column of optional ids in 4 bytes an event, where `Vec<Option<u32>>` takes 8.

use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ids::RawId;

/// The raw value that stands for no id. No id reaches it: ids index vectors the builder numbers
/// with `u32`, so the largest possible one is `u32::MAX - 1`.
const NONE: u32 = u32::MAX;

/// A column of optional ids (an event's peer, text or region), 4 bytes each. It serializes as a
/// sequence of `null` or the id, exactly as `Vec<Option<Id>>` did, so stored models, the native
/// binary format and the API are unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptIds<T> {
    raw: Vec<u32>,
    id: PhantomData<T>,
}

impl<T> Default for OptIds<T> {
    fn default() -> Self {
        OptIds {
            raw: Vec::new(),
            id: PhantomData,
        }
    }
}

impl<T: RawId> OptIds<T> {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The id of entry `i`, or `None`; panics past the end, as indexing a slice does.
    pub fn at(&self, i: usize) -> Option<T> {
        decode(self.raw[i])
    }

    /// Entry `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<Option<T>> {
        self.raw.get(i).map(|&r| decode(r))
    }

    /// The entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<T>> + '_ {
        self.raw.iter().map(|&r| decode(r))
    }

    /// `n` entries, all `None`.
    pub fn none(n: usize) -> Self {
        OptIds {
            raw: vec![NONE; n],
            id: PhantomData,
        }
    }

    /// Sets entry `i`; panics past the end, as indexing a slice does.
    pub fn set(&mut self, i: usize, id: Option<T>) {
        self.raw[i] = id.map_or(NONE, T::raw);
    }

    pub(crate) fn push(&mut self, id: Option<T>) {
        self.raw.push(id.map_or(NONE, T::raw));
    }

    pub(crate) fn reserve(&mut self, n: usize) {
        self.raw.reserve(n);
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.raw.shrink_to_fit();
    }

    /// The heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.raw.capacity() * std::mem::size_of::<u32>()
    }
}

fn decode<T: RawId>(raw: u32) -> Option<T> {
    (raw != NONE).then(|| T::from_raw(raw))
}

impl<T: RawId> FromIterator<Option<T>> for OptIds<T> {
    fn from_iter<I: IntoIterator<Item = Option<T>>>(iter: I) -> Self {
        OptIds {
            raw: iter.into_iter().map(|id| id.map_or(NONE, T::raw)).collect(),
            id: PhantomData,
        }
    }
}

impl<T: RawId> Serialize for OptIds<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.raw.iter().map(|&r| (r != NONE).then_some(r)))
    }
}

impl<'de, T: RawId> Deserialize<'de> for OptIds<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let ids = Vec::<Option<u32>>::deserialize(deserializer)?;
        if ids.contains(&Some(NONE)) {
            return Err(serde::de::Error::custom(format!(
                "id {NONE} is beyond the largest id a model can hold"
            )));
        }
        Ok(OptIds {
            raw: ids.into_iter().map(|id| id.unwrap_or(NONE)).collect(),
            id: PhantomData,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProcessId;

    #[test]
    fn serializes_as_a_list_of_optional_ids_and_refuses_the_reserved_one() {
        let ids: OptIds<ProcessId> = [Some(ProcessId(3)), None, Some(ProcessId(0))]
            .into_iter()
            .collect();
        assert_eq!(ids.at(0), Some(ProcessId(3)));
        assert_eq!(ids.at(1), None);
        assert_eq!(ids.get(3), None);
        let json = serde_json::to_string(&ids).expect("serializes");
        assert_eq!(json, "[3,null,0]");
        let plain: Vec<Option<ProcessId>> = serde_json::from_str(&json).expect("a list");
        assert_eq!(ids.iter().collect::<Vec<_>>(), plain);
        let bytes = postcard::to_allocvec(&ids).expect("serializes");
        assert_eq!(bytes, postcard::to_allocvec(&plain).expect("serializes"));
        assert_eq!(
            postcard::from_bytes::<OptIds<ProcessId>>(&bytes).expect("reads"),
            ids
        );
        let err = serde_json::from_str::<OptIds<ProcessId>>("[4294967295]").expect_err("reserved");
        assert!(err.to_string().contains("beyond the largest id"), "{err}");
    }
}
