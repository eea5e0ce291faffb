//! The HTTP API, exercised with `app(state).oneshot(..)` on a real store: a temporary SQLite
//! file, or a fresh database on a real PostgreSQL (`crate::store`).

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::Value;
use server::{AppState, app, db};
use shared::view::api::{ApiError, CreatedRun, RunDetail, RunList};
use tower::ServiceExt as _;

use crate::shared_data;
use crate::store::{TestStore, count};

/// A server on a fresh database file and a site folder holding an index.html.
struct TestServer {
    state: AppState,
    store: TestStore,
    dir: tempfile::TempDir,
}

impl TestServer {
    async fn new(max_upload_bytes: usize) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TestStore::new(dir.path(), "data/test.db");
        let pool = store.open().await;
        let site_dir = dir.path().join("site");
        std::fs::create_dir_all(&site_dir).expect("site dir");
        std::fs::write(
            site_dir.join("index.html"),
            "<!doctype html><title>Tracescope</title>",
        )
        .expect("index");
        TestServer {
            state: AppState::new(pool, site_dir, max_upload_bytes),
            store,
            dir,
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

/// Asks `path` and expects a 400 in the error shape whose message mentions `needle`.
async fn expect_bad_request(server: &TestServer, path: &str, needle: &str) {
    let (status, body) = server.get(path).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{path}");
    let error: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains(needle)),
        "{path}: {error}"
    );
}

fn worked_example() -> Vec<u8> {
    std::fs::read(shared_data("t4-worked-example.json")).expect("worked example")
}

#[tokio::test]
async fn health_answers_ok() {
    let server = TestServer::new(1 << 20).await;
    let (status, body) = server.get("/api/health").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json::<shared::view::api::Health>(&body).status, "ok");
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
    let expected = shared::formats::import(&worked_example(), None, "t4.json")
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
    server.state.pool.close().await;

    let pool = server.store.open().await;
    if let db::Pool::Sqlite(sqlite) = &pool {
        let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
            .fetch_one(sqlite)
            .await
            .expect("pragma");
        assert_eq!(mode, "wal");
        let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
            .fetch_one(sqlite)
            .await
            .expect("pragma");
        assert_eq!(fk, 1);
    }
    if let db::Pool::Postgres(postgres) = &pool {
        // A runaway statement is cancelled by the server, not waited on forever.
        let timeout: String = sqlx::query_scalar("SHOW statement_timeout")
            .fetch_one(postgres)
            .await
            .expect("setting");
        assert_eq!(timeout, "2min");
    }
    let run = db::get_run(&pool, &created.id)
        .await
        .expect("query")
        .expect("the run is still there");
    assert_eq!(run.summary.events, 13);
}

impl TestServer {
    async fn send_with(
        &self,
        method: &str,
        uri: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> (StatusCode, Vec<u8>, axum::http::HeaderMap) {
        let mut req = Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let res = self
            .app()
            .oneshot(req.body(Body::from(body)).expect("request"))
            .await
            .expect("infallible service");
        let (parts, body) = res.into_parts();
        let bytes = body.collect().await.expect("body").to_bytes().to_vec();
        (parts.status, bytes, parts.headers)
    }

    async fn upload_ok(&self, name: &str, bytes: Vec<u8>) -> CreatedRun {
        let (status, body) = self.upload(name, bytes).await;
        assert_eq!(
            status,
            StatusCode::CREATED,
            "{}",
            String::from_utf8_lossy(&body)
        );
        json(&body)
    }
}

fn otf2_example() -> Vec<u8> {
    std::fs::read(shared_data("otf2-two-ranks-multichunk.tar.gz")).expect("OTF2 example")
}

#[tokio::test]
async fn runs_list_searches_by_name_and_format_and_pages() {
    // 4 MiB: the OTF2 archive inflates past 1 MiB (a gzip upload holds no more than a plain one).
    let server = TestServer::new(4 << 20).await;
    // Three worked examples (tracescope-json, titled "T4 worked example …") and one OTF2
    // archive.
    for _ in 0..3 {
        server.upload_ok("t4.json", worked_example()).await;
    }
    let otf2 = server.upload_ok("two-ranks.tar.gz", otf2_example()).await;
    let server = &server;
    let list = |uri: String| async move {
        let (status, body) = server.get(&uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}");
        json::<RunList>(&body)
    };
    let all = list("/api/runs".to_owned()).await;
    assert_eq!((all.runs.len(), all.total), (4, 4));
    let by_format = list(format!(
        "/api/runs?format={}",
        otf2.run.summary.format.name()
    ))
    .await;
    assert_eq!(by_format.total, 1);
    assert_eq!(by_format.runs[0].id, otf2.id);
    let by_name = list("/api/runs?q=WORKED%20example".to_owned()).await;
    assert_eq!(by_name.total, 3, "name search is case-insensitive");
    // LIKE wildcards in the query are literal characters.
    assert_eq!(list("/api/runs?q=%25".to_owned()).await.total, 0);
    assert_eq!(list("/api/runs?q=_".to_owned()).await.total, 0);
    let page1 = list("/api/runs?limit=3".to_owned()).await;
    let page2 = list("/api/runs?limit=3&offset=3".to_owned()).await;
    assert_eq!((page1.runs.len(), page2.runs.len(), page2.total), (3, 1, 4));
    let mut ids: Vec<String> = page1
        .runs
        .iter()
        .chain(&page2.runs)
        .map(|r| r.id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "pages neither overlap nor skip");
}

#[tokio::test]
async fn a_run_is_deleted_only_with_its_token_and_takes_its_views_along() {
    let server = TestServer::new(1 << 20).await;
    let keep = server.upload_ok("keep.json", worked_example()).await;
    let doomed = server.upload_ok("doomed.json", worked_example()).await;
    assert_eq!(doomed.delete_token.len(), 43);
    assert_ne!(doomed.delete_token, keep.delete_token);
    let state = format!(r#"{{"version":1,"run":"{}"}}"#, doomed.id);
    let (status, body, _) = server
        .send_with("POST", "/api/views", &[], state.into_bytes())
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let view: shared::view::api::CreatedView = json(&body);

    let uri = format!("/api/runs/{}", doomed.id);
    let (status, body, _) = server.send_with("DELETE", &uri, &[], vec![]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(json::<ApiError>(&body).code, "forbidden");
    let (status, _, _) = server
        .send_with(
            "DELETE",
            &uri,
            &[("x-delete-token", &keep.delete_token)],
            vec![],
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "another run's token does not delete"
    );
    assert_eq!(server.run_count().await, 2);

    let (status, _, _) = server
        .send_with(
            "DELETE",
            &uri,
            &[("x-delete-token", &doomed.delete_token)],
            vec![],
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(server.run_count().await, 1);
    assert_eq!(server.get(&uri).await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        server.get(&format!("/api/views/{}", view.id)).await.0,
        StatusCode::NOT_FOUND
    );
    for (table, query) in [
        ("run_blobs", "SELECT COUNT(DISTINCT run_id) FROM run_blobs"),
        ("run_index", "SELECT COUNT(DISTINCT run_id) FROM run_index"),
        (
            "run_chunks",
            "SELECT COUNT(DISTINCT run_id) FROM run_chunks",
        ),
    ] {
        let runs: i64 = count(&server.state.pool, query, &[]).await;
        assert_eq!(
            runs, 1,
            "the deleted run's {table} rows are gone, the other's stay"
        );
    }
    let (status, _, _) = server
        .send_with(
            "DELETE",
            &uri,
            &[("x-delete-token", &doomed.delete_token)],
            vec![],
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_permalink_restores_the_view_state_and_opens_the_app() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let state = shared::view::state::ViewState {
        kind: shared::view::state::ViewKind::Gantt,
        window: Some(shared::view::state::Window { start: 3, end: 17 }),
        rows: Some(shared::view::state::Rows { first: 0, last: 1 }),
        selection: Some(shared::view::state::Selection::Event { index: 4 }),
        overlays: vec![shared::view::state::Overlay::CriticalPath],
        processes: Some(vec![1, 0]),
        filters: vec![shared::view::state::Filter::HideMessages],
        ..shared::view::state::ViewState::new(run.id.clone())
    };
    let body = serde_json::to_vec(&state).expect("serializes");
    let (status, created, _) = server.send_with("POST", "/api/views", &[], body).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&created)
    );
    let created: shared::view::api::CreatedView = json(&created);
    assert_eq!(created.id.len(), 16);
    assert_eq!(created.path, format!("/v/{}", created.id));

    let (status, body, headers) = server
        .send_with("GET", &format!("/api/views/{}", created.id), &[], vec![])
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json::<shared::view::state::ViewState>(&body), state);
    assert!(
        headers[header::CACHE_CONTROL]
            .to_str()
            .expect("ascii")
            .contains("immutable")
    );

    // The permalink itself is a page of the app.
    let (status, body) = server.get(&created.path).await;
    assert_eq!(status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&body).contains("<title>Tracescope</title>"));
}

#[tokio::test]
async fn old_view_states_keep_loading_and_bad_ones_are_refused() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    // A state as an older client wrote it: no version, fewer fields, one since dropped.
    let old = format!(
        r#"{{"run":"{}","window":{{"start":1,"end":2}},"legacy_zoom":3}}"#,
        run.id
    );
    let (status, body, _) = server
        .send_with("POST", "/api/views", &[], old.into_bytes())
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let created: shared::view::api::CreatedView = json(&body);
    let (_, body) = server.get(&format!("/api/views/{}", created.id)).await;
    let read: shared::view::state::ViewState = json(&body);
    assert_eq!(read.version, shared::view::state::CURRENT_VERSION);
    assert_eq!(
        read.window,
        Some(shared::view::state::Window { start: 1, end: 2 })
    );

