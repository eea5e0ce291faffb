//! The real binary on a loopback port, on a real store (SQLite, or PostgreSQL: `crate::store`):
//! an upload cut off by SIGKILL leaves no partial run and a sound database.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::store::{TestStore, count};

/// Starts `tracescope serve` on a free loopback port; answers the child and its address.
fn serve(db: &str, site: &std::path::Path) -> (Child, String) {
    serve_with(db, site, &[])
}

/// [`serve`] with more options.
fn serve_with(db: &str, site: &std::path::Path, options: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracescope"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(options)
        .arg("--db")
        .arg(db)
        .arg("--site")
        .arg(site)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tracescope starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("a first line");
    let addr = line
        .trim()
        .strip_prefix("tracescope listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (child, addr)
}

/// A raw HTTP/1.1 request; answers the status code and the body.
fn request(addr: &str, head: &str, body: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    stream.write_all(head.as_bytes()).expect("writes");
    stream.write_all(body).expect("writes");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    (status, body)
}

fn runs_list(addr: &str) -> serde_json::Value {
    let (status, body) = request(
        addr,
        "GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"",
    );
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("JSON")
}

#[test]
fn sigkill_mid_upload_leaves_no_partial_run_and_a_sound_database() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = TestStore::new(dir.path(), "runs.db");
    let (db, site) = (store.arg(), dir.path().join("site"));
    std::fs::create_dir_all(&site).expect("site");
    // A large valid trace: a ring of 64 processes, 400,000 events, in the native format.
    let trace =
        shared::formats::native::write(&shared::model::synthetic::ring(64, 400_000)).into_bytes();
    let head = |len: usize| {
        format!(
            "POST /api/runs?name=ring.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
        )
    };

    // One complete upload first: it must survive the crash.
    let (mut server, addr) = serve(&db, &site);
    let small = std::fs::read(crate::shared_data("t4-worked-example.json")).expect("fixture");
    let (status, body) = request(&addr, &head(small.len()), &small);
    assert_eq!(status, 201, "{body}");

    // Half of the large body, then SIGKILL while the server waits for the rest.
    let mut stream = TcpStream::connect(&addr).expect("connects");
    stream
        .write_all(head(trace.len()).as_bytes())
        .expect("writes");
    stream.write_all(&trace[..trace.len() / 2]).expect("writes");
    stream.flush().expect("flushes");
    std::thread::sleep(Duration::from_millis(300));
    server.kill().expect("SIGKILL");
    server.wait().expect("reaped");
    drop(stream);

    // The whole large body, then SIGKILL while it is parsed, analysed or stored.
    let (mut server, addr) = serve(&db, &site);
    let mut stream = TcpStream::connect(&addr).expect("connects");
    stream
        .write_all(head(trace.len()).as_bytes())
        .expect("writes");
    stream.write_all(&trace).expect("writes");
    stream.flush().expect("flushes");
    std::thread::sleep(Duration::from_millis(150));
    server.kill().expect("SIGKILL");
    server.wait().expect("reaped");
    drop(stream);

    // The whole large body again, with a progress key, and SIGKILL as soon as the upload says
    // it is being written to the store — on PostgreSQL, once the run's transaction is seen
    // open, so the kill cuts it (tried again should a transaction finish between two looks).
    let mut killed_in_transaction = false;
    let mut attempts = 0;
    while !killed_in_transaction && attempts < 5 {
        attempts += 1;
        let (mut server, addr) = serve(&db, &site);
        let key = format!("sigkill-while-storing-{attempts:04}");
        let mut stream = TcpStream::connect(&addr).expect("connects");
        let head =
            head(trace.len()).replace("name=ring.json", &format!("name=ring.json&upload={key}"));
        stream.write_all(head.as_bytes()).expect("writes");
        stream.write_all(&trace).expect("writes");
        stream.flush().expect("flushes");
        let phase = || {
            let (status, body) = request(
                &addr,
                &format!(
                    "GET /api/uploads/{key} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                ),
                b"",
            );
            (status == 200)
                .then(|| serde_json::from_str::<serde_json::Value>(&body).ok())
                .flatten()
                .and_then(|p| p["phase"].as_str().map(str::to_owned))
                .unwrap_or_default()
        };
        let started = std::time::Instant::now();
        let mut last = String::new();
        while last != "storing" && last != "done" {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "stuck at {last:?}"
            );
            last = phase();
        }
        killed_in_transaction = match store.storing_a_run() {
            // SQLite: killed as the upload reports storing, in its transaction or about it.
            None => true,
            Some(mut open) => {
                while !open && last != "done" {
                    open = store.storing_a_run() == Some(true);
                    if !open {
                        last = phase();
                    }
                }
                open
            }
        };
        server.kill().expect("SIGKILL");
        server.wait().expect("reaped");
        drop(stream);
    }
    assert!(killed_in_transaction, "killed inside the run's transaction");

    // Restarted: the first run is there; any other run is complete, with its blobs.
    let (mut server, addr) = serve(&db, &site);
    let list = runs_list(&addr);
    let runs = list["runs"].as_array().expect("runs");
    // The first run, perhaps the second, and any a late look at a transaction let finish.
    assert!(!runs.is_empty() && runs.len() <= 1 + attempts, "{list}");
    assert!(
        runs.iter().any(|r| r["summary"]["events"] == 13),
        "the first run survives"
    );
    for run in runs {
        let id = run["id"].as_str().expect("id");
        let (status, body) = request(
            &addr,
            &format!("GET /api/runs/{id} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
            b"",
        );
        assert_eq!(
            status,
            200,
            "run {id} is whole: {}",
            &body[..body.len().min(200)]
        );
    }
    server.kill().expect("SIGKILL");
    server.wait().expect("reaped");

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let pool = store.open().await;
        if let server::db::Pool::Sqlite(sqlite) = &pool {
            let check: String = sqlx::query_scalar("PRAGMA integrity_check")
                .fetch_one(sqlite)
                .await
                .expect("pragma");
            assert_eq!(check, "ok");
        }
        // Every stored run has its blobs and its index; nothing is left of one that is not.
        for (what, sql) in [
            (
                "runs without blobs",
                "SELECT COUNT(*) FROM runs WHERE id NOT IN (SELECT run_id FROM run_blobs)",
            ),
            (
                "runs without an index",
                "SELECT COUNT(*) FROM runs WHERE id NOT IN (SELECT run_id FROM run_index)",
            ),
            (
                "chunks without a run",
                "SELECT COUNT(*) FROM run_chunks WHERE run_id NOT IN (SELECT id FROM runs)",
            ),
        ] {
            assert_eq!(count(&pool, sql, &[]).await, 0, "{what}");
        }
    });
}

