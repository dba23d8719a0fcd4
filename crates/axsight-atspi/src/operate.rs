//! Operations on one element through its accessible interfaces: actions, focus,
//! text, values, selection, scrolling into view.
//!
//! Every call here is held to a short deadline. An application may run a modal
//! dialog inside an action's call (GTK3 does), so an unanswered action is reported as
//! [`Performed::Unanswered`], never waited for; the reply, if it ever comes, is
//! dropped.

use std::time::Duration;

use axsight_core::{ElementId, Operation, Performed};
use zbus::zvariant::Value;
use zbus::Connection;

use crate::dbus::{self, Failure, ObjRef};
use crate::quirks::Quirks;
use crate::{Error, Result};

/// How long an action call may take before it counts as running a modal loop.
const ACTION_DEADLINE: Duration = Duration::from_millis(400);

const EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
const SELECTION: &str = "org.a11y.atspi.Selection";

/// `ATSPI_SCROLL_ANYWHERE`: scroll as little as needed to show the object.
const SCROLL_ANYWHERE: u32 = 6;

impl ObjRef {
    /// The object an element identity names (`:1.42/org/a11y/atspi/accessible/7`).
    pub fn from_element_id(id: &ElementId) -> Result<ObjRef> {
        let text = id.0.as_str();
        let bad = || Error::BadElement(text.to_string());
        let slash = text.find('/').ok_or_else(bad)?;
        let path = zbus::zvariant::OwnedObjectPath::try_from(&text[slash..]).map_err(|_| bad())?;
        Ok(ObjRef {
            bus: text[..slash].to_string(),
            path,
        })
    }
}

/// The live object the element `id` names: the object itself, or the cell now
/// at a big table's place (see [`ObjRef::cell_id`]).
pub(crate) async fn live_object(conn: &Connection, id: &ElementId) -> Result<ObjRef> {
    let Some((table, row, column)) = dbus::cell_place(id) else {
        return ObjRef::from_element_id(id);
    };
    let table = ObjRef::from_element_id(&table)?;
    let cell: ObjRef = call(conn, &table, dbus::TABLE, "GetAccessibleAt", (row, column)).await?;
    match cell.is_null() {
        true => Err(Error::ElementGone),
        false => Ok(cell),
    }
}

/// Does `operation` to the element `id`, in an app with `quirks`.
pub async fn perform(
    conn: &Connection,
    id: &ElementId,
    operation: &Operation,
    quirks: Quirks,
) -> Result<Performed> {
    let obj = live_object(conn, id).await?;
    match operation {
        Operation::Action(name) => do_action(conn, &obj, name, quirks.actions_by_index).await,
        Operation::Focus => {
            let focused: bool = call(conn, &obj, dbus::COMPONENT, "GrabFocus", ()).await?;
            done_if(focused, "take the keyboard focus")
        }
        Operation::SetText(text) => {
            let done: bool = call(
                conn,
                &obj,
                EDITABLE_TEXT,
                "SetTextContents",
                (text.as_str(),),
            )
            .await?;
            done_if(done, "take the text")
        }
        Operation::InsertText(text) => insert_text(conn, &obj, text, false).await,
        Operation::TypeOver(text) => insert_text(conn, &obj, text, true).await,
        Operation::SetValue(value) => set_value(conn, &obj, Change::To(*value)).await,
        Operation::AdjustValue(delta) => set_value(conn, &obj, Change::By(*delta)).await,
        Operation::SelectChild(index) => {
            let index = i32::try_from(*index).map_err(|_| Error::Refused {
                what: format!("select child {index}: no such child"),
            })?;
            let done: bool = call(conn, &obj, SELECTION, "SelectChild", (index,)).await?;
            done_if(done, "select that child")
        }
        Operation::ScrollIntoView => {
            let done: bool =
                call(conn, &obj, dbus::COMPONENT, "ScrollTo", (SCROLL_ANYWHERE,)).await?;
            done_if(done, "scroll itself into view")
        }
    }
}

