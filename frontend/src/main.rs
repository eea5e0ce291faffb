//! The Tracescope web app, rendered in the browser (Leptos, client side).

mod api;
mod app;
mod components;
mod pages;
mod samples;
mod upload;
mod words;
mod workspace;

/// The repository's test data (`shared/tests/data`, beside this crate), for native tests.
#[cfg(test)]
pub fn test_data(path: &str) -> std::path::PathBuf {
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .parent()
        .unwrap_or(crate_dir)
        .join("shared/tests/data")
        .join(path)
}

fn main() {
    leptos::mount::mount_to_body(app::App);
}