    for (bad, code, status) in [
        (
            r#"{"run":"AAAAAAAAAAAAAAAAAAAAAA"}"#.to_owned(),
            "not_found",
            StatusCode::NOT_FOUND,
        ),
        (
            format!(r#"{{"run":"{}","version":7}}"#, run.id),
            "bad_request",
            StatusCode::BAD_REQUEST,
        ),
        (
            format!(r#"{{"run":"{}","window":{{"start":5,"end":1}}}}"#, run.id),
            "bad_request",
            StatusCode::BAD_REQUEST,
        ),
        (
            "not json".to_owned(),
            "bad_request",
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let (got, body, _) = server
            .send_with("POST", "/api/views", &[], bad.clone().into_bytes())
            .await;
        assert_eq!(got, status, "{bad}");
        assert_eq!(json::<ApiError>(&body).code, code, "{bad}");
    }
    let count: i64 = count(&server.state.pool, "SELECT COUNT(*) FROM views", &[]).await;
    assert_eq!(count, 1);
}

#[tokio::test]
async fn run_data_is_cacheable_and_revalidates_by_etag() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let uri = format!("/api/runs/{}", run.id);
    let (status, _, headers) = server.send_with("GET", &uri, &[], vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers[header::CACHE_CONTROL]
            .to_str()
            .expect("ascii")
            .contains("immutable")
    );
    let etag = headers[header::ETAG].to_str().expect("ascii").to_owned();
    let (status, body, _) = server
        .send_with("GET", &uri, &[("if-none-match", &etag)], vec![])
        .await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    let (status, body, headers) = server
        .send_with("GET", &format!("{uri}/info"), &[], vec![])
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json::<shared::view::api::RunInfo>(&body), run.run);
    assert!(
        headers[header::CACHE_CONTROL]
            .to_str()
            .expect("ascii")
            .contains("immutable")
    );
}

#[tokio::test]
async fn the_viewport_answers_a_window_at_a_width_with_summaries() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let uri = |q: &str| format!("/api/runs/{}/viewport?{q}", run.id);
    let (status, body, headers) = server
        .send_with(
            "GET",
            &uri("start=0&end=69&first_row=0&last_row=1&width_px=2"),
            &[],
            vec![],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let view: shared::view::viewport::Viewport = json(&body);
    // The same answer as the library's (shared/tests/it/viewport.rs checks it by hand): A's
    // first span fills pixel 0 and pixel 1 is "more here", mostly blocked; B is one run of
    // crowded computing-dominated pixels holding 5 spans.
    assert_eq!(view.rows.len(), 2);
    assert_eq!(view.rows[0].state, "cB");
    assert_eq!(view.rows[1].state, "C");
    assert_eq!(view.rows[1].count, [5]);
    assert!(
        headers[header::CACHE_CONTROL]
            .to_str()
            .expect("ascii")
            .contains("immutable")
    );
    let etag = headers[header::ETAG].to_str().expect("ascii").to_owned();
    let (status, _, _) = server
        .send_with(
            "GET",
            &uri("start=0&end=69&first_row=0&last_row=1&width_px=2"),
            &[("if-none-match", &etag)],
            vec![],
        )
        .await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);

