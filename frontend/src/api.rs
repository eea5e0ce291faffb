//! The typed client of the JSON API. Wire types come from `shared::view::api`.

use gloo_net::http::{Request, Response};
use shared::view::api::{ApiError, CreatedRun, RunDetail, RunInfo, RunList};

/// A failed API call, as a sentence for people.
pub type ApiResult<T> = Result<T, String>;

async fn decode<T: serde::de::DeserializeOwned>(res: Response) -> ApiResult<T> {
    if res.ok() {
        return res
            .json::<T>()
            .await
            .map_err(|e| format!("the server's answer could not be read: {e}"));
    }
    let status = res.status();
    match res.json::<ApiError>().await {
        Ok(error) => Err(error.message),
        Err(_) => Err(format!("the server answered {status}")),
    }
}

/// The stored runs whose names hold `search` (all when empty), newest first.
pub async fn list_runs(search: String) -> ApiResult<RunList> {
    let url = if search.trim().is_empty() {
        "/api/runs".to_owned()
    } else {
        format!(
            "/api/runs?q={}",
            js_sys::encode_uri_component(search.trim())
        )
    };
    get_json(&url).await
}

/// Deletes a run with the token its upload answered.
pub async fn delete_run(id: &str, token: &str) -> ApiResult<()> {
    let url = format!("/api/runs/{}", js_sys::encode_uri_component(id));
    let res = Request::delete(&url)
        .header("x-delete-token", token)
        .send()
        .await
        .map_err(|e| format!("the server is unreachable: {e}"))?;
    if res.ok() {
        return Ok(());
    }
    let status = res.status();
    match res.json::<ApiError>().await {
        Ok(error) => Err(error.message),
        Err(_) => Err(format!("the server answered {status}")),
    }
}

/// A file of the site (a sample trace's), as bytes.
pub async fn fetch_bytes(path: &str) -> ApiResult<Vec<u8>> {
    let res = Request::get(path)
        .send()
        .await
        .map_err(|e| format!("the server is unreachable: {e}"))?;
    if !res.ok() {
        return Err(format!("{path}: the server answered {}", res.status()));
    }
    res.binary()
        .await
        .map_err(|e| format!("{path} could not be read: {e}"))
}

/// One run's model in the binary format (`GET /api/runs/{id}/model`), read as it arrives:
/// `progress(received, total)` after each part, in bytes of the inflated encoding (`total` when
/// the server said it).
pub async fn get_model(id: &str, progress: impl Fn(u64, Option<u64>)) -> ApiResult<shared::Trace> {
    let url = format!("/api/runs/{}/model", js_sys::encode_uri_component(id));
    let res = Request::get(&url)
        .send()
        .await
        .map_err(|e| format!("the server is unreachable: {e}"))?;
    if !res.ok() {
        return decode::<()>(res)
            .await
            .and(Err("the model is missing".to_owned()));
    }
    let total = res
        .headers()
        .get("x-model-bytes")
        .and_then(|v| v.parse::<u64>().ok());
    let bytes = match res.body() {
        Some(stream) => read_stream(&stream, total, &progress).await?,
        None => res
            .binary()
            .await
            .map_err(|e| format!("the run's model could not be read: {e}"))?,
    };
    progress(bytes.len() as u64, total);
    shared::formats::binary::parse(&bytes)
        .map_err(|e| format!("the run's model does not decode: {e}"))
}

