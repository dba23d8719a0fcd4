//! What one line of JSON-RPC is, on plain bytes: a message for rmcp, a line to
//! answer with an error (not JSON, not a JSON-RPC message), or one to let go
//! (blank, or a notification or response no one could answer). The error
//! answers follow JSON-RPC 2.0: `-32700` with `"id": null` for a line that does
//! not parse, `-32600` with the request's id where it can be read.

use rmcp::model::{ClientJsonRpcMessage, ErrorCode, ErrorData, RequestId};
use serde_json::{json, Map, Value};

/// The longest id a request may carry: it is sent back as it came.
const MAX_ID_CHARS: usize = 256;

/// What to do with a line.
#[derive(Debug)]
pub enum Verdict {
    Message(Box<ClientJsonRpcMessage>),
    Answer(Refusal),
    /// Nothing to answer; why, for the log.
    LetGo(&'static str),
}

/// An error response the guard writes itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub code: ErrorCode,
    /// The request's id, or null when it cannot be read.
    pub id: Value,
    pub message: String,
    pub data: Option<Value>,
}

impl Refusal {
    fn parse_error(message: String, data: Option<Value>) -> Refusal {
        Refusal {
            code: ErrorCode::PARSE_ERROR,
            id: Value::Null,
            message,
            data,
        }
    }

    fn invalid_request(id: Option<&Value>, message: &str) -> Refusal {
        Refusal {
            code: ErrorCode::INVALID_REQUEST,
            id: id.cloned().unwrap_or(Value::Null),
            message: format!("invalid request: {message}"),
            data: None,
        }
    }

    /// The answer to request `id`: an error the server would give.
    pub fn from_error(id: &RequestId, error: ErrorData) -> Refusal {
        Refusal {
            code: error.code,
            id: serde_json::to_value(id).unwrap_or(Value::Null),
            message: error.message.into_owned(),
            data: error.data,
        }
    }

    /// A line longer than `limit` bytes, left unread.
    pub fn too_long(limit: usize) -> Refusal {
        Refusal::parse_error(
            format!("parse error: the line is longer than {limit} bytes, the most one message may take; it was not read"),
            Some(json!({"max_line_bytes": limit})),
        )
    }

    /// The response as one line, newline included, in the usual key order.
    pub fn line(&self) -> Vec<u8> {
        let mut error = Map::new();
        error.insert("code".into(), Value::from(self.code.0));
        error.insert("message".into(), Value::from(self.message.as_str()));
        if let Some(data) = &self.data {
            error.insert("data".into(), data.clone());
        }
        let error = Value::Object(error);
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{error}}}\n",
            self.id
        )
        .into_bytes()
    }
}

/// The verdict on one line (its newline, a trailing `\r` and a UTF-8 byte order
/// mark are not part of it).
pub fn read(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::LetGo("a blank line");
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(value) => message(value),
        Err(error) => Verdict::Answer(not_json(&error)),
    }
}

fn not_json(error: &serde_json::Error) -> Refusal {
    // serde_json's syntax errors name a place, never the text there.
    let text = error.to_string();
    let message = if text.starts_with("recursion limit exceeded") {
        format!(
            "parse error: the JSON is nested more than 128 levels deep (column {})",
            error.column()
        )
    } else {
        format!("parse error: the line is not JSON: {text}")
    };
    Refusal::parse_error(message, None)
}

fn message(value: Value) -> Verdict {
    let Value::Object(object) = value else {
        let why = if value.is_array() {
            "a batch (a JSON array) is not taken: send one message per line"
        } else {
            "a message is a JSON object"
        };
        return Verdict::Answer(Refusal::invalid_request(None, why));
    };
    let id = match object.get("id") {
        None => None,
        Some(id) if usable_id(id) => Some(id),
        Some(_) => {
            return Verdict::Answer(Refusal::invalid_request(
                None,
                "`id` must be a whole number or a text of at most 256 characters",
            ))
        }
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Verdict::Answer(Refusal::invalid_request(id, "`jsonrpc` must be \"2.0\""));
    }
    let is_response = object.contains_key("result") || object.contains_key("error");
    match (object.get("method"), id) {
        (Some(Value::String(_)), None) => match serde_json::from_value(Value::Object(object)) {
            Ok(message) => Verdict::Message(Box::new(message)),
            Err(_) => Verdict::LetGo("a notification whose params do not fit its method"),
        },
        (Some(Value::String(_)), Some(Value::Null)) => Verdict::Answer(Refusal::invalid_request(
            None,
            "a request's `id` is a whole number or a text, not null",
        )),
        (Some(Value::String(_)), Some(id)) => {
            let id = id.clone();
            let params_not_object = object.get("params").is_some_and(|p| !p.is_object());
            match serde_json::from_value(Value::Object(object)) {
                Ok(message) => Verdict::Message(Box::new(message)),
                // JSON-RPC allows a list; MCP's params are always an object.
                Err(_) if params_not_object => Verdict::Answer(Refusal {
                    code: ErrorCode::INVALID_PARAMS,
                    id,
                    message: "invalid params: params must be an object".into(),
                    data: None,
                }),
                Err(_) => Verdict::Answer(Refusal::invalid_request(
                    Some(&id),
                    "not a JSON-RPC request",
                )),
            }
        }
        (Some(_), id) => Verdict::Answer(Refusal::invalid_request(id, "`method` must be a text")),
        (None, Some(_)) if is_response => match serde_json::from_value(Value::Object(object)) {
            Ok(message) => Verdict::Message(Box::new(message)),
            Err(_) => Verdict::LetGo("a response the server cannot read"),
        },
        (None, id) => Verdict::Answer(Refusal::invalid_request(
            id.filter(|id| !id.is_null()),
            "a message needs `method` (a request or a notification), or `result` or `error` (a response)",
        )),
    }
}

