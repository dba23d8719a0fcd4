//! WebDriver BiDi, the protocol Firefox speaks on `--remote-debugging-port`
//! (Firefox no longer speaks the DevTools protocol): the commands axsight
//! uses, sent on the same JSON-over-WebSocket [`Connection`] as the DevTools
//! protocol's, and the conversion of BiDi's serialized script values to JSON.
//!
//! A connection opens one session (`session.new`) before anything else; tabs
//! are top-level browsing contexts, addressed by their context id. It must
//! not start browsers or wait for pages: `Browser` and `Page` do.

use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::cdp::Connection;
use crate::BrowserError;

/// Opens the connection's session; every other command needs it.
pub(crate) async fn new_session(
    connection: &Connection,
    deadline: Duration,
) -> Result<(), BrowserError> {
    connection
        .call("session.new", json!({ "capabilities": {} }), None, deadline)
        .await?;
    // Click listeners noted in every new document before the page's scripts.
    let tracker = format!("() => {{ {} }}", crate::dom::LISTENERS);
    connection
        .call(
            "script.addPreloadScript",
            json!({ "functionDeclaration": tracker }),
            None,
            deadline,
        )
        .await
        .map(|_| ())
}

/// Whether the browser still answers on the session.
pub(crate) async fn alive(connection: &Connection) -> bool {
    connection
        .call("session.status", json!({}), None, Duration::from_secs(2))
        .await
        .is_ok()
}

/// The tabs (top-level browsing contexts): their context ids and addresses.
pub(crate) async fn tabs(
    connection: &Connection,
    deadline: Duration,
) -> Result<Vec<(String, String)>, BrowserError> {
    let tree = connection
        .call(
            "browsingContext.getTree",
            json!({ "maxDepth": 0 }),
            None,
            deadline,
        )
        .await?;
    Ok(tree["contexts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let context = c["context"].as_str()?.to_string();
            let url = c["url"].as_str().unwrap_or_default().to_string();
            Some((context, url))
        })
        .collect())
}

/// Runs `expression` in the tab's page (promises awaited) and returns its
/// value as JSON.
pub(crate) async fn evaluate(
    connection: &Connection,
    context: &str,
    expression: &str,
    deadline: Duration,
) -> Result<Value, BrowserError> {
    let result = connection
        .call(
            "script.evaluate",
            json!({
                "expression": expression,
                "target": { "context": context },
                "awaitPromise": true,
                "resultOwnership": "none",
            }),
            None,
            deadline,
        )
        .await?;
    if result["type"] == "exception" {
        let text = result["exceptionDetails"]["text"]
            .as_str()
            .unwrap_or("an exception");
        return Err(BrowserError::Script(
            text.lines().next().unwrap_or(text).to_string(),
        ));
    }
    Ok(to_json(&result["result"]))
}

/// Opens `url` in the tab and waits, within `deadline`, until its document
/// has loaded.
pub(crate) async fn navigate(
    connection: &Connection,
    context: &str,
    url: &str,
    deadline: Duration,
) -> Result<(), BrowserError> {
    connection
        .call(
            "browsingContext.navigate",
            json!({ "context": context, "url": url, "wait": "complete" }),
            None,
            deadline,
        )
        .await
        .map(|_| ())
        .map_err(|error| navigation_error(url, error))
}

/// Reloads the tab and waits until its document has loaded.
pub(crate) async fn reload(
    connection: &Connection,
    context: &str,
    deadline: Duration,
) -> Result<(), BrowserError> {
    connection
        .call(
            "browsingContext.reload",
            json!({ "context": context, "wait": "complete" }),
            None,
            deadline,
        )
        .await
        .map(|_| ())
}

/// Moves `delta` entries through the tab's history; `None` when there is no
/// such entry. The traversal's load is waited for by the caller.
pub(crate) async fn traverse(
    connection: &Connection,
    context: &str,
    delta: i32,
    deadline: Duration,
) -> Result<Option<()>, BrowserError> {
    let moved = connection
        .call(
            "browsingContext.traverseHistory",
            json!({ "context": context, "delta": delta }),
            None,
            deadline,
        )
        .await;
    match moved {
        Ok(_) => Ok(Some(())),
        Err(BrowserError::Protocol { error, .. }) if error.contains("not found") => Ok(None),
        Err(error) => Err(error),
    }
}

