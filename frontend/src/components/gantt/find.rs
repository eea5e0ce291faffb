//! Overlays that find their subject: when the critical path, the WCPA or the wait states are
//! switched on and none of them is in the rows in view, the chart scrolls to the row where most
//! of their time in the window lies.

use leptos::prelude::*;
use shared::view::state::{Overlay, PathName};

use super::chart::Chart;
use super::rows::Rows;
use super::scene::geometry::Geometry;
use super::scene::overlays::{PathBar, WaitBar};
use crate::workspace::Command;

/// The row holding the most of the bars' time inside `[from, to]`, with that time; `None` when
/// no bar reaches into the window on a shown row.
pub fn heaviest_row(
    rows: &Rows,
    bars: impl Iterator<Item = (usize, u64, u64)>,
    (from, to): (u64, u64),
) -> Option<usize> {
    let mut weight = vec![0u64; rows.n_rows()];
    for (process, start, end) in bars {
        let (start, end) = (start.max(from), end.min(to));
        if let Some(row) = rows.row_of(process)
            && start <= end
        {
            // A point-like bar still counts: it is something to see.
            weight[row] += end - start + 1;
        }
    }
    let (row, &most) = weight
        .iter()
        .enumerate()
        .max_by_key(|&(r, w)| (*w, usize::MAX - r))?;
    (most > 0).then_some(row)
}

/// The bars of a path as (process, start, end), both ends of a message's transit.
fn path_spans(bars: &[PathBar]) -> impl Iterator<Item = (usize, u64, u64)> + '_ {
    bars.iter().flat_map(|b| {
        let other = (b.from != b.to).then_some((b.to, b.start, b.end));
        std::iter::once((b.from, b.start, b.end)).chain(other)
    })
}

fn wait_spans(bars: &[WaitBar]) -> impl Iterator<Item = (usize, u64, u64)> + '_ {
    bars.iter().map(|w| (w.process, w.start, w.end))
}

/// The top row that shows `row` when it is out of view (one row of context above it), or
/// `None` when it is in view already.
pub fn scroll_for(g: &Geometry, n_rows: usize, row: usize) -> Option<u32> {
    let (first, last) = g.visible_rows(n_rows)?;
    // The last visible row may be cut by the canvas's edge: count it as out of view.
    (row < first || row + 1 > last).then(|| row.saturating_sub(1) as u32)
}

/// Scrolls to each overlay's subject once when it is switched on and its data is in.
pub fn follow_overlays(chart: &Chart) {
    let found = StoredValue::new(Vec::<Overlay>::new());
    let chart = chart.clone();
    let overlays = Memo::new({
        let store = chart.store;
        move |_| store.with(|ws| ws.overlays.clone())
    });
    Effect::new(move |_| {
        let on = overlays.get();
        let paths = chart.paths.get();
        let waits = chart.waits.get();
        found.update_value(|f| f.retain(|o| on.contains(o)));
        for overlay in on {
            if found.with_value(|f| f.contains(&overlay)) {
                continue;
            }
            let window = chart.store.with_untracked(|ws| ws.window);
            let rows = chart.rows.get_untracked();
            let target = match overlay {
                Overlay::CriticalPath | Overlay::Wcpa => {
                    let name = if overlay == Overlay::Wcpa {
                        PathName::Wcpa
                    } else {
                        PathName::CriticalPath
                    };
                    let Some(paths) = &paths else { continue };
                    heaviest_row(&rows, path_spans(&paths.get(name).bars), window)
                }
                Overlay::WaitStates => {
                    if chart.data.waits.with_untracked(Option::is_none) {
                        continue;
                    }
                    heaviest_row(&rows, wait_spans(waits.as_slice()), window)
                }
            };
            found.update_value(|f| f.push(overlay));
            let g = chart.geometry();
            if let Some(top) = target.and_then(|row| scroll_for(&g, rows.n_rows(), row)) {
                let top = top.min(chart.max_top_row(rows.n_rows()));
                chart.store.dispatch(Command::ScrollTo(top));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::super::rows::Group;
    use super::*;

    #[test]
    fn the_heaviest_row_is_where_most_time_in_the_window_lies() {
        let groups: Vec<Group> = (0..4)
            .map(|k| Group {
                name: format!("n{k}"),
                first: 2 * k,
                end: 2 * k + 2,
            })
            .collect();
        // Folded: each node is one row; processes 6 and 7 are row 3.
        let rows = Rows::new(8, &groups, None, &[0, 1, 2, 3], &[]);
        let bars = [(0, 0, 10), (6, 0, 50), (7, 60, 80), (2, 150, 1000)];
        assert_eq!(heaviest_row(&rows, bars.into_iter(), (0, 100)), Some(3));
        // A window that holds only process 2's long bar.
        assert_eq!(heaviest_row(&rows, bars.into_iter(), (200, 300)), Some(1));
        assert_eq!(heaviest_row(&rows, bars.into_iter(), (2000, 3000)), None);
        assert_eq!(heaviest_row(&rows, std::iter::empty(), (0, 100)), None);
    }

    #[test]
    fn rows_out_of_view_scroll_in_with_a_row_above() {
        // 30 px axis and 32 px rows on a 350 px canvas: rows 0 to 9 show, row 9 only in part.
        let g = Geometry::new(800.0, 350.0);
        assert_eq!(scroll_for(&g, 64, 3), None);
        assert_eq!(scroll_for(&g, 64, 9), Some(8));
        assert_eq!(scroll_for(&g, 64, 40), Some(39));
        assert_eq!(scroll_for(&g, 64, 0), None);
    }
}
