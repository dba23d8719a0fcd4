//! The portals' request pattern: a method answers at once with a request
//! object, and its result comes later as that object's `Response` signal,
//! perhaps after the user answered a dialog. The signal is subscribed to before
//! the call (its path follows from the `handle_token` picked here), so no
//! answer is missed; one that does not come in time closes the request, which
//! takes its dialog down.

use std::collections::HashMap;
use std::time::Duration;

use futures_util::StreamExt;
use zbus::blocking::Connection;
use zbus::zvariant::{OwnedValue, Value};

use crate::{Error, Result};

/// The portal frontend's name and object.
pub const DESKTOP: &str = "org.freedesktop.portal.Desktop";
pub const DESKTOP_PATH: &str = "/org/freedesktop/portal/desktop";

/// A request's options (`a{sv}`); `handle_token` is added here.
pub type Options<'a> = HashMap<&'static str, Value<'a>>;

/// What a request's `Response` carried.
pub type Results = HashMap<String, OwnedValue>;

/// Calls `interface.method` of the portal with the body `body` makes of the
/// options (`options` and a fresh `handle_token`), and waits within `deadline`
/// for the response. Must run on a blocking thread of the tokio runtime the
/// connection lives on (the screen's threads are).
pub fn request<'a, B>(
    bus: &Connection,
    interface: &str,
    method: &str,
    mut options: Options<'a>,
    body: impl FnOnce(Options<'a>) -> B,
    deadline: Duration,
) -> Result<Results>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    let failed = |e: &dyn std::fmt::Display| Error::Wayland(format!("{interface}.{method}: {e}"));
    let sender = bus
        .unique_name()
        .ok_or_else(|| failed(&"the session bus gave no name"))?;
    let token = next_token();
    let path = request_path(sender.as_str(), &token);
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface("org.freedesktop.portal.Request")
        .and_then(|rule| rule.member("Response"))
        .and_then(|rule| rule.path(path.as_str()))
        .map_err(|e| failed(&e))?
        .build();
    options.insert("handle_token", Value::from(token.clone()));
    let message_body = body(options);
    let runtime = tokio::runtime::Handle::try_current().map_err(|e| failed(&e))?;
    let connection = bus.inner();
    runtime.block_on(async {
        let mut responses = zbus::MessageStream::for_match_rule(rule, connection, Some(4))
            .await
            .map_err(|e| failed(&e))?;
        connection
            .call_method(
                Some(DESKTOP),
                DESKTOP_PATH,
                Some(interface),
                method,
                &message_body,
            )
            .await
            .map_err(|e| failed(&e))?;
        let response = match tokio::time::timeout(deadline, responses.next()).await {
            Ok(Some(Ok(message))) => message,
            Ok(Some(Err(e))) => return Err(failed(&e)),
            Ok(None) => return Err(failed(&"the session bus closed")),
            Err(_) => {
                let _ = connection
                    .call_method(
                        Some(DESKTOP),
                        path.as_str(),
                        Some("org.freedesktop.portal.Request"),
                        "Close",
                        &(),
                    )
                    .await;
                return Err(Error::Wayland(format!(
                    "the desktop did not answer {interface}.{method} within {} s: it may be \
                     asking whether to allow axsight; allow it and try again",
                    deadline.as_secs()
                )));
            }
        };
        let (code, results): (u32, Results) =
            response.body().deserialize().map_err(|e| failed(&e))?;
        match code {
            0 => Ok(results),
            1 => Err(Error::Wayland(format!(
                "{interface}.{method} was refused (the dialog was cancelled or denied)"
            ))),
            _ => Err(Error::Wayland(format!(
                "{interface}.{method} failed in the desktop's portal"
            ))),
        }
    })
}

/// The path of the request that `handle_token` `token` names, for the caller
/// with unique name `sender`.
///
/// ```text
/// request_path(":1.42", "axsight7") == "/org/freedesktop/portal/desktop/request/1_42/axsight7"
/// ```
fn request_path(sender: &str, token: &str) -> String {
    let sender = sender.trim_start_matches(':').replace('.', "_");
    format!("{DESKTOP_PATH}/request/{sender}/{token}")
}

/// A token no other request of this process has used.
pub fn next_token() -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("axsight{}_{n}", std::process::id())
}

/// A property of the portal frontend's object, `None` when the portal lacks
/// the interface.
pub fn property<T>(bus: &Connection, interface: &str, name: &str) -> Option<T>
where
    T: TryFrom<OwnedValue>,
{
    let value: OwnedValue = crate::screen::session_bus::call(
        bus,
        DESKTOP,
        DESKTOP_PATH,
        "org.freedesktop.DBus.Properties",
        "Get",
        &(interface, name),
    )
    .ok()?;
    T::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_path_is_made_of_the_sender_and_the_token() {
        assert_eq!(
            request_path(":1.42", "axsight7_0"),
            "/org/freedesktop/portal/desktop/request/1_42/axsight7_0"
        );
        assert_ne!(next_token(), next_token());
    }
}
