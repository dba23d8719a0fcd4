//! The axsight MCP server: the protocol adapter that serves an
//! [`axsight_session::Session`]'s tools over stdio and streamable HTTP.
//!
//! This crate owns what MCP decides: tool names, descriptions and schemas,
//! argument checking against them, result shaping (text, images, structured
//! content, input-required results), `execute_sequence`'s dispatch by tool
//! name, the transports (the stdio line guard, HTTP with its token and origin
//! checks), read-only serving and the audit log. What a tool does is the
//! session's; it must not grow desktop or acting policy of its own. It drives
//! any [`axsight_core::Engine`]; the binary picks the platform's
//! (`axsight-linux`).

mod arguments;
mod audit;
mod http;
mod line_guard;
mod params;
mod reference;
mod schema;
mod sequence;
mod server;

pub use audit::{AuditLog, DEFAULT_MAX_BYTES as AUDIT_MAX_BYTES};
pub use http::{new_token, serve_http, HttpOptions};
pub use reference::{ReferenceError, REGENERATE as REGENERATE_TOOLS_REFERENCE};
pub use server::{AxsightServer, INSTRUCTIONS};

use axsight_session::Grounding;

/// How `axsight serve` serves, besides its grounding.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// Only the reading tools.
    pub read_only: bool,
    /// Where acting calls are recorded (see [`AuditLog`]), shared by every
    /// session of the server.
    pub audit: Option<std::sync::Arc<AuditLog>>,
}

impl ServeOptions {
    /// A server over `grounding` as these options ask: the one way stdio's
    /// server and each HTTP session's are made.
    pub fn server<E: axsight_core::Engine>(&self, grounding: Grounding) -> AxsightServer<E> {
        let server = AxsightServer::<E>::with_grounding(grounding);
        let server = if self.read_only {
            server.read_only()
        } else {
            server
        };
        match &self.audit {
            Some(log) => server.with_audit(log.clone()),
            None => server,
        }
    }
}

/// Serves MCP on stdin/stdout over engine `E` until the client disconnects.
/// Lines reach rmcp through the line guard, which answers those that are not
/// messages.
pub async fn serve_stdio<E: axsight_core::Engine>(
    grounding: Grounding,
    options: ServeOptions,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::service::ServerInitializeError;
    use rmcp::{ServerHandler, ServiceExt};
    let server = options.server::<E>(grounding);
    let (read, write) = rmcp::transport::stdio_pipes();
    let guard = line_guard::LineGuard::new(read, write, server.supported_protocol_versions());
    let serving = async {
        let service = match server.serve(guard).await {
            Ok(service) => service,
            // The client went before it began a session: nothing went wrong here.
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(error) => return Err(error.into()),
        };
        service.waiting().await?;
        Ok(())
    };
    tokio::select! {
        served = serving => served,
        () = stop_asked() => Ok(()),
    }
}

/// Resolves when the process is asked to stop (SIGTERM, as an orchestrator or
/// a client's `terminate` sends, or SIGINT). Serving then returns instead of
/// dying with the signal, so that what the sessions hold is let go on the way
/// out: the browsers they started are ended with their profiles, not orphaned.
async fn stop_asked() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut terminate), Ok(mut interrupt)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        // No signal handling: serve until the transport ends.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
    tracing::info!("asked to stop: ending the sessions");
}