    let (status, body) = server
        .get(&uri("start=9&end=3&first_row=0&last_row=1&width_px=2"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(json::<ApiError>(&body).message.contains("window"));
    let (status, body) = server.get(&uri("start=0&end=9")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "missing parameters");
    assert_eq!(json::<ApiError>(&body).code, "bad_request");
    let (status, _) = server
        .get("/api/runs/AAAAAAAAAAAAAAAAAAAAAA/viewport?start=0&end=9&first_row=0&last_row=1&width_px=2")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_outline_is_the_run_with_its_processes_and_no_events() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let (status, body) = server.get(&format!("/api/runs/{}/outline", run.id)).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let outline: shared::view::api::RunDetail = json(&body);
    assert_eq!(outline.run.id, run.id);
    assert_eq!(outline.run.summary.events, 13);
    let names: Vec<&str> = outline
        .trace
        .processes
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["A", "B"]);
    assert_eq!(outline.trace.nodes.len(), 2);
    assert_eq!(outline.trace.events.len(), 0);
    let (status, _) = server.get("/api/runs/AAAAAAAAAAAAAAAAAAAAAA/outline").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_upload_reports_its_progress_under_its_key() {
    use shared::view::api::{UploadPhase, UploadProgress};
    let server = TestServer::new(1 << 20).await;
    let bytes = worked_example();
    let size = bytes.len().to_string();
    let (status, body, _) = server
        .send_with(
            "POST",
            "/api/runs?name=t4.json&upload=progress-key-0001",
            &[("content-length", &size)],
            bytes.clone(),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let (status, body) = server.get("/api/uploads/progress-key-0001").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        json::<UploadProgress>(&body),
        UploadProgress {
            phase: UploadPhase::Done,
            bytes_read: bytes.len() as u64,
            bytes_total: Some(bytes.len() as u64),
        }
    );

    let (status, _, _) = server
        .send_with(
            "POST",
            "/api/runs?upload=failing-key-00001",
            &[],
            b"not a trace".to_vec(),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (_, body) = server.get("/api/uploads/failing-key-00001").await;
    assert_eq!(json::<UploadProgress>(&body).phase, UploadPhase::Failed);

    let (status, body, _) = server
        .send_with("POST", "/api/runs?upload=short", &[], bytes)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json::<ApiError>(&body).code, "bad_request");
    assert_eq!(
        server.get("/api/uploads/never-started-000").await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(server.run_count().await, 1);
}

#[tokio::test]
async fn an_announced_oversized_upload_is_refused_before_reading() {
    let server = TestServer::new(64).await;
    let (status, body, _) = server
        .send_with(
            "POST",
            "/api/runs",
            &[("content-length", "100")],
            vec![b' '; 100],
        )
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(json::<ApiError>(&body).code, "payload_too_large");
}

#[tokio::test]
async fn the_stored_upload_reimports_to_the_same_trace_gzipped_or_not() {
    use std::io::{Read as _, Write as _};
    let server = TestServer::new(1 << 20).await;
    let plain = worked_example();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&plain).expect("in memory");
    let gzipped = encoder.finish().expect("in memory");
    let expected = shared::formats::import(&plain, None, "t4.json")
        .expect("parses")
        .trace;
    for (name, body) in [("t4.json", plain.clone()), ("t4.json.gz", gzipped.clone())] {
        let run = server.upload_ok(name, body).await;
        let source_gz = db::get_source_gz(&server.state.pool, &run.id)
            .await
            .expect("reads")
            .expect("the run's upload")
            .expect("kept in the database");
        let mut source = Vec::new();
        flate2::read::MultiGzDecoder::new(source_gz.as_slice())
            .read_to_end(&mut source)
            .expect("a gzip stream");
        assert_eq!(source, plain, "{name}: the stored upload is the upload");
        let again = shared::formats::import(&source, None, name)
            .expect("re-imports")
            .trace;
        assert_eq!(again, expected, "{name}");
    }
}

/// Blobs larger than one database value are stored in parts and read back whole: here cut
/// into parts of 16 bytes (a real run's are 256 MiB, below SQLite's 1 GB value).
#[tokio::test]
async fn blobs_stored_in_parts_read_back_whole_and_go_with_their_run() {
    use std::io::Read as _;
    let server = TestServer::new(1 << 20).await;
    let path = shared_data("t4-worked-example.json");
    let mut file = std::fs::File::open(&path).expect("worked example");
    let options = shared::formats::ImportOptions::default();
    let prepared = server::ingest::prepare_file(&mut file, "t4.json", None, &options, &|_| {})
        .expect("prepares");
    let (source_gz, model_gz) = (
        prepared.source_gz.to_vec().expect("the spooled upload"),
        prepared.model_bin_gz.to_vec().expect("the spooled model"),
    );
    assert!(
        source_gz.len() > 48 && model_gz.len() > 48,
        "several parts each"
    );
    let stored =
        server::ingest::store_in_parts(&server.state.pool, &server.state.blobs, prepared, 16)
            .await
            .expect("stores");
    let id = &stored.run.id;
    let parts: i64 = count(
        &server.state.pool,
        "SELECT COUNT(*) FROM run_blob_parts WHERE run_id = $1",
        &[id],
    )
    .await;
    assert_eq!(
        parts as usize,
        source_gz.len().div_ceil(16) - 1 + model_gz.len().div_ceil(16) - 1
    );
    let source = db::get_source_gz(&server.state.pool, id)
        .await
        .expect("reads")
        .expect("exists")
        .expect("kept in the database");
    assert_eq!(source, source_gz);
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(source.as_slice())
        .read_to_end(&mut plain)
        .expect("a gzip stream");
    assert_eq!(plain, worked_example());
    // The model reads whole: the run opens and analyses as any other.
    let (status, body) = server.get(&format!("/api/runs/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let detail: RunDetail = json(&body);
    let expected = shared::formats::import(&worked_example(), None, "t4.json")
        .expect("parses")
        .trace;
    assert_eq!(detail.trace, expected);
    let (status, body) = server.get(&format!("/api/runs/{id}/analysis")).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    // Deleting the run takes its parts along.
    let (status, _, _) = server
        .send_with(
            "DELETE",
            &format!("/api/runs/{id}"),
            &[("x-delete-token", &stored.delete_token)],
            Vec::new(),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let left: i64 = count(
        &server.state.pool,
        "SELECT COUNT(*) FROM run_blob_parts",
        &[],
    )
    .await;
    assert_eq!(left, 0);
}

/// Runs are stored with their model in the native binary format (gzipped); runs stored before (migration
/// 0005) keep a gzip JSON model, and still open with the same model and analysis.
#[tokio::test]
async fn a_run_stored_with_a_gzip_json_model_opens_as_one_stored_now() {
    use std::io::{Read as _, Write as _};
    let server = TestServer::new(1 << 20).await;
    let now = server.upload_ok("t4.json", worked_example()).await;
    let before = server.upload_ok("t4.json", worked_example()).await;
    let pool = &server.state.pool;
    let (bin, gz): (Option<Vec<u8>>, Vec<u8>) = server::on_engine!(pool, |pool| {
        sqlx::query_as("SELECT model_bin_gz, model_json_gz FROM run_blobs WHERE run_id = $1")
            .bind(&now.id)
            .fetch_one(pool)
            .await
            .expect("blob")
    });
    let bin_gz = bin.expect("a binary model");
    let mut bin = Vec::new();
    flate2::read::GzDecoder::new(bin_gz.as_slice())
        .read_to_end(&mut bin)
        .expect("gzip");
    assert!(bin.starts_with(b"TSCB"), "the native binary format");
    assert!(gz.is_empty(), "no JSON copy");
    // `before` as a run stored before migration 0005 had it.
    let trace = shared::formats::binary::parse(&bin).expect("decodes");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder
        .write_all(&serde_json::to_vec(&trace).expect("serializes"))
        .expect("in memory");
    let json_gz = encoder.finish().expect("in memory");
    server::on_engine!(pool, |pool| {
        sqlx::query(
            "UPDATE run_blobs SET model_json_gz = $1, model_bin_gz = NULL WHERE run_id = $2",
        )
        .bind(&json_gz)
        .bind(&before.id)
        .execute(pool)
        .await
        .expect("rewritten");
    });
    let mut models = Vec::new();
    let mut reports = Vec::new();
    for run in [&now, &before] {
        let (status, body) = server.get(&format!("/api/runs/{}", run.id)).await;
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        let body: serde_json::Value = json(&body);
        models
            .push(serde_json::from_value::<shared::Trace>(body["trace"].clone()).expect("a model"));
        let (status, body) = server.get(&format!("/api/runs/{}/analysis", run.id)).await;
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        reports.push(json::<serde_json::Value>(&body));
    }
    assert_eq!(models[0], trace);
    assert_eq!(models[1], trace);
    assert_eq!(reports[0], reports[1]);
}

/// The page draws a run from its index first and then loads its model in the background from
/// `GET /api/runs/{id}/model`: the stored binary model as it is, gzip and all, to a browser
/// (which inflates it), inflated for a client that takes no gzip, and encoded from JSON for a run
/// stored before migration 0005; each with its inflated size for the page's progress.
#[tokio::test]
async fn the_model_is_served_in_the_binary_format_gzipped_as_stored() {
    use std::io::{Read as _, Write as _};
    let server = TestServer::new(1 << 20).await;
    let now = server.upload_ok("t4.json", worked_example()).await;
    let expected = shared::formats::import(&worked_example(), None, "t4.json")
        .expect("parses")
        .trace;
    let uri = format!("/api/runs/{}/model", now.id);
    let size = |headers: &axum::http::HeaderMap| -> usize {
        headers["x-model-bytes"]
            .to_str()
            .expect("ascii")
            .parse()
            .expect("a number")
    };

    let (status, body, headers) = server
        .send_with(
            "GET",
            &uri,
            &[("accept-encoding", "gzip, deflate, br")],
            vec![],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers[header::CONTENT_ENCODING], "gzip");
    let mut bin = Vec::new();
    flate2::read::GzDecoder::new(body.as_slice())
        .read_to_end(&mut bin)
        .expect("one gzip stream, not compressed twice");
    assert_eq!(size(&headers), bin.len());
    assert_eq!(
        shared::formats::binary::parse(&bin).expect("decodes"),
        expected
    );

    let (status, body, headers) = server.send_with("GET", &uri, &[], vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers.get(header::CONTENT_ENCODING).is_none());
    assert_eq!(size(&headers), body.len());
    assert_eq!(body, bin);

    // A run stored before migration 0005, with a gzip JSON model.
    let before = server.upload_ok("t4.json", worked_example()).await;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder
        .write_all(&serde_json::to_vec(&expected).expect("serializes"))
        .expect("in memory");
    let json_gz = encoder.finish().expect("in memory");
    let pool = &server.state.pool;
    server::on_engine!(pool, |pool| {
        sqlx::query(
            "UPDATE run_blobs SET model_json_gz = $1, model_bin_gz = NULL WHERE run_id = $2",
        )
        .bind(&json_gz)
        .bind(&before.id)
        .execute(pool)
        .await
        .expect("rewritten");
    });
    let (status, body, headers) = server
        .send_with(
            "GET",
            &format!("/api/runs/{}/model", before.id),
            &[],
            vec![],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    assert_eq!(size(&headers), body.len());
    assert_eq!(
        shared::formats::binary::parse(&body).expect("decodes"),
        expected
    );

    let (status, _) = server.get("/api/runs/AAAAAAAAAAAAAAAAAAAAAA/model").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_analysis_report_is_the_analyze_commands_and_is_kept() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let uri = format!("/api/runs/{}/analysis", run.id);
    let (status, body, headers) = server.send_with("GET", &uri, &[], vec![]).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    assert!(
        headers[header::CACHE_CONTROL]
            .to_str()
            .expect("ascii")
            .contains("immutable")
    );
    let report: serde_json::Value = json(&body);
    // analysis.md §10, T4a and T4b, as `analyze --json` names them.
    assert_eq!(report["execution_time"], 69);
    assert_eq!(report["total_computation"], 85.0);
    assert_eq!(report["critical_path"]["length"], 69);
    assert_eq!(report["wcpa"]["weight"], 101.0);
    assert_eq!(report["npt"]["processes"][0]["name"], "B");
    let kept: i64 = count(
        &server.state.pool,
        "SELECT COUNT(*) FROM run_analyses WHERE run_id = $1",
        &[&run.id],
    )
    .await;
    assert_eq!(kept, 1);
    // The kept report is served as it was computed.
    let (_, again) = server.get(&uri).await;
    assert_eq!(again, body);

    // A what-if scenario computes a fresh report (an ideal network), and is not kept.
    let (status, body) = server.get(&format!("{uri}?what_if=transit%3D0")).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let what_if: serde_json::Value = json(&body);
    assert!(what_if["what_if"].is_object(), "{what_if}");
    let (status, body) = server.get(&format!("{uri}?what_if=nonsense")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json::<ApiError>(&body).code, "bad_request");
    assert_eq!(
        server
            .get("/api/runs/AAAAAAAAAAAAAAAAAAAAAA/analysis")
            .await
            .0,
        StatusCode::NOT_FOUND
    );
}

/// A request body that never arrives.
fn stalled_body() -> Body {
    Body::from_stream(futures_util::stream::pending::<
        Result<axum::body::Bytes, std::io::Error>,
    >())
}

#[tokio::test]
async fn a_request_past_its_deadline_is_408_in_the_error_shape() {
    let mut server = TestServer::new(1 << 20).await;
    server.state.timeouts.api = std::time::Duration::from_millis(50);
    server.state.timeouts.upload = std::time::Duration::from_millis(200);
    let started = std::time::Instant::now();
    let req = Request::post("/api/views")
        .body(stalled_body())
        .expect("request");
    let (status, body) = server.send(req).await;
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT);
    assert_eq!(json::<ApiError>(&body).code, "timeout");
    // Uploads have their own, longer deadline.
    let req = Request::post("/api/runs?name=x")
        .body(stalled_body())
        .expect("request");
    let (status, body) = server.send(req).await;
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT);
    assert_eq!(json::<ApiError>(&body).code, "timeout");
    assert!(started.elapsed() >= std::time::Duration::from_millis(250));
    assert_eq!(
        server.run_count().await,
        0,
        "the cancelled upload stored nothing"
    );
    // A request that finishes in time is answered as usual.
    server.upload_ok("t4.json", worked_example()).await;
}

/// The analysis of a selection, part by part, on the worked example (values worked by hand in
/// shared/tests/it/selection.rs from analysis.md §10).
#[tokio::test]
async fn analysis_parts_answer_a_window_and_a_process_set() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let part = |q: &str| {
        let uri = format!("/api/runs/{}/analysis/{q}", run.id);
        let server = &server;
        async move {
            let (status, body) = server.get(&uri).await;
            (status, body)
        }
    };
    let number = |v: &Value, pointer: &str| {
        v.pointer(pointer)
            .and_then(Value::as_f64)
            .unwrap_or_else(|| panic!("{pointer} in {v}"))
    };
    let ok = |(status, body): (StatusCode, Vec<u8>)| {
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        json::<Value>(&body)
    };
    // A's share of the critical path: comp 25 + m2's transit 10 + comp 3.
    let cp = ok(part("critical-path?processes=0").await);
    assert_eq!(number(&cp, "/weight"), 38.0);
    // WCPA over [0, 30): A's first computation (weight 30) and 5 of m1's 8 transit ticks.
    let wcpa = ok(part("wcpa?start=0&end=30").await);
    assert_eq!(number(&wcpa, "/weight"), 35.0);
    assert_eq!(number(&wcpa, "/by_phase/0/share"), 1.0);
    let summary = ok(part("summary?start=0&end=35&processes=1").await);
    assert_eq!(number(&summary, "/computing"), 22.0);
    assert_eq!(number(&summary, "/blocked"), 13.0);
    assert_eq!(number(&ok(part("npt?processes=0").await), "/total"), 29.0);
    let matrix = ok(part("matrix").await);
    assert_eq!(number(&matrix, "/messages"), 3.0);
    assert_eq!(matrix["count"], serde_json::json!([2, 1]));
    let waits = ok(part("wait-states?limit=1").await);
    assert_eq!(number(&waits, "/total"), 3.0);
    assert_eq!(number(&waits, "/time"), 16.0);
    assert_eq!(waits["wait_states"].as_array().map(Vec::len), Some(1));
    let statistics = ok(part("statistics").await);
    let blocked = statistics
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["name"] == "blocked"))
        .expect("a row for the blocked state");
    assert_eq!(number(blocked, "/statistics/count"), 3.0);
    assert!(ok(part("diagnostics").await)["total"].is_u64());
    // An event filter narrows the lists: B's one message to A.
    let filtered = ok(part("matrix?filter=message%3D1%3E0").await);
    assert_eq!(number(&filtered, "/messages"), 1.0);
    // The histograms say what the statistics say: three blocked spans, median 13.
    let histograms = ok(part("histograms").await);
    let blocked = histograms
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["name"] == "blocked"))
        .expect("a histogram of the blocked state");
    assert_eq!(number(blocked, "/histogram/summary/median"), 13.0);
    // Both waits of B's are charged at its receives (no region in this trace: "(none)").
    assert_eq!(number(&waits, "/by_call_site/0/weight"), 16.0);

    for (query, status, says) in [
        ("bogus", StatusCode::NOT_FOUND, "the parts are"),
        ("summary?processes=0,x", StatusCode::BAD_REQUEST, "byte 2"),
        ("summary?processes=5", StatusCode::BAD_REQUEST, "0 to 1"),
        ("npt?start=9&end=3", StatusCode::BAD_REQUEST, "window"),
        ("npt?limit=many", StatusCode::BAD_REQUEST, "limit"),
        (
            "matrix?filter=kind%3Dsideways",
            StatusCode::BAD_REQUEST,
            "column",
        ),
    ] {
        let (got, body) = part(query).await;
        assert_eq!(got, status, "{query}");
        let error: ApiError = json(&body);
        assert!(error.message.contains(says), "{query}: {}", error.message);
    }
}