/// Opens a new tab (on `about:blank`) in the front window; its context id.
pub(crate) async fn create_tab(
    connection: &Connection,
    deadline: Duration,
) -> Result<String, BrowserError> {
    let created = connection
        .call(
            "browsingContext.create",
            json!({ "type": "tab" }),
            None,
            deadline,
        )
        .await?;
    created["context"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| BrowserError::Protocol {
            method: "browsingContext.create".into(),
            error: "no context in its answer".into(),
        })
}

/// Brings the tab to the front of its window.
pub(crate) async fn activate(
    connection: &Connection,
    context: &str,
    deadline: Duration,
) -> Result<(), BrowserError> {
    connection
        .call(
            "browsingContext.activate",
            json!({ "context": context }),
            None,
            deadline,
        )
        .await
        .map(|_| ())
}

/// A failed navigation, worded like the DevTools protocol's: Firefox names
/// the network error in the message (`NS_ERROR_CONNECTION_REFUSED`).
fn navigation_error(url: &str, error: BrowserError) -> BrowserError {
    match error {
        BrowserError::Protocol { error, .. } => BrowserError::Navigation {
            url: url.to_string(),
            why: error.trim_start_matches("Error: ").to_string(),
        },
        other => other,
    }
}

/// A BiDi serialized value (`{"type": "number", "value": 2}`) as plain JSON,
/// the way the DevTools protocol's `returnByValue` gives it: objects and maps
/// become objects, arrays and sets arrays; `undefined`, numbers JSON cannot
/// hold (`NaN`, `Infinity`, `-0` as sent) and values without a JSON form
/// (nodes, functions, windows) become `null`; big integers and dates their
/// strings.
///
/// ```
/// use axsight_browser::bidi::to_json;
/// use serde_json::json;
/// let value = json!({"type": "object", "value": [
///     ["n", {"type": "number", "value": 2}],
///     ["list", {"type": "array", "value": [{"type": "string", "value": "a"}]}],
/// ]});
/// assert_eq!(to_json(&value), json!({"n": 2, "list": ["a"]}));
/// ```
pub fn to_json(remote: &Value) -> Value {
    let inner = &remote["value"];
    match remote["type"].as_str().unwrap_or_default() {
        "string" | "boolean" => inner.clone(),
        "number" => match inner {
            Value::Number(_) => inner.clone(),
            _ => Value::Null,
        },
        "bigint" | "date" => inner.clone(),
        "regexp" => inner["pattern"].clone(),
        "array" | "set" => Value::Array(
            inner
                .as_array()
                .into_iter()
                .flatten()
                .map(to_json)
                .collect(),
        ),
        "object" | "map" => {
            let mut object = Map::new();
            for pair in inner.as_array().into_iter().flatten() {
                let key = match &pair[0] {
                    Value::String(key) => key.clone(),
                    key => match to_json(key) {
                        Value::String(text) => text,
                        other => other.to_string(),
                    },
                };
                object.insert(key, to_json(&pair[1]));
            }
            Value::Object(object)
        }
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialized_values_become_plain_json() {
        let remote = json!({"type": "object", "value": [
            ["a", {"type": "object", "value": [["d", {"type": "array", "value": [
                {"type": "number", "value": 1},
                {"type": "object", "value": [["e", {"type": "number", "value": 2.5}]]}
            ]}]]}],
            ["n", {"type": "number", "value": "NaN"}],
            ["u", {"type": "undefined"}],
            ["big", {"type": "bigint", "value": "10"}],
            ["m", {"type": "map", "value": [[{"type": "number", "value": 1}, {"type": "boolean", "value": true}]]}],
            ["node", {"type": "node", "sharedId": "x", "value": {"nodeType": 1}}],
            ["nothing", {"type": "null"}]
        ]});
        assert_eq!(
            to_json(&remote),
            json!({"a": {"d": [1, {"e": 2.5}]}, "n": null, "u": null, "big": "10",
                   "m": {"1": true}, "node": null, "nothing": null})
        );
        assert_eq!(
            to_json(&json!({"type": "string", "value": "Sign in"})),
            json!("Sign in")
        );
        assert_eq!(to_json(&json!({})), Value::Null);
    }
}
