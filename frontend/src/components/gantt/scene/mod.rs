//! The Gantt chart's scene: a pure function from the model, the rows, the viewport and the
//! overlays to a display list, composed of one module per layer — each keeps its drawing and
//! its hit-testing together and reads the frame through one render context
//! ([`context::Scene`]). Nothing here knows the DOM or the canvas, so it is tested natively.
//!
//! Layers, bottom to top: [`frame`] (row grid), [`bars`] (state bars), [`arrows`] (messages and
//! bundles), [`regions`] (nested region bars), [`icons`] (event icons), [`overlays`] (a path,
//! wait states), [`selection`] (range, selected and hovered event, replay clock), then the
//! label column and the time axis ([`frame`]).

pub mod arrows;
pub mod bars;
pub mod context;
pub mod counters;
pub mod draw;
pub mod frame;
pub mod geometry;
pub mod icons;
pub mod overlays;
pub mod regions;
pub mod selection;

use self::context::Scene;
use self::draw::DrawItem;
use self::overlays::{PathBar, WaitBar};
use self::selection::Marks;

/// What is drawn over the bars, and what the filters leave out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlays {
    /// The path shown, its segments in time order.
    pub path: Vec<PathBar>,
    /// The wait states shown.
    pub waits: Vec<WaitBar>,
    /// The selection marks.
    pub marks: Marks,
    /// The only region drawn in colour, if a filter keeps one.
    pub region: Option<u32>,
    /// Whether message arrows are left out.
    pub hide_messages: bool,
    /// The selected event's causal past and future.
    pub areas: Vec<overlays::AreaBar>,
    /// Which events the workspace's event filter keeps (`None`: all).
    pub kept: Option<std::sync::Arc<Vec<bool>>>,
}

/// Lays out one frame: every layer in order, the plot's layers clipped to the plot.
pub fn layout(scene: &Scene, overlays: &Overlays) -> Vec<DrawItem> {
    let mut items = Vec::new();
    items.push(DrawItem::Clip(Some(scene.plot())));
    frame::grid(scene, &mut items);
    overlays::draw_areas(scene, &overlays.areas, &mut items);
    bars::draw(scene, &mut items);
    if !overlays.hide_messages {
        arrows::draw(scene, &mut items);
    }
    regions::draw(scene, overlays.region, &mut items);
    counters::draw(scene, &mut items);
    icons::draw(
        scene,
        overlays.kept.as_deref().map(Vec::as_slice),
        &mut items,
    );
    overlays::draw_waits(scene, &overlays.waits, &mut items);
    overlays::draw_path(scene, &overlays.path, &mut items);
    selection::draw(scene, &overlays.marks, &mut items);
    items.push(DrawItem::Clip(None));
    frame::labels(scene, &mut items);
    frame::axis(scene, &mut items);
    items
}

#[cfg(test)]
mod tests {
    use super::super::model::GanttModel;
    use super::super::palette::name_color;
    use super::super::rows::Rows;
    use super::super::test_data::worked_example;
    use super::bars::REGION_PX;
    use super::draw::{Icon, bytes_text, colors};
    use super::geometry::{Geometry, row_at};
    use super::*;

    /// One frame's display list, drawn from the model's own index.
    fn frame(
        model: &GanttModel,
        rows: &Rows,
        scale: &super::super::time_scale::TimeScale,
        g: &Geometry,
        overlays: &Overlays,
    ) -> Vec<DrawItem> {
        layout(&Scene::new(model, rows, &model.index, scale, g), overlays)
    }

