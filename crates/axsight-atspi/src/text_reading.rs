//! Reading one element's text with its formatting, caret and selection
//! (AT-SPI's Text: `GetAttributeRun`, `GetDefaultAttributes`, `CaretOffset`,
//! `GetSelection`). A secret field's text, and a terminal's, are never read.
//!
//! Every call is held to the per-call deadline; a run walk stops at
//! [`TextDetail::MOST_READ`] characters, so a long document costs a bounded
//! number of calls.

use axsight_core::{Attributes, ElementId, TextDetail, TextRun};
use zbus::Connection;

use crate::dbus::{self, ObjRef};
use crate::operate::{call, live_object};
use crate::walk::PASSWORD_TEXT;
use crate::Result;

/// AT-SPI role number of `terminal`, whose text is not read here (its
/// scrollback: the tree prints its screen), as a secret's never is.
const TERMINAL: u32 = 60;

/// The text of element `id`: its content, caret, selection and, with `runs`,
/// its formatting run by run (else only at the caret). `None` for an element
/// without a Text interface, a secret or a terminal.
pub async fn text_detail(
    conn: &Connection,
    id: &ElementId,
    runs: bool,
) -> Result<Option<TextDetail>> {
    let obj = live_object(conn, id).await?;
    let role: u32 = call(conn, &obj, dbus::ACCESSIBLE, "GetRole", ()).await?;
    if matches!(role, PASSWORD_TEXT | TERMINAL) {
        return Ok(None);
    }
    let length = match dbus::property::<i32>(conn, &obj, dbus::TEXT, "CharacterCount").await {
        Ok(count) => usize::try_from(count).unwrap_or(0),
        // No Text interface: nothing to say.
        Err(_) => return Ok(None),
    };
    let read = length.min(TextDetail::MOST_READ);
    let end = i32::try_from(read).unwrap_or(i32::MAX);
    let (text, defaults, caret, selections) = futures_util::join!(
        // Qt and Gecko answer an end past the text with nothing, GTK 4.8 an
        // end of -1 likewise: the end is always the count.
        call::<_, String>(conn, &obj, dbus::TEXT, "GetText", (0i32, end)),
        call::<_, Attributes>(conn, &obj, dbus::TEXT, "GetDefaultAttributes", ()),
        dbus::property::<i32>(conn, &obj, dbus::TEXT, "CaretOffset"),
        selections(conn, &obj),
    );
    let text = text?;
    let caret = caret
        .ok()
        .and_then(|c| usize::try_from(c).ok())
        .filter(|&c| c <= length);
    let mut detail = TextDetail {
        text,
        length,
        defaults: defaults.unwrap_or_default(),
        caret,
        selections,
        ..TextDetail::default()
    };
    if runs {
        detail.runs = attribute_runs(conn, &obj, read).await?;
    } else {
        // Typing continues the character before the caret (as LibreOffice's
        // toolbar shows it), or at the start the one after.
        let at_caret = async {
            let caret = caret?;
            let at = i32::try_from(caret.saturating_sub(1)).unwrap_or(i32::MAX);
            run_at(conn, &obj, at).await.ok().map(|(a, _, _)| a)
        };
        let in_selection = async {
            let &(start, end) = detail.selections.iter().find(|(s, e)| e > s)?;
            let at = i32::try_from(start).unwrap_or(i32::MAX);
            let (attributes, _, run_end) = run_at(conn, &obj, at).await.ok()?;
            let whole = usize::try_from(run_end).is_ok_and(|run_end| run_end >= end);
            Some((attributes, whole))
        };
        let (at_caret, in_selection) = futures_util::join!(at_caret, in_selection);
        detail.at_caret = at_caret;
        detail.in_selection = in_selection;
    }
    Ok(Some(detail))
}

/// The runs from offset 0 up to `end`, each with its own attributes (beyond
/// the element's defaults).
async fn attribute_runs(conn: &Connection, obj: &ObjRef, end: usize) -> Result<Vec<TextRun>> {
    let mut runs = Vec::new();
    let mut offset = 0usize;
    while offset < end {
        let at = i32::try_from(offset).unwrap_or(i32::MAX);
        let (attributes, start, stop) = run_at(conn, obj, at).await?;
        let (start, stop) = (
            usize::try_from(start).unwrap_or(offset),
            usize::try_from(stop).unwrap_or(0),
        );
        // A run that does not move forward would loop for ever: one character.
        let stop = stop.max(offset + 1).min(end);
        runs.push(TextRun {
            start: start.min(offset),
            end: stop,
            attributes,
        });
        offset = stop;
    }
    Ok(runs)
}

/// The run at `offset`: its own attributes, start and end.
async fn run_at(conn: &Connection, obj: &ObjRef, offset: i32) -> Result<(Attributes, i32, i32)> {
    call(conn, obj, dbus::TEXT, "GetAttributeRun", (offset, false)).await
}

/// The selected stretches of `obj`'s text, start before end.
pub(crate) async fn selections(conn: &Connection, obj: &ObjRef) -> Vec<(usize, usize)> {
    let Ok(count) = dbus::call::<_, i32>(conn, obj, dbus::TEXT, "GetNSelections", ()).await else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for index in 0..count.clamp(0, 16) {
        let Ok((a, b)) =
            dbus::call::<_, (i32, i32)>(conn, obj, dbus::TEXT, "GetSelection", (index,)).await
        else {
            continue;
        };
        if let (Ok(start), Ok(end)) = (usize::try_from(a.min(b)), usize::try_from(a.max(b))) {
            out.push((start, end));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::roles::role_name;

    #[test]
    fn the_roles_never_read_are_the_ones_named() {
        assert_eq!(role_name(crate::walk::PASSWORD_TEXT), "password text");
        assert_eq!(role_name(super::TERMINAL), "terminal");
    }
}
