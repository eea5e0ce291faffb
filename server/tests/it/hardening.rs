//! Issue 46, hardening: what a hostile or careless client does to the server (concurrent
//! writers, foreign hosts and origins, long names, bad numbers, races with a delete, leftovers,
//! slow connections, costly views) answers a clear 4xx, never a 5xx or a crash.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use server::{AppState, app, db};
use shared::view::api::CreatedRun;
use tower::ServiceExt as _;

use crate::shared_data;
use crate::store::TestStore;

/// A server on a fresh store, driven in process (`oneshot`).
struct Server {
    state: AppState,
    _store: TestStore,
    _dir: tempfile::TempDir,
}

impl Server {
    async fn new() -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TestStore::new(dir.path(), "data/test.db");
        let pool = store.open().await;
        let site_dir = dir.path().join("site");
        std::fs::create_dir_all(&site_dir).expect("site dir");
        std::fs::write(
            site_dir.join("index.html"),
            "<!doctype html><title>T</title>",
        )
        .expect("index");
        Server {
            state: AppState::new(pool, site_dir, 4 << 20),
            _store: store,
            _dir: dir,
        }
    }

    async fn send(
        &self,
        method: &str,
        uri: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> (StatusCode, Vec<u8>) {
        let mut req = Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let res = app(self.state.clone())
            .oneshot(req.body(Body::from(body)).expect("request"))
            .await
            .expect("infallible service");
        let status = res.status();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        (status, bytes.to_vec())
    }

    async fn get(&self, uri: &str) -> (StatusCode, Vec<u8>) {
        self.send("GET", uri, &[], Vec::new()).await
    }

    async fn upload(&self, name: &str, bytes: Vec<u8>) -> (StatusCode, Vec<u8>) {
        self.send("POST", &format!("/api/runs?name={name}"), &[], bytes)
            .await
    }

    async fn upload_ok(&self, name: &str, bytes: Vec<u8>) -> CreatedRun {
        let (status, body) = self.upload(name, bytes).await;
        assert_eq!(status, StatusCode::CREATED, "{}", text(&body));
        serde_json::from_slice(&body).expect("a created run")
    }
}

/// A body as text, cut to its first 2,000 characters (for assertion messages).
fn text(body: &[u8]) -> String {
    String::from_utf8_lossy(body).chars().take(2000).collect()
}

fn worked_example() -> Vec<u8> {
    std::fs::read(shared_data("t4-worked-example.json")).expect("worked example")
}

/// Point 3: writers never fail on concurrency. Deletes (two of some runs), view creations and
/// uploads all at once: every answer is 2xx or 4xx, every run is deleted exactly once, and
/// every upload is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_deletes_views_and_uploads_never_fail() {
    let server = std::sync::Arc::new(Server::new().await);
    let mut runs = Vec::new();
    for k in 0..20 {
        runs.push(
            server
                .upload_ok(&format!("r{k}.json"), worked_example())
                .await,
        );
    }
    let mut tasks = tokio::task::JoinSet::new();
    // 20 deletes, and a second delete of the first 5 runs.
    for (k, run) in runs.iter().enumerate() {
        for _ in 0..if k < 5 { 2 } else { 1 } {
            let (server, id, token) = (
                std::sync::Arc::clone(&server),
                run.id.clone(),
                run.delete_token.clone(),
            );
            tasks.spawn(async move {
                let uri = format!("/api/runs/{id}");
                let (status, body) = server
                    .send("DELETE", &uri, &[("x-delete-token", &token)], Vec::new())
                    .await;
                ("delete", id, status, text(&body))
            });
        }
    }
    // 15 view creations, on runs being deleted and on runs that stay... and 15 uploads.
    for k in 0..15 {
        let viewer = std::sync::Arc::clone(&server);
        let id = runs[k % runs.len()].id.clone();
        tasks.spawn(async move {
            let server = viewer;
            let state = format!(r#"{{"version":1,"run":"{id}"}}"#);
            let (status, body) = server
                .send("POST", "/api/views", &[], state.into_bytes())
                .await;
            ("view", id, status, text(&body))
        });
        let uploader = std::sync::Arc::clone(&server);
        tasks.spawn(async move {
            let (status, body) = uploader
                .upload(&format!("u{k}.json"), worked_example())
                .await;
            ("upload", String::new(), status, text(&body))
        });
    }
    let mut deleted = std::collections::HashMap::<String, u32>::new();
    let mut failures = Vec::new();
    while let Some(result) = tasks.join_next().await {
        let (what, id, status, body) = result.expect("the task ran");
        if status.is_server_error() {
            failures.push(format!("{what} {id}: {status} {body}"));
            continue;
        }
        match what {
            "delete" if status == StatusCode::NO_CONTENT => *deleted.entry(id).or_default() += 1,
            "delete" => assert_eq!(status, StatusCode::NOT_FOUND, "{id}: {body}"),
            "view" => assert!(
                status == StatusCode::CREATED || status == StatusCode::NOT_FOUND,
                "{id}: {status} {body}"
            ),
            _ => assert_eq!(status, StatusCode::CREATED, "{body}"),
        }
    }
    assert!(failures.is_empty(), "server errors: {failures:#?}");
    assert_eq!(deleted.len(), 20, "every run was deleted");
    assert!(
        deleted.values().all(|&n| n == 1),
        "each run was deleted once: {deleted:?}"
    );
    assert_eq!(
        db::count_runs(&server.state.pool).await.expect("count"),
        15,
        "only the 15 uploads stay"
    );
}

