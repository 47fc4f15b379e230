//! Who may use the server: every request passes a Host check (a page of
//! another site that rebinds its name to this machine is refused), an
//! Origin check (another site's page may send requests without asking, but
//! its Origin gives it away) and, but for the page's assets, a token that
//! only the one who started the server has (printed in the URL to open, as
//! Jupyter does). The page's URL carries the token once; the server trades
//! it for a cookie and sends the browser on to `/`.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use rand::RngExt;
use serde_json::json;

/// The header scripts send the token in.
pub const TOKEN_HEADER: &str = "x-pente-token";

/// Searches (live analyses, analyses and graphs) running at once, all
/// clients together; one more gets a 429.
pub const MAX_SEARCHES: usize = 16;

/// Searches one client (one address) may run at once; one more gets a 429.
pub const MAX_SEARCHES_PER_CLIENT: usize = 8;

/// What the server lets in.
#[derive(Debug, Clone)]
pub struct Guard {
    /// The token; `None` only on a loopback address (`--no-token`).
    token: Option<String>,
    /// The names requests may give as `Host`; `None` on an address other
    /// than loopback, where clients name the machine as they know it and
    /// the token is what guards it.
    hosts: Option<Vec<String>>,
    /// The cookie holding the token: one per port, since browsers share
    /// cookies between the ports of a host.
    cookie: String,
    /// See [`MAX_SEARCHES`].
    pub max_searches: usize,
    /// See [`MAX_SEARCHES_PER_CLIENT`].
    pub max_searches_per_client: usize,
    /// Searches running per client address (`None`: a connection with no
    /// address, as in tests).
    clients: Arc<Mutex<HashMap<Option<IpAddr>, usize>>>,
}

/// A client's claim on one of its searches, given back when dropped: when
/// the answer is sent, or when a live analysis's connection closes.
#[derive(Debug)]
pub(crate) struct Permit {
    clients: Arc<Mutex<HashMap<Option<IpAddr>, usize>>>,
    client: Option<IpAddr>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut clients = self.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = clients.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                clients.remove(&self.client);
            }
        }
    }
}

impl Guard {
    /// A guard for a server on port `port`: with `token` (`None`: none
    /// needed), accepting the `Host` names `hosts` (`None`: any).
    #[must_use]
    pub fn new(token: Option<String>, hosts: Option<Vec<String>>, port: u16) -> Guard {
        Guard {
            token,
            hosts,
            cookie: format!("pente_token_{port}"),
            max_searches: MAX_SEARCHES,
            max_searches_per_client: MAX_SEARCHES_PER_CLIENT,
            clients: Arc::default(),
        }
    }

    /// A permit for one more search of `client`, or why not: `running`
    /// searches in all, or the client's own, are at their limits.
    pub(crate) fn admit(&self, client: Option<IpAddr>, running: usize) -> Result<Permit, String> {
        if running >= self.max_searches {
            return Err(format!(
                "{running} searches are running, the most this server takes: try again when one has finished"
            ));
        }
        let mut clients = self.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = clients.entry(client).or_insert(0);
        if *count >= self.max_searches_per_client {
            return Err(format!(
                "this client runs {count} searches, the most one client may: try again when one has finished"
            ));
        }
        *count += 1;
        Ok(Permit { clients: self.clients.clone(), client })
    }

    /// The names of this machine's loopback addresses with `port`, as a
    /// browser sends them in `Host`.
    #[must_use]
    pub fn loopback_hosts(port: u16) -> Vec<String> {
        ["127.0.0.1", "localhost", "[::1]"].iter().map(|host| format!("{host}:{port}")).collect()
    }

    /// A new random token: 128 bits in hex.
    #[must_use]
    pub fn new_token() -> String {
        let bytes: [u8; 16] = rand::rng().random();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The token, if one is needed.
    #[must_use]
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    fn host_allowed(&self, host: &str) -> bool {
        self.hosts.as_ref().is_none_or(|hosts| hosts.iter().any(|h| h.eq_ignore_ascii_case(host)))
    }

    /// Whether `given` is the token, compared in constant time.
    fn is_token(&self, given: &str) -> bool {
        self.token.as_ref().is_none_or(|token| {
            token.len() == given.len() && token.bytes().zip(given.bytes()).fold(0, |acc, (a, b)| acc | (a ^ b)) == 0
        })
    }

    /// The token the request carries, in the header or in this server's cookie.
    fn carried<'a>(&self, headers: &'a HeaderMap) -> Option<&'a str> {
        if let Some(value) = headers.get(TOKEN_HEADER).and_then(|v| v.to_str().ok()) {
            return Some(value);
        }
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|cookies| cookies.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == self.cookie)
            .map(|(_, value)| value)
    }
}

