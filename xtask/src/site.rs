//! Builds the site: the frontend and the emulator compiled to wasm32, bound by wasm-bindgen,
//! optimised by wasm-opt, and the static files, all in `target/site` (the emulator in
//! `target/site/sim`, loaded by the Simulator page's Web Worker).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use crate::run;

/// Which cargo profile the wasm is built with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Fast to build, large.
    Debug,
    /// `wasm-release` (size-optimised, LTO) plus wasm-opt.
    Release,
}

const TARGET: &str = "wasm32-unknown-unknown";

/// The feature flags binaryen 132 needs for rustc's wasm output; `--all-features` produces a
/// module that does not load (Debian's binaryen 108 breaks the module; binaryen 132 from npm does not).
const WASM_OPT_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// Builds the site and returns its folder.
pub fn build(root: &Path, profile: Profile) -> anyhow::Result<PathBuf> {
    ensure_wasm_target(root)?;
    let wasm_bindgen = ensure_wasm_bindgen(root)?;
    let (cargo_profile, out_dir) = match profile {
        Profile::Debug => ("dev", "debug"),
        Profile::Release => ("wasm-release", "wasm-release"),
    };
    run(
        root,
        "cargo",
        &[
            "build",
            "--locked",
            "-p",
            "frontend",
            "-p",
            "simulator-wasm",
            "--target",
            TARGET,
            "--profile",
            cargo_profile,
        ],
        &[],
    )?;
    let wasm = root
        .join("target")
        .join(TARGET)
        .join(out_dir)
        .join("frontend.wasm");
    let site = root.join("target/site");
    let pkg = site.join("pkg");
    let _ = std::fs::remove_dir_all(&site);
    std::fs::create_dir_all(&pkg).context("creating target/site/pkg")?;
    bind(root, &wasm_bindgen, &wasm, &pkg)?;
    let sim = site.join("sim");
    bind(
        root,
        &wasm_bindgen,
        &wasm.with_file_name("simulator_wasm.wasm"),
        &sim,
    )?;
    let bg = pkg.join("frontend_bg.wasm");
    let sim_bg = sim.join("simulator_wasm_bg.wasm");
    let wasm_opt = root.join("playwright-tests/node_modules/.bin/wasm-opt");
    if profile == Profile::Release {
        if wasm_opt.exists() {
            // The app for size, the emulator for speed.
            for (file, level) in [(&bg, "-Oz"), (&sim_bg, "-O3")] {
                let path = file.to_string_lossy().into_owned();
                let mut args = vec![level, path.as_str(), "-o", path.as_str()];
                args.extend_from_slice(WASM_OPT_FEATURES);
                run(root, &wasm_opt.to_string_lossy(), &args, &[])?;
            }
        } else {
            eprintln!(
                "xtask: wasm-opt not installed (npm ci in playwright-tests/); shipping the unoptimised wasm"
            );
        }
    }
    for entry in std::fs::read_dir(root.join("static")).context("reading static/")? {
        let path = entry?.path();
        if path.is_file() {
            let name = path.file_name().context("file name")?;
            std::fs::copy(&path, site.join(name))
                .with_context(|| format!("copying {}", path.display()))?;
        }
    }
    copy_samples(root, &site.join("samples"))?;
    report_size(&bg)?;
    report_size(&pkg.join("frontend.js"))?;
    report_size(&sim_bg)?;
    Ok(site)
}

/// The vendored traces the home page offers as samples (`frontend/src/samples.rs`), with
/// their `SOURCES.md`: `shared/tests/data/traces/` and the two model examples.
fn copy_samples(root: &Path, out: &Path) -> anyhow::Result<()> {
    let data = root.join("shared/tests/data");
    copy_tree(&data.join("traces"), &out.join("traces"))?;
    for file in ["t4-worked-example.json", "master-workers-probes.json"] {
        std::fs::copy(data.join(file), out.join(file))
            .with_context(|| format!("copying {file}"))?;
    }
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let path = entry?.path();
        let target = to.join(path.file_name().context("file name")?);
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).with_context(|| format!("copying {}", path.display()))?;
        }
    }
    Ok(())
}