/// Two stored runs compared: the worked example before, a two-rank OTF2 run after.
#[tokio::test]
async fn two_runs_compare_by_name() {
    let server = TestServer::new(1 << 22).await;
    let before = server.upload_ok("t4.json", worked_example()).await;
    let after = server.upload_ok("ping-pong.tar.gz", otf2_example()).await;
    let (status, body) = server
        .get(&format!("/api/compare/{}/{}", before.id, after.id))
        .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let c: shared::view::compare::Comparison = json(&body);
    // The worked example has no clock unit: times in ticks; 69 before (T4a).
    assert_eq!(c.time_unit, "ticks");
    assert_eq!(c.metrics[0].name, "Execution time");
    assert_eq!(c.metrics[0].before, Some(69.0));
    assert_eq!(
        c.metrics[0].after,
        Some(499_960.0),
        "the ping-pong run, in its ticks"
    );
    assert_eq!(c.processes.len(), 4, "A, B, then the two ranks");
    let (status, _) = server
        .get(&format!(
            "/api/compare/{}/AAAAAAAAAAAAAAAAAAAAAA",
            before.id
        ))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_deleted_run_is_gone_from_the_caches_too() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let viewport = format!(
        "/api/runs/{}/viewport?start=0&end=69&first_row=0&last_row=1&width_px=10",
        run.id
    );
    let summary = format!("/api/runs/{}/analysis/summary", run.id);
    assert_eq!(server.get(&viewport).await.0, StatusCode::OK);
    assert_eq!(server.get(&summary).await.0, StatusCode::OK);
    let (status, _, _) = server
        .send_with(
            "DELETE",
            &format!("/api/runs/{}", run.id),
            &[("x-delete-token", &run.delete_token)],
            vec![],
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(server.get(&viewport).await.0, StatusCode::NOT_FOUND);
    assert_eq!(server.get(&summary).await.0, StatusCode::NOT_FOUND);
}

/// Issue 46 point 12: a viewport answer is made once and served again as it was (the Gantt
/// chart's first view of a run is every visitor's), and it goes with its run.
#[tokio::test]
async fn a_viewport_answer_is_made_once_and_forgotten_with_its_run() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let viewport = format!(
        "/api/runs/{}/viewport?start=0&end=69&first_row=0&last_row=1&width_px=10",
        run.id
    );
    let (status, first, headers) = server.send_with("GET", &viewport, &[], vec![]).await;
    assert_eq!(status, StatusCode::OK);
    let etag = headers
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .expect("an ETag")
        .to_owned();
    let kept = server.state.answers.get(&etag).expect("the answer is kept");
    assert_eq!(kept.as_ref(), first.as_slice());
    let (status, again, headers) = server.send_with("GET", &viewport, &[], vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again, first);
    assert_eq!(
        headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("application/json")
    );
    let view: shared::view::viewport::Viewport = json(&again);
    assert_eq!(view.rows.len(), 2);
    let (status, _, _) = server
        .send_with(
            "DELETE",
            &format!("/api/runs/{}", run.id),
            &[("x-delete-token", &run.delete_token)],
            vec![],
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert!(server.state.answers.get(&etag).is_none(), "forgotten");
    assert_eq!(server.get(&viewport).await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn every_endpoint_of_a_run_reads_one_context_built_once() {
    let server = TestServer::new(1 << 20).await;
    let (status, body) = server.upload("t4", worked_example()).await;
    assert_eq!(status, StatusCode::CREATED);
    let run: CreatedRun = json(&body);
    let id = &run.id;
    let uris: Vec<String> = [
        "analysis".to_owned(),
        "analysis?what_if=transit%3D0".to_owned(),
        "analysis?min_latency=1".to_owned(),
        "outline".to_owned(),
        "viewport?start=0&end=69&first_row=0&last_row=1&width_px=10".to_owned(),
    ]
    .into_iter()
    .chain(
        [
            "summary",
            "critical-path",
            "wcpa",
            "npt",
            "statistics",
            "matrix",
            "wait-states",
            "diagnostics",
        ]
        .iter()
        .map(|part| format!("analysis/{part}?start=0&end=70")),
    )
    .map(|rest| format!("/api/runs/{id}/{rest}"))
    .collect();
    // All at once on a cold cache: concurrent first requests share one build.
    let answers =
        futures_util::future::join_all(uris.iter().map(|uri| server.get(uri.as_str()))).await;
    for (uri, (status, body)) in uris.iter().zip(&answers) {
        assert_eq!(
            *status,
            StatusCode::OK,
            "{uri}: {}",
            String::from_utf8_lossy(body)
        );
    }
    // And again, one after the other.
    for uri in &uris {
        assert_eq!(server.get(uri).await.0, StatusCode::OK, "{uri}");
    }
    assert_eq!(server.state.workspaces.builds(), 1);
    let report: shared::report::Report = json(&answers[0].1);
    assert_eq!(report.analysis.execution_time, 69);
    let what_if: shared::report::Report = json(&answers[1].1);
    assert_eq!(what_if.what_if.map(|w| w.execution_time), Some(53.0));
}

/// Every rejection under `/api/` is answered in the one error shape, whoever wrote it: a body
/// that is not UTF-8, a body over the limit, a method the route does not have.
#[tokio::test]
async fn every_api_rejection_is_answered_in_the_one_error_shape() {
    let server = TestServer::new(1 << 20).await;
    let post_view = |body: Vec<u8>| {
        Request::post("/api/views")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .expect("request")
    };
    let cases = [
        (
            post_view(vec![0xff, 0xfe, b'{']),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            post_view(vec![b' '; 3 << 20]),
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
        (
            Request::delete("/api/health")
                .body(Body::empty())
                .expect("request"),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
        (
            Request::get("/api/no/such/route")
                .body(Body::empty())
                .expect("request"),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
    ];
    for (req, status, code) in cases {
        let what = format!("{} {}", req.method(), req.uri());
        let (got, body) = server.send(req).await;
        assert_eq!(got, status, "{what}");
        let error: ApiError = serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!(
                "{what}: not the error shape ({e}): {:?}",
                String::from_utf8_lossy(&body)
            )
        });
        assert_eq!(error.code, code, "{what}");
        assert!(!error.message.is_empty(), "{what}");
    }
}

/// Every response, the app page and the API alike, carries the security headers: a strict
/// Content-Security-Policy (no other origins, no framing), nosniff, DENY, same-origin referrers.
#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let server = TestServer::new(1 << 20).await;
    for uri in ["/", "/runs/abc", "/api/health", "/api/no/such/route"] {
        let res = server
            .app()
            .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
            .await
            .expect("infallible service");
        let h = res.headers();
        let csp = h
            .get(header::CONTENT_SECURITY_POLICY)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("{uri}: no Content-Security-Policy"));
        for directive in [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval'",
            "frame-ancestors 'none'",
            "object-src 'none'",
        ] {
            assert!(csp.contains(directive), "{uri}: {csp}");
        }
        // No script evaluation beyond compiling WebAssembly, and no wildcard source.
        assert!(
            !csp.split([' ', ';'])
                .any(|t| t == "'unsafe-eval'" || t == "*"),
            "{uri}: {csp}"
        );
        assert_eq!(
            h.get(header::X_CONTENT_TYPE_OPTIONS).map(|v| v.as_bytes()),
            Some(&b"nosniff"[..]),
            "{uri}"
        );
        assert_eq!(
            h.get(header::X_FRAME_OPTIONS).map(|v| v.as_bytes()),
            Some(&b"DENY"[..]),
            "{uri}"
        );
        assert_eq!(
            h.get(header::REFERRER_POLICY).map(|v| v.as_bytes()),
            Some(&b"same-origin"[..]),
            "{uri}"
        );
        // Cross-origin isolated, so the Simulator's workers may share memory.
        assert_eq!(
            h.get("cross-origin-opener-policy").map(|v| v.as_bytes()),
            Some(&b"same-origin"[..]),
            "{uri}"
        );
        assert_eq!(
            h.get("cross-origin-embedder-policy").map(|v| v.as_bytes()),
            Some(&b"require-corp"[..]),
            "{uri}"
        );
    }
}

/// What the importer noted about a trace is stored with the run and answered with it.
#[tokio::test]
async fn importer_notes_are_stored_with_the_run() {
    let server = TestServer::new(1 << 20).await;
    let trace = br#"[{"name": "w", "ph": "X", "ts": 10, "dur": -5, "pid": 1, "tid": 1}]"#;
    let (status, body) = server.upload("negative.json", trace.to_vec()).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let created: CreatedRun = serde_json::from_slice(&body).expect("created");
    let note =
        "1 X slices with a negative dur, read as instants (the first at line 1, column 2 (byte 1))";
    assert!(
        created.run.notes.iter().any(|n| n == note),
        "{:?}",
        created.run.notes
    );
    let (status, body) = server.get(&format!("/api/runs/{}/info", created.id)).await;
    assert_eq!(status, StatusCode::OK);
    let info: shared::view::api::RunInfo = serde_json::from_slice(&body).expect("info");
    assert!(info.notes.iter().any(|n| n == note), "{:?}", info.notes);
    let (_, body) = server.get("/api/runs").await;
    let list: RunList = serde_json::from_slice(&body).expect("list");
    assert_eq!(list.runs[0].notes, info.notes);
}

/// A Charm++ Projections trace uploads as a `.tar.gz` of its `.sts` and per-PE logs (what the
/// page packs when the files are picked together), and is stored as a Projections run.
#[tokio::test]
async fn a_projections_sts_and_its_logs_upload_as_one_tar() {
    let server = TestServer::new(1 << 20).await;
    let dir = shared_data("projections/handmade");
    let mut builder = tar::Builder::new(Vec::new());
    for name in ["hand.sts", "hand.0.log", "hand.1.log"] {
        let bytes = std::fs::read(dir.join(name)).expect("the hand-made trace");
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, name, bytes.as_slice())
            .expect("packs");
    }
    let tar = builder.into_inner().expect("packs");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &tar).expect("gzip");
    let created = server
        .upload_ok("hand.tar.gz", gz.finish().expect("gzip"))
        .await;
    let summary = &created.run.summary;
    assert_eq!(summary.format, shared::formats::Format::Projections);
    assert_eq!(
        (summary.processes, summary.events, summary.messages),
        (2, 20, 2)
    );
    assert_eq!(summary.time.duration_text, "130 µs");
}

