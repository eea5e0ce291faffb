//! The reactive store: the workspace in one signal, changed only by [`Store::dispatch`].
//!
//! The run page makes one store and provides it as context; every view of the run takes it
//! with [`Store::expect`], reads it with [`Store::with`] and changes it with commands.

use leptos::prelude::*;

use super::{Command, Workspace, apply};

/// A run's workspace, shared by its views.
#[derive(Debug, Clone, Copy)]
pub struct Store {
    state: RwSignal<Workspace>,
}

impl Store {
    /// A store holding `workspace`, provided to the components below the caller.
    pub fn provide(workspace: Workspace) -> Store {
        let store = Store {
            state: RwSignal::new(workspace),
        };
        provide_context(store);
        store
    }

    /// The store of the run shown (the run page provides it).
    pub fn expect() -> Store {
        expect_context::<Store>()
    }

    /// Applies `command`; readers are told only when the workspace changed.
    pub fn dispatch(&self, command: Command) {
        self.state.maybe_update(|ws| {
            let next = apply(ws, command);
            let changed = next != *ws;
            if changed {
                *ws = next;
            }
            changed
        });
    }

    /// Reads the workspace, tracking it (the caller reruns when it changes).
    pub fn with<R>(&self, f: impl FnOnce(&Workspace) -> R) -> R {
        self.state.with(f)
    }

    /// Reads the workspace without tracking it.
    pub fn with_untracked<R>(&self, f: impl FnOnce(&Workspace) -> R) -> R {
        self.state.with_untracked(f)
    }

    /// Registers the caller as a reader (it reruns on any change).
    pub fn track(&self) {
        self.state.track();
    }
}