/// Starts `tracescope serve` on a free loopback port with `options`; answers the child and its
/// address. The child is killed when the guard is dropped.
struct Served {
    child: std::process::Child,
    addr: String,
}

impl Served {
    fn start(db: &str, site: &std::path::Path, options: &[&str]) -> Served {
        Served::start_with_env(db, site, options, &[])
    }

    fn start_with_env(
        db: &str,
        site: &std::path::Path,
        options: &[&str],
        env: &[(&str, &std::path::Path)],
    ) -> Served {
        use std::io::BufRead as _;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tracescope"))
            .envs(env.iter().copied())
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(options)
            .arg("--db")
            .arg(db)
            .arg("--site")
            .arg(site)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("tracescope starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("a first line");
        let addr = line
            .trim()
            .strip_prefix("tracescope listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Served { child, addr }
    }

    /// A raw HTTP/1.1 request, `Connection: close`; answers the status code and the body.
    fn request(&self, head: &str, body: &[u8]) -> (u16, String) {
        use std::io::{Read as _, Write as _};
        let mut stream = std::net::TcpStream::connect(&self.addr).expect("connects");
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(60)))
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
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh store and site folder for a served binary.
fn served_store() -> (tempfile::TempDir, TestStore, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = TestStore::new(dir.path(), "runs.db");
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).expect("site");
    std::fs::write(site.join("index.html"), "<!doctype html><title>T</title>").expect("index");
    (dir, store, site)
}

/// Point 11: a name the server was not told about (DNS rebinding: `attacker.example` pointed
/// at 127.0.0.1) is answered 421; IP literals, `localhost` and `--allowed-hosts` are served.
#[test]
fn serve_answers_only_its_own_hosts() {
    let (_dir, store, site) = served_store();
    let get = |served: &Served, host: &str, path: &str| {
        served.request(
            &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            b"",
        )
    };
    let served = Served::start(&store.arg(), &site, &[]);
    let own = served.addr.clone();
    let port = own.rsplit_once(':').expect("a port").1.to_owned();
    for host in [own.as_str(), &format!("localhost:{port}"), "127.0.0.1"] {
        assert_eq!(get(&served, host, "/api/health").0, 200, "{host}");
    }
    for path in ["/api/health", "/", "/runs/x"] {
        let (status, body) = get(&served, &format!("attacker.example:{port}"), path);
        assert_eq!(status, 421, "{path}: {body}");
        assert!(body.contains("--allowed-hosts attacker.example"), "{body}");
    }
    let (status, _) = served.request("GET /api/health HTTP/1.0\r\n\r\n", b"");
    assert_eq!(status, 400, "a request naming no host");
    drop(served);

    let served = Served::start(
        &store.arg(),
        &site,
        &["--allowed-hosts", "traces.example,lab.example:9"],
    );
    assert_eq!(get(&served, "traces.example", "/api/health").0, 200);
    assert_eq!(get(&served, "lab.example:9", "/api/health").0, 200);
    assert_eq!(get(&served, "lab.example:10", "/api/health").0, 421);
    assert_eq!(get(&served, "attacker.example", "/api/health").0, 421);
    assert_eq!(get(&served, "localhost", "/api/health").0, 200);
}

/// Point 11: uploads, views and deletes from another origin (a simple `text/plain` POST a page
/// elsewhere may send without a preflight) are refused 403 and change nothing; the page's own
/// requests and clients that are not browsers (no `Origin`) are served.
#[tokio::test]
async fn writes_from_another_origin_are_refused() {
    let mut server = Server::new().await;
    let kept = server.upload_ok("kept.json", worked_example()).await;
    server.state.hosts = server::http::guard::Hosts::from_list(&[]);
    let server = server;
    let host = ("host", "127.0.0.1:8080");
    let plain = ("content-type", "text/plain");
    let view = format!(r#"{{"version":1,"run":"{}"}}"#, kept.id);
    let delete = format!("/api/runs/{}", kept.id);
    let token = ("x-delete-token", kept.delete_token.as_str());
    let foreign: [&[(&str, &str)]; 5] = [
        &[host, plain, ("origin", "http://attacker.example")],
        &[host, plain, ("origin", "http://127.0.0.1:9999")],
        &[host, plain, ("origin", "null")],
        &[host, plain, ("sec-fetch-site", "cross-site")],
        &[
            host,
            plain,
            ("sec-fetch-site", "same-site"),
            ("origin", "http://127.0.0.1:8080"),
        ],
    ];
    for headers in foreign {
        let (status, body) = server
            .send("POST", "/api/runs?name=x.json", headers, worked_example())
            .await;
        assert_eq!(
            status,
            StatusCode::FORBIDDEN,
            "{headers:?}: {}",
            text(&body)
        );
        assert!(text(&body).contains("cross_origin"), "{}", text(&body));
        let (status, _) = server
            .send("POST", "/api/views", headers, view.clone().into_bytes())
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{headers:?}");
        let mut with_token = headers.to_vec();
        with_token.push(token);
        let (status, _) = server
            .send("DELETE", &delete, &with_token, Vec::new())
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{headers:?}");
    }
    assert_eq!(db::count_runs(&server.state.pool).await.expect("count"), 1);
    // Reading from anywhere is allowed (the same-origin policy keeps the answer from the page).
    let (status, _) = server
        .send(
            "GET",
            "/api/runs",
            &[host, ("origin", "http://attacker.example")],
            Vec::new(),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let own: [&[(&str, &str)]; 4] = [
        &[host, ("origin", "http://127.0.0.1:8080")],
        &[("host", "localhost"), ("origin", "http://localhost:80")],
        &[
            host,
            ("sec-fetch-site", "same-origin"),
            ("origin", "http://127.0.0.1:8080"),
        ],
        &[host],
    ];
    for headers in own {
        let (status, body) = server
            .send("POST", "/api/runs?name=own.json", headers, worked_example())
            .await;
        assert_eq!(status, StatusCode::CREATED, "{headers:?}: {}", text(&body));
        let (status, body) = server
            .send("POST", "/api/views", headers, view.clone().into_bytes())
            .await;
        assert_eq!(status, StatusCode::CREATED, "{headers:?}: {}", text(&body));
    }
    let (status, _) = server
        .send(
            "DELETE",
            &delete,
            &[host, ("sec-fetch-site", "same-origin"), token],
            Vec::new(),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}

/// Point 5: a trace naming itself with a very long title is stored under its first 256
/// characters, with a note saying so, and the runs list stays small.
#[tokio::test]
async fn a_long_run_name_is_cut_with_a_note() {
    let server = Server::new().await;
    let title = "T4 worked example (Jiang 1990, Fig. 3.2, two processes)";
    // Multi-byte characters: the cut counts characters and never splits one.
    let long: String = std::iter::repeat_n("é名", 50_000).collect();
    let trace = String::from_utf8(worked_example())
        .expect("UTF-8")
        .replace(title, &long);
    let created = server.upload_ok("long.json", trace.into_bytes()).await;
    let name = &created.run.summary.name;
    assert_eq!(name.chars().count(), 256);
    assert!(long.starts_with(name.as_str()));
    assert!(
        created
            .run
            .notes
            .iter()
            .any(|n| n.contains("100000 characters") && n.contains("256")),
        "{:?}",
        created.run.notes
    );
    let (status, body) = server.get("/api/runs").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.len() < 4096, "the list is {} bytes", body.len());
    let (status, body) = server.get(&format!("/api/runs/{}", created.id)).await;
    assert_eq!(status, StatusCode::OK);
    let detail: shared::view::api::RunDetail = serde_json::from_slice(&body).expect("detail");
    assert_eq!(&detail.trace.name, name, "the model's name is the run's");
}

/// Point 5: the runs list is a page: 50 by default, `limit` at most 200, `offset` skips.
#[tokio::test]
async fn the_runs_list_is_paged_by_default() {
    let server = Server::new().await;
    for k in 0..55 {
        server
            .upload_ok(&format!("r{k}.json"), worked_example())
            .await;
    }
    let list = |uri: &'static str| {
        let server = &server;
        async move {
            let (status, body) = server.get(uri).await;
            assert_eq!(status, StatusCode::OK, "{uri}");
            serde_json::from_slice::<shared::view::api::RunList>(&body).expect("a list")
        }
    };
    let first = list("/api/runs").await;
    assert_eq!((first.runs.len(), first.total), (50, 55));
    let rest = list("/api/runs?offset=50").await;
    assert_eq!(rest.runs.len(), 5);
    assert_eq!(list("/api/runs?limit=100000").await.runs.len(), 55);
}

/// Point 10: a what-if value that is not a finite number of 0 or more (`NaN`, infinities,
/// `1e999`, negatives, a bandwidth of 0) is refused 400 with a sentence, never computed.
#[tokio::test]
async fn what_if_refuses_nan_infinities_and_negatives() {
    let server = Server::new().await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let ask = |scenario: &str| {
        let encoded = scenario.replace('=', "%3D").replace(',', "%2C");
        let uri = format!("/api/runs/{}/analysis?what_if={encoded}", run.id);
        let server = &server;
        async move { server.get(&uri).await }
    };
    for scenario in [
        "transit*NaN",
        "transit*nan",
        "transit*inf",
        "transit*-inf",
        "transit*1e999",
        "transit=-5",
        "transit*-0.5",
        "latency=1,bandwidth=0",
        "latency=NaN,bandwidth=2",
        "edge=3:duration=infinity",
    ] {
        let (status, body) = ask(scenario).await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "{scenario}: {}",
            text(&body)
        );
        let error: shared::view::api::ApiError = serde_json::from_slice(&body).expect("error");
        assert!(
            error.message.contains("finite number of 0 or more")
                || error.message.contains("bandwidth of 0"),
            "{scenario}: {}",
            error.message
        );
    }
    let (status, body) = ask("transit*0.5").await;
    assert_eq!(status, StatusCode::OK, "{}", text(&body));
    // Every other numeric parameter is an integer: NaN and infinities are refused as such.
    let id = &run.id;
    for uri in [
        format!("/api/runs/{id}/analysis?min_latency=NaN"),
        format!("/api/runs/{id}/viewport?start=NaN&end=69&first_row=0&last_row=1&width_px=10"),
        format!("/api/runs/{id}/viewport?start=0&end=inf&first_row=0&last_row=1&width_px=10"),
        format!("/api/runs/{id}/hasse?start=0&end=69&rows=2&width_px=Infinity"),
        format!("/api/runs/{id}/analysis/summary?start=-inf"),
        "/api/runs?limit=NaN".to_owned(),
    ] {
        let (status, body) = server.get(&uri).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {}", text(&body));
    }
}

/// Point 7: reads racing a delete answer 200 (read before the delete) or 404 (after), never a
/// 500 ("the run has no chunk …", a foreign key of a report stored for a deleted run, a blob
/// file released under the read). Readers of every endpoint loop over windows that need
/// chunks not yet read while the run is deleted under them, on both blob stores.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reads_racing_a_delete_answer_404_never_500() {
    for blobs_in_directory in [false, true] {
        let mut server = Server::new().await;
        if blobs_in_directory {
            server.state.blobs =
                server::blobs::BlobStore::Directory(server._dir.path().join("blobs"));
        }
        let server = std::sync::Arc::new(server);
        let trace = shared::formats::native::write(&shared::model::synthetic::ring(16, 20_000));
        let mut failures = Vec::new();
        for round in 0..6u64 {
            let run = server
                .upload_ok("ring.json", trace.clone().into_bytes())
                .await;
            let id = run.id.clone();
            let end = run.run.summary.time.end.0;
            let mut readers = tokio::task::JoinSet::new();
            let kinds = [
                "viewport", "run", "analysis", "summary", "hasse", "outline", "info", "export",
                "topology", "compare",
            ];
            for (k, kind) in kinds.into_iter().enumerate() {
                let (server, id) = (std::sync::Arc::clone(&server), id.clone());
                readers.spawn(async move {
                    let mut seen = Vec::new();
                    for i in 0..400u64 {
                        // A fine window somewhere else each time: chunks not read yet.
                        let step = end / 397;
                        let start = (i * 7919 + k as u64 * 104_729 + round) % 397 * step;
                        let uri = match kind {
                            "viewport" => format!(
                                "/api/runs/{id}/viewport?start={start}&end={}&first_row=0&last_row=15&width_px=64",
                                start + step
                            ),
                            "run" => format!("/api/runs/{id}"),
                            "analysis" => format!("/api/runs/{id}/analysis"),
                            "summary" => format!(
                                "/api/runs/{id}/analysis/summary?start={start}&end={}",
                                start + step
                            ),
                            "hasse" => format!(
                                "/api/runs/{id}/hasse?start={start}&end={}&rows=16&width_px=64",
                                start + step
                            ),
                            "outline" => format!("/api/runs/{id}/outline"),
                            "info" => format!("/api/runs/{id}/info"),
                            "export" => format!("/api/runs/{id}/export/binary"),
                            "topology" => format!("/api/runs/{id}/topology/load?start={start}"),
                            _ => format!("/api/compare/{id}/{id}"),
                        };
                        let (status, body) = server.get(&uri).await;
                        if status != StatusCode::OK && status != StatusCode::NOT_MODIFIED {
                            seen.push((uri, status, text(&body)));
                        }
                        if status != StatusCode::OK {
                            break;
                        }
                    }
                    seen
                });
            }
            tokio::time::sleep(std::time::Duration::from_millis(20 + 15 * round)).await;
            let (status, body) = server
                .send(
                    "DELETE",
                    &format!("/api/runs/{id}"),
                    &[("x-delete-token", &run.delete_token)],
                    Vec::new(),
                )
                .await;
            assert_eq!(status, StatusCode::NO_CONTENT, "{}", text(&body));
            // Each reader answered 200 until the delete, then 404: nothing else.
            while let Some(seen) = readers.join_next().await {
                for (uri, status, body) in seen.expect("the reader ran") {
                    if status != StatusCode::NOT_FOUND {
                        failures.push(format!("{uri}: {status} {body}"));
                    }
                }
            }
        }
        assert!(
            failures.is_empty(),
            "blobs in a directory: {blobs_in_directory}: {failures:#?}"
        );
    }
}

