//! The Tracescope web app, rendered in the browser (Leptos, client side).

mod api;
mod app;
mod components;
mod pages;
mod workspace;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
