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
        std::fs::write(site_dir.join("index.html"), "<!doctype html><title>T</title>")
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

    #[allow(dead_code, reason = "used by the tests of later points")]
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

fn text(body: &[u8]) -> String {
    String::from_utf8_lossy(body).into_owned()
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
        runs.push(server.upload_ok(&format!("r{k}.json"), worked_example()).await);
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
            let (status, body) = uploader.upload(&format!("u{k}.json"), worked_example()).await;
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
