//! `cargo xtask perf-compare`: Tracescope's importers beside the open tools a user would pick,
//! on the same generated traces, interleaved, on this machine.
//!
//! Peers, installed from the registries when missing: Debian's `otf2-tools` (`otf2-print`, the
//! official OTF2 C library), npm's `@tracerbench/trace-model` under Node (JSON.parse and its
//! model), and PyPI's `otf2` (the official Python bindings, also the OTF2 generator) and
//! `orjson` (parse and group by thread) in a virtual environment under `target/perf-compare`.
//! Tracescope's measure is `tracescope convert IN OUT --to binary`: import into the model and
//! write it. Each command's CPU time (user + system) and peak RSS come from `wait4`'s rusage.
//!
//! `--sizes 1000000,10000000` (events, default), `--reps 3` (median of each), `--only chrome|otf2`.
//! Node cannot hold a JSON text above 512 MiB in one string, so its runs stop at 5×10^6 Chrome
//! events; the table says so rather than leave a gap unexplained.

use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context as _, bail};
use nix::sys::resource::{UsageWho, getrusage};

/// One measured run.
#[derive(Debug, Clone, Copy)]
struct Usage {
    cpu_s: f64,
    wall_s: f64,
    peak_mib: f64,
}

/// A tool run on one input: its name and command line.
struct Tool {
    name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    dir: PathBuf,
}

/// The inputs of one size and format.
struct Case {
    format: &'static str,
    events: usize,
    input: PathBuf,
    tools: Vec<Tool>,
    /// Why a peer was not run on this input.
    skipped: Vec<&'static str>,
}

