//! Workspace invariants from ARCHITECTURE.md, checked as ordinary tests.

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::root;

    const CRATES: [&str; 5] = ["shared", "server", "frontend", "simulator-wasm", "xtask"];

    fn read(path: &str) -> String {
        std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The names of a crate's dependencies, in every dependency table of its manifest.
    fn dependencies(krate: &str) -> Vec<String> {
        let manifest = read(&format!("{krate}/Cargo.toml"));
        let mut in_deps = false;
        let mut deps = Vec::new();
        for line in manifest.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_deps = line.contains("dependencies");
            } else if in_deps && let Some((name, _)) = line.split_once('=') {
                // `name = …` or `name.workspace = true`.
                let name = name.split('.').next().unwrap_or(name);
                deps.push(name.trim().to_owned());
            }
        }
        deps
    }

    fn crates_depending_on(dep: &str) -> Vec<&'static str> {
        CRATES
            .into_iter()
            .filter(|k| dependencies(k).iter().any(|d| d == dep))
            .collect()
    }

    #[test]
    fn only_server_knows_sql_http_serving_and_tokio() {
        for dep in ["sqlx", "axum", "tokio", "tower-http"] {
            assert_eq!(crates_depending_on(dep), ["server"], "{dep}");
        }
    }

    #[test]
    fn only_frontend_knows_the_dom() {
        for dep in ["web-sys", "leptos", "leptos_router", "gloo-net"] {
            assert_eq!(crates_depending_on(dep), ["frontend"], "{dep}");
        }
    }

    #[test]
    fn only_the_simulator_wrapper_and_the_frontend_know_wasm_bindgen() {
        assert_eq!(
            crates_depending_on("wasm-bindgen"),
            ["frontend", "simulator-wasm"]
        );
        let core = root().join("simulator-wasm/src");
        for entry in std::fs::read_dir(&core).expect("simulator-wasm/src") {
            let path = entry.expect("entry").path();
            if path.file_name().is_some_and(|n| n == "wasm.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source");
            assert!(
                !text.contains("wasm_bindgen"),
                "{} is core and must not use wasm_bindgen",
                path.display()
            );
        }
    }

    #[test]
    fn every_crate_inherits_the_workspace_lints_that_deny_unsafe_code() {
        assert!(read("Cargo.toml").contains("unsafe_code = \"deny\""));
        for krate in CRATES {
            let manifest = read(&format!("{krate}/Cargo.toml"));
            assert!(
                manifest.contains("[lints]\nworkspace = true"),
                "{krate} inherits [workspace.lints]"
            );
        }
    }

    #[test]
    fn the_model_keeps_time_as_integers() {
        for file in [
            "shared/src/model/mod.rs",
            "shared/src/graph/states.rs",
            "shared/src/graph/pairing.rs",
        ] {
            assert!(
                !read(file).contains("f64"),
                "{file} must keep time in integer ticks"
            );
        }
    }

    #[test]
    fn ci_runs_exactly_the_readme_test_command() {
        let readme = read("README.md");
        let ci = read(".ci/run");
        let command = "cargo xtask test";
        assert!(
            readme.contains(&format!("```sh\n{command}\n```")),
            "README shows `{command}`"
        );
        let lines: Vec<&str> = ci
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("set "))
            .collect();
        assert_eq!(
            lines.last().copied(),
            Some(command),
            ".ci/run ends with the README's test command"
        );
        assert!(
            lines.iter().all(|l| *l == command || l.starts_with("cd ")),
            ".ci/run does nothing but the README's test command: {lines:?}"
        );
    }

    #[test]
    fn migrations_have_their_readme_and_numbered_files() {
        assert!(read("migrations/README.md").contains("Never edit an applied migration"));
        for entry in std::fs::read_dir(root().join("migrations")).expect("migrations/") {
            let name = entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned();
            if name.ends_with(".sql") {
                let number = name.split('_').next().unwrap_or_default();
                assert!(
                    number.len() == 4 && number.bytes().all(|b| b.is_ascii_digit()),
                    "{name} starts with NNNN_"
                );
            }
        }
        assert!(Path::new(&root().join("migrations/0001_runs.sql")).exists());
    }
}
