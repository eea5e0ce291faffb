//! The HTTP API, exercised with `app(state).oneshot(..)` on a real SQLite file.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt as _;
use server::{AppState, app, db};
use shared::api::{ApiError, CreatedRun, RunDetail, RunList};
use tower::ServiceExt as _;

use crate::shared_data;

/// A server on a fresh database file and a site folder holding an index.html.
struct TestServer {
    dir: tempfile::TempDir,
    state: AppState,
}

impl TestServer {
    async fn new(max_upload_bytes: usize) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let site_dir = dir.path().join("site");
        std::fs::create_dir_all(&site_dir).expect("site dir");
        std::fs::write(
            site_dir.join("index.html"),
            "<!doctype html><title>Tracescope</title>",
        )
        .expect("index");
        let pool = db::open(&dir.path().join("data/test.db"))
            .await
            .expect("database opens");
        TestServer {
            dir,
            state: AppState {
                pool,
                site_dir,
                max_upload_bytes,
            },
        }
    }

    fn app(&self) -> Router {
        app(self.state.clone())
    }

    async fn send(&self, req: Request<Body>) -> (StatusCode, Vec<u8>) {
        let res = self.app().oneshot(req).await.expect("infallible service");
        let status = res.status();
        let body = res
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes()
            .to_vec();
        (status, body)
    }

    async fn get(&self, uri: &str) -> (StatusCode, Vec<u8>) {
        self.send(Request::get(uri).body(Body::empty()).expect("request"))
            .await
    }

    async fn upload(&self, name: &str, bytes: Vec<u8>) -> (StatusCode, Vec<u8>) {
        let req = Request::post(format!("/api/runs?name={name}"))
            .header(header::CONTENT_TYPE, "application/octet-stream")
            .body(Body::from(bytes))
            .expect("request");
        self.send(req).await
    }

    async fn run_count(&self) -> i64 {
        db::count_runs(&self.state.pool).await.expect("count")
    }
}

fn json<T: serde::de::DeserializeOwned>(body: &[u8]) -> T {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
}

fn worked_example() -> Vec<u8> {
    std::fs::read(shared_data("t4-worked-example.json")).expect("worked example")
}

#[tokio::test]
async fn health_answers_ok() {
    let server = TestServer::new(1 << 20).await;
    let (status, body) = server.get("/api/health").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json::<shared::api::Health>(&body).status, "ok");
}

#[tokio::test]
async fn uploaded_run_is_listed_and_served_with_its_model() {
    let server = TestServer::new(1 << 20).await;
    let (status, body) = server.upload("t4.json", worked_example()).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let created: CreatedRun = json(&body);
    assert_eq!(created.id.len(), 22);
    assert_eq!(
        (created.run.summary.processes, created.run.summary.messages),
        (2, 3)
    );

    let (status, body) = server.get("/api/runs").await;
    assert_eq!(status, StatusCode::OK);
    let list: RunList = json(&body);
    assert_eq!(list.runs.len(), 1);
    assert_eq!(list.runs[0].id, created.id);
    assert_eq!(
        list.runs[0].summary.name,
        "T4 worked example (Jiang 1990, Fig. 3.2, two processes)"
    );

    let (status, body) = server.get(&format!("/api/runs/{}", created.id)).await;
    assert_eq!(status, StatusCode::OK);
    let detail: RunDetail = json(&body);
    let expected = shared::import::import(&worked_example(), None, "t4.json")
        .expect("parses")
        .trace;
    assert_eq!(detail.trace, expected);
    assert_eq!(detail.run, created.run);
}

#[tokio::test]
async fn malformed_upload_is_422_with_the_position_and_stores_nothing() {
    let server = TestServer::new(1 << 20).await;
    let (status, _) = server.upload("good.json", worked_example()).await;
    assert_eq!(status, StatusCode::CREATED);

    let mut bad = worked_example();
    let text = String::from_utf8(bad.clone()).expect("utf-8");
    let at = text
        .find("\"to\": 1, \"tag\": 1")
        .expect("m1's destination");
    bad.splice(at..at + 7, b"\"to\": 9".iter().copied());
    let (status, body) = server.upload("bad.json", bad).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let error: ApiError = json(&body);
    assert_eq!(error.code, "invalid_trace");
    let trace_error = error.trace_error.expect("the parser's position");
    assert_eq!(trace_error.line, 15);
    assert!(error.message.contains("line 15"), "{}", error.message);
    assert!(
        error.message.contains("process 9 does not exist"),
        "{}",
        error.message
    );
    assert_eq!(
        server.run_count().await,
        1,
        "the bad upload stored nothing and lost nothing"
    );
}

#[tokio::test]
async fn upload_over_the_limit_is_413_in_the_error_shape() {
    let server = TestServer::new(64).await;
    let (status, body) = server.upload("big.json", worked_example()).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    let error: ApiError = json(&body);
    assert_eq!(error.code, "payload_too_large");
    assert!(error.message.contains("64 bytes"), "{}", error.message);
    assert_eq!(server.run_count().await, 0);
}

#[tokio::test]
async fn unknown_runs_and_api_routes_are_json_404s() {
    let server = TestServer::new(1 << 20).await;
    for uri in [
        "/api/runs/AAAAAAAAAAAAAAAAAAAAAA",
        "/api/runs/not-an-id",
        "/api/nothing-here",
    ] {
        let (status, body) = server.get(uri).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(json::<ApiError>(&body).code, "not_found", "{uri}");
    }
}

#[tokio::test]
async fn client_routes_fall_back_to_the_app() {
    let server = TestServer::new(1 << 20).await;
    for uri in ["/", "/runs/AAAAAAAAAAAAAAAAAAAAAA"] {
        let (status, body) = server.get(uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}");
        assert!(
            String::from_utf8_lossy(&body).contains("<title>Tracescope</title>"),
            "{uri}"
        );
    }
}

#[tokio::test]
async fn runs_survive_reopening_the_database_in_wal_mode() {
    let server = TestServer::new(1 << 20).await;
    let (_, body) = server.upload("t4.json", worked_example()).await;
    let created: CreatedRun = json(&body);
    let path = server.dir.path().join("data/test.db");
    server.state.pool.close().await;

    let pool = db::open(&path).await.expect("reopens");
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&pool)
        .await
        .expect("pragma");
    assert_eq!(mode, "wal");
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(&pool)
        .await
        .expect("pragma");
    assert_eq!(fk, 1);
    let run = db::get_run(&pool, &created.id)
        .await
        .expect("query")
        .expect("the run is still there");
    assert_eq!(run.summary.events, 13);
}
