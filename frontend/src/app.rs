//! The app shell and its routes.

use leptos::prelude::*;
use leptos_router::components::{A, Route, Router, Routes};
use leptos_router::path;

use crate::pages::compare::ComparePage;
use crate::pages::home::HomePage;
use crate::pages::run::{RunPage, ViewPage};
use crate::pages::simulate::SimulatePage;

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <Router>
            <header class="topbar">
                <A href="/">"Tracescope"</A>
                <span class="tagline">"why is my parallel program slow?"</span>
                <nav class="topnav">
                    <A href="/">"Runs"</A>
                    <A href="/simulate">"Simulator"</A>
                </nav>
            </header>
            <main>
                <Routes fallback=|| view! { <p class="error">"There is no page here."</p> }>
                    <Route path=path!("/") view=HomePage/>
                    <Route path=path!("/runs/:id") view=RunPage/>
                    <Route path=path!("/v/:id") view=ViewPage/>
                    <Route path=path!("/compare/:a/:b") view=ComparePage/>
                    <Route path=path!("/simulate") view=SimulatePage/>
                </Routes>
            </main>
        </Router>
    }
}
