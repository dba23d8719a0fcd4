//! The line-level layer in front of rmcp on stdio. rmcp's own stdio transport
//! lets a line that does not parse go without a word, and its session ends when
//! the first message is not a request. This reads the newline-delimited JSON-RPC
//! itself, with a size limit per line, and answers every line that is not a
//! message (parse error or invalid request, see [`verdict`]). Until the session
//! has begun it lets notifications and responses go, and answers a request rmcp
//! cannot read itself (rmcp would call it a request without `_meta`). Everything
//! else goes on to rmcp, whose answers it writes. It does not look into what a
//! request asks for: methods and params are rmcp's and the server's.

mod verdict;

use std::borrow::Cow;
use std::future::Future;
use std::io;
use std::sync::Arc;

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion,
    ServerJsonRpcMessage,
};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Mutex};
use tokio::task::JoinHandle;

use verdict::{Refusal, Verdict};

/// The longest line (one message) read: far above any call's arguments (each
/// text argument is limited on its own), and a bound on what one line costs.
pub const MAX_LINE_BYTES: usize = 4 << 20;
/// A line buffer grown past this for a big message is given back after it.
const KEEP_LINE_BYTES: usize = 64 << 10;
/// Messages read ahead of rmcp.
const QUEUE: usize = 8;

/// rmcp's transport over a reader and a writer of JSON-RPC lines.
pub struct LineGuard<W> {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    writer: Arc<Mutex<W>>,
    reader: JoinHandle<()>,
}

impl<W: AsyncWrite + Unpin + Send + 'static> LineGuard<W> {
    /// Starts reading `read`; `supported` are the protocol versions the server
    /// speaks (a request carrying one of them begins a session without
    /// `initialize`, as rmcp allows).
    pub fn new<R: AsyncRead + Unpin + Send + 'static>(
        read: R,
        write: W,
        supported: Cow<'static, [ProtocolVersion]>,
    ) -> LineGuard<W> {
        let writer = Arc::new(Mutex::new(write));
        let (forward, incoming) = mpsc::channel(QUEUE);
        let opening = Opening {
            begun: false,
            supported,
        };
        let reader = tokio::spawn(read_lines(read, writer.clone(), forward, opening));
        LineGuard {
            incoming,
            writer,
            reader,
        }
    }
}

impl<W> Drop for LineGuard<W> {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> Transport<RoleServer> for LineGuard<W> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let writer = self.writer.clone();
        async move { write_line(&writer, &line.map_err(io::Error::other)?).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.reader.abort();
        self.writer.lock().await.flush().await
    }
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<W>, line: &[u8]) -> io::Result<()> {
    let mut writer = writer.lock().await;
    writer.write_all(line).await?;
    writer.flush().await
}

/// Reads lines until the input ends, answering or passing on each.
async fn read_lines<R, W>(
    read: R,
    writer: Arc<Mutex<W>>,
    forward: mpsc::Sender<ClientJsonRpcMessage>,
    mut opening: Opening,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        let verdict = match next_line(&mut reader, &mut line, MAX_LINE_BYTES).await {
            Ok(Line::End) => break,
            Err(error) => {
                tracing::warn!(%error, "reading the client's messages failed");
                break;
            }
            Ok(Line::TooLong) => Verdict::Answer(Refusal::too_long(MAX_LINE_BYTES)),
            Ok(Line::Read) => verdict::read(&line),
        };
        if line.capacity() > KEEP_LINE_BYTES {
            line = Vec::new();
        }
        let verdict = match verdict {
            Verdict::Message(message) => opening.admit(*message),
            other => other,
        };
        match verdict {
            Verdict::Message(message) => {
                if forward.send(*message).await.is_err() {
                    break;
                }
            }
            Verdict::Answer(refusal) => {
                tracing::debug!(code = refusal.code.0, message = %refusal.message, "answered a line");
                if write_line(&writer, &refusal.line()).await.is_err() {
                    break;
                }
            }
            Verdict::LetGo(why) => tracing::debug!("let go of {why}"),
        }
    }
}

enum Line {
    /// A whole line is in the buffer.
    Read,
    /// The line was longer than the limit; it was skipped to its end.
    TooLong,
    End,
}

/// Reads one line into `line` (cleared first), never holding more than `max`
/// bytes of it; a last line without its newline counts.
async fn next_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Read,
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        let content = line.len() + newline.unwrap_or(take);
        if !too_long && content > max {
            too_long = true;
            *line = Vec::new();
        }
        if !too_long {
            line.extend_from_slice(&available[..take]);
        }
        reader.consume(take);
        if newline.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Read });
        }
    }
}

