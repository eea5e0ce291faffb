//! The chart as a file: SVG from the display list the canvas paints, PNG from the canvas.

use leptos::prelude::*;

use super::chart::Chart;

/// Saves the chart as shown as `gantt.svg`: the same display list as the canvas paints.
pub fn export_svg(chart: &Chart) {
    let g = chart.geometry();
    let svg =
        crate::components::svg::document(&super::canvas::display_list(chart), g.width, g.height);
    let href = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        js_sys::encode_uri_component(&svg)
    );
    super::canvas::download(&href, "gantt.svg");
}

/// Saves the canvas as painted (at the device's pixel ratio) as `gantt.png`.
pub fn export_png(chart: &Chart) {
    if let Some(canvas) = chart.canvas.get_untracked()
        && let Ok(href) = canvas.to_data_url_with_type("image/png")
    {
        super::canvas::download(&href, "gantt.png");
    }
}

/// Buttons that save the chart as shown, as SVG or PNG.
pub fn buttons(chart: &Chart) -> impl IntoView + use<> {
    let (for_svg, for_png) = (chart.clone(), chart.clone());
    view! {
        <button data-testid="gantt-export-svg" title="Save the chart as shown as an SVG file"
            on:click=move |_| export_svg(&for_svg)>"SVG"</button>
        <button data-testid="gantt-export-png" title="Save the chart as shown as a PNG image"
            on:click=move |_| export_png(&for_png)>"PNG"</button>
    }
}
