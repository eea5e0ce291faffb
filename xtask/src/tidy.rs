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
        let mut files = Vec::new();
        code_files(&root().join("simulator-wasm/src"), &mut files);
        assert!(files.len() > 10, "{} emulator files", files.len());
        for (path, _) in files {
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
    fn migrations_have_their_readme_and_numbered_files_in_step_for_both_engines() {
        assert!(read("migrations/README.md").contains("Never edit an applied migration"));
        let numbered = |engine: &str| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(root().join("migrations").join(engine))
                .expect("migrations/ENGINE/")
                .map(|entry| {
                    entry
                        .expect("entry")
                        .file_name()
                        .to_string_lossy()
                        .into_owned()
                })
                .filter(|name| name.ends_with(".sql"))
                .collect();
            names.sort();
            for name in &names {
                let number = name.split('_').next().unwrap_or_default();
                assert!(
                    number.len() == 4 && number.bytes().all(|b| b.is_ascii_digit()),
                    "{engine}/{name} starts with NNNN_"
                );
            }
            names
        };
        let (sqlite, postgres) = (numbered("sqlite"), numbered("postgres"));
        assert!(sqlite.contains(&"0001_runs.sql".to_owned()));
        assert_eq!(
            sqlite, postgres,
            "each SQLite migration has its PostgreSQL twin"
        );
    }

    #[test]
    fn no_crate_has_an_import_cycle_between_its_modules() {
        for root_file in [
            "shared/src/lib.rs",
            "server/src/lib.rs",
            "frontend/src/main.rs",
            "simulator-wasm/src/lib.rs",
            "xtask/src/main.rs",
        ] {
            let graph = crate::modgraph::module_graph(&root().join(root_file));
            assert!(graph.len() > 3, "{root_file}: {} modules read", graph.len());
            assert_eq!(
                crate::modgraph::find_cycle(&graph),
                None,
                "{root_file}: an import cycle"
            );
        }
    }

    /// Whether `literal`, a path joined to `base` (a crate folder for Rust, the file's folder
    /// for scripts), leads outside the repository at `repo`. Only `..` and `.` are resolved:
    /// the check is on the text, as a reader of the code would read it.
    fn escapes(repo: &Path, base: &Path, literal: &str) -> bool {
        let mut path: Vec<String> = base
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        for part in literal.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    path.pop();
                }
                other => path.push(other.to_owned()),
            }
        }
        let repo: Vec<String> = repo
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        !path.starts_with(&repo)
    }

    /// Every test, bench, source and script file of the repository, with the folder its
    /// relative paths start from.
    fn code_files(dir: &Path, out: &mut Vec<(std::path::PathBuf, std::path::PathBuf)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), "target" | "node_modules" | ".git" | "data") {
                    code_files(&path, out);
                }
                continue;
            }
            let base = match path.extension().and_then(|e| e.to_str()) {
                // Rust joins paths to CARGO_MANIFEST_DIR: the nearest folder with a manifest.
                Some("rs") => path
                    .ancestors()
                    .find(|a| a.join("Cargo.toml").exists())
                    .map(Path::to_path_buf),
                // Scripts join paths to their own folder (`__dirname`, `import.meta.url`).
                Some("ts" | "js" | "mjs") => path.parent().map(Path::to_path_buf),
                _ => None,
            };
            if let Some(base) = base {
                out.push((path, base));
            }
        }
    }

    #[test]
    fn a_path_is_outside_when_its_dots_climb_above_the_repository() {
        let repo = Path::new("/work/main");
        let shared = Path::new("/work/main/shared");
        assert!(escapes(repo, shared, concat!("../../", "shared/traces")));
        assert!(escapes(
            repo,
            shared,
            concat!("/../../", "shared/traces/otf2/")
        ));
        assert!(!escapes(repo, shared, "tests/data/traces"));
        assert!(!escapes(
            repo,
            Path::new("/work/main/server"),
            concat!("..", "/shared/tests/data")
        ));
    }

    #[test]
    fn no_test_or_build_step_reads_a_path_outside_the_repository() {
        let repo = root();
        let mut files = Vec::new();
        code_files(&repo, &mut files);
        assert!(files.len() > 50, "{} files read", files.len());
        let mut outside = Vec::new();
        // Words that make a string on their line a path to read.
        const READS: [&str; 10] = [
            "join(",
            "concat!",
            "include_str!",
            "include_bytes!",
            "__dirname",
            "import.meta",
            "read",
            "fs::",
            "open(",
            "resolve(",
        ];
        for (file, base) in &files {
            if file.ends_with("xtask/src/tidy.rs") {
                // The checker's own examples of paths that leave the repository.
                continue;
            }
            let text = std::fs::read_to_string(file).unwrap_or_default();
            for line in text.lines() {
                if !READS.iter().any(|w| line.contains(w)) {
                    continue;
                }
                // `include_str!` and `include_bytes!` are relative to the file, not the crate.
                let base = if line.contains("include_str!") || line.contains("include_bytes!") {
                    file.parent().unwrap_or(base)
                } else {
                    base.as_path()
                };
                for quote in ['"', '\'', '`'] {
                    for literal in line.split(quote).skip(1).step_by(2) {
                        if literal.contains("..")
                            && !literal.contains(char::is_whitespace)
                            && escapes(&repo, base, literal)
                        {
                            outside.push(format!("{}: {literal}", file.display()));
                        }
                    }
                }
            }
        }
        assert_eq!(outside, Vec::<String>::new());
    }

    /// The frontend's production sources (tests cut off at `#[cfg(test)]`), by path.
    fn frontend_sources() -> Vec<(std::path::PathBuf, String)> {
        let mut files = Vec::new();
        code_files(&root().join("frontend/src"), &mut files);
        files
            .into_iter()
            .filter_map(|(path, _)| {
                let text = std::fs::read_to_string(&path).ok()?;
                let code = match text.find("#[cfg(test)]") {
                    Some(at) => text[..at].to_owned(),
                    None => text,
                };
                Some((path, code))
            })
            .collect()
    }

    #[test]
    fn the_frontend_reads_typed_answers_and_builds_urls_only_in_its_api_module() {
        let sources = frontend_sources();
        assert!(sources.len() > 10, "{} frontend files", sources.len());
        for (path, code) in sources {
            assert!(
                !code.contains("serde_json::Value"),
                "{} reads untyped JSON",
                path.display()
            );
            if !path.ends_with("frontend/src/api.rs") {
                assert!(
                    !code.contains("\"/api/"),
                    "{} builds an API URL; only frontend/src/api.rs does",
                    path.display()
                );
            }
        }
    }

    /// The production part of a source file: cut where its test module starts.
    fn without_tests(text: &str) -> &str {
        match text.find("#[cfg(test)]\nmod tests") {
            Some(at) => &text[..at],
            None => text,
        }
    }

    /// Each function in `code` longer than `max` lines: its name and length. A function runs
    /// from its `fn` line to the first line after it that closes at the same indentation
    /// (rustfmt's layout).
    fn long_functions(code: &str, max: usize) -> Vec<(String, usize)> {
        let lines: Vec<&str> = code.lines().collect();
        let mut long = Vec::new();
        for (k, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            let signature = trimmed
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ")
                .trim_start_matches("async ")
                .trim_start_matches("const ");
            let Some(rest) = signature.strip_prefix("fn ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let close = format!("{}}}", " ".repeat(indent));
            if let Some(end) = lines[k + 1..].iter().position(|l| *l == close) {
                let length = end + 2;
                if length > max {
                    long.push((name, length));
                }
            }
        }
        long
    }

    #[test]
    fn the_function_length_check_counts_from_fn_to_its_closing_brace() {
        let code = "fn short() {\n    1\n}\n\n    pub fn long(\n        a: u8,\n    ) {\n        a;\n        a;\n    }\n";
        assert_eq!(long_functions(code, 3), [("long".to_owned(), 6)]);
        assert!(long_functions(code, 6).is_empty());
    }

    #[test]
    fn no_frontend_function_is_longer_than_150_lines() {
        let mut files = Vec::new();
        code_files(&root().join("frontend/src"), &mut files);
        let mut long = Vec::new();
        for (path, _) in files {
            let text = std::fs::read_to_string(&path).expect("reads");
            for (name, length) in long_functions(without_tests(&text), 150) {
                long.push(format!("{}: {name} ({length} lines)", path.display()));
            }
        }
        assert_eq!(long, Vec::<String>::new());
    }

    #[test]
    fn only_the_time_scale_turns_ticks_into_pixels() {
        // Its scale factor is private to `TimeScale`: every other module converts through its
        // methods (time_to_px, tick_to_px, px_to_tick, span_to_px, px_to_span).
        for (path, code) in frontend_sources() {
            if path.ends_with("gantt/time_scale.rs") {
                continue;
            }
            assert!(
                !code.contains(".ticks_per_px()"),
                "{} converts ticks to pixels itself; TimeScale does that",
                path.display()
            );
        }
    }
}