/// Reads a response body part by part, reporting the bytes received so far after each.
async fn read_stream(
    stream: &web_sys::ReadableStream,
    total: Option<u64>,
    progress: &impl Fn(u64, Option<u64>),
) -> ApiResult<Vec<u8>> {
    use js_sys::{Function, Reflect, Uint8Array};
    use wasm_bindgen::JsCast as _;
    let broke = |e: wasm_bindgen::JsValue| format!("the run's model broke off: {e:?}");
    let reader = stream.get_reader();
    let read = Reflect::get(&reader, &"read".into())
        .map_err(broke)?
        .dyn_into::<Function>()
        .map_err(broke)?;
    // Room for the whole model up front (the server says its size), within reason.
    let capacity = total.unwrap_or(0).min(1 << 30) as usize;
    let mut bytes = Vec::with_capacity(capacity);
    loop {
        let promise = read
            .call0(&reader)
            .map_err(broke)?
            .dyn_into::<js_sys::Promise>()
            .map_err(broke)?;
        let part = wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map_err(broke)?;
        if Reflect::get(&part, &"done".into())
            .map_err(broke)?
            .as_bool()
            .unwrap_or(true)
        {
            return Ok(bytes);
        }
        let value = Reflect::get(&part, &"value".into()).map_err(broke)?;
        let chunk = value.dyn_into::<Uint8Array>().map_err(broke)?;
        let at = bytes.len();
        bytes.resize(at + chunk.length() as usize, 0);
        chunk.copy_to(&mut bytes[at..]);
        progress(bytes.len() as u64, total);
    }
}

/// One run's metadata, without its model.
pub async fn get_run_info(id: &str) -> ApiResult<RunInfo> {
    get_json(&format!(
        "/api/runs/{}/info",
        js_sys::encode_uri_component(id)
    ))
    .await
}

/// One run with its model's outline (nodes, processes, regions; no events).
pub async fn get_run_outline(id: &str) -> ApiResult<RunDetail> {
    get_json(&format!(
        "/api/runs/{}/outline",
        js_sys::encode_uri_component(id)
    ))
    .await
}

/// What an upload sends: a picked file as it is, or bytes made in the page (an archive).
pub enum Upload {
    /// A file from the picker or a drop.
    File(web_sys::File),
    /// Bytes under a name.
    Bytes(String, Vec<u8>),
}

impl Upload {
    /// The name the run gets.
    pub fn name(&self) -> String {
        match self {
            Upload::File(file) => file.name(),
            Upload::Bytes(name, _) => name.clone(),
        }
    }
}

/// Uploads a trace; the server detects its format and reports progress under `key`.
pub async fn upload_run(
    upload: Upload,
    key: &str,
    time_unit: Option<&str>,
) -> ApiResult<CreatedRun> {
    let mut url = format!(
        "/api/runs?name={}&upload={}",
        js_sys::encode_uri_component(&upload.name()),
        js_sys::encode_uri_component(key)
    );
    if let Some(unit) = time_unit {
        url.push_str(&format!(
            "&time_unit={}",
            js_sys::encode_uri_component(unit)
        ));
    }
    let body: wasm_bindgen::JsValue = match upload {
        Upload::File(file) => file.into(),
        Upload::Bytes(_, bytes) => js_sys::Uint8Array::from(bytes.as_slice()).into(),
    };
    let req = Request::post(&url)
        .header("content-type", "application/octet-stream")
        .body(body)
        .map_err(|e| format!("the upload could not be prepared: {e}"))?;
    let res = req
        .send()
        .await
        .map_err(|e| format!("the upload failed: {e}"))?;
    decode(res).await
}

/// A stored view state (a permalink's target), upgraded to the current version.
pub async fn get_view(id: &str) -> ApiResult<shared::view::state::ViewState> {
    let url = format!("/api/views/{}", js_sys::encode_uri_component(id));
    let res = Request::get(&url)
        .send()
        .await
        .map_err(|e| format!("the server is unreachable: {e}"))?;
    decode(res).await
}

/// Stores a view state and answers its permalink.
pub async fn create_view(
    state: &shared::view::state::ViewState,
) -> ApiResult<shared::view::api::CreatedView> {
    let res = Request::post("/api/views")
        .json(state)
        .map_err(|e| format!("the view could not be prepared: {e}"))?
        .send()
        .await
        .map_err(|e| format!("the server is unreachable: {e}"))?;
    decode(res).await
}

/// The progress of the upload started under `key`.
pub async fn upload_progress(key: &str) -> ApiResult<shared::view::api::UploadProgress> {
    let url = format!("/api/uploads/{}", js_sys::encode_uri_component(key));
    let res = Request::get(&url)
        .send()
        .await
        .map_err(|e| format!("the server is unreachable: {e}"))?;
    decode(res).await
}

