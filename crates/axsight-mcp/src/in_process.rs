//! MCP inside one process: a server on one end of an in-memory pipe and a
//! small client on the other, so that `axsight replay` runs a plan through the
//! very tools an agent calls, with the same argument checks and the same
//! answers. The client speaks plain JSON-RPC lines: it initializes, calls
//! tools and reads their results, and declines anything the server asks of it.

use rmcp::model::ProtocolVersion;
use rmcp::ServiceExt as _;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream, Lines};

use crate::ServeOptions;
use axsight_session::Grounding;

/// How much the pipe holds before a writer waits: several full answers.
const PIPE_BYTES: usize = 1 << 20;

/// Why an in-process call failed (not a tool's own error, which is an answer).
#[derive(Debug, thiserror::Error)]
pub enum InProcessError {
    #[error("the in-process MCP server ended: {0}")]
    Ended(String),
    #[error("the in-process MCP server answered what is not JSON-RPC: {0}")]
    Garbled(String),
    #[error("the in-process MCP server refused {what}: {message}")]
    Refused { what: String, message: String },
}

/// A tool's answer: its text, and whether it is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolAnswer {
    pub text: String,
    pub is_error: bool,
}

/// A client of a server in this process.
pub struct InProcessClient {
    writer: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    next_id: u64,
}

impl InProcessClient {
    /// Starts a server over engine `E` as `options` say and initializes a
    /// session with it.
    pub async fn start<E: axsight_core::Engine>(
        grounding: Grounding,
        options: ServeOptions,
    ) -> Result<InProcessClient, InProcessError> {
        let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
        let server = options.server::<E>(grounding);
        tokio::spawn(async move {
            match server.serve(tokio::io::split(theirs)).await {
                Ok(service) => {
                    let _ = service.waiting().await;
                }
                Err(error) => tracing::warn!(%error, "the in-process MCP server did not start"),
            }
        });
        let (read, writer) = tokio::io::split(ours);
        let mut client = InProcessClient {
            writer,
            lines: BufReader::new(read).lines(),
            next_id: 0,
        };
        let initialize = json!({
            "protocolVersion": ProtocolVersion::LATEST_WITH_INITIALIZE,
            "capabilities": {},
            "clientInfo": {"name": "axsight replay", "version": env!("CARGO_PKG_VERSION")},
        });
        client.request("initialize", initialize).await?;
        client
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(client)
    }

    /// Calls tool `name` with `arguments`.
    pub async fn call(
        &mut self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<ToolAnswer, InProcessError> {
        let result = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        let text = result
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|item| item.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        Ok(ToolAnswer {
            text,
            is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
        })
    }

    /// Sends a request and waits for its answer, declining whatever the
    /// server asks meanwhile.
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, InProcessError> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        loop {
            let line = self
                .lines
                .next_line()
                .await
                .map_err(|e| InProcessError::Ended(e.to_string()))?
                .ok_or_else(|| InProcessError::Ended("it closed the pipe".into()))?;
            let message: Value = serde_json::from_str(&line)
                .map_err(|_| InProcessError::Garbled(axsight_core::cut(&line, 200)))?;
            if message.get("id").and_then(Value::as_u64) == Some(id)
                && message.get("method").is_none()
            {
                if let Some(error) = message.get("error") {
                    return Err(InProcessError::Refused {
                        what: method.into(),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("no reason given")
                            .into(),
                    });
                }
                return Ok(message.get("result").cloned().unwrap_or(Value::Null));
            }
            if let (Some(asked), Some(_)) = (message.get("id"), message.get("method")) {
                // A request of the server's (a ping, a question for a model
                // this client does not have): answered, so that it waits no longer.
                let answer = match message["method"].as_str() {
                    Some("ping") => json!({"jsonrpc": "2.0", "id": asked, "result": {}}),
                    _ => json!({"jsonrpc": "2.0", "id": asked,
                        "error": {"code": -32601, "message": "this client offers nothing"}}),
                };
                self.send(&answer).await?;
            }
            // Notifications (progress, logging) tell nothing a replay prints.
        }
    }

    async fn send(&mut self, message: &Value) -> Result<(), InProcessError> {
        let mut line = message.to_string();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .map_err(|e| InProcessError::Ended(e.to_string()))
    }
}
