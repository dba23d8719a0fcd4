//! The axsight MCP server: the protocol adapter that serves an
//! [`axsight_session::Session`]'s tools over stdio and streamable HTTP.
//!
//! This crate owns what MCP decides: tool names, descriptions and schemas,
//! argument checking against them, result shaping (text, images, structured
//! content, input-required results), `execute_sequence`'s dispatch by tool
//! name, the transports (the stdio line guard, HTTP with its token and origin
//! checks), which tools are offered (`tool_policy.rs`) and the audit log. What a tool does is the
//! session's; it must not grow desktop or acting policy of its own. It drives
//! any [`axsight_core::Engine`]; the binary picks the platform's
//! (`axsight-linux`).
//!
//! # A request, from the wire to a tool
//!
//! ```text
//! stdin ─▶ line guard (line_guard.rs) ─▶ rmcp service ─▶ AxsightServer (ServerHandler)
//!             │ one line at a time,           │              ├─ call_tool ─▶ call_checked:
//!             │ at most 4 MiB                 │              │    the tool's argument rules
//!             │ answers itself: -32700,       │              │    (arguments.rs), then the
//!             │ -32600, requests rmcp         │              │    tool router ─▶ tool ─▶ Session
//!             │ cannot read before a session  │              └─ on_custom_request: -32601 / -32602
//! stdout ◀────┴───── every answer, one line each ◀───────────    (server/protocol.rs)
//! ```
//!
//! - **The line guard** is rmcp's `Transport` for stdio. rmcp's own stdio transport
//!   drops a line that does not parse without a word (by design: it matches the other
//!   SDKs), drops a line over its 16 MiB limit the same way, and its session ends when
//!   the first message is a notification. The guard reads lines itself on a task of
//!   its own (`next_line`: bounded, a buffer grown past 64 KiB is given back after its
//!   line), decides on plain bytes what each line is (`verdict::read`: a message, a
//!   parse error or invalid request to answer, or something to let go), and hands
//!   messages to rmcp through a channel (so `receive` stays cancel-safe). `Opening`
//!   mirrors rmcp's start of a session (`initialize`, or a request with its protocol
//!   version and capabilities in `_meta`): before it, only requests go on, and one that
//!   rmcp could only read as a custom request is answered here in the server's words.
//!   Answers of both the guard and rmcp go through one writer, a line each.
//! - **rmcp's parse of a message** falls back to `CustomRequest` for any request it
//!   cannot read as a method it knows, bad params included. The server's
//!   `on_custom_request` tells the two apart (`server/protocol.rs`): a method it serves
//!   with params of the wrong shape is `-32602`, anything else `-32601`.
//! - **Argument rules** come from each tool's input schema as schemars wrote it
//!   (unions, integer formats, `maxLength`, and `x-aliases`, an extension keyword on a
//!   field for its other names), compiled once when the server is built
//!   (`arguments/shape.rs`). `call_checked`, the one way a tool is called (by a client's
//!   `tools/call` and by each step of `execute_sequence`), checks and normalises the
//!   arguments first (`arguments/fit.rs`): aliases renamed, unknown names refused, a
//!   `null` optional dropped, other forms of a value put in the form the argument
//!   struct takes, each text and list within its size. The argument structs never see
//!   aliases: serde knows only the canonical names. The published schemas are the same
//!   schemas made compact and portable (`schema.rs`): one type per argument (a union
//!   gives its text arm, or its first), no `x-aliases`. A unit test parses every form
//!   the rules take with each argument struct, so the check cannot let through what
//!   serde would refuse with its Rust-typed message; a property test
//!   (`server/fuzz_arguments.rs`; the book's docs/testing.md) does the same with generated arguments.
//! - **Errors quote short.** A bad value is quoted by its first 40 characters
//!   (`arguments/words.rs::quote`), and a name a caller sent is escaped and cut the
//!   same way (`words::name`), the first 5 of many listed and the rest counted
//!   (`words::listed`), so an error stays a line whatever came in; every
//!   text argument has a size (1,024 characters unless its schema says more), so the
//!   session's own errors, which may echo a selector or a key, stay small too.

mod acting_budget;
mod arguments;
mod audit;
mod http;
mod http_sessions;
mod in_process;
mod line_guard;
mod params;
mod reference;
mod schema;
mod sequence;
mod server;
mod tool_policy;

pub use audit::{utc_time, AuditLog, DEFAULT_MAX_BYTES as AUDIT_MAX_BYTES};
pub use http::{new_token, serve_http, HttpOptions};
pub use http_sessions::{parse_duration, SessionLimits};
pub use in_process::{InProcessClient, InProcessError, ToolAnswer};
pub use reference::{ReferenceError, REGENERATE as REGENERATE_TOOLS_REFERENCE};
pub use server::{AxsightServer, INSTRUCTIONS};
pub use tool_policy::{ToolPolicy, GROUPS as TOOL_GROUPS};

use axsight_session::Grounding;

/// How `axsight serve` serves, besides its grounding.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// The tools offered (`--tools`, `--deny-tools`, `--read-only`).
    pub tools: ToolPolicy,
    /// Where acting calls are recorded (see [`AuditLog`]), shared by every
    /// session of the server.
    pub audit: Option<std::sync::Arc<AuditLog>>,
    /// What a client may start on the desktop.
    pub policy: std::sync::Arc<axsight_session::DesktopPolicy>,
    /// Acting calls a session may make a minute (`None`: any number).
    pub acting_per_minute: Option<u32>,
    /// What cannot be undone (closing a window, a quitting chord, a page
    /// script) asks the person through the client first.
    pub confirm: bool,
}

impl ServeOptions {
    /// A session over `grounding` under these options' desktop policy.
    pub fn session<E: axsight_core::Engine>(
        &self,
        grounding: Grounding,
    ) -> axsight_session::Session<E> {
        axsight_session::Session::watching()
            .with_grounding(grounding)
            .with_policy(self.policy.clone())
    }

    /// A server over `grounding` as these options ask: the one way stdio's
    /// server and the HTTP sessions' first are made (the others share its
    /// tools through [`AxsightServer::with_session`]).
    pub fn server<E: axsight_core::Engine>(&self, grounding: Grounding) -> AxsightServer<E> {
        let server = AxsightServer::<E>::serving(self.session(grounding))
            .offering(&self.tools)
            .with_acting_limit(self.acting_per_minute)
            .confirming(self.confirm);
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
pub async fn stop_asked() {
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
    tracing::info!("asked to stop");
}