/// The address a request came from, when the server knows it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Client(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Client, Self::Rejection> {
        Ok(Client(parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|info| info.0.ip())))
    }
}

/// A refusal, as a JSON error like every other answer of the API.
fn refuse(status: StatusCode, message: String) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

/// The checks, in front of every route.
pub(crate) async fn check(State(guard): State<std::sync::Arc<Guard>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !guard.host_allowed(host) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!("Host `{host}` is not this server's name: requests under another name are refused"),
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let same =
            origin.to_str().ok().and_then(|o| o.strip_prefix("http://")).is_some_and(|o| o.eq_ignore_ascii_case(host));
        if !same {
            let origin = String::from_utf8_lossy(origin.as_bytes()).into_owned();
            return refuse(
                StatusCode::FORBIDDEN,
                format!("a request from another site (Origin `{origin}`) is refused"),
            );
        }
    }
    let path = request.uri().path();
    if matches!(path, "/app.js" | "/style.css") {
        return next.run(request).await;
    }
    if path == "/"
        && let Some(token) = query_token(request.uri().query())
    {
        if !guard.is_token(token) {
            return refuse(StatusCode::UNAUTHORIZED, "wrong token: open the URL `pente serve` printed".into());
        }
        // Trade the token in the URL for a cookie, and take it out of the address bar.
        let mut response = Redirect::to("/").into_response();
        let cookie = format!("{}={token}; Path=/; HttpOnly; SameSite=Strict", guard.cookie);
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        return response;
    }
    if guard.token.is_some() && !guard.carried(headers).is_some_and(|t| guard.is_token(t)) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            format!(
                "this server needs its token: open the URL `pente serve` printed, or send it in the {TOKEN_HEADER} header"
            ),
        );
    }
    next.run(request).await
}

fn query_token(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|pair| pair.strip_prefix("token="))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_new_each_time_and_compared_whole() {
        let (a, b) = (Guard::new_token(), Guard::new_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        let guard = Guard::new(Some(a.clone()), None, 1);
        assert!(guard.is_token(&a));
        assert!(!guard.is_token(&b) && !guard.is_token(&a[..31]) && !guard.is_token(""));
        assert!(Guard::new(None, None, 1).is_token("anything"));
    }

    #[test]
    fn the_token_is_read_from_the_header_or_this_ports_cookie() {
        let guard = Guard::new(Some("t".into()), None, 8080);
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_static("a=1; pente_token_8081=other; pente_token_8080=t"));
        assert_eq!(guard.carried(&headers), Some("t"));
        headers.insert(TOKEN_HEADER, HeaderValue::from_static("h"));
        assert_eq!(guard.carried(&headers), Some("h"));
        assert_eq!(guard.carried(&HeaderMap::new()), None);
    }

    #[test]
    fn searches_are_limited_per_client_and_in_all_and_given_back() {
        let mut guard = Guard::new(None, None, 1);
        guard.max_searches_per_client = 2;
        let (a, b): (Option<IpAddr>, Option<IpAddr>) = (Some([10, 0, 0, 1].into()), Some([10, 0, 0, 2].into()));
        let first = guard.admit(a, 0).unwrap();
        let _second = guard.admit(a, 1).unwrap();
        assert!(guard.admit(a, 2).unwrap_err().contains("this client runs 2"));
        let other = guard.admit(b, 2).unwrap();
        drop(first);
        let _third = guard.admit(a, 2).unwrap();
        assert!(guard.admit(b, MAX_SEARCHES).unwrap_err().contains("16 searches are running"));
        drop(other);
        assert_eq!(guard.clients.lock().unwrap().get(&b), None);
    }

    #[test]
    fn hosts_are_the_loopback_names_with_the_port() {
        let guard = Guard::new(None, Some(Guard::loopback_hosts(8080)), 8080);
        assert!(guard.host_allowed("127.0.0.1:8080") && guard.host_allowed("LOCALHOST:8080"));
        assert!(guard.host_allowed("[::1]:8080"));
        assert!(!guard.host_allowed("evil.example:8080") && !guard.host_allowed("127.0.0.1:8081"));
        assert!(!guard.host_allowed(""));
        assert!(Guard::new(Some("t".into()), None, 1).host_allowed("pente.lan:8080"));
    }
}
