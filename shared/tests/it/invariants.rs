//! Architecture invariants of `shared` (see ARCHITECTURE.md), checked as ordinary tests.

use std::path::{Path, PathBuf};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("source dir is readable") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `shared` does no IO and has no async, DB, HTTP or DOM dependencies.
#[test]
fn shared_depends_on_no_io_async_db_http_or_dom_crate() {
    let manifest = std::fs::read_to_string(crate_dir().join("Cargo.toml")).expect("manifest");
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .expect("a [dependencies] table");
    let deps = deps.split("\n[").next().unwrap_or(deps);
    for banned in [
        "tokio",
        "sqlx",
        "axum",
        "hyper",
        "reqwest",
        "web-sys",
        "js-sys",
        "wasm-bindgen",
        "leptos",
        "futures",
    ] {
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with(banned)),
            "shared must not depend on {banned}"
        );
    }
}

/// `shared` touches no files, sockets, processes, clocks or environment.
#[test]
fn shared_sources_do_no_io() {
    let mut files = Vec::new();
    rust_files(&crate_dir().join("src"), &mut files);
    assert!(!files.is_empty());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("source is readable");
        for banned in [
            "std::fs",
            "std::net",
            "std::process",
            "std::env",
            "std::time::SystemTime",
            "std::io::stdin",
            "println!",
            "async fn",
        ] {
            assert!(!text.contains(banned), "{} uses {banned}", file.display());
        }
    }
}
