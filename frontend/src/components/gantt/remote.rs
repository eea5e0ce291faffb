//! Where the chart's bars and messages come from: the run's own level-of-detail index when the
//! browser holds the run, or the server's viewport API for large runs.
//!
//! Remote answers are asked for on the shared quantised grid
//! (`shared::view::viewport::ViewportRequest::quantised`), so panning and zooming reuse them; while an
//! answer is on its way the chart draws the last one it has for the same rows, at that
//! answer's own coordinates (so it lines up, only coarser or shorter).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use shared::view::viewport::{Viewport, ViewportIndex, ViewportRequest};

/// A source of viewport answers.
pub trait Views {
    /// The answer to `request`, or the best one at hand; `None` when there is none yet.
    fn view(&self, request: &ViewportRequest) -> Option<Arc<Viewport>>;
}

impl Views for ViewportIndex {
    fn view(&self, request: &ViewportRequest) -> Option<Arc<Viewport>> {
        self.query(request).ok().map(Arc::new)
    }
}

/// How many answers are kept.
const KEPT: usize = 64;

type Key = (u64, u64, u32, u32, u32);

fn key(r: &ViewportRequest) -> Key {
    (r.start, r.end, r.first_row, r.last_row, r.width_px)
}

/// Answers fetched from the server, and the requests a frame wanted but did not find.
#[derive(Debug, Default)]
pub struct RemoteViews {
    answers: RefCell<HashMap<Key, (u64, Arc<Viewport>)>>,
    /// The newest answer for each row range, drawn while a better one loads.
    latest: RefCell<HashMap<(u32, u32), Arc<Viewport>>>,
    wanted: RefCell<Vec<ViewportRequest>>,
    clock: RefCell<u64>,
}

impl RemoteViews {
    /// Keeps the server's answer to `request`.
    pub fn insert(&self, request: &ViewportRequest, view: Viewport) {
        let view = Arc::new(view);
        let mut clock = self.clock.borrow_mut();
        *clock += 1;
        let mut answers = self.answers.borrow_mut();
        answers.insert(key(request), (*clock, Arc::clone(&view)));
        if answers.len() > KEPT
            && let Some(oldest) = answers.iter().min_by_key(|(_, (t, _))| *t).map(|(k, _)| *k)
        {
            answers.remove(&oldest);
        }
        self.latest
            .borrow_mut()
            .insert((request.first_row, request.last_row), view);
    }

    /// Whether a frame since the last [`RemoteViews::take_wanted`] asked for an answer that is
    /// not here (it drew a coarser one, or nothing).
    pub fn has_wanted(&self) -> bool {
        !self.wanted.borrow().is_empty()
    }

    /// The requests asked for since the last call and not answered, each once.
    pub fn take_wanted(&self) -> Vec<ViewportRequest> {
        let mut wanted = std::mem::take(&mut *self.wanted.borrow_mut());
        wanted.dedup();
        wanted
    }
}

impl Views for RemoteViews {
    fn view(&self, request: &ViewportRequest) -> Option<Arc<Viewport>> {
        let q = ViewportRequest::quantised(
            request.start,
            request.end,
            request.first_row,
            request.last_row,
            request.width_px,
        );
        if let Some((_, view)) = self.answers.borrow_mut().get_mut(&key(&q)) {
            let mut clock = self.clock.borrow_mut();
            *clock += 1;
            return Some(Arc::clone(view));
        }
        self.wanted.borrow_mut().push(q);
        self.latest
            .borrow()
            .get(&(request.first_row, request.last_row))
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_answer_is_wanted_once_and_then_served_from_the_grid() {
        let trace = super::super::test_data::worked_example();
        let index = super::super::model::GanttModel::new(&trace).index;
        let remote = RemoteViews::default();
        let request = ViewportRequest {
            start: 3,
            end: 60,
            first_row: 0,
            last_row: 1,
            width_px: 500,
        };
        assert!(remote.view(&request).is_none());
        assert!(remote.view(&request).is_none());
        let wanted = remote.take_wanted();
        assert_eq!(wanted.len(), 1, "{wanted:?}");
        // One tick a pixel: the 256-px tile from tick 0.
        assert_eq!(
            (wanted[0].start, wanted[0].end, wanted[0].width_px),
            (0, 256, 256)
        );
        let answer = index.query(&wanted[0]).expect("answers");
        remote.insert(&wanted[0], answer.clone());
        assert_eq!(remote.view(&request).as_deref(), Some(&answer));
        // Panned a little: the same tiles answer, nothing more is wanted.
        let panned = ViewportRequest {
            start: 10,
            end: 67,
            ..request
        };
        assert_eq!(remote.view(&panned).as_deref(), Some(&answer));
        assert!(remote.take_wanted().is_empty());
        // Zoomed out: a new answer is wanted, the old one is drawn meanwhile.
        let zoomed = ViewportRequest {
            start: 0,
            end: 69,
            width_px: 20,
            ..request
        };
        assert_eq!(remote.view(&zoomed).as_deref(), Some(&answer));
        assert_eq!(remote.take_wanted().len(), 1);
    }
}