/// An upload's raw HTTP/1.1 head for a body of `len` bytes.
fn upload_head(len: usize) -> String {
    format!(
        "POST /api/runs?name=t4.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
    )
}

/// Point 8: the blob temporaries an instance killed while storing left (`.tmp…`, not written
/// for a long while) are removed when a server starts on the directory; a fresh one (another
/// instance's, being written) and the blobs stay.
#[test]
fn stale_blob_temporaries_are_removed_at_start() {
    let (dir, store, site) = served_store();
    let blobs = dir.path().join("blobs");
    let blob = blobs.join("ab").join(format!("ab{}", "0".repeat(62)));
    std::fs::create_dir_all(blob.parent().expect("a folder")).expect("blob folder");
    std::fs::write(&blob, b"a blob").expect("a blob");
    let stale = blobs.join(".tmpKILLED");
    let fresh = blobs.join(".tmpWRITING");
    std::fs::write(&stale, vec![7u8; 4096]).expect("a stale temporary");
    std::fs::write(&fresh, vec![7u8; 4096]).expect("a fresh temporary");
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .and_then(|f| f.set_modified(an_hour_ago))
        .expect("backdated");
    let blobs_arg = blobs.to_string_lossy().into_owned();
    let _served = Served::start(&store.arg(), &site, &["--blobs", &blobs_arg]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while stale.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!stale.exists(), "the stale temporary is removed");
    assert!(fresh.exists(), "a temporary being written stays");
    assert!(blob.exists(), "blobs stay");
}