    fn rects(items: &[DrawItem], color: &str) -> Vec<(f64, f64, f64)> {
        items
            .iter()
            .filter_map(|item| match item {
                DrawItem::Rect {
                    x, y, w, color: c, ..
                } if *c == color => Some((*x, *y, *w)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn worked_example_draws_bars_arrows_labels_and_axis() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(g.plot_width());
        let items = frame(&model, &model.expanded(), &scale, &g, &Overlays::default());
        // At 10 px per tick: A computes [0,35] and [48,53], B [0,20], [33,43], [54,69].
        let computing: Vec<(f64, f64)> = rects(&items, colors::COMPUTING)
            .iter()
            .map(|r| (r.0, r.2))
            .collect();
        assert_eq!(
            computing,
            [
                (140.0, 350.0),
                (620.0, 50.0),
                (140.0, 200.0),
                (470.0, 100.0),
                (680.0, 150.0)
            ]
        );
        assert_eq!(rects(&items, colors::BLOCKED).len(), 3);
        let arrows: Vec<(f64, f64)> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Arrow { x1, x2, .. } => Some((*x1, *x2)),
                _ => None,
            })
            .collect();
        // m1 25→33, m3 51→54, m2 38→48.
        assert_eq!(arrows, [(390.0, 470.0), (650.0, 680.0), (520.0, 620.0)]);
        let texts: Vec<&str> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            texts.contains(&"A @ T800 #0") && texts.contains(&"B @ T800 #1"),
            "{texts:?}"
        );
        for label in ["0", "10", "60"] {
            assert!(texts.contains(&label), "axis label {label} in {texts:?}");
        }
    }

