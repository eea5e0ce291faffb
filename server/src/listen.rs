//! Serving connections: the accept loop and what bounds a client's hold on the server.
//!
//! A client that connects and sends nothing, trickles its request head, keeps an idle
//! connection open, or stops sending a body half way holds a connection (a file descriptor)
//! and, for a body, a request. Here every connection has a deadline for its request head (the
//! same timer bounds an idle keep-alive connection: hyper starts it whenever the connection
//! waits for a head), every request body a deadline for its next bytes, and the server holds
//! at most `max_connections` connections, leaving descriptors for the store, spools and blobs:
//! beyond that, new connections wait in the kernel's queue instead of failing every request
//! with "Too many open files".

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tower::ServiceExt as _;

/// What bounds the clients.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The longest a connection may take to send a request head, and may stay idle between
    /// requests.
    pub header_timeout: Duration,
    /// The longest a request body may send nothing before the request is dropped.
    pub body_timeout: Duration,
    /// The most connections held at once.
    pub max_connections: usize,
}

/// Descriptors kept for everything but connections: the store's connections (SQLite's files),
/// upload spools, blob files, the site's files, logs.
const DESCRIPTOR_HEADROOM: usize = 128;

impl Limits {
    /// The defaults: 20 s for a request head or an idle connection, 60 s for a body's next
    /// bytes, and as many connections as this process's descriptor limit leaves room for (a
    /// quarter of it, at least [`DESCRIPTOR_HEADROOM`], kept for the rest).
    pub fn default_for_this_process() -> Limits {
        let descriptors = open_files_limit().unwrap_or(1024);
        let headroom = (descriptors / 4).max(DESCRIPTOR_HEADROOM);
        Limits {
            header_timeout: Duration::from_secs(20),
            body_timeout: Duration::from_secs(60),
            max_connections: descriptors.saturating_sub(headroom).max(16),
        }
    }
}

/// This process's soft limit of open files (Linux: `/proc/self/limits`).
fn open_files_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Serves `app` on `listener` within `limits` until `shutdown` completes, then stops accepting
/// and lets the connections finish their requests in flight (an upload under way is stored).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    // Each connection holds a receiver; the loop's end drops the sender, telling them to close
    // gracefully, and waits until every one has dropped its clone of `open`.
    let (stop, stopped) = tokio::sync::watch::channel(());
    let (open, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors or a connection reset before it was accepted: wait a
                    // moment rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let body_timeout = limits.body_timeout;
        let service = hyper_util::service::TowerToHyperService::new(app.clone().map_request(
            move |request: axum::http::Request<Incoming>| {
                request.map(|body| axum::body::Body::new(IdleBody::new(body, body_timeout)))
            },
        ));
        let mut stopped = stopped.clone();
        let open = open.clone();
        let header_timeout = limits.header_timeout;
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .keep_alive(true);
            let connection = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopped.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(open);
            drop(permit);
        });
    }
    drop(listener);
    drop(stop);
    drop(open);
    let _ = all_closed.recv().await;
}

/// The error of a request body that sent nothing for too long.
#[derive(Debug, thiserror::Error)]
#[error("the request body sent nothing for {0} s; the server stopped waiting for it")]
pub struct BodyStalled(pub u64);

/// A request body that fails with [`BodyStalled`] once it has sent nothing for `timeout` while
/// it was waited for (time the handler spends elsewhere does not count).
struct IdleBody {
    inner: Incoming,
    timeout: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
    waiting: bool,
}

impl IdleBody {
    fn new(inner: Incoming, timeout: Duration) -> IdleBody {
        IdleBody {
            inner,
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
            waiting: false,
        }
    }
}

impl hyper::body::Body for IdleBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if !this.waiting {
            this.waiting = true;
            let deadline = tokio::time::Instant::now() + this.timeout;
            this.deadline.as_mut().reset(deadline);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.waiting = false;
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    Poll::Ready(Some(Err(Box::new(BodyStalled(this.timeout.as_secs())))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Whether `error` (or what caused it) is a [`BodyStalled`]; its seconds if so.
pub fn body_stalled(error: &(dyn std::error::Error + 'static)) -> Option<u64> {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if let Some(stalled) = e.downcast_ref::<BodyStalled>() {
            return Some(stalled.0);
        }
        cause = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{DESCRIPTOR_HEADROOM, Limits, open_files_limit};

    #[test]
    fn the_default_connection_limit_leaves_descriptors_for_the_rest() {
        let limit = open_files_limit().expect("Linux reports the open-files limit");
        let defaults = Limits::default_for_this_process();
        assert!(
            defaults.max_connections + DESCRIPTOR_HEADROOM <= limit.max(16 + DESCRIPTOR_HEADROOM),
            "{} connections of {limit} descriptors",
            defaults.max_connections
        );
        assert!(defaults.max_connections >= 16);
        assert!(defaults.header_timeout < defaults.body_timeout);
    }
}
