//! Streamable HTTP (`axsight serve --http ADDR`): rmcp's own transport, with what
//! serving beyond one's own machine needs in front of it.
//!
//! - `/mcp` is the MCP endpoint. Each client session gets a server of its own,
//!   so its handles are its own. rmcp checks `Host` and `Origin` against DNS
//!   rebinding (loopback names, and the origins given).
//! - A bearer token, when set, is required on `/mcp`, compared in constant time.
//!   Any address but loopback needs one: without `--token-file`, one is made and
//!   printed once on stderr.
//! - Sessions are limited in number and in idle time (`http_sessions.rs`): past
//!   the limit a new client is refused with a 503 that says why, and a request
//!   naming a session that was ended gets a 404 that says why it ended. A
//!   session that has done nothing since its `initialize` holds no server.
//! - `/healthz` answers while the server runs; `/readyz` while the desktop's
//!   accessibility bus and display answer (for an orchestrator's probes).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axsight_core::Engine;
use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Either, Full, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::http_sessions::{is_initialized_notification, SessionGuard, SessionLimits, Stage};
use crate::ServeOptions;
use axsight_session::{Grounding, Session};

/// Where and how `serve --http` listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// The bearer token clients must send; required off loopback.
    pub token: Option<String>,
    /// Browser origins allowed besides none (`https://app.example`).
    pub allowed_origins: Vec<String>,
    /// How many sessions, for how long.
    pub limits: SessionLimits,
}

/// The fewest characters a bearer token may have: an empty token would let a
/// request without one in, and a short one is guessed.
pub const MIN_TOKEN_CHARS: usize = 16;

/// Refuses a token that guards nothing: too short, or with characters an
/// `Authorization` header cannot carry as given.
fn check_token(token: &str) -> Result<(), String> {
    if token.chars().count() < MIN_TOKEN_CHARS {
        return Err(format!(
            "the bearer token has {} characters; it needs at least {MIN_TOKEN_CHARS} (an empty \
             token file would let anyone in); `axsight serve --http` off loopback without \
             --token-file makes one",
            token.chars().count()
        ));
    }
    if !token.chars().all(|c| c.is_ascii_graphic()) {
        return Err(
            "the bearer token must be printable ASCII without spaces, as an Authorization \
             header carries it"
                .into(),
        );
    }
    Ok(())
}

/// A token made for a server that needs one and was given none: 32 random
/// bytes from the kernel, in hex.
pub fn new_token() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `given` equals `expected`, in time that does not depend on where
/// they first differ.
fn same_token(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    given
        .iter()
        .zip(expected)
        .fold(0u8, |differ, (a, b)| differ | (a ^ b))
        == 0
}

type Body = BoxBody<Bytes, Infallible>;

/// A request's body as rmcp gets it: as it came, or read already (to see
/// whether a parked session needs waking).
type RequestBody = Either<Incoming, Full<Bytes>>;

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_string())).boxed());
    *response.status_mut() = status;
    response
}

/// Serves MCP over streamable HTTP on `http.addr` until the process ends.
pub async fn serve_http<E: Engine>(
    grounding: Grounding,
    options: ServeOptions,
    http: HttpOptions,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    if !http.addr.ip().is_loopback() && http.token.is_none() {
        return Err(format!(
            "{} is not a loopback address: serving it needs a bearer token (--token-file)",
            http.addr
        )
        .into());
    }
    if let Some(token) = &http.token {
        check_token(token)?;
    }
    // The tools and their rules are made once; each session gets its own
    // session state beside them.
    let prototype = options.server::<E>(grounding.clone());
    let factory_grounding = grounding.clone();
    let factory = move || Ok(prototype.with_session(options.session(factory_grounding.clone())));
    let listener = tokio::net::TcpListener::bind(http.addr).await?;
    let bound = listener.local_addr()?;
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    if !bound.ip().is_loopback() {
        // Off loopback the token guards the endpoint; any Host may name it.
        hosts.clear();
    }
    // A request that carries an Origin (a browser's) must carry an allowed one:
    // a page elsewhere must not drive the desktop through a rebinding name.
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(http.allowed_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(crate::line_guard::MAX_LINE_BYTES);
    config = match hosts.is_empty() {
        true => config.disable_allowed_hosts(),
        false => config.with_allowed_hosts(hosts),
    };
    let mut manager = LocalSessionManager::default();
    // rmcp's own end of an idle session, behind the guard's.
    manager.session_config.keep_alive = Some(http.limits.idle + Duration::from_secs(60));
    let manager = Arc::new(manager);
    let guard = Arc::new(SessionGuard::new(http.limits, manager.clone()));
    // The guard keeps what wakes a parked session; rmcp restores from it.
    config.session_store = Some(guard.clone());
    let reaper = guard.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(reaper.reap_every()).await;
            reaper.reap().await;
        }
    });
    let mcp = StreamableHttpService::new(factory, manager, config);
    let readiness = Arc::new(Session::<E>::new().with_grounding(grounding));
    let token: Option<Arc<[u8]>> = http.token.map(|t| Arc::from(t.into_bytes()));
    eprintln!("axsight: serving MCP on http://{bound}/mcp");
    let stop = crate::stop_asked();
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted?,
            // Returning drops every session, and with them what they started.
            () = &mut stop => return Ok(()),
        };
        let mcp = mcp.clone();
        let token = token.clone();
        let readiness = readiness.clone();
        let guard = guard.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let mcp = mcp.clone();
                let token = token.clone();
                let readiness = readiness.clone();
                let guard = guard.clone();
                async move { Ok::<_, Infallible>(route(request, mcp, token, &readiness, &guard).await) }
            });
            let served = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(error) = served {
                tracing::debug!(%error, "HTTP connection ended");
            }
        });
    }
}