/// Binds `wasm` for the browser (ES modules) into `out`.
fn bind(root: &Path, wasm_bindgen: &Path, wasm: &Path, out: &Path) -> anyhow::Result<()> {
    run(
        root,
        &wasm_bindgen.to_string_lossy(),
        &[
            "--target",
            "web",
            "--no-typescript",
            "--out-dir",
            &out.to_string_lossy(),
            &wasm.to_string_lossy(),
        ],
        &[],
    )
}

fn report_size(path: &Path) -> anyhow::Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&bytes)?;
    let gz = gz.finish()?;
    eprintln!(
        "xtask: {} is {} bytes ({} gzipped)",
        path.display(),
        bytes.len(),
        gz.len()
    );
    Ok(())
}

/// Adds the wasm32 target with rustup when it is missing.
fn ensure_wasm_target(root: &Path) -> anyhow::Result<()> {
    let out = std::process::Command::new("rustup")
        .args(["target", "list", "--installed"])
        .current_dir(root)
        .output();
    let installed = out.is_ok_and(|o| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .any(|l| l.trim() == TARGET)
    });
    if !installed {
        run(root, "rustup", &["target", "add", TARGET], &[])?;
    }
    Ok(())
}

/// The version of a package in Cargo.lock.
pub fn locked_version(lock: &str, package: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{package}\"") {
            let version = lines
                .next()?
                .trim()
                .strip_prefix("version = \"")?
                .strip_suffix('"')?;
            return Some(version.to_owned());
        }
    }
    None
}

/// The wasm-bindgen CLI of exactly the version in Cargo.lock, compiled from crates.io once per
/// version into `$CARGO_HOME/tools/wasm-bindgen-<version>`.
fn ensure_wasm_bindgen(root: &Path) -> anyhow::Result<PathBuf> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let Some(version) = locked_version(&lock, "wasm-bindgen") else {
        bail!("Cargo.lock has no wasm-bindgen package");
    };
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let tool_root = cargo_home
        .join("tools")
        .join(format!("wasm-bindgen-{version}"));
    let bin = tool_root.join("bin/wasm-bindgen");
    let has_version = std::process::Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(&version));
    if has_version {
        return Ok(bin);
    }
    let tool_root_str = tool_root.to_string_lossy().into_owned();
    let args = [
        "install",
        "wasm-bindgen-cli",
        "--version",
        &version,
        "--root",
        &tool_root_str,
    ];
    let locked: Vec<&str> = args.iter().copied().chain(["--locked"]).collect();
    // The registry mirror can lack a version the CLI's own lock file pins; then resolve afresh.
    if run(root, "cargo", &locked, &[]).is_err() {
        eprintln!("xtask: `cargo install --locked` failed; retrying without --locked");
        run(root, "cargo", &args, &[])?;
    }
    Ok(bin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locked_version_reads_the_package_line_after_the_name() {
        let lock = "[[package]]\nname = \"wasm-bindgen-macro\"\nversion = \"9.9.9\"\n\n[[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\n";
        assert_eq!(
            locked_version(lock, "wasm-bindgen").as_deref(),
            Some("0.2.130")
        );
        assert_eq!(locked_version(lock, "leptos"), None);
    }

    #[test]
    fn frontend_and_cli_agree_on_the_wasm_bindgen_version() {
        let root = crate::root();
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock");
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
        let locked = locked_version(&lock, "wasm-bindgen").expect("wasm-bindgen is locked");
        assert!(
            manifest.contains(&format!("wasm-bindgen = \"={locked}\"")),
            "the workspace pins wasm-bindgen exactly to the locked {locked}"
        );
    }
}