/// `GET /api/runs/{id}/export/{format}` downloads the run's model in each format it can be
/// written in, and each reads back as the same model; an unknown format is a 400.
#[tokio::test]
async fn a_run_exports_in_every_written_format_and_reads_back() {
    let server = TestServer::new(1 << 20).await;
    let created = server.upload_ok("t4.json", worked_example()).await;
    let trace = shared::formats::import(&worked_example(), None, "t4")
        .expect("imports")
        .trace;
    for (format, read_as) in [
        ("chrome-json", shared::formats::Format::ChromeJson),
        ("native", shared::formats::Format::TracescopeJson),
        ("binary", shared::formats::Format::TracescopeBinary),
    ] {
        let (status, body) = server
            .get(&format!("/api/runs/{}/export/{format}", created.id))
            .await;
        assert_eq!(status, StatusCode::OK, "{format}");
        let again = shared::formats::import(&body, None, "again").expect("reads back");
        assert_eq!(again.format, read_as, "{format}");
        assert_eq!(again.trace, trace, "{format}");
    }
    expect_bad_request(
        &server,
        &format!("/api/runs/{}/export/pdf", created.id),
        "chrome-json",
    )
    .await;
}

/// `GET /api/runs/{id}/topology` answers the engine's layout, `/topology/load` its load over a
/// window, `/topology/strip` an edge's load over time; bad requests are 400 or 404 in the
/// error shape.
#[tokio::test]
async fn the_topology_and_its_load_are_the_engines() {
    use shared::graph::context::Context;
    use shared::view::topology::{Load, LoadFrame, Topology};
    let server = TestServer::new(1 << 20).await;
    let created = server.upload_ok("t4.json", worked_example()).await;
    let trace = shared::formats::import(&worked_example(), None, "t4")
        .expect("imports")
        .trace;
    let cx = Context::new(&trace);
    let expected = Topology::new(&trace, &cx.pairing);
    let load = Load::new(&cx, &expected);
    let (status, body) = server
        .get(&format!("/api/runs/{}/topology", created.id))
        .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let answer: Topology = json(&body);
    assert_eq!(answer, expected);
    let (_, body) = server
        .get(&format!(
            "/api/runs/{}/topology/load?start=10&end=40",
            created.id
        ))
        .await;
    let frame: LoadFrame = json(&body);
    use shared::model::time::Time;
    assert_eq!(frame, load.frame(Time(10), Time(40)));
    let (_, body) = server
        .get(&format!("/api/runs/{}/topology/load", created.id))
        .await;
    let whole: LoadFrame = json(&body);
    let (first, last) = trace.time_bounds().expect("events");
    assert_eq!(whole, load.frame(first, last));
    let (_, body) = server
        .get(&format!(
            "/api/runs/{}/topology/strip?edge=0&start=0&end=69&buckets=23",
            created.id
        ))
        .await;
    let strip: Vec<[f32; 2]> = json(&body);
    assert_eq!(strip, load.strip(0, Time(0), Time(69), 23));
    let (status, _) = server
        .get(&format!("/api/runs/{}/topology/strip?edge=5", created.id))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    expect_bad_request(
        &server,
        &format!("/api/runs/{}/topology/strip?edge=0&buckets=0", created.id),
        "buckets",
    )
    .await;
}