/// Point 8: a temporary directory (or blob directory) the server cannot write answers an
/// upload 503 with a sentence naming the directory and what fixes it, not 500 "internal error".
#[test]
fn an_unwritable_temporary_or_blob_directory_is_503_with_a_sentence() {
    let (dir, store, site) = served_store();
    // A path under a regular file cannot be written, whoever the server runs as (root writes
    // into a directory without write permission).
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"not a directory").expect("a file");
    let unwritable = file.join("tmp");
    let trace = worked_example();
    let served = Served::start_with_env(&store.arg(), &site, &[], &[("TMPDIR", &unwritable)]);
    let (status, body) = served.request(&upload_head(trace.len()), &trace);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("\"unavailable\""), "{body}");
    assert!(body.contains(&*unwritable.to_string_lossy()), "{body}");
    assert!(body.contains("TMPDIR"), "{body}");
    drop(served);

    let blobs = unwritable.to_string_lossy().into_owned();
    let served = Served::start(&store.arg(), &site, &["--blobs", &blobs]);
    let (status, body) = served.request(&upload_head(trace.len()), &trace);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("blob directory"), "{body}");
    assert!(body.contains(&blobs), "{body}");
    let (status, body) = served.request(
        "GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"",
    );
    assert_eq!(status, 200);
    assert!(body.contains("\"total\":0"), "nothing was stored: {body}");
}

