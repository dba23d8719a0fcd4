//! Asking the person before what cannot be undone (`serve --confirm`): closing
//! a window (its unsaved work goes with it), a chord that quits or deletes
//! without asking (`ctrl+q`, `alt+F4`, `shift+Delete`), a script run in a page.
//! The client is asked through MCP elicitation: a request of the server's own
//! before protocol 2026-07-28, an input-required result from then on. A client
//! that cannot ask is refused, as is a "no".

use std::time::Duration;

use axsight_core::{parse_keys, KeyChord};
use rmcp::model::{
    ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequiredResult, InputResponses, ProtocolVersion,
    ServerRequest,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

/// The key of the one request a confirmation's input-required result carries.
const CONFIRM: &str = "confirm";

/// How long the person has to answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(300);

/// Chords that quit an app, close its window or delete for good without a
/// question of the app's own.
const DESTRUCTIVE_CHORDS: &[&str] = &[
    "ctrl+q",
    "ctrl+w",
    "ctrl+shift+q",
    "ctrl+shift+w",
    "alt+F4",
    "ctrl+F4",
    "shift+Delete",
    "ctrl+alt+Delete",
    "ctrl+alt+BackSpace",
];

/// The question to put before `tool` runs with `arguments`, when what it does
/// cannot be undone (the tests below show which).
pub(crate) fn question(tool: &str, arguments: &Map<String, Value>) -> Option<String> {
    let text = |name: &str| arguments.get(name).and_then(Value::as_str);
    let place = match (text("app"), text("window")) {
        (_, Some(window)) => format!("the window '{window}'"),
        (Some(app), None) => format!("{app}'s active window"),
        (None, None) => "the active window".to_string(),
    };
    match tool {
        "close_window" => Some(format!(
            "An agent asks to close {place}; what is unsaved in it may be lost. Close it?"
        )),
        "execute_browser_script" => Some(format!(
            "An agent asks to run a script of its own in the page of {place}. Run it?"
        )),
        "press_key" => {
            let keys = text("key")?;
            let chords = parse_keys(keys).ok()?;
            let destructive = chords.iter().find(|chord| is_destructive(chord))?;
            Some(format!(
                "An agent asks to press {destructive} in {place}, which may quit, close or \
                 delete without asking. Press it?"
            ))
        }
        _ => None,
    }
}

fn is_destructive(chord: &KeyChord) -> bool {
    DESTRUCTIVE_CHORDS
        .iter()
        .filter_map(|text| parse_keys(text).ok()?.into_iter().next())
        .any(|listed| chord.presses_as(&listed))
}

/// What to do with a call that needs the person's yes.
pub(crate) enum Confirmation {
    /// They said yes: run it.
    Yes,
    /// Ask in the result; the client calls again with the answer.
    AskInResult(InputRequiredResult),
    /// Refused, with why (they said no, or could not be asked).
    Refused(String),
}

/// The state a confirmation's input-required result carries: the call it
/// asks about, so that an answer brought with another call is no answer. It
/// is made from the call alone, as a stateless server (a new server for each
/// request, as protocol 2026-07-28 allows over HTTP) keeps nothing between
/// the question and the answer. A client could forge it, as it could forge
/// the person's yes: the question is only as good as the client that puts it.
fn state_for(call: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    call.hash(&mut hasher);
    format!("confirm-{:016x}", hasher.finish())
}

/// The person's answer, from an elicitation's result.
fn said_yes(result: &ElicitResult) -> bool {
    result.action == ElicitationAction::Accept
        && result
            .content
            .as_ref()
            .and_then(|content| content.get(CONFIRM))
            .and_then(Value::as_bool)
            == Some(true)
}

/// The elicitation that puts `question`.
fn request(question: &str) -> Result<ElicitRequestParams, String> {
    let schema = ElicitationSchema::builder()
        .required_bool(CONFIRM)
        .build()
        .map_err(|error| format!("the question could not be made: {error}"))?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.to_string(),
        requested_schema: schema,
    })
}