async fn route<S, E>(
    request: Request<Incoming>,
    mut mcp: S,
    token: Option<Arc<[u8]>>,
    readiness: &Session<E>,
    guard: &SessionGuard,
) -> Response<Body>
where
    S: tower_service::Service<Request<RequestBody>, Response = Response<Body>, Error = Infallible>,
    E: Engine,
{
    match request.uri().path() {
        "/healthz" => plain(StatusCode::OK, "ok\n"),
        "/readyz" => match readiness.ready().await {
            Ok(()) => plain(StatusCode::OK, "ready\n"),
            Err(error) => plain(StatusCode::SERVICE_UNAVAILABLE, &format!("{error}\n")),
        },
        "/mcp" => {
            if let Some(expected) = &token {
                let given = request
                    .headers()
                    .get(hyper::header::AUTHORIZATION)
                    .and_then(|value| value.to_str().ok())
                    .and_then(|value| value.strip_prefix("Bearer "))
                    .unwrap_or_default();
                if !same_token(given.trim().as_bytes(), expected) {
                    let mut refused = plain(
                        StatusCode::UNAUTHORIZED,
                        "a bearer token is required: Authorization: Bearer TOKEN\n",
                    );
                    refused.headers_mut().insert(
                        hyper::header::WWW_AUTHENTICATE,
                        hyper::header::HeaderValue::from_static("Bearer"),
                    );
                    return refused;
                }
            }
            let session = session_of(request.headers()).map(str::to_string);
            let ending = request.method() == hyper::Method::DELETE;
            match session {
                Some(id) => {
                    let stage = match guard.touched(&id) {
                        Ok(stage) => stage,
                        Err(why) => return plain(StatusCode::NOT_FOUND, &why),
                    };
                    let request = match stage {
                        Stage::Parked if request.method() == hyper::Method::POST => {
                            match to_parked_session(request).await {
                                Ok(request) => request,
                                Err(answer) => return answer,
                            }
                        }
                        _ => request.map(Either::Left),
                    };
                    let response = forward(&mut mcp, request).await;
                    if ending {
                        guard.forget(&id);
                    } else if stage != Stage::Live {
                        guard.woke(&id);
                    }
                    response
                }
                None if request.method() == hyper::Method::POST => {
                    // A new session: room is made first, one at a time.
                    let room = match guard.make_room().await {
                        Ok(room) => room,
                        Err(why) => {
                            return plain(StatusCode::SERVICE_UNAVAILABLE, &format!("{why}\n"))
                        }
                    };
                    let response = forward(&mut mcp, request.map(Either::Left)).await;
                    if let Some(id) = session_of(response.headers()) {
                        guard.began(id).await;
                    }
                    drop(room);
                    response
                }
                None => forward(&mut mcp, request.map(Either::Left)).await,
            }
        }
        _ => plain(StatusCode::NOT_FOUND, "no such endpoint: MCP is at /mcp\n"),
    }
}

/// The MCP session a request names, or a response begins.
fn session_of(headers: &hyper::HeaderMap) -> Option<&str> {
    headers
        .get(HEADER_SESSION_ID)
        .and_then(|value| value.to_str().ok())
}

/// A POST to a parked session, read whole (within the bound rmcp reads in): the
/// client's `notifications/initialized` is answered here, as it was taken when
/// the session was parked; anything else goes on, to wake the session.
async fn to_parked_session(
    request: Request<Incoming>,
) -> Result<Request<RequestBody>, Response<Body>> {
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, crate::line_guard::MAX_LINE_BYTES)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(error) => {
            return Err(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "the request's body was not read: {error} (at most {} bytes)\n",
                    crate::line_guard::MAX_LINE_BYTES
                ),
            ))
        }
    };
    if is_initialized_notification(&body) {
        return Err(plain(StatusCode::ACCEPTED, ""));
    }
    Ok(Request::from_parts(parts, Either::Right(Full::new(body))))
}

/// Hands `request` to rmcp's service, which never fails (its errors are
/// responses).
async fn forward<S>(mcp: &mut S, request: Request<RequestBody>) -> Response<Body>
where
    S: tower_service::Service<Request<RequestBody>, Response = Response<Body>, Error = Infallible>,
{
    match mcp.call(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_that_guard_nothing_are_refused() {
        assert!(super::check_token("").is_err());
        assert!(super::check_token("short").is_err());
        assert!(super::check_token("sixteen chars!!!").is_err(), "a space");
        assert!(super::check_token("ünïcödé-tökén-0123").is_err());
        assert!(super::check_token("0123456789abcdef").is_ok());
        assert!(super::check_token(&super::new_token().unwrap()).is_ok());
    }

    use super::*;

    #[test]
    fn tokens_are_compared_whole() {
        assert!(same_token(b"abc123", b"abc123"));
        assert!(!same_token(b"abc124", b"abc123"));
        assert!(!same_token(b"abc12", b"abc123"));
        assert!(!same_token(b"", b"abc123"));
    }

    #[test]
    fn made_tokens_are_long_and_different() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