/// Reads from `stream` until the server closes it (or `limit` passes); answers what was read and
/// when the close came, `None` if it never did.
fn read_until_closed(
    stream: &mut std::net::TcpStream,
    limit: std::time::Duration,
) -> (String, Option<std::time::Duration>) {
    use std::io::Read as _;
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(started.elapsed());
        if left.is_zero() {
            return (String::from_utf8_lossy(&answer).into_owned(), None);
        }
        stream.set_read_timeout(Some(left)).expect("timeout");
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return (String::from_utf8_lossy(&answer).into_owned(), None);
            }
            // A reset is a close too.
            Err(_) => break,
        }
    }
    (
        String::from_utf8_lossy(&answer).into_owned(),
        Some(started.elapsed()),
    )
}

/// Point 4: a connection that sends nothing, one that trickles its request head, and one left
/// idle after a request are closed after the header timeout; a body that stops sending is
/// answered 408 after the body timeout. (The old server held all of them for as long as they
/// liked.)
#[test]
fn slow_and_idle_connections_are_closed_on_time() {
    use std::io::Write as _;
    let (_dir, store, site) = served_store();
    let served = Served::start(
        &store.arg(),
        &site,
        &["--header-timeout-secs", "1", "--body-timeout-secs", "1"],
    );
    let limit = std::time::Duration::from_secs(10);
    let connect = || std::net::TcpStream::connect(&served.addr).expect("connects");

    let mut silent = connect();
    let mut trickling = connect();
    let trickler = {
        let mut stream = trickling.try_clone().expect("a clone");
        std::thread::spawn(move || {
            // One byte every 200 ms: a head that never ends within the timeout.
            for byte in
                b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa"
            {
                if stream.write_all(&[*byte]).is_err() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        })
    };
    let mut idle = connect();
    idle.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .expect("writes");
    let mut stalled = connect();
    stalled
        .write_all(
            upload_head(100_000)
                .replace("Connection: close\r\n", "")
                .as_bytes(),
        )
        .expect("writes");
    stalled.write_all(&worked_example()[..200]).expect("writes");

    let (_, closed) = read_until_closed(&mut silent, limit);
    assert!(closed.is_some(), "a silent connection is closed");
    let (_, closed) = read_until_closed(&mut trickling, limit);
    let closed = closed.expect("a trickling connection is closed");
    assert!(closed < std::time::Duration::from_secs(4), "{closed:?}");
    let (answer, closed) = read_until_closed(&mut idle, limit);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        closed.is_some(),
        "an idle keep-alive connection is closed: {answer}"
    );
    let (answer, closed) = read_until_closed(&mut stalled, limit);
    assert!(closed.is_some(), "a stalled body's connection is closed");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("sent nothing for 1 s"), "{answer}");
    let _ = trickler.join();
    // The server still serves.
    let (status, _) = served.request(
        "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"",
    );
    assert_eq!(status, 200);
}

/// Point 4: the server holds at most `--max-connections` connections; one more waits to be
/// accepted until a slot frees (here: silent connections closed by the header timeout), and is
/// then served.
#[test]
fn connections_beyond_the_limit_wait_and_are_then_served() {
    use std::io::Write as _;
    let (_dir, store, site) = served_store();
    let served = Served::start(
        &store.arg(),
        &site,
        &["--header-timeout-secs", "2", "--max-connections", "4"],
    );
    let silent: Vec<_> = (0..4)
        .map(|_| std::net::TcpStream::connect(&served.addr).expect("connects"))
        .collect();
    // Let the server accept the four silent ones first.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let started = std::time::Instant::now();
    let mut fifth = std::net::TcpStream::connect(&served.addr).expect("the kernel queues it");
    fifth
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .expect("writes");
    let (answer, closed) = read_until_closed(&mut fifth, std::time::Duration::from_secs(15));
    let waited = started.elapsed();
    assert!(
        closed.is_some() && answer.starts_with("HTTP/1.1 200"),
        "{answer}"
    );
    assert!(
        waited >= std::time::Duration::from_millis(1200),
        "the fifth connection waited for a slot: {waited:?}"
    );
    drop(silent);
}

/// A ring of `processes` processes with few events each, in the native format: its Hasse
/// diagram's vector clocks cost about 8 bytes × processes² (each process's start and receive).
fn many_processes(processes: u32) -> Vec<u8> {
    shared::formats::native::write(&shared::model::synthetic::ring(
        processes,
        4 * processes as usize,
    ))
    .into_bytes()
}