/// The run's report with the default options (`tracescope analyze --json`'s object).
pub async fn get_report(id: &str) -> ApiResult<shared::report::Report> {
    get_json(&format!(
        "/api/runs/{}/analysis",
        js_sys::encode_uri_component(id)
    ))
    .await
}

/// Two stored runs compared (`a` before, `b` after).
pub async fn get_compare(a: &str, b: &str) -> ApiResult<shared::view::compare::Comparison> {
    get_json(&format!(
        "/api/compare/{}/{}",
        js_sys::encode_uri_component(a),
        js_sys::encode_uri_component(b)
    ))
    .await
}

/// Where the run downloads as `format` (`chrome-json`, `native`, `binary` or `tmon`).
pub fn export_url(id: &str, format: &str) -> String {
    format!(
        "/api/runs/{}/export/{format}",
        js_sys::encode_uri_component(id)
    )
}

/// The run's report with a what-if scenario replayed (`transit=0`, `region=work*0.5`, …).
pub async fn get_what_if(id: &str, scenario: &str) -> ApiResult<shared::report::Report> {
    get_json(&format!(
        "/api/runs/{}/analysis?what_if={}",
        js_sys::encode_uri_component(id),
        js_sys::encode_uri_component(scenario)
    ))
    .await
}

/// The Gantt chart's level-of-detail answer for a window, rows and a width.
pub async fn get_viewport(
    id: &str,
    request: &shared::view::viewport::ViewportRequest,
) -> ApiResult<shared::view::viewport::Viewport> {
    get_json(&format!(
        "/api/runs/{}/viewport?start={}&end={}&first_row={}&last_row={}&width_px={}",
        js_sys::encode_uri_component(id),
        request.start,
        request.end,
        request.first_row,
        request.last_row,
        request.width_px
    ))
    .await
}

/// A window of a run's Hasse diagram, drawn by the server (for a run too large for the
/// browser).
pub async fn get_hasse(
    id: &str,
    query: &shared::view::hasse::WindowQuery,
) -> ApiResult<shared::view::hasse::HasseWindow> {
    let axis = match query.axis {
        shared::view::hasse::Axis::Layer => "layer",
        shared::view::hasse::Axis::Lamport => "lamport",
        shared::view::hasse::Axis::Physical => "physical",
    };
    get_json(&format!(
        "/api/runs/{}/hasse?start={}&end={}&processes={}&first_row={}&rows={}&axis={axis}&width_px={}",
        js_sys::encode_uri_component(id),
        query.start,
        query.end,
        js_sys::encode_uri_component(&query.processes),
        query.first_row,
        query.rows,
        query.width_px
    ))
    .await
}

/// The causal past and future of an event of a run drawn by the server.
pub async fn get_hasse_areas(id: &str, event: u32) -> ApiResult<shared::view::hasse::CausalAreas> {
    get_json(&format!(
        "/api/runs/{}/hasse/areas?event={event}",
        js_sys::encode_uri_component(id)
    ))
    .await
}

/// A run's topology, laid out.
pub async fn get_topology(id: &str) -> ApiResult<shared::view::topology::Topology> {
    get_json(&format!(
        "/api/runs/{}/topology",
        js_sys::encode_uri_component(id)
    ))
    .await
}

/// A run's topology load over `[start, end)`, or at the instant `start` when `end` ≤ `start`.
pub async fn get_topology_load(
    id: &str,
    start: u64,
    end: u64,
) -> ApiResult<shared::view::topology::LoadFrame> {
    get_json(&format!(
        "/api/runs/{}/topology/load?start={start}&end={end}",
        js_sys::encode_uri_component(id)
    ))
    .await
}