    #[test]
    fn zooming_in_culls_what_left_the_window() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        // Show [0, 10]: only the first computing bar of each process and no arrow.
        let scale = super::super::time_scale::TimeScale::fit(
            shared::model::time::Time(0),
            shared::model::time::Time(10),
            g.plot_width(),
        );
        let items = frame(&model, &model.expanded(), &scale, &g, &Overlays::default());
        assert_eq!(rects(&items, colors::COMPUTING).len(), 2);
        assert!(!items.iter().any(|i| matches!(i, DrawItem::Arrow { .. })));
    }

    #[test]
    fn rows_scrolled_out_of_view_are_not_drawn() {
        let model = GanttModel::new(&worked_example());
        let mut g = Geometry::new(830.0, 30.0 + 32.0);
        g.scroll_y = 32.0;
        let items = frame(
            &model,
            &model.expanded(),
            &model.fit(g.plot_width()),
            &g,
            &Overlays::default(),
        );
        // Only B's row is visible: its three computing bars.
        assert_eq!(rects(&items, colors::COMPUTING).len(), 3);
    }

    #[test]
    fn a_dense_trace_draws_what_the_pixels_hold_and_labels_bundles() {
        // 64 processes, 200,000 events, all of it in 860 px: far more spans and messages than
        // pixels.
        let trace = shared::model::synthetic::ring(64, 200_000);
        let model = GanttModel::new(&trace);
        let g = Geometry::new(140.0 + 860.0, 640.0);
        let items = frame(
            &model,
            &model.expanded(),
            &model.fit(g.plot_width()),
            &g,
            &Overlays::default(),
        );
        let visible_rows = ((640.0 - 30.0) / 32.0_f64).ceil() as usize;
        let bars = rects(&items, colors::COMPUTING).len() + rects(&items, colors::BLOCKED).len();
        assert!(bars > 0 && bars <= visible_rows * 860, "{bars} bars");
        let arrows = items
            .iter()
            .filter(|i| matches!(i, DrawItem::Arrow { .. } | DrawItem::Band { .. }))
            .count();
        assert!(arrows > 0 && arrows <= 2 * 860, "{arrows} arrows and bands");
        assert!(
            !rects(&items, colors::MORE).is_empty(),
            "crowded pixels are marked"
        );
        assert!(
            items
                .iter()
                .any(|i| matches!(i, DrawItem::Text { text, .. } if text.contains(" msgs, "))),
            "bundles say how many messages they hold"
        );
    }

    fn texts(items: &[DrawItem]) -> Vec<&str> {
        items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn ten_thousand_rows_grouped_by_node_draw_only_the_rows_in_view() {
        let trace = shared::model::synthetic::ring_on_nodes(10_000, 16, 100_000);
        let model = GanttModel::new(&trace);
        assert_eq!(model.groups.len(), 625);
        let rows = model.expanded();
        assert_eq!(rows.n_rows(), 10_000 + 625);
        let mut g = Geometry::new(140.0 + 860.0, 640.0);
        // Scrolled to the middle: rows 5,000 to 5,019 fill the 610 px plot.
        g.scroll_y = 5_000.0 * g.row_height;
        assert_eq!(g.visible_rows(rows.n_rows()), Some((5_000, 5_019)));
        let items = frame(
            &model,
            &rows,
            &model.fit(g.plot_width()),
            &g,
            &Overlays::default(),
        );
        let labels: Vec<&str> = texts(&items)
            .into_iter()
            .filter(|t| t.starts_with("    rank") || t.starts_with('▾'))
            .collect();
        assert_eq!(labels.len(), 20, "{labels:?}");
        // 17 rows a node: node 294's header is row 4,998, so row 5,000 is its second rank
        // (4,705) and node 295's header is row 5,015.
        assert_eq!(labels[0], "    rank 4705");
        assert!(labels.contains(&"▾ node 295 (16)"), "{labels:?}");
        let bars = rects(&items, colors::COMPUTING).len() + rects(&items, colors::BLOCKED).len();
        assert!(bars > 0 && bars <= 20 * 860, "{bars} bars");
    }

    #[test]
    fn a_collapsed_node_is_one_row_of_strips_and_its_messages_end_there() {
        let trace = shared::model::synthetic::ring_on_nodes(12, 4, 2_400);
        let model = GanttModel::new(&trace);
        let rows = Rows::new(12, &model.groups, None, &[0], &[]);
        // Node 0's four ranks share row 0; node 1's header is row 1, its ranks rows 2–5.
        let row_of: Vec<Option<usize>> = (0..5).map(|p| rows.row_of(p)).collect();
        assert_eq!(row_of, [0, 0, 0, 0, 2].map(Some));
        let g = Geometry::new(140.0 + 860.0, 640.0);
        let items = frame(
            &model,
            &rows,
            &model.fit(g.plot_width()),
            &g,
            &Overlays::default(),
        );
        assert!(texts(&items).contains(&"▸ node 0 (4)"));
        // Strips of (32 − 8) / 4 = 6 px inside row 0 (y 30 to 62), a pixel apart.
        let strip_tops: std::collections::BTreeSet<i64> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Rect { y, h, color, .. } if *color == colors::COMPUTING && *y < 62.0 => {
                    assert_eq!(*h, 5.0);
                    Some(*y as i64)
                }
                _ => None,
            })
            .collect();
        assert_eq!(strip_tops.into_iter().collect::<Vec<_>>(), [34, 40, 46, 52]);
        // Rank 3 sends to rank 4 (row 2) and rank 11 to rank 0 (row 0's middle, y = 46).
        let ends: Vec<(f64, f64)> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Arrow { y1, y2, .. } => Some((*y1, *y2)),
                DrawItem::Band { y1, y2, .. } => Some((*y1, *y2)),
                _ => None,
            })
            .collect();
        assert!(ends.contains(&(46.0, 30.0 + 2.0 * 32.0 + 16.0)), "{ends:?}");
        // Rank 0 sends to rank 1, both in the collapsed row: no arrow from the row to itself.
        assert!(!ends.contains(&(46.0, 46.0)), "{ends:?}");
    }

    #[test]
    fn regions_are_nested_bars_in_their_names_colours_and_answer_clicks() {
        let trace = shared::model::synthetic::ring_on_nodes(4, 2, 400);
        let model = GanttModel::new(&trace);
        let rows = model.expanded();
        let g = Geometry::new(140.0 + 1010.0, 400.0);
        let scale = model.fit(g.plot_width());
        let items = frame(&model, &rows, &scale, &g, &Overlays::default());
        // Row 1 is rank 0 (row 0 is node 0's header): its bottom is at 30 + 2·32 − 1 = 93, so
        // step (depth 0) is drawn from y = 87 and compute (depth 1) from y = 90.
        let at_y = |y: f64| {
            items
                .iter()
                .filter(|i| matches!(i, DrawItem::Rect { y: top, h, .. } if *top == y && *h == REGION_PX - 0.5))
                .count()
        };
        assert_eq!(at_y(87.0), 10, "ten rounds of step on rank 0");
        assert_eq!(at_y(90.0), 20, "ten of compute and ten of MPI_Recv");
        // Rank 0 computes in round 0 from 2 to 10 (1 px a tick): a click there finds it.
        let x = g.label_width + scale.tick_to_px(5.0);
        let (depth, bar) = regions::hit(
            &Scene::for_hits(&model, &rows, &scale, &g),
            (1, 0),
            (x, 91.0),
        )
        .expect("a region");
        assert_eq!((depth, bar.start, bar.end), (1, 2, 10));
        assert_eq!(model.region_names[bar.region as usize], "compute");
        assert_eq!(
            regions::hit(
                &Scene::for_hits(&model, &rows, &scale, &g),
                (1, 0),
                (x, 88.0)
            )
            .map(|h| h.0),
            Some(0)
        );
        assert_eq!(
            regions::hit(
                &Scene::for_hits(&model, &rows, &scale, &g),
                (1, 0),
                (x, 60.0)
            ),
            None
        );
    }

    #[test]
    fn bytes_read_for_people() {
        assert_eq!(bytes_text(812), "812 B");
        assert_eq!(bytes_text(12_500), "12.5 kB");
        assert_eq!(bytes_text(3_100_000), "3.1 MB");
    }

    #[test]
    fn clicks_find_the_path_segment_and_the_row_under_them() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(g.plot_width());
        let expanded = model.expanded();
        // T4a: A computes 0–25, m1 runs 25–33 from A to B, B computes 33–38.
        let path = [
            PathBar {
                from: 0,
                to: 0,
                start: 0,
                end: 25,
                color: colors::PATH,
            },
            PathBar {
                from: 0,
                to: 1,
                start: 25,
                end: 33,
                color: colors::PATH,
            },
            PathBar {
                from: 1,
                to: 1,
                start: 33,
                end: 38,
                color: colors::PATH,
            },
        ];
        // Row A's middle is y = 30 + 16; tick 10 is x = 140 + 100.
        assert_eq!(
            overlays::path_hit(
                &Scene::for_hits(&model, &expanded, &scale, &g),
                &path,
                240.0,
                46.0
            ),
            Some(0)
        );
        // Halfway along m1's line: tick 29, between the rows' middles (46 and 78).
        assert_eq!(
            overlays::path_hit(
                &Scene::for_hits(&model, &expanded, &scale, &g),
                &path,
                140.0 + 290.0,
                62.0
            ),
            Some(1)
        );
        assert_eq!(
            overlays::path_hit(
                &Scene::for_hits(&model, &expanded, &scale, &g),
                &path,
                140.0 + 355.0,
                78.0
            ),
            Some(2)
        );
        assert_eq!(
            overlays::path_hit(
                &Scene::for_hits(&model, &expanded, &scale, &g),
                &path,
                140.0 + 600.0,
                78.0
            ),
            None
        );
        assert_eq!(row_at(&g, 2, 46.0), Some(0));
        assert_eq!(row_at(&g, 2, 80.0), Some(1));
        assert_eq!(row_at(&g, 2, 10.0), None);
        assert_eq!(row_at(&g, 2, 120.0), None);
        let overlays = Overlays {
            path: path.to_vec(),
            ..Overlays::default()
        };
        let items = frame(&model, &model.expanded(), &scale, &g, &overlays);
        // Each computation on the path is outlined above and below (its bar shows between);
        // a message's transit is one line between the rows.
        let horizontal: Vec<(f64, f64, f64)> = items
            .iter()
            .filter_map(|item| match item {
                DrawItem::Line {
                    x1,
                    y1,
                    x2,
                    y2,
                    color,
                    ..
                } if *color == colors::PATH && y1 == y2 => Some((*x1, *x2, *y1)),
                _ => None,
            })
            .collect();
        assert_eq!(
            horizontal.len(),
            4,
            "two computations on the path: {horizontal:?}"
        );
        assert!(rects(&items, colors::PATH).is_empty(), "no solid blocks");
    }

    #[test]
    fn the_causal_past_and_future_are_bands_behind_the_bars() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(g.plot_width());
        let overlays = Overlays {
            areas: vec![
                overlays::AreaBar {
                    process: 0,
                    start: 0,
                    end: 25,
                    past: true,
                },
                overlays::AreaBar {
                    process: 1,
                    start: 38,
                    end: 69,
                    past: false,
                },
            ],
            ..Overlays::default()
        };
        let items = frame(&model, &model.expanded(), &scale, &g, &overlays);
        // 10 px a tick from x = 140: the past on A from 0 to 25, the future on B from 38 on,
        // each 4 px wider on both sides; drawn before the first state bar.
        let past = rects(&items, colors::AREA_PAST);
        let future = rects(&items, colors::AREA_FUTURE);
        assert_eq!(past.len(), 1);
        assert_eq!(future.len(), 1);
        assert!((past[0].0 - (140.0 - 4.0)).abs() < 1e-6, "{past:?}");
        assert!(
            (future[0].0 - (140.0 + 380.0 - 4.0)).abs() < 1e-6,
            "{future:?}"
        );
        let first_area = items
            .iter()
            .position(|i| matches!(i, DrawItem::Rect { color, .. } if *color == colors::AREA_PAST));
        let first_bar = items
            .iter()
            .position(|i| matches!(i, DrawItem::Rect { color, .. } if *color == colors::COMPUTING));
        assert!(first_area < first_bar);
    }

    #[test]
    fn the_event_filter_keeps_only_its_events_icons() {
        let trace = worked_example();
        let model = GanttModel::new(&trace);
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(g.plot_width());
        let icons = |kept: Option<Vec<bool>>| -> Vec<Icon> {
            let overlays = Overlays {
                kept: kept.map(std::sync::Arc::new),
                ..Overlays::default()
            };
            frame(&model, &model.expanded(), &scale, &g, &overlays)
                .iter()
                .filter_map(|i| match i {
                    DrawItem::Icon { icon, .. } => Some(*icon),
                    _ => None,
                })
                .collect()
        };
        // The worked example's three sends, three receive calls and three arrivals.
        assert_eq!(icons(None).len(), 9);
        let filter =
            shared::analyses::patterns::Filter::parse("kind=send", &trace).expect("parses");
        let kept: Vec<bool> = (0..trace.events.len())
            .map(|i| filter.matches(&trace, shared::model::EventIdx(i as u32)))
            .collect();
        assert_eq!(icons(Some(kept)), [Icon::Send; 3]);
    }

    #[test]
    fn clicks_find_the_nearest_event_with_an_icon() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(g.plot_width());
        let expanded = model.expanded();
        let scene = Scene::for_hits(&model, &expanded, &scale, &g);
        let event_hit = |process: usize, x: f64| icons::hit(&scene, process, x);
        // 10 px a tick: A's send at 25 is at x = 390, its receive call at 35 at x = 490.
        assert_eq!(event_hit(0, 392.0), Some(1));
        assert_eq!(event_hit(0, 487.0), Some(2));
        assert_eq!(event_hit(0, 420.0), None);
        // B's arrival of m1 at 33 (event 8); its process start at 0 has no icon.
        assert_eq!(event_hit(1, 470.0), Some(8));
        assert_eq!(event_hit(1, 141.0), None);
        assert_eq!(event_hit(2, 470.0), None);
        // B's receive call at 20 blocks until m1 arrives at 33; A's send blocks nothing.
        assert_eq!(model.blocked_around(7), Some((20, 33)));
        assert_eq!(model.blocked_around(8), Some((20, 33)));
        assert_eq!(model.blocked_around(1), None);
    }

    fn icons_of(items: &[DrawItem]) -> Vec<(Icon, &'static str)> {
        items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Icon { icon, color, .. } => Some((*icon, *color)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn events_get_the_thesis_icons_when_there_is_room() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let icons = icons_of(&frame(
            &model,
            &model.expanded(),
            &model.fit(g.plot_width()),
            &g,
            &Overlays::default(),
        ));
        let count = |icon| icons.iter().filter(|(i, _)| *i == icon).count();
        // Three messages: three sends, three receive calls, three arrivals; all matched.
        assert_eq!(
            (
                count(Icon::Send),
                count(Icon::ReceiveCall),
                count(Icon::Arrival)
            ),
            (3, 3, 3)
        );
        assert!(icons.iter().all(|(_, c)| *c == colors::ICON));
        // Squeezed into 40 px, 13 events have no room: no icons.
        let narrow = Geometry::new(140.0 + 40.0, 200.0);
        assert!(
            icons_of(&frame(
                &model,
                &model.expanded(),
                &model.fit(narrow.plot_width()),
                &narrow,
                &Overlays::default()
            ))
            .is_empty()
        );
    }

    #[test]
    fn unmatched_events_and_backward_messages_are_flagged() {
        let json = br#"{"format": "tracescope", "version": 1, "name": "faults",
            "nodes": [{"name": "n0"}, {"name": "n1"}],
            "processes": [{"name": "A", "node": 0}, {"name": "B", "node": 1}],
            "events": [
                {"process": 0, "time": 0, "kind": "proc_init"},
                {"process": 0, "time": 50, "kind": "msg_send", "to": 1, "tag": 1, "size": 8},
                {"process": 0, "time": 60, "kind": "msg_send", "to": 1, "tag": 9, "size": 8},
                {"process": 0, "time": 100, "kind": "proc_exit"},
                {"process": 1, "time": 0, "kind": "proc_init"},
                {"process": 1, "time": 10, "kind": "recv_call", "tag": 1},
                {"process": 1, "time": 20, "kind": "msg_arr", "from": 0, "tag": 1, "size": 8},
                {"process": 1, "time": 100, "kind": "proc_exit"}
            ]}"#;
        let trace = shared::formats::import(json, None, "faults.json")
            .expect("parses")
            .trace;
        let model = GanttModel::new(&trace);
        let g = Geometry::new(140.0 + 500.0, 200.0);
        let items = frame(
            &model,
            &model.expanded(),
            &model.fit(g.plot_width()),
            &g,
            &Overlays::default(),
        );
        // The send at 60 (tag 9) has no arrival.
        let faults: Vec<Icon> = icons_of(&items)
            .into_iter()
            .filter(|(_, c)| *c == colors::FAULT)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(faults, [Icon::Send]);
        // The tag-1 message arrives at 20, before it is sent at 50.
        let arrows: Vec<&str> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Arrow { color, .. } => Some(*color),
                _ => None,
            })
            .collect();
        assert_eq!(arrows, [colors::FAULT]);
    }

    #[test]
    fn names_keep_their_colours() {
        assert_eq!(name_color("init"), name_color("init"));
        let colours: std::collections::HashSet<_> = ["init", "compute", "exchange", "reduce", "io"]
            .iter()
            .map(|n| name_color(n))
            .collect();
        assert!(
            colours.len() >= 3,
            "names spread over the palette: {colours:?}"
        );
    }
}