/// Puts `text` in at the caret (else at the end), or, `over_selection`, the
/// way the keyboard would: over the selected text when there is some (it is
/// deleted and the text goes in where it began). The caret is left after it.
async fn insert_text(
    conn: &Connection,
    obj: &ObjRef,
    text: &str,
    over_selection: bool,
) -> Result<Performed> {
    let selection = match over_selection {
        true => selected_range(conn, obj).await,
        false => None,
    };
    let position = match selection {
        Some((start, end)) => {
            let deleted: bool = call(conn, obj, EDITABLE_TEXT, "DeleteText", (start, end)).await?;
            if !deleted {
                return done_if(false, "give up its selected text");
            }
            start
        }
        None => {
            let caret: i32 = dbus::property(conn, obj, dbus::TEXT, "CaretOffset")
                .await
                .unwrap_or(-1);
            if caret >= 0 {
                caret
            } else {
                dbus::property(conn, obj, dbus::TEXT, "CharacterCount")
                    .await
                    .unwrap_or(0)
            }
        }
    };
    // ATK counts the length in bytes of UTF-8, not in characters.
    let length = i32::try_from(text.len()).map_err(|_| Error::Refused {
        what: "take that much text at once".into(),
    })?;
    let done: bool = call(
        conn,
        obj,
        EDITABLE_TEXT,
        "InsertText",
        (position, text, length),
    )
    .await?;
    if done {
        // Offsets count characters. A toolkit that cannot move its caret keeps
        // the text all the same.
        let after = position.saturating_add(i32::try_from(text.chars().count()).unwrap_or(0));
        let _: std::result::Result<bool, _> =
            dbus::call(conn, obj, dbus::TEXT, "SetCaretOffset", (after,)).await;
    }
    done_if(done, "take the text")
}

/// The first selected range of a text, in characters, when something is selected.
async fn selected_range(conn: &Connection, obj: &ObjRef) -> Option<(i32, i32)> {
    let &(start, end) = crate::text_reading::selections(conn, obj).await.first()?;
    let (start, end) = (i32::try_from(start).ok()?, i32::try_from(end).ok()?);
    (end > start).then_some((start, end))
}

/// Runs the action called `name` (case-insensitively), without waiting long;
/// `one_by_one` as [`dbus::action_names`] takes it.
async fn do_action(
    conn: &Connection,
    obj: &ObjRef,
    name: &str,
    one_by_one: bool,
) -> Result<Performed> {
    let actions = dbus::action_names(conn, obj, one_by_one)
        .await
        .map_err(|error| call_error(error, "GetActions"))?;
    let index = actions
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name))
        .ok_or_else(|| Error::NoSuchAction {
            action: name.to_string(),
            available: actions.join(", "),
        })?;
    let call = dbus::call::<_, bool>(conn, obj, dbus::ACTION, "DoAction", (index as i32,));
    match tokio::time::timeout(ACTION_DEADLINE, call).await {
        Err(_) => Ok(Performed::Unanswered),
        Ok(Ok(done)) => done_if(done, &format!("do its '{name}' action")),
        Ok(Err(error)) => Err(call_error(error, "DoAction")),
    }
}

/// A new value: absolute, or relative to the current one.
#[derive(Debug, Clone, Copy)]
enum Change {
    To(f64),
    By(f64),
}