/// `GET /api/runs/{id}/hasse` answers the window the Hasse view draws, as the engine computes
/// it; a bad request is a 400 in the error shape.
#[tokio::test]
async fn the_hasse_window_is_the_engines() {
    use shared::analyses::causality::Causality;
    use shared::graph::context::Context;
    use shared::view::hasse::{Axis, Collapse, Diagram, HasseWindow};
    let server = TestServer::new(1 << 20).await;
    let created = server.upload_ok("t4.json", worked_example()).await;
    let (status, body) = server
        .get(&format!(
            "/api/runs/{}/hasse?start=0&end=69&rows=2&width_px=1000&axis=lamport",
            created.id
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let answer: HasseWindow = json(&body);
    let trace = shared::formats::import(&worked_example(), None, "t4")
        .expect("imports")
        .trace;
    let cx = Context::new(&trace);
    let causality = Causality::new(&trace, &cx.graph);
    let diagram = Diagram::new(
        &trace,
        &cx.graph,
        &causality,
        Collapse::Runs { expanded: &[] },
    );
    assert_eq!(
        answer,
        diagram.window(&[0, 1], (0, 69), Axis::Lamport, 1000.0)
    );
    assert_eq!(answer.vertices, 12);
    assert_eq!(answer.marks.len(), 12);
    // Only B, from tick 30.
    let (_, body) = server
        .get(&format!(
            "/api/runs/{}/hasse?start=30&end=69&processes=1&rows=1&width_px=500",
            created.id
        ))
        .await;
    let answer: HasseWindow = json(&body);
    assert!(answer.marks.iter().all(|m| m.row == 0));
    assert_eq!(answer.vertices, 5);
    // B's first arrival (event 8): 4 events in its past, 7 in its future, as in the browser.
    let (status, body) = server
        .get(&format!("/api/runs/{}/hasse/areas?event=8", created.id))
        .await;
    assert_eq!(status, StatusCode::OK);
    let areas: shared::view::hasse::CausalAreas = json(&body);
    assert_eq!((areas.pre_events, areas.post_events), (4, 7));
    let (status, _) = server
        .get(&format!("/api/runs/{}/hasse/areas?event=99", created.id))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = server
        .get(&format!(
            "/api/runs/{}/hasse?start=0&end=69&processes=7&rows=1&width_px=500",
            created.id
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let error: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("below 2")),
        "{error}"
    );
}

/// The path of a 10^8-event run, scaled down to 10^6 events: the run is stored with its
/// viewport index in chunks; opening it reads the outline, the directory and only the chunks
/// its first view needs (no model, no analysis context), and every answer, zoomed out or in,
/// is the in-memory index's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_run_opens_from_its_chunks_reading_only_what_its_view_needs() {
    use shared::view::viewport::{Viewport, ViewportIndex, ViewportRequest};
    let trace = shared::model::synthetic::ring(16, 1_000_000);
    let server = TestServer::new(64 << 20).await;
    let run = server
        .upload_ok("ring.tscb", shared::formats::binary::write(&trace))
        .await;
    let stored: i64 = count(
        &server.state.pool,
        "SELECT COUNT(*) FROM run_chunks WHERE run_id = $1",
        &[&run.id],
    )
    .await;
    let (status, body) = server.get(&format!("/api/runs/{}/outline", run.id)).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let outline: RunDetail = json(&body);
    assert_eq!(outline.trace.processes.len(), 16);
    assert_eq!(outline.trace.events.len(), 0);

    let pairing = shared::graph::pairing::pair_messages(&trace);
    let graph = shared::graph::execution::ExecutionGraph::new(&trace, &pairing);
    let index = ViewportIndex::new(&trace, &pairing, &graph);
    let (first, last) = trace.time_bounds().expect("events");
    let ask = |r: ViewportRequest| {
        format!(
            "/api/runs/{}/viewport?start={}&end={}&first_row={}&last_row={}&width_px={}",
            run.id, r.start, r.end, r.first_row, r.last_row, r.width_px
        )
    };
    // The first view: the whole run, every row.
    let whole = ViewportRequest::quantised(first.0, last.0 + 1, 0, 15, 1500);
    let (status, body) = server.get(&ask(whole)).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    assert_eq!(
        json::<Viewport>(&body),
        index.query(&whole).expect("answers")
    );
    let lazy = server::lazy::lazy_run(&server.state, &run.id)
        .await
        .expect("opens");
    let lazy = Option::as_ref(&*lazy).expect("the run has its index");
    let read = lazy.chunks.reads();
    // Two blocks of samples a row, two a pair and the messages at its bundle's ends.
    let bound = 2 * lazy.index.rows.len() + 5 * lazy.index.pairs.len();
    assert!(
        read as usize <= bound && read * 5 < stored as u64,
        "the first view read {read} of {stored} chunks"
    );
    // Zooming in to single ticks, and panning: the same answers as in memory.
    let span = last.0 - first.0;
    for zoom in [1, 3, 6, 9, 12, 15] {
        let width = (span >> zoom).max(1);
        let start = first.0 + (span - width) / 3;
        let r = ViewportRequest::quantised(start, start + width, 2, 9, 1200);
        let (status, body) = server.get(&ask(r)).await;
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        assert_eq!(
            json::<Viewport>(&body),
            index.query(&r).expect("answers"),
            "{r:?}"
        );
    }
    // Nothing built the model or its analysis context.
    assert_eq!(server.state.workspaces.builds(), 0);
}

/// A run with more events than the memory budget pays analyses for is stored and drawn from
/// its index, and its analyses are refused in the error shape (413 `over_budget`), saying why.
#[tokio::test]
async fn a_run_too_large_to_analyse_is_drawn_and_its_analyses_are_refused() {
    let mut server = TestServer::new(1 << 20).await;
    server.state.max_analysed_events = 12;
    let run = server.upload_ok("t4.json", worked_example()).await;
    for part in [
        "outline",
        "viewport?start=0&end=69&first_row=0&last_row=1&width_px=69",
    ] {
        let (status, body) = server.get(&format!("/api/runs/{}/{part}", run.id)).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{part}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    for part in [
        "analysis",
        "analysis/critical-path?start=0&end=70",
        "topology",
    ] {
        let (status, body) = server.get(&format!("/api/runs/{}/{part}", run.id)).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{part}");
        let error: ApiError = json(&body);
        assert_eq!(error.code, "over_budget");
        assert!(
            error.message.contains("this run has 13 events")
                && error.message.contains("--max-memory-bytes"),
            "{}",
            error.message
        );
    }
}

/// `GET /metrics` counts requests by route template, their latencies, the caches' hits and
/// misses, ingest and errors by code, in the OpenMetrics text format.
#[tokio::test]
async fn metrics_count_requests_caches_ingest_and_errors() {
    let server = TestServer::new(1 << 20).await;
    let run = server.upload_ok("t4.json", worked_example()).await;
    let viewport = format!(
        "/api/runs/{}/viewport?start=0&end=69&first_row=0&last_row=1&width_px=69",
        run.id
    );
    for _ in 0..2 {
        assert_eq!(server.get(&viewport).await.0, StatusCode::OK);
    }
    assert_eq!(
        server
            .get("/api/runs/AAAAAAAAAAAAAAAAAAAAAA/outline")
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    let (status, body, headers) = server.send_with("GET", "/metrics", &[], Vec::new()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .is_ok_and(|t| t.starts_with("application/openmetrics-text"))
    );
    let text = String::from_utf8(body).expect("UTF-8");
    let value = |series: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(series).and_then(|v| v.trim().parse().ok()))
            .unwrap_or_else(|| panic!("no {series} in\n{text}"))
    };
    let route = "route=\"/api/runs/{id}/viewport\"";
    assert_eq!(
        value(&format!(
            "tracescope_http_requests_total{{{route},method=\"GET\",status=\"200\"}}"
        )),
        2.0
    );
    assert_eq!(
        value(&format!(
            "tracescope_http_request_duration_seconds_count{{{route}}}"
        )),
        2.0
    );
    assert_eq!(
        value("tracescope_http_requests_total{route=\"/api/runs\",method=\"POST\",status=\"201\"}"),
        1.0
    );
    // The first viewport opened the run's index, the second found it.
    assert_eq!(
        value("tracescope_cache_lookups_total{cache=\"lazy_run\",result=\"miss\"}"),
        1.0
    );
    assert!(value("tracescope_cache_lookups_total{cache=\"lazy_run\",result=\"hit\"}") >= 1.0);
    assert!(value("tracescope_cache_lookups_total{cache=\"index_chunk\",result=\"miss\"}") >= 1.0);
    assert_eq!(value("tracescope_ingest_runs_total"), 1.0);
    assert_eq!(value("tracescope_ingest_events_total"), 13.0);
    assert_eq!(
        value("tracescope_ingest_bytes_total"),
        worked_example().len() as f64
    );
    assert_eq!(value("tracescope_errors_total{code=\"not_found\"}"), 1.0);
    assert!(text.trim_end().ends_with("# EOF"));
}

/// Every response carries a request id (the client's own when it sent one), the id the
/// request's log lines carry; the health check names the store and its runs.
#[tokio::test]
async fn responses_carry_request_ids_and_health_reports_the_store() {
    let server = TestServer::new(1 << 20).await;
    server.upload_ok("t4.json", worked_example()).await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let (status, body, headers) = server
            .send_with("GET", "/api/health", &[], Vec::new())
            .await;
        assert_eq!(status, StatusCode::OK);
        ids.push(headers["x-request-id"].to_str().expect("text").to_owned());
        let health: shared::view::api::Health = json(&body);
        assert_eq!(
            (health.status.as_str(), health.store.as_str(), health.runs),
            ("ok", server.state.pool.engine(), 1)
        );
    }
    assert_ne!(ids[0], ids[1]);
    let (_, _, headers) = server
        .send_with(
            "GET",
            "/api/runs",
            &[("x-request-id", "client-7")],
            Vec::new(),
        )
        .await;
    assert_eq!(headers["x-request-id"], "client-7");
}

