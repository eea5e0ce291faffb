//! The model's integer ids: each indexes one of the trace's vectors.

use serde::{Deserialize, Serialize};

/// An id as its `u32`, for columns that store ids raw.
pub trait RawId: Copy {
    /// The id of a raw value.
    fn from_raw(raw: u32) -> Self;
    /// The id's raw value.
    fn raw(self) -> u32;
}

/// A plain index (a phase number, say) is its own raw value.
impl RawId for u32 {
    fn from_raw(raw: u32) -> Self {
        raw
    }

    fn raw(self) -> u32 {
        self
    }
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into the model's vectors.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl RawId for $name {
            fn from_raw(raw: u32) -> Self {
                $name(raw)
            }

            fn raw(self) -> u32 {
                self.0
            }
        }
    };
}

id_type!(
    /// A processor of the machine (a transputer, an MPI host).
    NodeId
);
id_type!(
    /// A process (an MPI rank, a transputer process), placed on one node.
    ProcessId
);
id_type!(
    /// An event's index in the trace's event arrays.
    EventIdx
);
id_type!(
    /// An interned string in [`Trace::strings`].
    StrId
);
id_type!(
    /// A named code region (an activity or a phase) in [`Trace::regions`].
    RegionId
);
id_type!(
    /// A point-to-point link between two nodes in [`Trace::links`].
    LinkId
);
