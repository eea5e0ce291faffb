//! Who may talk to the server: the Host allow-list (against DNS rebinding) and same-origin
//! writes (against cross-site requests that store runs or views, or delete them).
//!
//! A page on `attacker.example` whose name the attacker points at 127.0.0.1 reaches a server on
//! the user's machine with `Host: attacker.example`: refusing host names the server was not
//! told about closes that door. An IP literal cannot be pointed anywhere, so every IP literal
//! is allowed, with `localhost` and the names given with `serve --allowed-hosts`.
//!
//! A page on another origin may still send "simple" requests (a `text/plain` POST) without a
//! preflight. A browser says where a request comes from (`Sec-Fetch-Site`, else `Origin`), so a
//! write from any other origin is refused; a request that says nothing (curl, scripts, the
//! CLI) is not a browser's cross-site request and is served.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use shared::view::api::ApiError;

use crate::AppState;

/// Which `Host` names the server answers.
#[derive(Debug, Clone, Default)]
pub enum Hosts {
    /// Every host (the default of an in-process `AppState`, and `--allowed-hosts '*'`).
    #[default]
    Any,
    /// IP literals, `localhost`, and these names (lower case, each with a port or not).
    Only(Arc<[String]>),
}

impl Hosts {
    /// The policy of `serve --allowed-hosts LIST`: `*` allows every host; otherwise IP
    /// literals, `localhost` and the names listed (`name`, any port; `name:port`, that port).
    pub fn from_list(list: &[String]) -> Hosts {
        if list.iter().any(|h| h.trim() == "*") {
            return Hosts::Any;
        }
        Hosts::Only(
            list.iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .filter(|h| !h.is_empty())
                .collect(),
        )
    }

    /// Whether a request naming `authority` (`host` or `host:port`) is served.
    pub fn allows(&self, authority: &str) -> bool {
        let Hosts::Only(names) = self else {
            return true;
        };
        let authority = authority.to_ascii_lowercase();
        let (host, _) = split_authority(&authority);
        let host = host.trim_end_matches('.');
        if host == "localhost" || host.parse::<IpAddr>().is_ok() {
            return true;
        }
        names.iter().any(|name| {
            let (name_host, name_port) = split_authority(name);
            name_host.trim_end_matches('.') == host
                && (name_port.is_none() || name == authority.as_str())
        })
    }
}

/// `host` and its port, if any; an IPv6 literal keeps its brackets off (`[::1]:80` → `::1`).
fn split_authority(authority: &str) -> (&str, Option<&str>) {
    if let Some(rest) = authority.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((host, tail)) => (host, tail.strip_prefix(':')),
            None => (authority, None),
        };
    }
    match authority.rsplit_once(':') {
        // More than one colon and no brackets: a bare IPv6 address, without a port.
        Some((host, _)) if host.contains(':') => (authority, None),
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    }
}

/// The authority the request names: the URI's (HTTP/2 `:authority`, absolute-form requests),
/// else its `Host` header.
fn request_authority(request: &Request) -> Option<String> {
    if let Some(authority) = request.uri().authority() {
        return Some(authority.as_str().to_owned());
    }
    request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// `authority` without the default port of `scheme`, lower case.
fn normalised(authority: &str, scheme: &str) -> String {
    let authority = authority.to_ascii_lowercase();
    let default = match scheme {
        "https" => ":443",
        "http" => ":80",
        _ => return authority,
    };
    match authority.strip_suffix(default) {
        Some(bare) => bare.to_owned(),
        None => authority,
    }
}

/// Why a write is refused as cross-origin, if it is.
fn cross_origin(request: &Request, authority: Option<&str>) -> Option<String> {
    let headers = request.headers();
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        // `none`: the user asked for it (typed, bookmarked); `same-origin`: this server's page.
        return match site.to_ascii_lowercase().as_str() {
            "same-origin" | "none" => None,
            other => Some(format!(
                "the browser says this request comes from another site (Sec-Fetch-Site: {other})"
            )),
        };
    }
    let origin = headers.get(header::ORIGIN)?;
    let origin = origin.to_str().unwrap_or("null");
    let Some((scheme, origin_authority)) = origin.split_once("://") else {
        return Some(format!(
            "the request comes from an opaque origin ({origin})"
        ));
    };
    let scheme = scheme.to_ascii_lowercase();
    let same = authority.is_some_and(|authority| {
        normalised(origin_authority, &scheme) == normalised(authority, &scheme)
    });
    (!same).then(|| format!("the request comes from another origin ({origin})"))
}

/// Refuses requests for hosts not allowed (421, or 400 without a host) and writes from other
/// origins (403), in the one error shape.
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let authority = request_authority(&request);
    if let Hosts::Only(_) = state.hosts {
        match &authority {
            None => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "bad_request",
                    "the request names no host (HTTP/1.1 requires a Host header)".to_owned(),
                );
            }
            Some(authority) if !state.hosts.allows(authority) => {
                return refuse(
                    StatusCode::MISDIRECTED_REQUEST,
                    "unknown_host",
                    format!(
                        "this server does not answer for the host {authority:?}: start it with \
                         `serve --allowed-hosts {}` to serve that name",
                        split_authority(authority).0
                    ),
                );
            }
            Some(_) => {}
        }
    }
    let writes = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if writes && let Some(why) = cross_origin(&request, authority.as_deref()) {
        return refuse(
            StatusCode::FORBIDDEN,
            "cross_origin",
            format!(
                "{why}: this server takes uploads, views and deletes only from its own page or \
                 from clients that are not browsers"
            ),
        );
    }
    next.run(request).await
}

fn refuse(status: StatusCode, code: &'static str, message: String) -> Response {
    let body = ApiError {
        code: code.to_owned(),
        message,
        trace_error: None,
    };
    (
        status,
        axum::Extension(super::error::ErrorCode(code)),
        axum::Json(body),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::{Hosts, split_authority};

    #[test]
    fn hosts_allow_ip_literals_localhost_and_the_names_listed() {
        let hosts = Hosts::from_list(&["traces.example".to_owned(), "lab.example:8443".to_owned()]);
        for ok in [
            "127.0.0.1:8080",
            "[::1]:8080",
            "10.1.2.3",
            "LOCALHOST:3000",
            "localhost.",
            "traces.example",
            "Traces.Example:80",
            "lab.example:8443",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for refused in [
            "attacker.example:8080",
            "lab.example:8080",
            "localhost.attacker.example",
            "127.0.0.1.attacker.example",
            "",
        ] {
            assert!(!hosts.allows(refused), "{refused}");
        }
        assert!(Hosts::from_list(&["*".to_owned()]).allows("attacker.example"));
        assert_eq!(split_authority("[::1]:80"), ("::1", Some("80")));
        assert_eq!(split_authority("::1"), ("::1", None));
    }
}