/// Ids rmcp can carry: integers and short texts (and null, which only an error
/// response may have).
fn usable_id(id: &Value) -> bool {
    match id {
        Value::Null => true,
        Value::Number(number) => number.is_i64(),
        Value::String(text) => text.chars().count() <= MAX_ID_CHARS,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Refusal {
        match read(line.as_bytes()) {
            Verdict::Answer(refusal) => refusal,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn wire(refusal: &Refusal) -> Value {
        serde_json::from_slice(&refusal.line()).unwrap()
    }

    #[test]
    fn lines_that_do_not_parse_are_parse_errors_with_a_null_id() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for line in [
            "{bad",
            "{\"jsonrpc\": \"2.0\", \"id\": 1,",
            "\u{1}",
            deep.as_str(),
        ] {
            let refusal = answer(line);
            assert_eq!(refusal.code, ErrorCode::PARSE_ERROR, "{line}");
            let wire = wire(&refusal);
            assert_eq!(wire["id"], Value::Null);
            assert!(wire.as_object().unwrap().contains_key("id"));
            assert_eq!(wire["jsonrpc"], "2.0");
        }
        assert!(answer(&deep)
            .message
            .contains("nested more than 128 levels"));
        let bad_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}";
        assert!(matches!(read(bad_utf8), Verdict::Answer(r) if r.code == ErrorCode::PARSE_ERROR));
    }

    #[test]
    fn json_that_is_not_a_message_is_an_invalid_request_with_its_id() {
        let refusal = answer(r#"{"jsonrpc": "2.0", "id": 10}"#);
        assert_eq!(refusal.code, ErrorCode::INVALID_REQUEST);
        assert_eq!(refusal.id, Value::from(10));
        let refusal = answer(r#"{"id": "a", "method": "ping"}"#);
        assert_eq!(
            (refusal.code, refusal.id),
            (ErrorCode::INVALID_REQUEST, Value::from("a"))
        );
        for line in [
            "[]",
            r#"[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]"#,
            "42",
            r#"{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}"#,
            r#"{"jsonrpc": "2.0", "id": null, "method": "ping"}"#,
            r#"{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}"#,
        ] {
            let refusal = answer(line);
            assert_eq!(refusal.code, ErrorCode::INVALID_REQUEST, "{line}");
            assert_eq!(refusal.id, Value::Null, "{line}");
        }
        let refusal = answer(r#"{"jsonrpc": "2.0", "id": 3, "method": 7}"#);
        assert_eq!(refusal.id, Value::from(3));
        let long_id = format!(
            r#"{{"jsonrpc": "2.0", "id": "{}", "method": "ping"}}"#,
            "i".repeat(300)
        );
        assert_eq!(answer(&long_id).id, Value::Null);
    }

    #[test]
    fn messages_go_on_and_the_rest_is_let_go() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#,
        ] {
            assert!(
                matches!(read(line.as_bytes()), Verdict::Message(_)),
                "{line}"
            );
        }
        for line in [
            "",
            "  \r\n",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#,
        ] {
            assert!(
                matches!(read(line.as_bytes()), Verdict::LetGo(_)),
                "{line:?}"
            );
        }
    }

    #[test]
    fn params_that_are_not_an_object_are_invalid_params() {
        let refusal = answer(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[1]}"#);
        assert_eq!(
            (refusal.code, &refusal.id),
            (ErrorCode::INVALID_PARAMS, &Value::from(4))
        );
        let line = String::from_utf8(refusal.line()).unwrap();
        assert!(
            line.starts_with(r#"{"jsonrpc":"2.0","id":4,"error":{"#),
            "{line}"
        );
        assert!(line.ends_with("}\n"), "{line}");
    }

    #[test]
    fn a_line_too_long_says_the_limit() {
        let wire = wire(&Refusal::too_long(4 << 20));
        assert_eq!(wire["error"]["code"], -32700);
        assert_eq!(wire["error"]["data"]["max_line_bytes"], 4 << 20);
        assert_eq!(wire["id"], Value::Null);
    }
}