/// Point 1: the Hasse view of a run of many processes costs what its vector clocks will take;
/// over the memory budget it is refused 413 with a sentence before anything is allocated, while
/// the run's Gantt chart and analyses still answer, and a small run's Hasse view is served.
#[tokio::test]
async fn a_hasse_view_over_the_memory_budget_is_413_before_it_allocates() {
    let mut server = Server::new().await;
    // 64 MiB; 4,000 processes' clocks take about 8 × 4,000² bytes = 122 MiB.
    server.state.max_memory_bytes = 64 << 20;
    let wide = server.upload_ok("wide.json", many_processes(4_000)).await;
    let small = server.upload_ok("t4.json", worked_example()).await;
    let end = wide.run.summary.time.end.0;
    for uri in [
        format!(
            "/api/runs/{}/hasse?start=0&end={end}&rows=100&width_px=500",
            wide.id
        ),
        format!("/api/runs/{}/hasse/areas?event=5", wide.id),
    ] {
        let (status, body) = server.get(&uri).await;
        assert_eq!(
            status,
            StatusCode::PAYLOAD_TOO_LARGE,
            "{uri}: {}",
            text(&body)
        );
        let error: shared::view::api::ApiError = serde_json::from_slice(&body).expect("error");
        assert_eq!(error.code, "over_budget");
        assert!(
            error.message.contains("4000 processes") && error.message.contains("memory budget"),
            "{}",
            error.message
        );
    }
    let (status, _) = server
        .get(&format!(
            "/api/runs/{}/viewport?start=0&end={end}&first_row=0&last_row=99&width_px=500",
            wide.id
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "the Gantt chart still answers");
    let (status, _) = server
        .get(&format!("/api/runs/{}/analysis/summary", wide.id))
        .await;
    assert_eq!(status, StatusCode::OK, "the analyses still answer");
    let (status, body) = server
        .get(&format!(
            "/api/runs/{}/hasse?start=0&end=69&rows=2&width_px=100",
            small.id
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{}", text(&body));
}

/// Point 2: imports and a run's analyses reserve their cost from the server's memory budget
/// before they start. When it is full, an import waits, drops idle cached workspaces to make
/// room, and is answered 503 with `Retry-After` and a sentence if there is still none; the
/// reservations show in `GET /metrics` and are given back.
#[tokio::test]
async fn imports_and_analyses_reserve_from_the_server_memory_budget() {
    const BUDGET: u64 = 32 << 10;
    let mut server = Server::new().await;
    server.state.memory = server::memory::MemoryBudget::new(
        BUDGET,
        std::time::Duration::from_millis(200),
        [
            &server.state.metrics.memory_reserved,
            &server.state.metrics.memory_budget,
        ],
    );
    let example = worked_example();
    // The worked example's import: one event per 8 bytes at 128 bytes each; its analyses: 512
    // bytes for each of its 13 events.
    let import = (example.len() as u64 / 8 + 1) * 128;
    let analyses = 13 * 512;
    let reserved = |server: &Server| {
        let text = server.state.metrics.encode();
        let line = text
            .lines()
            .find(|l| l.starts_with("tracescope_memory_reserved_bytes "))
            .map(str::to_owned);
        assert!(
            text.contains(&format!("tracescope_memory_budget_bytes {BUDGET}")),
            "{text}"
        );
        line.and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .expect("the reserved bytes in the metrics")
    };
    let run = server.upload_ok("t4.json", example.clone()).await;
    assert_eq!(reserved(&server), 0, "the import gave its reservation back");
    let summary = format!("/api/runs/{}/analysis/summary", run.id);
    assert_eq!(server.get(&summary).await.0, StatusCode::OK);
    assert_eq!(
        reserved(&server),
        analyses,
        "the cached workspace holds its analyses' cost"
    );

    // Full but for the idle workspace: the import makes room by dropping it.
    let blocker = server
        .state
        .memory
        .try_reserve(BUDGET - import - 100)
        .expect("room");
    server.upload_ok("t4.json", example.clone()).await;
    assert_eq!(
        reserved(&server),
        BUDGET - import - 100,
        "the workspace was dropped"
    );
    drop(blocker);

    // Full for good: 503 after the wait, with Retry-After and a sentence.
    assert_eq!(server.get(&summary).await.0, StatusCode::OK);
    let blocker = server
        .state
        .memory
        .try_reserve(BUDGET - analyses - 1000)
        .expect("room");
    let res = app(server.state.clone())
        .oneshot(
            Request::builder()
                .method("POST")
                .uri("/api/runs?name=t4.json")
                .body(Body::from(example.clone()))
                .expect("request"),
        )
        .await
        .expect("infallible service");
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    let retry: u64 = res
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .expect("a Retry-After in seconds");
    assert!(retry >= 1, "{retry}");
    let body = res.into_body().collect().await.expect("body").to_bytes();
    let error: shared::view::api::ApiError = serde_json::from_slice(&body).expect("error");
    assert_eq!(error.code, "busy");
    assert!(
        error.message.contains("this import") && error.message.contains("--max-memory-bytes"),
        "{}",
        error.message
    );
    // A run's analyses wait and are refused the same way.
    let other = {
        drop(blocker);
        server.upload_ok("t4.json", example.clone()).await;
        server
            .state
            .memory
            .try_reserve(BUDGET - 1000)
            .expect("room")
    };
    let (status, body) = server.get(&summary).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{}", text(&body));
    drop(other);
    assert_eq!(server.get(&summary).await.0, StatusCode::OK);
    assert_eq!(reserved(&server), analyses);
    // The Hasse diagram reserves its cost too: refused while the budget is full, then kept
    // with the workspace once built.
    let hasse = format!(
        "/api/runs/{}/hasse?start=0&end=69&rows=2&width_px=100",
        run.id
    );
    let full = server
        .state
        .memory
        .try_reserve(BUDGET - analyses)
        .expect("room");
    let (status, body) = server.get(&hasse).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{}", text(&body));
    assert!(text(&body).contains("Hasse diagram"), "{}", text(&body));
    drop(full);
    assert_eq!(server.get(&hasse).await.0, StatusCode::OK);
    assert!(reserved(&server) > analyses, "the diagram's cost is held");
}

/// Point 1: `tracescope hasse` refuses the same diagram over `--max-memory-bytes`, with the
/// sentence, and draws it within the budget.
#[test]
fn the_hasse_command_refuses_a_diagram_over_the_memory_budget() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("wide.json");
    std::fs::write(&file, many_processes(4_000)).expect("the trace");
    let hasse = |memory: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tracescope"))
            .arg("hasse")
            .arg(&file)
            .args(["--max-memory-bytes", memory])
            .output()
            .expect("tracescope runs")
    };
    let refused = hasse(&(64u64 << 20).to_string());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("4000 processes") && said.contains("--max-memory-bytes"),
        "{said}"
    );
    let drawn = hasse(&(1u64 << 30).to_string());
    assert!(
        drawn.status.success(),
        "{}",
        String::from_utf8_lossy(&drawn.stderr)
    );
}