/// The largest resident set the process has had, in bytes (Linux's `VmHWM`).
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmHWM")
        * 1024
}

#[test]
fn a_decompression_bomb_is_refused_within_the_budget_and_loses_nothing() {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    const BUDGET: usize = 4 << 20;
    const INFLATED: usize = 128 << 20;
    let dir = tempfile::tempdir().expect("temp dir");
    let store = TestStore::new(dir.path(), "runs.db");
    let (db, site) = (store.arg(), dir.path().join("site"));
    std::fs::create_dir_all(&site).expect("site");
    let (mut child, addr) = serve_with(&db, &site, &["--max-upload-bytes", &BUDGET.to_string()]);
    let post = |body: &[u8]| {
        request(
            &addr,
            &format!(
                "POST /api/runs?name=t.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            ),
            body,
        )
    };
    // A good run first: the refusal must not touch it.
    let good = shared::formats::chrome::write(&shared::model::synthetic::ring(4, 200));
    let (status, body) = post(good.as_bytes());
    assert_eq!(status, 201, "{body}");
    let before = peak_rss(child.id());

    // 128 MiB of valid Chrome records, gzip-compressed to well under the 4 MiB upload limit.
    let record = br#"{"ph":"X","name":"work","pid":1,"tid":1,"ts":1,"dur":1},"#;
    let chunk: Vec<u8> = record.iter().copied().cycle().take(1 << 20).collect();
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(b"[").expect("gz");
    for _ in 0..INFLATED >> 20 {
        gz.write_all(&chunk).expect("gz");
    }
    let bomb = gz.finish().expect("gz");
    assert!(bomb.len() < BUDGET, "the bomb is {} bytes", bomb.len());

    let (status, body) = post(&bomb);
    assert_eq!(status, 413, "{body}");
    let error: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(error["code"], "over_budget", "{body}");
    assert_eq!(error["trace_error"]["exceeded"], "input_bytes", "{body}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("--max-input-bytes")),
        "{body}"
    );
    // Memory followed the budget, not the compression ratio: the peak grew by a few budgets
    // at most (the upload, its inflated part, the parse buffers), far below the 128 MiB.
    let grown = peak_rss(child.id()).saturating_sub(before);
    eprintln!("the bomb grew the server's peak RSS by {grown} bytes");
    assert!(
        grown < 6 * BUDGET as u64,
        "the server's peak memory grew by {grown} bytes on a {BUDGET}-byte budget"
    );
    let runs = runs_list(&addr);
    assert_eq!(runs["total"], 1, "{runs}");
    let _ = child.kill();
    let _ = child.wait();
}

/// A raw HTTP/1.1 request; answers the status code, the head (lower-cased) and the body.
fn request_with_head(addr: &str, head: &str, body: &[u8]) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .expect("timeout");
    stream.write_all(head.as_bytes()).expect("writes");
    stream.write_all(body).expect("writes");
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("an answer, not a hang");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// `GET /metrics`' value of the gauge `name`.
fn gauge(addr: &str, name: &str) -> Option<f64> {
    let (status, _, body) = request_with_head(
        addr,
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"",
    );
    assert_eq!(status, 200, "{body}");
    body.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

#[test]
fn eight_bombs_at_once_stay_within_the_server_memory_budget_and_all_get_an_answer() {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    // Each bomb is charged its import budget's estimate (8 MiB of input, one event per 8 bytes,
    // but no more events than 48 MiB pays for at 128 bytes each: 48 MiB), so a 48 MiB server
    // runs one at a time. One takes about 15 MiB; eight at once took 38 MiB at 4 MiB each.
    const UPLOAD: usize = 8 << 20;
    const MEMORY: u64 = 48 << 20;
    const BOMBS: usize = 8;
    let dir = tempfile::tempdir().expect("temp dir");
    let store = TestStore::new(dir.path(), "runs.db");
    let (db, site) = (store.arg(), dir.path().join("site"));
    std::fs::create_dir_all(&site).expect("site");
    let (mut child, addr) = serve_with(
        &db,
        &site,
        &[
            "--max-upload-bytes",
            &UPLOAD.to_string(),
            "--max-memory-bytes",
            &MEMORY.to_string(),
        ],
    );
    let post = |body: &[u8]| {
        request_with_head(
            &addr,
            &format!(
                "POST /api/runs?name=t.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            ),
            body,
        )
    };
    let good = shared::formats::chrome::write(&shared::model::synthetic::ring(4, 200));
    let (status, _, body) = post(good.as_bytes());
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        gauge(&addr, "tracescope_memory_budget_bytes"),
        Some(MEMORY as f64)
    );
    // The baseline: the server's peak with one run stored and its first requests answered.
    let baseline = peak_rss(child.id());

    // 128 MiB of valid Chrome records each, gzip-compressed under the upload limit.
    let record = br#"{"ph":"X","name":"work","pid":1,"tid":1,"ts":1,"dur":1},"#;
    let chunk: Vec<u8> = record.iter().copied().cycle().take(1 << 20).collect();
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(b"[").expect("gz");
    for _ in 0..128 {
        gz.write_all(&chunk).expect("gz");
    }
    let bomb = gz.finish().expect("gz");
    assert!(bomb.len() < UPLOAD, "the bomb is {} bytes", bomb.len());

    let started = std::time::Instant::now();
    let answers: Vec<(u16, String, String)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..BOMBS).map(|_| scope.spawn(|| post(&bomb))).collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("the request thread"))
            .collect()
    });
    let took = started.elapsed();
    let peak = peak_rss(child.id());
    let grown = peak.saturating_sub(baseline);
    let statuses: Vec<u16> = answers.iter().map(|(s, _, _)| *s).collect();
    eprintln!(
        "{BOMBS} bombs at once on a {MEMORY}-byte budget: answers {statuses:?} in {took:?}; \
         peak RSS {peak} bytes, baseline {baseline}, grown {grown}"
    );
    for (status, head, body) in &answers {
        let error: serde_json::Value = serde_json::from_str(body).expect("a JSON error");
        match status {
            413 => assert_eq!(error["trace_error"]["exceeded"], "input_bytes", "{body}"),
            503 => {
                assert_eq!(error["code"], "busy", "{body}");
                assert!(head.contains("\r\nretry-after: "), "{head}");
                assert!(
                    error["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("--max-memory-bytes")),
                    "{body}"
                );
            }
            _ => panic!("a bomb was answered {status}: {body}"),
        }
    }
    assert!(
        grown <= MEMORY,
        "{BOMBS} bombs grew the server's peak memory by {grown} bytes, past its {MEMORY}-byte budget"
    );
    // Every reservation was given back.
    assert_eq!(gauge(&addr, "tracescope_memory_reserved_bytes"), Some(0.0));
    assert_eq!(runs_list(&addr)["total"], 1);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_streamed_text_upload_costs_its_model_not_its_inflated_size() {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    const LIMIT: usize = 256 << 20;
    const PADDING: usize = 200 << 20;
    let dir = tempfile::tempdir().expect("temp dir");
    let store = TestStore::new(dir.path(), "runs.db");
    let (db, site) = (store.arg(), dir.path().join("site"));
    std::fs::create_dir_all(&site).expect("site");
    let (mut child, addr) = serve_with(&db, &site, &["--max-upload-bytes", &LIMIT.to_string()]);
    // A small run first, so that the baseline holds a run's worth of allocations.
    const HEADER: &[u8] = b"#Paraver (01/01/2024 at 00:00):1000_ns:1(2):1:2(1:1,1:1)\n";
    const FIRST: &[u8] = b"1:1:1:1:1:0:500:1\n";
    const SECOND: &[u8] = b"1:1:1:2:1:0:500:1\n";
    let small = [HEADER, FIRST, SECOND].concat();
    let post = |body: &[u8]| {
        request(
            &addr,
            &format!(
                "POST /api/runs?name=t.prv HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            ),
            body,
        )
    };
    let (status, body) = post(&small);
    assert_eq!(status, 201, "{body}");
    let before = peak_rss(child.id());
    // The same trace with 200 MiB of comment lines between its records: within the upload
    // limit once inflated, a few hundred KiB compressed.
    let comment: Vec<u8> = b"# padding between records, which the importer reads and drops\n"
        .iter()
        .copied()
        .cycle()
        .take(1 << 20)
        .collect();
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(&[HEADER, FIRST].concat()).expect("gz");
    for _ in 0..PADDING >> 20 {
        gz.write_all(&comment).expect("gz");
    }
    gz.write_all(SECOND).expect("gz");
    let upload = gz.finish().expect("gz");
    let (status, body) = post(&upload);
    assert_eq!(status, 201, "{body}");
    let run: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(run["run"]["summary"]["processes"], 2, "{body}");
    let grown = peak_rss(child.id()).saturating_sub(before);
    eprintln!("a 200 MiB streamed upload grew the server's peak RSS by {grown} bytes");
    assert!(
        grown < (PADDING / 8) as u64,
        "the server's peak memory grew by {grown} bytes reading {PADDING} bytes of text"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// SIGTERM while an upload is arriving: the server stops taking connections, finishes the
/// upload (it is stored and answered 201), then exits cleanly.
#[test]
fn sigterm_mid_upload_finishes_the_upload_then_exits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = TestStore::new(dir.path(), "runs.db");
    let (db, site) = (store.arg(), dir.path().join("site"));
    std::fs::create_dir_all(&site).expect("site");
    let trace =
        shared::formats::native::write(&shared::model::synthetic::ring(8, 20_000)).into_bytes();
    let (mut server, addr) = serve(&db, &site);
    let mut stream = TcpStream::connect(&addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    stream
        .write_all(
            format!(
                "POST /api/runs?name=ring.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                trace.len()
            )
            .as_bytes(),
        )
        .expect("writes");
    stream.write_all(&trace[..trace.len() / 2]).expect("writes");
    stream.flush().expect("flushes");
    std::thread::sleep(Duration::from_millis(300));
    let terminated = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(terminated.success());
    std::thread::sleep(Duration::from_millis(300));
    // New connections are refused while the upload in flight goes on.
    assert!(
        TcpStream::connect(&addr).is_err(),
        "a stopping server takes no new connections"
    );
    stream.write_all(&trace[trace.len() / 2..]).expect("writes");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    assert!(
        answer.starts_with("HTTP/1.1 201"),
        "{}",
        &answer[..answer.len().min(300)]
    );
    let status = server.wait().expect("exits");
    assert!(status.success(), "{status}");
    // The run is stored whole.
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let pool = store.open().await;
        assert_eq!(server::db::count_runs(&pool).await.expect("count"), 1);
    });
}

/// Two instances on one store behind no balancer at all: an upload through one reports its
/// progress through the other, a permalink made on one opens on the other, a run drawn (and
/// cached) by one and deleted through the other is gone from both.
#[test]
fn two_instances_on_one_store_answer_for_each_others_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = TestStore::new(dir.path(), "runs.db");
    let (db, site) = (store.arg(), dir.path().join("site"));
    std::fs::create_dir_all(&site).expect("site");
    let (mut a, addr_a) = serve(&db, &site);
    let (mut b, addr_b) = serve(&db, &site);
    let get = |addr: &str, path: &str| {
        request(
            addr,
            &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
            b"",
        )
    };
    let trace = std::fs::read(crate::shared_data("t4-worked-example.json")).expect("fixture");
    let (status, body) = request(
        &addr_a,
        &format!(
            "POST /api/runs?name=t4.json&upload=two-instances-0001 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            trace.len()
        ),
        &trace,
    );
    assert_eq!(status, 201, "{body}");
    let created: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let id = created["id"].as_str().expect("id").to_owned();
    let token = created["delete_token"].as_str().expect("token").to_owned();

    let (status, body) = get(&addr_b, "/api/uploads/two-instances-0001");
    assert_eq!(status, 200, "{body}");
    let progress: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(progress["phase"], "done", "{progress}");

    let viewport =
        format!("/api/runs/{id}/viewport?start=0&end=69&first_row=0&last_row=1&width_px=69");
    assert_eq!(get(&addr_b, &viewport).0, 200);
    assert_eq!(get(&addr_b, &format!("/api/runs/{id}/analysis")).0, 200);

    let state = format!(r#"{{"version": 1, "run": "{id}", "window": [0, 69]}}"#);
    let (status, body) = request(
        &addr_b,
        &format!(
            "POST /api/views HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            state.len()
        ),
        state.as_bytes(),
    );
    assert_eq!(status, 201, "{body}");
    let view: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let view_id = view["id"].as_str().expect("view id").to_owned();
    assert_eq!(get(&addr_a, &format!("/api/views/{view_id}")).0, 200);

    let (status, body) = request(
        &addr_a,
        &format!(
            "DELETE /api/runs/{id} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-delete-token: {token}\r\nConnection: close\r\n\r\n"
        ),
        b"",
    );
    assert_eq!(status, 204, "{body}");
    for addr in [&addr_a, &addr_b] {
        for path in [
            format!("/api/runs/{id}"),
            viewport.clone(),
            format!("/api/runs/{id}/analysis"),
            format!("/api/views/{view_id}"),
        ] {
            assert_eq!(get(addr, &path).0, 404, "{addr} {path}");
        }
    }
    for server in [&mut a, &mut b] {
        server.kill().expect("stops");
        server.wait().expect("reaped");
    }
}