/// Sets a Value element. An absolute value outside the range is refused (toolkits
/// clamp or ignore it silently); a relative move stops at the range's ends.
async fn set_value(conn: &Connection, obj: &ObjRef, change: Change) -> Result<Performed> {
    let read = |name: &'static str| dbus::property::<f64>(conn, obj, dbus::VALUE, name);
    let (min, max, current) = tokio::time::timeout(
        dbus::CALL_TIMEOUT,
        futures_util::future::join3(
            read("MinimumValue"),
            read("MaximumValue"),
            read("CurrentValue"),
        ),
    )
    .await
    .map_err(|_| Error::NotAnswering)?;
    let (min, max, current) = match (min, max, current) {
        (Ok(min), Ok(max), Ok(current)) => (min, max, current),
        (Err(error), _, _) | (_, Err(error), _) | (_, _, Err(error)) => {
            return Err(match dbus::failure_kind(&error) {
                Failure::ObjectGone if is_missing_interface(&error) => Error::Unsupported {
                    interface: "Value".into(),
                },
                _ => call_error(error, "Value"),
            })
        }
    };
    if !(min.is_finite() && max.is_finite() && current.is_finite()) {
        return Err(Error::Refused {
            what: "take a value: it reports no usable range".into(),
        });
    }
    let value = match change {
        Change::To(value) => value,
        Change::By(delta) => (current + delta).clamp(min, max.max(min)),
    };
    if !(min..=max).contains(&value) {
        return Err(Error::Refused {
            what: format!(
                "set the value {}: it must lie between {} and {}",
                crate::walk::format_number(value),
                crate::walk::format_number(min),
                crate::walk::format_number(max)
            ),
        });
    }
    let set = dbus::call::<_, ()>(
        conn,
        obj,
        dbus::PROPERTIES,
        "Set",
        (dbus::VALUE, "CurrentValue", Value::from(value)),
    );
    tokio::time::timeout(dbus::CALL_TIMEOUT, set)
        .await
        .map_err(|_| Error::NotAnswering)?
        .map_err(|error| call_error(error, "Set CurrentValue"))?;
    Ok(Performed::Done)
}

/// One call with the per-call deadline, its failure worded for the agent.
pub(crate) async fn call<B, R>(
    conn: &Connection,
    obj: &ObjRef,
    iface: &'static str,
    method: &'static str,
    body: B,
) -> Result<R>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
    R: serde::de::DeserializeOwned + zbus::zvariant::Type,
{
    tokio::time::timeout(
        dbus::CALL_TIMEOUT,
        dbus::call(conn, obj, iface, method, body),
    )
    .await
    .map_err(|_| Error::NotAnswering)?
    .map_err(|error| match dbus::failure_kind(&error) {
        Failure::ObjectGone if is_missing_interface(&error) => Error::Unsupported {
            interface: iface.rsplit('.').next().unwrap_or(iface).to_string(),
        },
        _ => call_error(error, method),
    })
}

fn is_missing_interface(error: &zbus::Error) -> bool {
    matches!(error, zbus::Error::MethodError(name, _, _)
        if matches!(name.as_str(), "org.freedesktop.DBus.Error.UnknownMethod" | "org.freedesktop.DBus.Error.UnknownInterface"))
}

fn call_error(error: zbus::Error, method: &'static str) -> Error {
    match dbus::failure_kind(&error) {
        Failure::PeerGone | Failure::ObjectGone => Error::ElementGone,
        Failure::NoReply => Error::NotAnswering,
        Failure::Other => Error::Call {
            method,
            source: Box::new(error),
        },
    }
}

fn done_if(done: bool, what: &str) -> Result<Performed> {
    if done {
        Ok(Performed::Done)
    } else {
        Err(Error::Refused {
            what: what.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_ids_name_their_object() {
        let id = ElementId(":1.42/org/a11y/atspi/accessible/7".into());
        let obj = ObjRef::from_element_id(&id).unwrap();
        assert_eq!(obj.bus, ":1.42");
        assert_eq!(obj.path.as_str(), "/org/a11y/atspi/accessible/7");
        assert_eq!(obj.element_id(), id);
        assert!(ObjRef::from_element_id(&ElementId("no-path".into())).is_err());
        assert!(ObjRef::from_element_id(&ElementId(":1.2/bad path".into())).is_err());
    }

    #[test]
    fn a_cell_is_named_by_its_table_and_place() {
        let table = ObjRef::new(":1.42", "/org/a11y/atspi/accessible/7");
        let id = table.cell_id(3, 2);
        assert_eq!(id.0, ":1.42/org/a11y/atspi/accessible/7#3,2");
        assert_eq!(dbus::cell_place(&id), Some((table.element_id(), 3, 2)));
        // Not an object path: never taken for one.
        assert!(ObjRef::from_element_id(&id).is_err());
        assert_eq!(dbus::cell_place(&table.element_id()), None);
        assert_eq!(dbus::cell_place(&ElementId(":1.4/a#x,2".into())), None);
    }
}
