//! Who may use the server: every request passes a Host check (a page of
//! another site that rebinds its name to this machine is refused), an
//! Origin check (another site's page may send requests without asking, but
//! its Origin gives it away) and, but for the page's assets, a token that
//! only the one who started the server has (printed in the URL to open, as
//! Jupyter does). The page's URL carries the token once; the server trades
//! it for a cookie and sends the browser on to `/`.

use axum::extract::{Request, State};
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
}

impl Guard {
    /// A guard for a server on port `port`: with `token` (`None`: none
    /// needed), accepting the `Host` names `hosts` (`None`: any).
    #[must_use]
    pub fn new(token: Option<String>, hosts: Option<Vec<String>>, port: u16) -> Guard {
        Guard { token, hosts, cookie: format!("pente_token_{port}"), max_searches: MAX_SEARCHES }
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
    fn hosts_are_the_loopback_names_with_the_port() {
        let guard = Guard::new(None, Some(Guard::loopback_hosts(8080)), 8080);
        assert!(guard.host_allowed("127.0.0.1:8080") && guard.host_allowed("LOCALHOST:8080"));
        assert!(guard.host_allowed("[::1]:8080"));
        assert!(!guard.host_allowed("evil.example:8080") && !guard.host_allowed("127.0.0.1:8081"));
        assert!(!guard.host_allowed(""));
        assert!(Guard::new(Some("t".into()), None, 1).host_allowed("pente.lan:8080"));
    }
}
