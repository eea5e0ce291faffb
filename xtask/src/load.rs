//! `cargo xtask load [--instances N] [--db sqlite|postgres|postgres://…]`: a load run on
//! loopback. Builds the release server, stores the worked example with `tracescope import`,
//! starts `tracescope serve` (N instances on the one store, default 1: an SQLite file, a
//! throw-away PostgreSQL started as the tests start theirs, or the PostgreSQL database at the
//! URL given), stores a permalink through the first, then runs Debian's `wrk` (installed when
//! missing) against the permalink and the run-metadata GETs, and against the whole-run
//! viewport of the gallery's 16-node ray tracer (simulated and imported first: 174,305 events
//! on 147 rows) at 64 and at 16 connections — one `wrk` an instance at once, the connections
//! shared out — and prints each and their sum.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, bail};

/// The value of a top-level string field in a JSON object (enough for our own answers).
fn json_string(json: &str, field: &str) -> anyhow::Result<String> {
    let key = format!("\"{field}\"");
    let rest = &json[json
        .find(&key)
        .with_context(|| format!("no {field} in {json}"))?
        + key.len()..];
    let start = rest.find('"').context("no string value")? + 1;
    let end = start + rest[start..].find('"').context("unterminated string")?;
    Ok(rest[start..end].to_owned())
}

/// Starts `tracescope serve` on a free loopback port; answers the child and its address.
fn serve(bin: &Path, db: &str, site: &Path) -> anyhow::Result<(std::process::Child, String)> {
    let mut server = Command::new(bin)
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(db)
        .arg("--site")
        .arg(site)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("starting tracescope serve")?;
    let mut line = String::new();
    BufReader::new(server.stdout.take().context("stdout")?).read_line(&mut line)?;
    let addr = line
        .trim()
        .strip_prefix("tracescope listening on http://")
        .with_context(|| format!("unexpected first line {line:?}"))?
        .to_owned();
    Ok((server, addr))
}

/// Requests a second and the 99th percentile latency (as wrk prints it) of a wrk report.
fn wrk_figures(report: &str) -> (f64, String) {
    let rate = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0);
    let p99 = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("99%"))
        .map_or_else(|| "?".to_owned(), |v| v.trim().to_owned());
    (rate, p99)
}