/// With a blob directory, a run's upload and model are files named by their SHA-256 (the
/// database keeps the names), read back whole; identical uploads share their files, which go
/// when the last run naming them is deleted.
#[tokio::test]
async fn blobs_in_a_directory_are_content_addressed_shared_and_released() {
    use sha2::Digest as _;
    let mut server = TestServer::new(1 << 20).await;
    let blob_dir = server.dir.path().join("blobs");
    server.state.blobs = server::blobs::BlobStore::Directory(blob_dir.clone());
    let files = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        let mut found = Vec::new();
        for sub in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(sub.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                found.push(f.path());
            }
        }
        found.sort();
        found
    };
    let first = server.upload_ok("t4.json", worked_example()).await;
    let second = server.upload_ok("t4.json", worked_example()).await;
    let stored = files(&blob_dir);
    assert_eq!(
        stored.len(),
        2,
        "the upload and the model, once: {stored:?}"
    );
    for path in &stored {
        let bytes = std::fs::read(path).expect("reads");
        let name: String = sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            path.file_name().and_then(|n| n.to_str()),
            Some(name.as_str())
        );
        assert_eq!(
            path.parent()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str()),
            Some(&name[..2])
        );
    }
    let in_db = count(
        &server.state.pool,
        "SELECT CAST(SUM(length(source_gz) + length(model_bin_gz)) AS BIGINT) FROM run_blobs",
        &[],
    )
    .await;
    let named = count(
        &server.state.pool,
        "SELECT COUNT(source_sha256) + COUNT(model_sha256) FROM run_blobs",
        &[],
    )
    .await;
    assert_eq!((in_db, named), (0, 4));
    match db::get_source_gz(&server.state.pool, &first.id)
        .await
        .expect("reads")
    {
        Some(Err(name)) => {
            let gz = server.state.blobs.get(&name).await.expect("the file");
            let mut plain = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::MultiGzDecoder::new(gz.as_slice()),
                &mut plain,
            )
            .expect("gzip");
            assert_eq!(plain, worked_example());
        }
        other => panic!("expected a blob name, found {other:?}"),
    }
    // The model reads back whole: the run and its analysis.
    let (status, body) = server.get(&format!("/api/runs/{}", first.id)).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let detail: RunDetail = json(&body);
    let expected = shared::formats::import(&worked_example(), None, "t4.json")
        .expect("parses")
        .trace;
    assert_eq!(detail.trace, expected);
    assert_eq!(
        server
            .get(&format!("/api/runs/{}/analysis", second.id))
            .await
            .0,
        StatusCode::OK
    );
    // Deleting one keeps the shared files; deleting the other removes them.
    for (run, left) in [(&first, 2), (&second, 0)] {
        let (status, _, _) = server
            .send_with(
                "DELETE",
                &format!("/api/runs/{}", run.id),
                &[("x-delete-token", &run.delete_token)],
                Vec::new(),
            )
            .await;
        assert_eq!(status, StatusCode::NO_CONTENT);
        assert_eq!(files(&blob_dir).len(), left);
    }
}

