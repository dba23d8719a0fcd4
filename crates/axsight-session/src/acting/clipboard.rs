//! `clipboard`: the clipboard's text read, or set from text or from an element's
//! value, so that a value goes from one app to another without being typed.
//! What was copied out of a password field is never shown.

use axsight_core::{quote_whole, Engine, Key, KeyChord, Modifier};

use super::Session;
use crate::target::Target;
use crate::ToolError;

/// What `clipboard` is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum ClipboardRequest {
    /// Say what it holds.
    Read,
    /// Hold this text.
    Set(String),
    /// Hold the value (else the name) of the element this target names.
    CopyFrom(Target),
}

impl<E: Engine> Session<E> {
    /// `clipboard`: reads or sets the clipboard's text.
    pub async fn clipboard(&self, request: &ClipboardRequest) -> Result<String, ToolError> {
        self.recover(self.do_clipboard(request).await).await
    }

    async fn do_clipboard(&self, request: &ClipboardRequest) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        match request {
            ClipboardRequest::Read => {
                let held = engine.clipboard_text().await.map_err(ToolError::engine)?;
                let Some(held) = held else {
                    return Ok("the clipboard holds no text\n".into());
                };
                if self.secret_clipboard_owner() == Some(held.owner) {
                    return Ok(
                        "the clipboard holds what was copied out of a password field: it is \
                               not shown (paste it with ctrl+v where it belongs)\n"
                            .into(),
                    );
                }
                Ok(format!(
                    "the clipboard holds {} characters: {}\n",
                    held.text.chars().count(),
                    quote_whole(&held.text)
                ))
            }
            ClipboardRequest::Set(text) => {
                engine
                    .set_clipboard_text(text.clone())
                    .await
                    .map_err(ToolError::engine)?;
                Ok(format!(
                    "the clipboard holds {} characters now: {}; paste with ctrl+v\n",
                    text.chars().count(),
                    quote_whole(text)
                ))
            }
            ClipboardRequest::CopyFrom(target) => {
                let aimed = self.aim(&engine, target).await?;
                let name = self.describe(&aimed);
                let element = aimed.required_element(&name, " to copy from")?;
                if element.is_secret() {
                    return Err(ToolError::CannotAct(format!(
                        "{name} is a password field: its text is never read, so it cannot be copied this way"
                    )));
                }
                let text = element
                    .value
                    .clone()
                    .filter(|v| !v.is_empty())
                    .unwrap_or_else(|| element.name.clone());
                if text.is_empty() {
                    return Err(ToolError::CannotAct(format!(
                        "{name} has neither a value nor a name to copy"
                    )));
                }
                engine
                    .set_clipboard_text(text.clone())
                    .await
                    .map_err(ToolError::engine)?;
                Ok(format!(
                    "copied {} from {name}: the clipboard holds {} characters now; paste with ctrl+v\n",
                    quote_whole(&text),
                    text.chars().count()
                ))
            }
        }
    }

    /// After keys that copied or cut in a password field, and the clipboard
    /// changed: whoever holds it now holds a secret, never to be shown.
    pub(crate) async fn note_secret_copy(&self, engine: &E, chords: &[KeyChord]) {
        if !chords.iter().any(is_copy) {
            return;
        }
        if let Ok(Some(owner)) = engine.clipboard_owner().await {
            *self
                .secret_clipboard
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(owner);
        }
    }

    /// Before keys that copy or cut: what the clipboard holds (its holder and
    /// text), to tell after them whether the copy took. `None` for other keys.
    pub(crate) async fn clipboard_before_copy(
        &self,
        engine: &E,
        chords: &[KeyChord],
    ) -> Option<Option<(u32, String)>> {
        if !chords.iter().any(is_copy) {
            return None;
        }
        let held = engine.clipboard_text().await.ok().flatten();
        Some(held.map(|held| (held.owner, held.text)))
    }

    /// The check line after keys that copy or cut: how many characters the
    /// clipboard holds now, or that it holds what it held before (nothing was
    /// selected, or a password field that lets nothing out); and whether it
    /// changed (where it cannot be read, it may have). A copy out of a
    /// password field is counted, never shown.
    pub(crate) async fn clipboard_after_copy(
        &self,
        engine: &E,
        before: Option<(u32, String)>,
        copier: Option<&str>,
        secret: bool,
    ) -> (String, bool) {
        let held = match engine.clipboard_text().await {
            Ok(held) => held,
            Err(error) => {
                return (
                    format!("check: the clipboard could not be read ({error})"),
                    true,
                )
            }
        };
        let Some(held) = held else {
            return (
                "check: the clipboard holds no text: nothing was copied".into(),
                false,
            );
        };
        let count = held.text.chars().count();
        let tail = match secret {
            true => "copied out of a password field: they are not shown",
            false => "the clipboard tool reads them",
        };
        match before == Some((held.owner, held.text)) {
            true => (
                format!(
                    "check: the clipboard holds the same {count} characters as before: nothing new was copied (was anything selected?)"
                ),
                false,
            ),
            false => {
                let from = copier.map(|app| format!(" from {app}")).unwrap_or_default();
                (
                    format!("check: the clipboard holds {count} characters{from} now, {tail}"),
                    true,
                )
            }
        }
    }

    fn secret_clipboard_owner(&self) -> Option<u32> {
        *self
            .secret_clipboard
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// Whether a chord copies or cuts: ctrl+c, ctrl+x, ctrl+Insert, shift+Delete.
fn is_copy(chord: &KeyChord) -> bool {
    let ctrl = chord.modifiers.contains(&Modifier::Ctrl);
    let shift = chord.modifiers.contains(&Modifier::Shift);
    match chord.key {
        Key::Char(c) => ctrl && matches!(c.to_ascii_lowercase(), 'c' | 'x'),
        Key::Named(name) => (ctrl && name == "Insert") || (shift && name == "Delete"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::parse_keys;

    #[test]
    fn copying_chords_are_known() {
        for keys in ["ctrl+c", "ctrl+C", "ctrl+x", "ctrl+Insert", "shift+Delete"] {
            let chords = parse_keys(keys).unwrap();
            assert!(is_copy(&chords[0]), "{keys}");
        }
        for keys in ["c", "ctrl+v", "shift+c", "Delete", "ctrl+Delete"] {
            let chords = parse_keys(keys).unwrap();
            assert!(!is_copy(&chords[0]), "{keys}");
        }
    }
}
