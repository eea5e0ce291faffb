//! What `GET /metrics` tells a Prometheus server, in the OpenMetrics text format
//! (`prometheus-client`): requests by route, method and status, their latencies by route, the
//! run caches' hits and builds, ingest (runs, bytes, events, failures), the server's errors, and
//! the memory budget with what imports and analyses have reserved of it.
//!
//! Routes are labelled by their template (`/api/runs/{id}/viewport`), never by the path asked,
//! so the number of series stays bounded whatever the clients send.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// A request's route template, method and status.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The route template, e.g. `/api/runs/{id}/viewport`.
    pub route: String,
    /// The HTTP method.
    pub method: String,
    /// The status code answered.
    pub status: u16,
}

/// A route template.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    /// The route template.
    pub route: String,
}

/// One cache and what happened in it.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    /// `workspace` (a run's model and analysis context), `lazy_run` (its stored index's
    /// directory) or `index_chunk` (one chunk of it).
    pub cache: &'static str,
    /// `hit` or `miss` (a miss builds or reads the entry).
    pub result: &'static str,
}

/// An error answered, by its code in the one error shape.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    /// The `ApiError` code (`not_found`, `over_budget`, `internal`, …).
    pub code: String,
}

type HistogramMaker = fn() -> Histogram;

/// The server's metrics, shared by every request.
pub struct Metrics {
    registry: Registry,
    /// Requests answered.
    pub requests: Family<RequestLabels, Counter>,
    /// Their latencies in seconds, by route.
    pub latency: Family<RouteLabels, Histogram, HistogramMaker>,
    /// Cache lookups.
    pub cache: Family<CacheLabels, Counter>,
    /// Errors answered, by code.
    pub errors: Family<ErrorLabels, Counter>,
    /// Runs stored.
    pub ingest_runs: Counter,
    /// Bytes of the uploads stored.
    pub ingest_bytes: Counter,
    /// Events of the runs stored.
    pub ingest_events: Counter,
    /// Bytes of the memory budget reserved now by imports and analyses.
    pub memory_reserved: Gauge,
    /// The memory budget (`serve --max-memory-bytes`), in bytes.
    pub memory_budget: Gauge,
}

/// Latency buckets: 0.25 ms doubling to about 8 s.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Metrics {
        let mut registry = Registry::with_prefix("tracescope");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency = Family::<RouteLabels, Histogram, HistogramMaker>::new_with_constructor(
            latency_histogram as HistogramMaker,
        );
        let cache = Family::<CacheLabels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let (ingest_runs, ingest_bytes, ingest_events) =
            (Counter::default(), Counter::default(), Counter::default());
        registry.register(
            "http_requests",
            "HTTP requests answered, by route template, method and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer an API request, by route template",
            latency.clone(),
        );
        registry.register(
            "cache_lookups",
            "Run cache lookups (workspace, lazy_run, index_chunk) and whether they hit",
            cache.clone(),
        );
        registry.register(
            "errors",
            "API errors answered, by their code",
            errors.clone(),
        );
        registry.register("ingest_runs", "Runs stored", ingest_runs.clone());
        registry.register(
            "ingest_bytes",
            "Bytes of the uploads stored, as uploaded",
            ingest_bytes.clone(),
        );
        registry.register(
            "ingest_events",
            "Events of the runs stored",
            ingest_events.clone(),
        );
        let (memory_reserved, memory_budget) = (Gauge::default(), Gauge::default());
        registry.register(
            "memory_reserved_bytes",
            "Bytes of the memory budget reserved now by imports and analyses",
            memory_reserved.clone(),
        );
        registry.register(
            "memory_budget_bytes",
            "The memory budget imports and analyses reserve from (serve --max-memory-bytes)",
            memory_budget.clone(),
        );
        Metrics {
            registry,
            memory_reserved,
            memory_budget,
            requests,
            latency,
            cache,
            errors,
            ingest_runs,
            ingest_bytes,
            ingest_events,
        }
    }
}

impl Metrics {
    /// The counter of `cache`'s lookups with `result` (a handle: it counts in the registry).
    pub fn cache_counter(&self, cache: &'static str, result: &'static str) -> Counter {
        self.cache
            .get_or_create(&CacheLabels { cache, result })
            .clone()
    }

    /// The metrics in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// Counts and times every request of a matched route (a `route_layer` of the API router).
pub async fn track(
    axum::extract::State(state): axum::extract::State<crate::AppState>,
    route: Option<axum::extract::MatchedPath>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let method = request.method().as_str().to_owned();
    let route = route.map_or_else(|| "unmatched".to_owned(), |r| r.as_str().to_owned());
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    let metrics = &state.metrics;
    metrics
        .latency
        .get_or_create(&RouteLabels {
            route: route.clone(),
        })
        .observe(started.elapsed().as_secs_f64());
    metrics
        .requests
        .get_or_create(&RequestLabels {
            route,
            method,
            status: response.status().as_u16(),
        })
        .inc();
    response
}

/// Counts the errors the API answers, by code (outside the layer that turns rejections into
/// the one error shape, so those count too).
pub async fn count_errors(
    axum::extract::State(state): axum::extract::State<crate::AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let response = next.run(request).await;
    if let Some(crate::http::error::ErrorCode(code)) = response.extensions().get() {
        state
            .metrics
            .errors
            .get_or_create(&ErrorLabels {
                code: (*code).to_owned(),
            })
            .inc();
    }
    response
}