/// A native trace with `leaves` leaves of a region never entered on process 0 (errors, 0 exits
/// after them) and `sends` sends from process 1 to process 2, which never exits (warnings).
fn many_diagnostics(leaves: usize, sends: usize) -> Vec<u8> {
    let mut events = vec![r#"{"process": 0, "time": 0, "kind": "proc_init"}"#.to_owned()];
    events.extend((0..leaves).map(|k| {
        format!(
            r#"{{"process": 0, "time": {}, "kind": "leave", "region": 0}}"#,
            k + 1
        )
    }));
    events.push(r#"{"process": 0, "time": 100000, "kind": "proc_exit"}"#.to_owned());
    events.push(r#"{"process": 1, "time": 0, "kind": "proc_init"}"#.to_owned());
    events.extend((0..sends).map(|k| {
        format!(
            r#"{{"process": 1, "time": {}, "kind": "msg_send", "to": 2, "tag": 1, "size": 8}}"#,
            k + 1
        )
    }));
    events.push(r#"{"process": 1, "time": 100000, "kind": "proc_exit"}"#.to_owned());
    events.push(r#"{"process": 2, "time": 0, "kind": "proc_init"}"#.to_owned());
    format!(
        r#"{{"format": "tracescope", "version": 1, "name": "many diagnostics",
  "nodes": [{{"name": "n"}}],
  "processes": [{{"name": "A", "node": 0}}, {{"name": "B", "node": 0}}, {{"name": "C", "node": 0}}],
  "regions": [{{"name": "r", "role": "activity"}}],
  "events": [{}]}}"#,
        events.join(",\n")
    )
    .into_bytes()
}

#[tokio::test]
async fn the_diagnostics_part_pages_through_every_diagnostic_once_and_the_report_counts_them() {
    let (leaves, sends) = (2_500, 1_300);
    let server = TestServer::new(1 << 20).await;
    let run = server
        .upload_ok("many.json", many_diagnostics(leaves, sends))
        .await;
    let get = |uri: String| {
        let server = &server;
        async move {
            let (status, body) = server.get(&uri).await;
            assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
            json::<Value>(&body)
        }
    };
    // The report counts them all and lists the first five of each kind.
    let report = get(format!("/api/runs/{}/analysis", run.id)).await;
    assert_eq!(report["diagnostics_total"], leaves + sends);
    assert_eq!(report["diagnostics"].as_array().map(Vec::len), Some(10));
    let counts: Vec<(String, String, u64)> = report["diagnostic_counts"]
        .as_array()
        .expect("counts")
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap_or_default().to_owned(),
                c["severity"].as_str().unwrap_or_default().to_owned(),
                c["count"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            (
                "leave_without_enter".to_owned(),
                "error".to_owned(),
                leaves as u64
            ),
            (
                "unmatched_send".to_owned(),
                "warning".to_owned(),
                sends as u64
            ),
        ]
    );
    // Pages of 333 give every diagnostic exactly once.
    let mut seen = std::collections::HashSet::new();
    let mut offset = 0;
    loop {
        let page = get(format!(
            "/api/runs/{}/analysis/diagnostics?offset={offset}&limit=333",
            run.id
        ))
        .await;
        assert_eq!(page["total"], leaves + sends);
        assert_eq!(page["offset"], offset);
        let items = page["diagnostics"].as_array().expect("a page").clone();
        if items.is_empty() {
            break;
        }
        assert!(items.len() <= 333);
        offset += items.len();
        for d in items {
            let key = (d["kind"].to_string(), d["events"].to_string());
            assert!(seen.insert(key), "{d} twice");
        }
    }
    assert_eq!(seen.len(), leaves + sends);
    // A kind: only its diagnostics, from the offset on, each with its process and time.
    let page = get(format!(
        "/api/runs/{}/analysis/diagnostics?kind=unmatched_send&offset=1000&limit=5000",
        run.id
    ))
    .await;
    assert_eq!(page["total"], sends);
    let items = page["diagnostics"].as_array().expect("a page");
    assert_eq!(items.len(), sends - 1000);
    assert!(
        items.iter().all(|d| d["kind"] == "unmatched_send"
            && d["severity"] == "warning"
            && d["process"] == 1)
    );
    assert_eq!(items[0]["time"], 1001);
    let errors = get(format!(
        "/api/runs/{}/analysis/diagnostics?severity=error&limit=1",
        run.id
    ))
    .await;
    assert_eq!(errors["total"], leaves);
    expect_bad_request(
        &server,
        &format!("/api/runs/{}/analysis/diagnostics?kind=sideways", run.id),
        "the kinds are",
    )
    .await;
    expect_bad_request(
        &server,
        &format!("/api/runs/{}/analysis/diagnostics?severity=fatal", run.id),
        "error, warning, note",
    )
    .await;
}