pub fn load(root: &Path, seconds: u32, connections: u32, args: &[&str]) -> anyhow::Result<()> {
    let usage = "usage: cargo xtask load [--instances N] [--db sqlite|postgres|postgres://…]";
    let (mut instances, mut engine) = (1u32, "sqlite");
    let mut rest = args;
    while let [flag, value, tail @ ..] = rest {
        match *flag {
            "--instances" => instances = value.parse().context("--instances takes a number")?,
            "--db" => engine = value,
            _ => bail!(usage),
        }
        rest = tail;
    }
    if !rest.is_empty() {
        bail!(usage);
    }
    if instances == 0 {
        bail!("--instances must be at least 1");
    }
    if !super::has_program("wrk") && Command::new("wrk").output().is_err() {
        super::apt_install(&["wrk"])?;
    }
    let bin = super::build_release_server(root)?;
    let dir = root.join("target/load");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    // Kept until the servers are stopped: dropping it stops the PostgreSQL.
    let mut postgres = None;
    let db = match engine {
        "sqlite" => dir.join("load.db").to_string_lossy().into_owned(),
        "postgres" => postgres
            .insert(super::postgres::TestPostgres::start()?)
            .url
            .clone(),
        url if url.starts_with("postgres://") || url.starts_with("postgresql://") => url.to_owned(),
        _ => bail!(usage),
    };
    println!("store: {engine}");
    let example = root.join("shared/tests/data/t4-worked-example.json");
    let out = Command::new(&bin)
        .arg("import")
        .arg(&example)
        .arg("--db")
        .arg(&db)
        .arg("--json")
        .output()
        .context("running tracescope import")?;
    if !out.status.success() {
        bail!("import failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let run_id = json_string(&String::from_utf8_lossy(&out.stdout), "id")?;
    // The gallery's 16-node ray tracer: a run of many events whose whole-run viewport is the
    // Gantt chart's first paint.
    let raytracer = dir.join("raytracer-16.bin");
    let out = Command::new(&bin)
        .args([
            "simulate",
            "demo:raytracer",
            "--nodes",
            "16",
            "--to",
            "binary",
            "--trace",
        ])
        .arg(&raytracer)
        .output()
        .context("running tracescope simulate")?;
    if !out.status.success() {
        bail!("simulate failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = Command::new(&bin)
        .arg("import")
        .arg(&raytracer)
        .arg("--db")
        .arg(&db)
        .arg("--json")
        .output()
        .context("running tracescope import")?;
    if !out.status.success() {
        bail!("import failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let raytracer_id = json_string(&String::from_utf8_lossy(&out.stdout), "id")?;

    let mut servers = Vec::new();
    for _ in 0..instances {
        servers.push(serve(&bin, &db, &root.join("target/site"))?);
    }
    let addr = servers[0].1.clone();
    let state = format!(r#"{{"version":1,"run":"{run_id}","window":{{"start":3,"end":40}}}}"#);
    let mut stream = TcpStream::connect(&addr)?;
    write!(
        stream,
        "POST /api/views HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{state}",
        state.len()
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let view_id = json_string(&answer, "id")?;
    let viewport = whole_run_viewport(&addr, &raytracer_id)?;

    let result = (|| {
        for (path, connections) in [
            (format!("/api/views/{view_id}"), connections),
            (format!("/api/runs/{run_id}/info"), connections),
            (viewport.clone(), connections),
            (viewport.clone(), 16),
        ] {
            // One wrk an instance, all at once, the connections shared out.
            let per = (connections / instances).max(1);
            let mut running = Vec::new();
            for (_, addr) in &servers {
                let url = format!("http://{addr}{path}");
                eprintln!("xtask: $ wrk -t2 -c{per} -d{seconds}s --latency {url}");
                running.push(
                    Command::new("wrk")
                        .args([
                            "-t2",
                            &format!("-c{per}"),
                            &format!("-d{seconds}s"),
                            "--latency",
                            &url,
                        ])
                        .stdout(Stdio::piped())
                        .spawn()
                        .context("starting wrk")?,
                );
            }
            let mut total = 0.0;
            for (k, wrk) in running.into_iter().enumerate() {
                let out = wrk.wait_with_output().context("waiting for wrk")?;
                let report = String::from_utf8_lossy(&out.stdout);
                print!("{report}");
                let (rate, p99) = wrk_figures(&report);
                println!("instance {k}: {rate:.0} requests/s, p99 {p99}");
                total += rate;
            }
            println!(
                "{path}: {instances} instance(s), {connections} connections, {total:.0} requests/s in all"
            );
        }
        anyhow::Ok(())
    })();
    for (mut server, _) in servers {
        let _ = server.kill();
        let _ = server.wait();
    }
    result
}

/// The path of the whole-run viewport of run `id` as the page first asks for it: every row,
/// the run's whole span, 1,600 pixels wide.
fn whole_run_viewport(addr: &str, id: &str) -> anyhow::Result<String> {
    let mut stream = TcpStream::connect(addr)?;
    write!(
        stream,
        "GET /api/runs/{id}/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let info: serde_json::Value =
        serde_json::from_str(body).with_context(|| format!("the run's info: {answer}"))?;
    let summary = &info["summary"];
    let (start, end, rows) = (
        summary["time"]["start"].as_u64().context("no start")?,
        summary["time"]["end"].as_u64().context("no end")?,
        summary["processes"].as_u64().context("no processes")?,
    );
    Ok(format!(
        "/api/runs/{id}/viewport?start={start}&end={}&first_row=0&last_row={}&width_px=1600",
        end + 1,
        rows.saturating_sub(1)
    ))
}