pub fn perf_compare(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let mut sizes = vec![1_000_000usize, 10_000_000];
    let mut reps = 3usize;
    let mut only: Option<String> = None;
    let mut rest = args.iter();
    while let Some(&arg) = rest.next() {
        let value = rest
            .next()
            .with_context(|| format!("{arg} needs a value"))?;
        match arg {
            "--sizes" => {
                sizes = value
                    .split(',')
                    .map(|s| s.trim().parse())
                    .collect::<Result<_, _>>()
                    .context("--sizes takes event counts, e.g. 1000000,10000000")?;
            }
            "--reps" => reps = value.parse().context("--reps takes a count")?,
            "--only" => only = Some((*value).to_owned()),
            _ => bail!("unknown option {arg}"),
        }
    }
    let dir = root.join("target/perf-compare");
    std::fs::create_dir_all(dir.join("inputs"))?;
    let python = install_peers(root, &dir)?;
    let tracescope = super::build_release_server(root)?;
    let scripts = root.join("xtask/perf");
    let out = dir.join("out.tscb");
    let convert = |input: &Path| Tool {
        name: "Tracescope `convert --to binary`",
        program: tracescope.clone(),
        args: vec![
            "convert".into(),
            path_arg(input),
            path_arg(&out),
            "--to".into(),
            "binary".into(),
            // The default import budget stops at 2^23 events and a few GB of input; these
            // inputs are meant to be large.
            "--max-events".into(),
            "4000000000".into(),
            "--max-input-bytes".into(),
            "1000000000000".into(),
            "--max-memory-bytes".into(),
            "10000000000000".into(),
        ],
        dir: dir.clone(),
    };

    let mut cases = Vec::new();
    for &n in &sizes {
        if only.as_deref().is_none_or(|o| o == "chrome") {
            let input = dir.join(format!("inputs/chrome-{n}.json"));
            if !input.exists() {
                let t = Instant::now();
                write_chrome(&input, n)?;
                eprintln!(
                    "perf-compare: wrote {} in {:.1?}",
                    input.display(),
                    t.elapsed()
                );
            }
            let mut tools = vec![convert(&input)];
            let mut skipped = Vec::new();
            let bytes = std::fs::metadata(&input)?.len();
            if bytes < 500 << 20 {
                tools.push(Tool {
                    name: "@tracerbench/trace-model (Node)",
                    program: "node".into(),
                    args: vec![
                        "--max-old-space-size=20000".into(),
                        path_arg(&scripts.join("trace_model.mjs")),
                        path_arg(&input),
                    ],
                    dir: dir.join("node"),
                });
            } else {
                skipped.push("no Node run: the text exceeds V8's 512 MiB string limit");
            }
            if bytes < 2 << 30 {
                tools.push(Tool {
                    name: "orjson + group by thread (Python)",
                    program: python.clone(),
                    args: vec![path_arg(&scripts.join("orjson_group.py")), path_arg(&input)],
                    dir: dir.clone(),
                });
            } else {
                skipped.push("no orjson run: it takes about 12× the text in memory");
            }
            cases.push(Case {
                format: "Chrome JSON",
                events: n,
                input,
                tools,
                skipped,
            });
        }
        if only.as_deref().is_none_or(|o| o == "otf2") {
            let archive = dir.join(format!("inputs/otf2-{n}"));
            let input = archive.join("traces.otf2");
            if !input.exists() {
                let _ = std::fs::remove_dir_all(&archive);
                let t = Instant::now();
                super::run(
                    root,
                    &path_arg(&python),
                    &[
                        &path_arg(&scripts.join("gen_otf2.py")),
                        &path_arg(&archive),
                        &n.to_string(),
                    ],
                    &[],
                )?;
                eprintln!(
                    "perf-compare: wrote {} in {:.1?}",
                    input.display(),
                    t.elapsed()
                );
            }
            let mut tools = vec![
                convert(&input),
                Tool {
                    name: "otf2-print (OTF2 C library)",
                    program: "otf2-print".into(),
                    args: vec![path_arg(&input)],
                    dir: dir.clone(),
                },
            ];
            // The Python bindings take ~3 s a million events: only at the smaller sizes.
            let mut skipped = Vec::new();
            if n <= 1_000_000 {
                tools.push(Tool {
                    name: "otf2 Python bindings loop",
                    program: python.clone(),
                    args: vec![path_arg(&scripts.join("otf2_read.py")), path_arg(&input)],
                    dir: dir.clone(),
                });
            } else {
                skipped.push("no Python bindings run above 10^6 events");
            }
            cases.push(Case {
                format: "OTF2",
                events: n,
                input,
                tools,
                skipped,
            });
        }
    }

    // Interleaved: every tool once on every case, then again, so drift hits all alike.
    let mut usage: Vec<Vec<Vec<Usage>>> = cases
        .iter()
        .map(|c| vec![Vec::new(); c.tools.len()])
        .collect();
    for rep in 0..reps {
        for (c, case) in cases.iter().enumerate() {
            for (t, tool) in case.tools.iter().enumerate() {
                let u = measure(tool)?;
                eprintln!(
                    "perf-compare: [{}/{reps}] {} {} events, {}: {:.2} s CPU, {:.2} s wall, {:.0} MiB",
                    rep + 1,
                    case.format,
                    case.events,
                    tool.name,
                    u.cpu_s,
                    u.wall_s,
                    u.peak_mib
                );
                usage[c][t].push(u);
            }
        }
    }
    let report = table(&cases, &usage);
    println!("{report}");
    std::fs::write(dir.join("report.md"), &report)?;
    Ok(())
}

/// The bytes of an input: a JSON file, or an OTF2 archive (its anchor file's directory).
fn input_bytes(input: &Path) -> u64 {
    fn walk(p: &Path) -> u64 {
        match std::fs::read_dir(p) {
            Ok(entries) => entries.flatten().map(|e| walk(&e.path())).sum(),
            Err(_) => std::fs::metadata(p).map_or(0, |m| m.len()),
        }
    }
    if input.extension().is_some_and(|e| e == "otf2") {
        input.parent().map_or(0, walk)
    } else {
        walk(input)
    }
}