/// Point 6: a run whose times lie past 2^63 ticks, up to the clock's last tick, with a message
/// in flight for more than 2^63 ticks, is drawn: every viewport over it answers 200 with its
/// spans and its message (the stored index's deltas wrapped and its chunks no longer decoded:
/// "a span starts off the clock", 500).
#[tokio::test]
async fn a_run_near_the_end_of_the_clock_is_drawn() {
    let server = Server::new().await;
    let max = u64::MAX;
    let late = 1u64 << 63;
    let trace = format!(
        r#"{{"format": "tracescope", "version": 1, "name": "late",
  "nodes": [{{"name": "n0"}}, {{"name": "n1"}}],
  "processes": [{{"name": "A", "node": 0}}, {{"name": "B", "node": 1}}],
  "events": [
    {{"process": 0, "time": 10, "kind": "proc_init"}},
    {{"process": 0, "time": 20, "kind": "msg_send", "to": 1, "tag": 1, "size": 8}},
    {{"process": 0, "time": {a}, "kind": "proc_exit"}},
    {{"process": 1, "time": {b}, "kind": "proc_init"}},
    {{"process": 1, "time": {c}, "kind": "recv_call", "tag": 1}},
    {{"process": 1, "time": {d}, "kind": "msg_arr", "from": 0, "tag": 1, "size": 8}},
    {{"process": 1, "time": {max}, "kind": "proc_exit"}}
  ]}}"#,
        a = late + 5,
        b = late + 100,
        c = max - 1000,
        d = max - 10,
    );
    let run = server.upload_ok("late.json", trace.into_bytes()).await;
    for (start, end, width) in [
        (0, max, 1000),
        (late, max, 4096),
        (max - 2048, max, 2048),
        (0, 1024, 1024),
    ] {
        let uri = format!(
            "/api/runs/{}/viewport?start={start}&end={end}&first_row=0&last_row=1&width_px={width}",
            run.id
        );
        let (status, body) = server.get(&uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {}", text(&body));
        let view: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(view["rows"].as_array().map(Vec::len), Some(2), "{uri}");
    }
    let (_, body) = server
        .get(&format!(
            "/api/runs/{}/viewport?start=0&end={max}&first_row=0&last_row=1&width_px=1000",
            run.id
        ))
        .await;
    let view: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    let messages = &view["messages"];
    assert_eq!(
        (&messages["send_px"][0], &messages["arrival_px"][0]),
        (&serde_json::json!(0), &serde_json::json!(999)),
        "the message is drawn from its send to its arrival: {}",
        text(&body)
    );
}

/// Point 6: the summary of a run whose processes each compute for nearly the whole clock adds
/// their times without wrapping: the total is at least each process's time (it saturates at
/// the clock's last tick), never 0 or a 500.
#[tokio::test]
async fn a_summary_near_the_end_of_the_clock_does_not_wrap() {
    let server = Server::new().await;
    let max = u64::MAX;
    let trace = format!(
        r#"{{"format": "tracescope", "version": 1, "name": "long",
  "nodes": [{{"name": "n0"}}],
  "processes": [{{"name": "A", "node": 0}}, {{"name": "B", "node": 0}}, {{"name": "C", "node": 0}}],
  "events": [
    {{"process": 0, "time": 0, "kind": "proc_init"}},
    {{"process": 0, "time": {end}, "kind": "proc_exit"}},
    {{"process": 1, "time": 0, "kind": "proc_init"}},
    {{"process": 1, "time": {end}, "kind": "proc_exit"}},
    {{"process": 2, "time": 0, "kind": "proc_init"}},
    {{"process": 2, "time": {end}, "kind": "proc_exit"}}
  ]}}"#,
        end = max - 1,
    );
    let run = server.upload_ok("long.json", trace.into_bytes()).await;
    let (status, body) = server
        .get(&format!("/api/runs/{}/analysis/summary", run.id))
        .await;
    assert_eq!(status, StatusCode::OK, "{}", text(&body));
    let summary: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    let total = summary["computing"].as_u64().expect("computing");
    let each: Vec<u64> = summary["per_process"]
        .as_array()
        .expect("per process")
        .iter()
        .map(|p| p["computing"].as_u64().expect("computing"))
        .collect();
    assert_eq!(each.len(), 3);
    assert!(each.iter().all(|&c| c > max / 2), "{each:?}");
    assert_eq!(total, max, "the total saturates: {}", text(&body));
    assert_eq!(summary["saturated"], true, "and says so: {}", text(&body));
    let share = summary["busy_share"].as_f64().expect("busy share");
    assert!(
        (share - 1.0).abs() < 1e-9,
        "every process computes all the window: {share}"
    );
    for part in ["", "/npt", "/statistics", "/critical-path", "/wait-states"] {
        let uri = format!("/api/runs/{}/analysis{part}", run.id);
        let (status, body) = server.get(&uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {}", text(&body));
    }
}