/// What a call `call` (its tool and arguments, as one text) that asks
/// `question` may do: the answer it brings (`state`, `responses`), else the
/// person asked through the client `context` names.
pub(crate) async fn confirm(
    call: &str,
    question: &str,
    state: Option<String>,
    responses: Option<InputResponses>,
    context: &RequestContext<RoleServer>,
) -> Confirmation {
    if let (Some(state), Some(mut responses)) = (state, responses) {
        if state != state_for(call) {
            return Confirmation::Refused(
                "this call brings an answer to a question this server did not put for it; \
                 call again without inputResponses"
                    .into(),
            );
        }
        let answer = responses
            .remove(CONFIRM)
            .and_then(|value| serde_json::from_value::<ElicitResult>(value).ok());
        return match answer {
            Some(result) if said_yes(&result) => Confirmation::Yes,
            _ => Confirmation::Refused(refusal(question)),
        };
    }
    let can_ask = context
        .client_capabilities()
        .is_some_and(|caps| caps.elicitation.is_some());
    if !can_ask {
        return Confirmation::Refused(format!(
            "this needs the person's yes (serve --confirm), and this client cannot ask one \
             (it offers no elicitation); ask the person to do it, or use a client that can \
             ask: {question}"
        ));
    }
    let params = match request(question) {
        Ok(params) => params,
        Err(why) => return Confirmation::Refused(why),
    };
    // From 2026-07-28 a server may not send requests of its own: it asks in
    // its result, and the client calls again with the answer.
    let in_results = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    if in_results {
        let ask = InputRequest::Elicitation(ElicitRequest::new(params));
        return Confirmation::AskInResult(InputRequiredResult::new(
            Some([(CONFIRM.to_string(), ask)].into_iter().collect()),
            Some(state_for(call)),
        ));
    }
    let asked = context
        .peer
        .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)));
    match tokio::time::timeout(ANSWER_WITHIN, asked).await {
        Ok(Ok(ClientResult::ElicitResult(result))) if said_yes(&result) => Confirmation::Yes,
        Ok(Ok(_)) => Confirmation::Refused(refusal(question)),
        Ok(Err(error)) => Confirmation::Refused(format!(
            "the person could not be asked ({error}): {question}"
        )),
        Err(_) => Confirmation::Refused(format!(
            "the person did not answer within {} s: {question}",
            ANSWER_WITHIN.as_secs()
        )),
    }
}

fn refusal(question: &str) -> String {
    format!("the person said no to: {question}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn asks(tool: &str, arguments: Value) -> Option<String> {
        question(tool, arguments.as_object().unwrap())
    }

    #[test]
    fn what_cannot_be_undone_is_asked_about_and_nothing_else() {
        let close = asks("close_window", json!({"window": "notes.txt - gedit"})).unwrap();
        assert!(
            close.contains("close the window 'notes.txt - gedit'"),
            "{close}"
        );
        assert!(asks("execute_browser_script", json!({"script": "1"})).is_some());
        for chord in [
            "ctrl+q",
            "Ctrl+Q",
            "alt+F4",
            "shift+ctrl+w",
            "Escape ctrl+q",
        ] {
            assert!(
                asks("press_key", json!({"key": chord})).is_some(),
                "{chord}"
            );
        }
        for chord in ["ctrl+s", "q", "alt+F5", "Delete", "ctrl+shift+s"] {
            assert_eq!(asks("press_key", json!({"key": chord})), None, "{chord}");
        }
        assert_eq!(
            asks("click_element", json!({"selector": "name:Quit"})),
            None
        );
        let said = asks("press_key", json!({"key": "ctrl+q", "app": "gedit"})).unwrap();
        assert!(
            said.contains("press ctrl+q in gedit's active window"),
            "{said}"
        );
    }

    #[test]
    fn an_answer_belongs_to_the_call_it_was_asked_for() {
        let close = r#"close_window {"window":"a"}"#;
        assert_eq!(state_for(close), state_for(close));
        assert_ne!(
            state_for(close),
            state_for(r#"close_window {"window":"b"}"#)
        );
    }

    #[test]
    fn only_an_accepted_yes_is_a_yes() {
        let result = |action, content: Option<Value>| {
            let mut result = ElicitResult::new(action);
            result.content = content;
            result
        };
        assert!(said_yes(&result(
            ElicitationAction::Accept,
            Some(json!({"confirm": true}))
        )));
        assert!(!said_yes(&result(
            ElicitationAction::Accept,
            Some(json!({"confirm": false}))
        )));
        assert!(!said_yes(&result(ElicitationAction::Accept, None)));
        assert!(!said_yes(&result(
            ElicitationAction::Decline,
            Some(json!({"confirm": true}))
        )));
        assert!(!said_yes(&result(ElicitationAction::Cancel, None)));
    }
}