/// Whether the session has begun. rmcp's session starts with `initialize`, or
/// with a request that carries its protocol version and capabilities in `_meta`;
/// before that rmcp takes only requests, and ends on anything else.
struct Opening {
    begun: bool,
    supported: Cow<'static, [ProtocolVersion]>,
}

impl Opening {
    /// What becomes of a message: on to rmcp, answered here (a request rmcp
    /// could not read, which it would answer as one without `_meta` before the
    /// session), or let go (anything but a request, before the session).
    fn admit(&mut self, message: ClientJsonRpcMessage) -> Verdict {
        if self.begun {
            return Verdict::Message(Box::new(message));
        }
        let JsonRpcMessage::Request(request) = &message else {
            return Verdict::LetGo("a notification or response before the session began");
        };
        self.begun = match &request.request {
            ClientRequest::InitializeRequest(_) => true,
            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
            ClientRequest::CustomRequest(custom) => {
                return Verdict::Answer(Refusal::from_error(
                    &request.id,
                    crate::server::protocol::unread_request(custom),
                ))
            }
            other => {
                let meta = other.get_meta();
                meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                    .is_empty()
                    && meta
                        .protocol_version()
                        .is_some_and(|version| self.supported.contains(&version))
            }
        };
        Verdict::Message(Box::new(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ErrorCode;
    use tokio::io::AsyncReadExt;

    async fn lines(input: &[u8], max: usize) -> Vec<Result<Vec<u8>, &'static str>> {
        let mut reader = BufReader::with_capacity(7, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            match next_line(&mut reader, &mut line, max).await.unwrap() {
                Line::Read => out.push(Ok(line.clone())),
                Line::TooLong => out.push(Err("too long")),
                Line::End => return out,
            }
        }
    }

    #[tokio::test]
    async fn lines_are_read_within_the_limit() {
        let got = lines(b"short\nmuch too long a line\nok\nlast", 10).await;
        assert_eq!(
            got,
            vec![
                Ok(b"short\n".to_vec()),
                Err("too long"),
                Ok(b"ok\n".to_vec()),
                Ok(b"last".to_vec())
            ]
        );
        assert_eq!(
            lines(b"0123456789\n", 10).await,
            vec![Ok(b"0123456789\n".to_vec())]
        );
        assert_eq!(lines(b"0123456789ab", 10).await, vec![Err("too long")]);
    }

    fn message(line: &str) -> ClientJsonRpcMessage {
        match verdict::read(line.as_bytes()) {
            Verdict::Message(message) => *message,
            other => panic!("{other:?}"),
        }
    }

    fn passes(opening: &mut Opening, line: &str) -> bool {
        matches!(opening.admit(message(line)), Verdict::Message(_))
    }

    #[test]
    fn nothing_but_requests_reach_rmcp_before_the_session_begins() {
        let mut opening = Opening {
            begun: false,
            supported: Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS),
        };
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let cancelled =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let initialize = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
        assert!(!passes(&mut opening, initialized));
        assert!(!passes(&mut opening, cancelled));
        assert!(passes(&mut opening, ping));
        assert!(!passes(&mut opening, initialized), "a ping begins nothing");
        let bad_initialize = r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}"#;
        match opening.admit(message(bad_initialize)) {
            Verdict::Answer(refusal) => {
                assert_eq!(refusal.code, ErrorCode::INVALID_PARAMS);
                assert_eq!(refusal.id, serde_json::Value::from(3));
            }
            other => panic!("{other:?}"),
        }
        assert!(passes(&mut opening, initialize));
        assert!(passes(&mut opening, initialized));
        assert!(passes(&mut opening, cancelled));
    }

    #[tokio::test]
    async fn bad_lines_are_answered_and_good_ones_passed_on() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let mut guard = LineGuard::new(
            server_read,
            server_write,
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS),
        );
        let (mut client_read, mut client_write) = tokio::io::split(client);
        client_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{oops\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n")
            .await
            .unwrap();
        let passed = guard.receive().await.unwrap();
        assert!(
            matches!(passed, JsonRpcMessage::Request(ref r) if r.id == rmcp::model::NumberOrString::Number(7))
        );
        let mut answer = vec![0; 4096];
        let n = client_read.read(&mut answer).await.unwrap();
        let answer: serde_json::Value = serde_json::from_slice(&answer[..n]).unwrap();
        assert_eq!(answer["error"]["code"], -32700);
        assert_eq!(answer["id"], serde_json::Value::Null);
    }
}