/// One edge's load over `[start, end)` in `buckets` slices, each direction.
pub async fn get_topology_strip(
    id: &str,
    edge: u32,
    (start, end): (u64, u64),
    buckets: usize,
) -> ApiResult<Vec<[f32; 2]>> {
    get_json(&format!(
        "/api/runs/{}/topology/strip?edge={edge}&start={start}&end={end}&buckets={buckets}",
        js_sys::encode_uri_component(id)
    ))
    .await
}

/// A selection of a run for the analysis parts: a window `[start, end)` in ticks and a process
/// list such as `0,2-5` (empty: every process).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionQuery {
    /// The window's first tick.
    pub start: u64,
    /// The tick after the window.
    pub end: u64,
    /// Process numbers and ranges.
    pub processes: String,
    /// The most list items answered.
    pub limit: usize,
    /// The workspace's event filter (empty: none).
    pub filter: String,
}

/// A process list for a [`SelectionQuery`]: ascending runs written as ranges (`0-5,8,10-12`).
pub fn process_list(processes: &[u32]) -> String {
    let mut sorted = processes.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut k = 0;
    while k < sorted.len() {
        let first = sorted[k];
        while k + 1 < sorted.len() && sorted[k + 1] == sorted[k] + 1 {
            k += 1;
        }
        parts.push(if sorted[k] == first {
            first.to_string()
        } else {
            format!("{first}-{}", sorted[k])
        });
        k += 1;
    }
    parts.join(",")
}

/// One analysis part of a selection (`summary`, `matrix`, `wait-states`, …).
pub async fn get_part<T: serde::de::DeserializeOwned>(
    id: &str,
    part: &str,
    query: &SelectionQuery,
) -> ApiResult<T> {
    get_json(&format!(
        "/api/runs/{}/analysis/{part}?start={}&end={}&processes={}&limit={}&filter={}",
        js_sys::encode_uri_component(id),
        query.start,
        query.end,
        js_sys::encode_uri_component(&query.processes),
        query.limit,
        js_sys::encode_uri_component(&query.filter)
    ))
    .await
}

/// One page of a selection's diagnostics: `limit` of them from `offset` on, of one kind and
/// severity when given (as JSON names them), with every kind's count.
pub async fn get_diagnostics(
    id: &str,
    query: &SelectionQuery,
    kind: Option<&str>,
    severity: Option<&str>,
    offset: usize,
) -> ApiResult<shared::view::selection::DiagnosticsInSelection> {
    get_json(&format!(
        "/api/runs/{}/analysis/diagnostics?start={}&end={}&processes={}&limit={}&filter={}&offset={offset}&kind={}&severity={}",
        js_sys::encode_uri_component(id),
        query.start,
        query.end,
        js_sys::encode_uri_component(&query.processes),
        query.limit,
        js_sys::encode_uri_component(&query.filter),
        kind.unwrap_or_default(),
        severity.unwrap_or_default()
    ))
    .await
}

/// The headline numbers and per-process times of a selection.
pub async fn get_selection_summary(
    id: &str,
    query: &SelectionQuery,
) -> ApiResult<shared::view::selection::SelectionSummary> {
    get_part(id, "summary", query).await
}

/// The communication matrix of a selection.
pub async fn get_matrix(
    id: &str,
    query: &SelectionQuery,
) -> ApiResult<shared::view::selection::CommMatrix> {
    get_part(id, "matrix", query).await
}

/// The wait states of a selection.
pub async fn get_wait_states(
    id: &str,
    query: &SelectionQuery,
) -> ApiResult<shared::view::selection::WaitsInSelection> {
    get_part(id, "wait-states", query).await
}

/// Any JSON resource of the API, by its URL (built only in this module).
async fn get_json<T: serde::de::DeserializeOwned>(url: &str) -> ApiResult<T> {
    let res = Request::get(url)
        .send()
        .await
        .map_err(|e| format!("the server is unreachable: {e}"))?;
    decode(res).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn process_lists_are_written_as_ranges() {
        assert_eq!(
            super::process_list(&[5, 0, 1, 2, 8, 10, 11, 12, 1]),
            "0-2,5,8,10-12"
        );
        assert_eq!(super::process_list(&[]), "");
    }
}
