//! The JSON-RPC errors a request gets from the server itself rather than from a
//! tool: a request rmcp could not read as any method it knows (rmcp hands those
//! over as custom requests; before a session begins the line guard answers
//! those with the same words), and a call of a tool that does not exist. Lines
//! that are not requests at all are answered before rmcp sees them (`line_guard`).

use rmcp::model::{CustomRequest, ErrorCode, ErrorData};
use serde_json::Value;

use crate::arguments::quote;

/// The requests this server answers; any other method is not found.
const SERVED: &[&str] = &["initialize", "ping", "tools/list", "tools/call"];

/// The error for a request rmcp read as none of its methods: `method not found`,
/// or `invalid params` when the method is one this server serves and only its
/// params were not of that method's shape.
pub fn unread_request(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    if !SERVED.contains(&method) {
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "method not found: {}; this server answers {}",
                quote(method),
                SERVED.join(", ")
            ),
            None,
        );
    }
    let why = match method {
        "tools/call" => tool_call_fault(request.params.as_ref()),
        _ => None,
    }
    .unwrap_or_else(|| "its params are not of the shape the MCP specification gives".into());
    ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        format!("invalid params for {method}: {why}"),
        None,
    )
}

/// What is wrong with a `tools/call` request's params, when it is plain to see.
fn tool_call_fault(params: Option<&Value>) -> Option<String> {
    let takes = "it takes {\"name\": a tool's name, \"arguments\": an object}";
    let Some(Value::Object(params)) = params else {
        return Some(format!("params must be an object; {takes}"));
    };
    match params.get("name") {
        None => return Some(format!("`name` is missing; {takes}")),
        Some(Value::String(_)) => {}
        Some(_) => return Some(format!("`name` must be text; {takes}")),
    }
    match params.get("arguments") {
        None | Some(Value::Object(_) | Value::Null) => None,
        Some(_) => Some(format!("`arguments` must be an object; {takes}")),
    }
}

/// A `tools/call` of a tool the server does not have: invalid params, as the
/// MCP specification says for an unknown tool.
pub fn unknown_tool(name: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        format!(
            "tool not found: {}; tools/list names the tools",
            quote(name)
        ),
        None,
    )
}

/// A call of a tool this server's policy leaves out.
pub fn tool_not_offered(name: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        format!(
            "not allowed: {name} {}; tools/list names the tools it offers",
            crate::sequence::NOT_OFFERED
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(method: &str, params: Value) -> CustomRequest {
        CustomRequest::new(method.to_string(), Some(params))
    }

    #[test]
    fn a_served_method_with_bad_params_is_invalid_params() {
        let error = unread_request(&request("tools/call", json!({})));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(
            error.message.contains("`name` is missing"),
            "{}",
            error.message
        );
        let error = unread_request(&request(
            "tools/call",
            json!({"name": "x", "arguments": "y"}),
        ));
        assert!(
            error.message.contains("`arguments` must be an object"),
            "{}",
            error.message
        );
        let error = unread_request(&request("tools/list", json!({"cursor": 5})));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    }

    #[test]
    fn another_method_is_not_found_and_quoted_short() {
        let error = unread_request(&request(&"m".repeat(100_000), json!({})));
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
        assert!(error.message.len() < 200, "{}", error.message);
    }
}
