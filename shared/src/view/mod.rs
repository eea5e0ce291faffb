//! What the views exchange: the Gantt chart's level of detail, the Hasse diagram, the topology, permalink view states, analyses
//! of a selection, and the JSON API's wire types.

pub mod api;
pub mod compare;
pub mod hasse;
pub mod lod;
pub mod selection;
pub mod state;
pub mod topology;
pub mod viewport;