fn path_arg(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Installs what is missing: `otf2-tools` from Debian, the npm peer into
/// `target/perf-compare/node`, the PyPI ones into a virtual environment; returns its python.
fn install_peers(root: &Path, dir: &Path) -> anyhow::Result<PathBuf> {
    if Command::new("otf2-print")
        .arg("--version")
        .output()
        .is_err()
    {
        super::apt_install(&["otf2-tools"])?;
    }
    super::ensure_npm()?;
    let node_dir = dir.join("node");
    std::fs::create_dir_all(&node_dir)?;
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(root.join("xtask/perf").join(file), node_dir.join(file))?;
    }
    if !node_dir
        .join("node_modules/@tracerbench/trace-model")
        .exists()
    {
        super::run(&node_dir, "npm", &["ci", "--no-audit", "--no-fund"], &[])?;
    }
    let venv = dir.join("venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        super::run(dir, "python3", &["-m", "venv", &path_arg(&venv)], &[])?;
    }
    let requirements = root.join("xtask/perf/requirements.txt");
    let ok = Command::new(&python)
        .args(["-c", "import otf2, orjson"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        super::run(
            dir,
            &path_arg(&python),
            &[
                "-m",
                "pip",
                "install",
                "--quiet",
                "-r",
                &path_arg(&requirements),
            ],
            &[],
        )?;
    }
    Ok(python)
}

/// Runs a tool, its output discarded, through `xtask rusage-of`, which reads its own children's
/// rusage once the tool ended: that is the tool's alone.
fn measure(tool: &Tool) -> anyhow::Result<Usage> {
    let start = Instant::now();
    let out = Command::new(std::env::current_exe()?)
        .arg("rusage-of")
        .arg(&tool.program)
        .args(&tool.args)
        .current_dir(&tool.dir)
        .stderr(Stdio::piped())
        .output()
        .context("starting xtask rusage-of")?;
    let wall_s = start.elapsed().as_secs_f64();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        bail!(
            "{} {} failed: {}",
            tool.program.display(),
            tool.args.join(" "),
            err.lines().take(5).collect::<Vec<_>>().join(" | ")
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text.split_whitespace().map(str::parse::<f64>);
    let (Some(Ok(cpu_s)), Some(Ok(peak_kib))) = (fields.next(), fields.next()) else {
        bail!("rusage-of printed {text:?}");
    };
    Ok(Usage {
        cpu_s,
        wall_s,
        peak_mib: peak_kib / 1024.0,
    })
}

/// `xtask rusage-of PROGRAM ARGS…`: runs the program (stdout discarded, stderr passed on),
/// fails when it fails, and prints its CPU seconds (user + system) and peak RSS in KiB.
pub fn rusage_of(args: &[&str]) -> anyhow::Result<()> {
    let (program, rest) = args.split_first().context("rusage-of needs a program")?;
    let status = Command::new(program)
        .args(rest)
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("starting {program}"))?;
    if !status.success() {
        bail!("{program} failed ({status})");
    }
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN)?;
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    println!(
        "{} {}",
        secs(usage.user_time()) + secs(usage.system_time()),
        usage.max_rss()
    );
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The report: per case, each tool's medians and Tracescope's ratio to it; then Tracescope's
/// ratio to the best peer (least CPU, least memory) with the issue's targets.
fn table(cases: &[Case], usage: &[Vec<Vec<Usage>>]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| input | tool | CPU s | wall s | peak MiB | Tracescope CPU ratio | memory ratio |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|");
    let mut summary = String::new();
    for (case, runs) in cases.iter().zip(usage) {
        let med: Vec<Usage> = runs
            .iter()
            .map(|r| Usage {
                cpu_s: median(r.iter().map(|u| u.cpu_s).collect()),
                wall_s: median(r.iter().map(|u| u.wall_s).collect()),
                peak_mib: median(r.iter().map(|u| u.peak_mib).collect()),
            })
            .collect();
        let ours = med[0];
        let size = input_bytes(&case.input) as f64 / (1 << 20) as f64;
        let label = format!("{} {:.0e} events", case.format, case.events as f64);
        for (tool, u) in case.tools.iter().zip(&med) {
            let (cpu, mem) = if std::ptr::eq(u, &med[0]) {
                (String::new(), String::new())
            } else {
                (
                    format!("{:.2}×", ours.cpu_s / u.cpu_s),
                    format!("{:.2}×", ours.peak_mib / u.peak_mib),
                )
            };
            let _ = writeln!(
                s,
                "| {label} | {} | {:.2} | {:.2} | {:.0} | {cpu} | {mem} |",
                tool.name, u.cpu_s, u.wall_s, u.peak_mib
            );
        }
        let peers = &med[1..];
        let skipped = if case.skipped.is_empty() {
            String::new()
        } else {
            format!("; {}", case.skipped.join("; "))
        };
        if peers.is_empty() {
            let _ = writeln!(
                summary,
                "- {label} ({size:.0} MiB{skipped}): Tracescope alone, {:.2} s CPU, {:.0} MiB",
                ours.cpu_s, ours.peak_mib
            );
            continue;
        }
        let best_cpu = peers.iter().map(|u| u.cpu_s).fold(f64::INFINITY, f64::min);
        let best_mem = peers
            .iter()
            .map(|u| u.peak_mib)
            .fold(f64::INFINITY, f64::min);
        let (cpu, mem) = (ours.cpu_s / best_cpu, ours.peak_mib / best_mem);
        let mark = |ok: bool| if ok { "meets" } else { "misses" };
        let _ = writeln!(
            summary,
            "- {label} ({size:.0} MiB{skipped}): CPU {cpu:.2}× the best peer ({} the ≤ 0.5× \
             target), memory {mem:.2}× ({} the ≤ 1.5× target)",
            mark(cpu <= 0.5),
            mark(mem <= 1.5)
        );
    }
    s.push('\n');
    s.push_str(&summary);
    s
}

/// Writes a synthetic MPI-like Chrome trace of about `n` events: 16 processes of 4 threads;
/// each thread repeats a `compute` slice (`X`), an `MPI_Send` (`B`, a flow start `s`, `E`) to
/// the next thread and an `MPI_Recv` (`B`, the flow's end `f`, `E`) from the previous one.
fn write_chrome(path: &Path, n: usize) -> anyhow::Result<()> {
    const PIDS: usize = 16;
    const TIDS: usize = 4;
    const THREADS: usize = PIDS * TIDS;
    let rounds = (n / (7 * THREADS)).max(1);
    let tmp = path.with_extension("part");
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
    write!(w, "{{\"traceEvents\":[")?;
    let mut first = true;
    let mut sep = |w: &mut BufWriter<std::fs::File>| -> std::io::Result<()> {
        if !first {
            w.write_all(b",\n")?;
        }
        first = false;
        Ok(())
    };
    for p in 0..PIDS {
        sep(&mut w)?;
        write!(
            w,
            r#"{{"ph":"M","cat":"__metadata","name":"process_name","pid":{p},"tid":0,"args":{{"name":"rank {p}"}}}}"#
        )?;
    }
    let pid_tid = |k: usize| (k / TIDS, k % TIDS);
    for k in 0..THREADS {
        let (pid, tid) = pid_tid(k);
        let (right, left) = ((k + 1) % THREADS, (k + THREADS - 1) % THREADS);
        let mut t = 10.0 + k as f64 * 0.013;
        for i in 0..rounds {
            let dur = 0.9 + ((k * 13 + i * 7) % 200) as f64 / 1000.0;
            let end = t + dur;
            let at = |dt: f64| format!(r#""pid":{pid},"tid":{tid},"ts":{:.3}"#, end + dt);
            let round = [
                format!(
                    r#"{{"ph":"X","name":"compute","cat":"app","pid":{pid},"tid":{tid},"ts":{t:.3},"dur":{dur:.3},"args":{{"iteration":{i}}}}}"#
                ),
                format!(r#"{{"ph":"B","name":"MPI_Send","cat":"mpi",{}}}"#, at(0.01)),
                format!(
                    r#"{{"ph":"s","name":"msg","cat":"mpi","id":"{k}-{right}-{i}",{}}}"#,
                    at(0.02)
                ),
                format!(r#"{{"ph":"E","cat":"mpi",{}}}"#, at(0.03)),
                format!(r#"{{"ph":"B","name":"MPI_Recv","cat":"mpi",{}}}"#, at(0.04)),
                format!(
                    r#"{{"ph":"f","bp":"e","name":"msg","cat":"mpi","id":"{left}-{k}-{i}",{}}}"#,
                    at(0.3)
                ),
                format!(r#"{{"ph":"E","cat":"mpi",{}}}"#, at(0.31)),
            ];
            for event in &round {
                sep(&mut w)?;
                w.write_all(event.as_bytes())?;
            }
            t = end;
            t += 0.32;
        }
    }
    write!(w, "]}}")?;
    w.flush()?;
    drop(w);
    std::fs::rename(&tmp, path)?;
    Ok(())
}
