//! The Tracescope web app, rendered in the browser (Leptos, client side).

mod api;
mod app;
mod components;
mod pages;
mod samples;
mod upload;
mod workspace;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
