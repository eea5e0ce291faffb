//! Build automation for the Tracescope workspace, in Rust (`cargo xtask <command>`).
//!
//! - `cargo xtask serve`: builds the site and the release server, then serves the app on
//!   http://127.0.0.1:8080 with the SQLite file `data/tracescope.db`.
//! - `cargo xtask test`: every test: `cargo fmt --check`, `cargo test --workspace`, then the Playwright tests in
//!   Debian's Chromium against a freshly built server on a free port with a fresh database.
//! - `cargo xtask build-site [--debug]`: only the site, into `target/site`.
//! - `cargo xtask load`: a 10 s `wrk` load run (64 connections) on loopback against the
//!   permalink and run-metadata GETs of the release server.
//! - `cargo xtask wasm-speed`: the emulator's instructions per second in WebAssembly under
//!   Node (`simulator-wasm/benches/wasm_speed.mjs`): COMSTIME, and the 16- and 64-node meshes
//!   on one worker, two and one a core, warmed up and cold; then two workers against one on
//!   the 64-node mesh in pairs.
//! - `cargo xtask perf-compare`: Tracescope's OTF2 and Chrome JSON importers beside the official
//!   OTF2 tools, `@tracerbench/trace-model` and orjson on generated traces (CPU, wall, peak RSS).
//!
//! Nothing here downloads a prebuilt binary: the wasm-bindgen CLI is compiled from crates.io at
//! exactly the version in Cargo.lock, Chromium comes from Debian's packages, and npm installs
//! Playwright with its browser download turned off.