/// Issue 46: every GET of every endpoint on every run of a small hostile corpus (times at the
/// clock's ends, a clock near 2^64 computed on by every process, many processes, one event, a
/// name of megabytes cut, a zero-length trace of one process, a message back in time), with
/// windows and widths at their extremes, answers 2xx or 4xx: never a 5xx.
#[tokio::test]
async fn every_get_on_a_hostile_corpus_answers_without_a_server_error() {
    let server = Server::new().await;
    let max = u64::MAX;
    let native = |name: &str, processes: u32, events: &str| {
        let processes: Vec<String> = (0..processes)
            .map(|p| format!(r#"{{"name": "P{p}", "node": 0}}"#))
            .collect();
        format!(
            r#"{{"format": "tracescope", "version": 1, "name": "{name}",
  "nodes": [{{"name": "n0"}}], "processes": [{}], "events": [{events}]}}"#,
            processes.join(", ")
        )
        .into_bytes()
    };
    let corpus: Vec<(&str, Vec<u8>)> = vec![
        ("worked", worked_example()),
        (
            "clock-ends",
            native(
                "clock ends",
                2,
                &format!(
                    r#"{{"process": 0, "time": 0, "kind": "proc_init"}},
    {{"process": 0, "time": 1, "kind": "msg_send", "to": 1, "tag": 1, "size": 8}},
    {{"process": 0, "time": {max}, "kind": "proc_exit"}},
    {{"process": 1, "time": {late}, "kind": "proc_init"}},
    {{"process": 1, "time": {a}, "kind": "recv_call", "tag": 1}},
    {{"process": 1, "time": {max}, "kind": "msg_arr", "from": 0, "tag": 1, "size": 8}}"#,
                    late = 1u64 << 63,
                    a = max - 1,
                ),
            ),
        ),
        (
            "back-in-time",
            native(
                "back in time",
                2,
                r#"{"process": 0, "time": 0, "kind": "proc_init"},
    {"process": 0, "time": 50, "kind": "msg_send", "to": 1, "tag": 1, "size": 8},
    {"process": 1, "time": 0, "kind": "proc_init"},
    {"process": 1, "time": 5, "kind": "recv_call", "tag": 1},
    {"process": 1, "time": 10, "kind": "msg_arr", "from": 0, "tag": 1, "size": 8}"#,
            ),
        ),
        (
            "one-event",
            native(
                "one",
                1,
                r#"{"process": 0, "time": 7, "kind": "proc_init"}"#,
            ),
        ),
        (
            "zero-length",
            native(
                "zero",
                1,
                r#"{"process": 0, "time": 7, "kind": "proc_init"},
    {"process": 0, "time": 7, "kind": "proc_exit"}"#,
            ),
        ),
        ("wide", many_processes(800)),
        (
            "long-name",
            String::from_utf8(worked_example())
                .expect("UTF-8")
                .replace(
                    "T4 worked example (Jiang 1990, Fig. 3.2, two processes)",
                    &"n".repeat(300_000),
                )
                .into_bytes(),
        ),
    ];
    let mut ids = Vec::new();
    for (name, bytes) in corpus {
        let (status, body) = server.upload(&format!("{name}.json"), bytes).await;
        assert_eq!(status, StatusCode::CREATED, "{name}: {}", text(&body));
        let created: CreatedRun = serde_json::from_slice(&body).expect("created");
        ids.push((name, created.id));
    }
    let mut failures = Vec::new();
    for (name, id) in &ids {
        let mut uris = vec![
            format!("/api/runs/{id}"),
            format!("/api/runs/{id}/info"),
            format!("/api/runs/{id}/outline"),
            format!("/api/runs/{id}/analysis"),
            format!("/api/runs/{id}/analysis?what_if=transit*0"),
            format!("/api/runs/{id}/analysis?min_latency={max}"),
            format!("/api/runs/{id}/topology"),
            format!("/api/runs/{id}/topology/load"),
            format!("/api/runs/{id}/topology/load?start={max}&end=0"),
            format!("/api/runs/{id}/topology/strip?edge=0&buckets=4096"),
            format!("/api/runs/{id}/hasse/areas?event=0"),
            format!("/api/runs/{id}/hasse/areas?event={}", u32::MAX),
            format!("/api/compare/{id}/{}", ids[0].1),
        ];
        for format in ["chrome-json", "native", "binary", "tmon"] {
            uris.push(format!("/api/runs/{id}/export/{format}"));
        }
        for (start, end) in [(0, max), (max - 1, max), (0, 1), (1u64 << 63, max), (5, 5)] {
            for width in [1, 32_768] {
                uris.push(format!(
                    "/api/runs/{id}/viewport?start={start}&end={end}&first_row=0&last_row=4095&width_px={width}"
                ));
            }
            uris.push(format!(
                "/api/runs/{id}/hasse?start={start}&end={end}&rows=2000&width_px=16384&axis=physical"
            ));
            for part in [
                "summary",
                "critical-path",
                "wcpa",
                "npt",
                "statistics",
                "histograms",
                "matrix",
                "wait-states",
                "diagnostics",
            ] {
                uris.push(format!(
                    "/api/runs/{id}/analysis/{part}?start={start}&end={end}&limit=100000"
                ));
            }
        }
        for uri in uris {
            let (status, body) = server.get(&uri).await;
            if status.is_server_error() {
                failures.push(format!("{name}: {uri}: {status} {}", text(&body)));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
