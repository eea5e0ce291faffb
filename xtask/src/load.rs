//! `cargo xtask load`: a load run on loopback. Builds the release server, stores the worked
//! example with `tracescope import`, starts `tracescope serve`, stores a permalink, then runs
//! Debian's `wrk` (installed when missing) against the permalink and the run-metadata GETs.

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

pub fn load(root: &Path, seconds: u32, connections: u32) -> anyhow::Result<()> {
    if !super::has_program("wrk") && Command::new("wrk").output().is_err() {
        super::apt_install(&["wrk"])?;
    }
    let bin = super::build_release_server(root)?;
    let dir = root.join("target/load");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("load.db");
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

    let mut server = Command::new(&bin)
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .arg("--site")
        .arg(root.join("target/site"))
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

    let state = format!(r#"{{"version":1,"run":"{run_id}","window":{{"start":3,"end":40}}}}"#);
    let mut stream = TcpStream::connect(&addr)?;
    write!(
        stream,
        "POST /api/views HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{state}",
        state.len()
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let view_id = json_string(&answer, "id")?;

    let result = (|| {
        for path in [
            format!("/api/views/{view_id}"),
            format!("/api/runs/{run_id}/info"),
        ] {
            let url = format!("http://{addr}{path}");
            super::run(
                root,
                "wrk",
                &[
                    "-t2",
                    &format!("-c{connections}"),
                    &format!("-d{seconds}s"),
                    "--latency",
                    &url,
                ],
                &[],
            )?;
        }
        anyhow::Ok(())
    })();
    let _ = server.kill();
    let _ = server.wait();
    result
}