mod load;
#[cfg(test)]
mod modgraph;
mod perf;
mod postgres;
mod site;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context as _, bail};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["build-site"] => site::build(&root(), site::Profile::Release).map(|_| ()),
        ["build-site", "--debug"] => site::build(&root(), site::Profile::Debug).map(|_| ()),
        ["serve", rest @ ..] => serve(rest),
        ["test"] => test(),
        ["load", rest @ ..] => load::load(&root(), 10, 64, rest),
        ["frame-bench"] => frame_bench(),
        ["wasm-speed"] => wasm_speed(),
        ["perf-compare", rest @ ..] => perf::perf_compare(&root(), rest),
        ["rusage-of", rest @ ..] => perf::rusage_of(rest),
        _ => {
            eprintln!(
                "usage: cargo xtask <serve [--addr ADDR] [--db FILE] | test | build-site [--debug] | load [--instances N] | frame-bench | wasm-speed | perf-compare [--sizes N,N] [--reps N] [--only chrome|otf2]>"
            );
            bail!("unknown command {args:?}")
        }
    }
}

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Runs a command in `dir`, failing with its command line when it fails.
fn run(dir: &Path, program: &str, args: &[&str], envs: &[(&str, &str)]) -> anyhow::Result<()> {
    eprintln!("xtask: $ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(envs.iter().copied())
        .status()
        .with_context(|| format!("starting {program}"))?;
    if !status.success() {
        bail!("`{program} {}` failed ({status})", args.join(" "));
    }
    Ok(())
}

/// Builds the release `tracescope` binary and returns its path.
fn build_release_server(root: &Path) -> anyhow::Result<PathBuf> {
    run(
        root,
        "cargo",
        &["build", "--release", "--locked", "-p", "server"],
        &[],
    )?;
    Ok(root.join("target/release/tracescope"))
}

/// Whether a program can be started.
fn has_program(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Installs Debian packages with apt-get (directly as root, otherwise through sudo).
fn apt_install(packages: &[&str]) -> anyhow::Result<()> {
    let (program, prefix): (&str, &[&str]) = if is_root() {
        ("apt-get", &[])
    } else {
        ("sudo", &["-n", "apt-get"])
    };
    let env = [("DEBIAN_FRONTEND", "noninteractive")];
    let update: Vec<&str> = prefix.iter().copied().chain(["update", "-qq"]).collect();
    run(Path::new("/"), program, &update, &env)?;
    let install: Vec<&str> = prefix
        .iter()
        .copied()
        .chain(["install", "-y", "-qq"])
        .chain(packages.iter().copied())
        .collect();
    run(Path::new("/"), program, &install, &env)
}

/// Node.js and npm, from Debian when missing.
fn ensure_npm() -> anyhow::Result<()> {
    if !has_program("npm") {
        apt_install(&["nodejs", "npm"])?;
    }
    Ok(())
}

/// `npm ci` in playwright-tests/ (Playwright without its browser download, and binaryen's
/// wasm-opt), skipped when node_modules is newer than the lock file.
fn ensure_node_modules(root: &Path) -> anyhow::Result<()> {
    ensure_npm()?;
    let dir = root.join("playwright-tests");
    let stamp = dir.join("node_modules/.package-lock.json");
    let lock = dir.join("package-lock.json");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if matches!((modified(&stamp), modified(&lock)), (Some(s), Some(l)) if s >= l) {
        return Ok(());
    }
    run(
        &dir,
        "npm",
        &["ci", "--no-audit", "--no-fund"],
        &[("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")],
    )
}

/// Debian's Chromium at /usr/bin/chromium.
fn ensure_chromium() -> anyhow::Result<()> {
    if !Path::new("/usr/bin/chromium").exists() {
        apt_install(&["chromium"])?;
    }
    Ok(())
}

fn serve(args: &[&str]) -> anyhow::Result<()> {
    let root = root();
    let mut addr = "127.0.0.1:8080";
    let mut db = "data/tracescope.db";
    let mut rest = args.iter();
    while let Some(&arg) = rest.next() {
        match (arg, rest.next()) {
            ("--addr", Some(value)) => addr = value,
            ("--db", Some(value)) => db = value,
            _ => bail!("serve takes --addr ADDR and --db FILE, not {arg:?}"),
        }
    }
    ensure_node_modules(&root)?;
    let site = site::build(&root, site::Profile::Release)?;
    run(
        &root,
        "cargo",
        &[
            "build",
            "--release",
            "--locked",
            "-p",
            "server",
            "--bin",
            "tracescope",
        ],
        &[],
    )?;
    let site = site.to_string_lossy().into_owned();
    let bin = root.join("target/release/tracescope");
    run(
        &root,
        &bin.to_string_lossy(),
        &["serve", "--addr", addr, "--db", db, "--site", &site],
        &[],
    )
}

/// The server's integration test binary `cargo test --workspace` built (asked of cargo, so it
/// is the one built with the workspace's features: nothing is compiled again).
fn server_integration_tests(root: &Path) -> anyhow::Result<PathBuf> {
    let out = Command::new("cargo")
        .args([
            "test",
            "--workspace",
            "--locked",
            "--no-run",
            "--message-format=json",
        ])
        .current_dir(root)
        .stderr(std::process::Stdio::null())
        .output()
        .context("asking cargo for the test binaries")?;
    if !out.status.success() {
        bail!("`cargo test --no-run` failed ({})", out.status);
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let in_server = message["manifest_path"]
            .as_str()
            .is_some_and(|m| Path::new(m).ends_with("server/Cargo.toml"));
        if in_server
            && message["target"]["name"] == "it"
            && let Some(executable) = message["executable"].as_str()
        {
            return Ok(PathBuf::from(executable));
        }
    }
    bail!("cargo built no integration test `it` for the server")
}

fn test() -> anyhow::Result<()> {
    let root = root();
    let started = Instant::now();
    let mut stages: Vec<(&str, f64)> = Vec::new();
    let mut stage = |name, since: Instant| stages.push((name, since.elapsed().as_secs_f64()));

    let t = Instant::now();
    ensure_chromium()?;
    ensure_node_modules(&root)?;
    stage("install (chromium, npm ci)", t);

    let t = Instant::now();
    run(&root, "cargo", &["fmt", "--all", "--check"], &[])?;
    stage("cargo fmt --check", t);

    // The tests that compare the engines need a PostgreSQL; without one (it could not be
    // installed or started here) they say so and the rest runs.
    let t = Instant::now();
    let postgres = match postgres::TestPostgres::start() {
        Ok(server) => Some(server),
        Err(e) => {
            eprintln!(
                "xtask: WARNING: no PostgreSQL for the tests ({e:#}); the engine comparison is skipped"
            );
            None
        }
    };
    stage("PostgreSQL for the tests", t);

    let t = Instant::now();
    let env: Vec<(&str, &str)> = postgres
        .iter()
        .map(|server| ("TRACESCOPE_TEST_POSTGRES", server.url.as_str()))
        .collect();
    run(&root, "cargo", &["test", "--workspace", "--locked"], &env)?;
    stage("cargo test --workspace", t);

    // The server's integration tests once more, each on a fresh PostgreSQL database.
    if let Some(server) = &postgres {
        let t = Instant::now();
        let tests = server_integration_tests(&root)?;
        run(
            &root.join("server"),
            &tests.to_string_lossy(),
            &[],
            &[
                ("TRACESCOPE_TEST_POSTGRES", server.url.as_str()),
                ("TRACESCOPE_TEST_ENGINE", "postgres"),
            ],
        )?;
        stage("server tests on PostgreSQL", t);
    }
    drop(postgres);

    let t = Instant::now();
    let site = site::build(&root, site::Profile::Release)?;
    stage("build site (wasm release)", t);

    let t = Instant::now();
    let e2e_dir = root.join("target/e2e");
    let _ = std::fs::remove_dir_all(&e2e_dir);
    std::fs::create_dir_all(&e2e_dir).context("creating target/e2e")?;
    // `cargo test` built this binary for the server's CLI tests, with the workspace's feature
    // set; building it again with `-p server` would recompile some fifty crates.
    let bin = root.join("target/debug/tracescope");
    if !bin.is_file() {
        bail!("cargo test did not leave {}", bin.display());
    }
    playwright(&root, &bin, &e2e_dir.join("tracescope.db"), &site, &[])?;
    stage("playwright", t);

    eprintln!(
        "xtask: every test passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    for (name, secs) in stages {
        eprintln!("xtask:   {secs:>6.1} s  {name}");
    }
    Ok(())
}

/// The Gantt chart's frame-time benchmark: a release server and site, then the Playwright
/// tests tagged `@bench` (a generated 10^6-event run, 10 s of scripted pan and zoom). Prints
/// and writes `target/frame-bench.json`.
fn frame_bench() -> anyhow::Result<()> {
    let root = root();
    ensure_chromium()?;
    ensure_node_modules(&root)?;
    run(
        &root,
        "cargo",
        &["build", "--release", "--locked", "-p", "server"],
        &[],
    )?;
    let site = site::build(&root, site::Profile::Release)?;
    let dir = root.join("target/frame-bench");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).context("creating target/frame-bench")?;
    playwright(
        &root,
        &root.join("target/release/tracescope"),
        &dir.join("tracescope.db"),
        &site,
        &[("TRACESCOPE_FRAME_BENCH", "1")],
    )?;
    for name in [
        "frame-bench.json",
        "frame-bench-hasse.json",
        "frame-bench-replay.json",
    ] {
        let report = std::fs::read_to_string(root.join("target").join(name))
            .with_context(|| format!("reading target/{name}"))?;
        println!("{name}: {report}");
    }
    Ok(())
}

/// Builds the site and measures the emulator's WebAssembly build under Node.
fn wasm_speed() -> anyhow::Result<()> {
    let root = root();
    site::build(&root, site::Profile::Release)?;
    // As the page runs it (warmed up as its worker loads), then cold, as it ran before.
    for extra in [None, Some("--cold")] {
        let mut args = vec!["simulator-wasm/benches/wasm_speed.mjs", "target/site/sim"];
        args.extend(extra);
        run(&root, "node", &args, &[])?;
    }
    Ok(())
}

/// Runs the Playwright tests against the server binary `bin` on a free loopback port, with
/// database `db`, the built `site` and Debian's Chromium (no browser download).
fn playwright(
    root: &Path,
    bin: &Path,
    db: &Path,
    site: &Path,
    extra: &[(&str, &str)],
) -> anyhow::Result<()> {
    let port = free_port()?.to_string();
    let (bin, db, site) = (
        bin.to_string_lossy(),
        db.to_string_lossy(),
        site.to_string_lossy(),
    );
    let mut envs = vec![
        ("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"),
        ("TRACESCOPE_BIN", bin.as_ref()),
        ("TRACESCOPE_DB", db.as_ref()),
        ("TRACESCOPE_SITE", site.as_ref()),
        ("PORT", port.as_str()),
    ];
    envs.extend_from_slice(extra);
    run(
        &root.join("playwright-tests"),
        "npx",
        &["playwright", "test"],
        &envs,
    )
}

/// A TCP port that was free a moment ago on the loopback interface.
fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(listener.local_addr()?.port())
}
