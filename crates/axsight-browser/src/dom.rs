//! The page's elements an agent can act on or read, read with one script run
//! in the page, and where one of them is now.
//!
//! Boxes come in CSS pixels of the top viewport; [`to_screen`] puts them on
//! the screen from where the page's document sits (its AT-SPI box) and the
//! device pixel ratio (which carries the page zoom).
//!
//! # Reading the page
//!
//! **Reading the page** (`dom.rs`, `dom/collect.js`). One `Runtime.evaluate` of
//! `collect.js` per read, its result returned by value:
//!
//! - It walks `querySelectorAll('*')` of the document, into open shadow roots and
//!   into frames whose `contentDocument` it may read (same-origin), adding the frame's
//!   box and border so every box is in CSS pixels of the top viewport. A cross-origin
//!   frame has no readable document and is skipped.
//! - It keeps elements with an interactive role, and elements with a role or text of
//!   their own that have a name. It skips boxes under 1×1 px and `display: none`,
//!   `visibility: hidden`, `opacity: 0`; it counts in `more` those outside the
//!   viewport and those past the budget (300, set by `sources/dom.rs`).
//! - Role, name (`aria-labelledby`, `aria-label`, labels, `alt`, an input button's
//!   value, a field's `title`, the text), value (200 characters), placeholder, checked,
//!   disabled and frame depth; a password input is marked `secret` and its value is
//!   never read. It also returns `devicePixelRatio`, the address and the title.
//! - Numbers: `window.__axsight` holds a `WeakMap` from element to number, a map from
//!   number to `WeakRef`, and a key drawn at random (32 bits) for the document; a
//!   number is key × 10⁶ + a counter. A new document has a new `window`, hence a new
//!   key, so no number passes to a later document's element. `locate.js` finds a
//!   number's element (`deref`, `isConnected`) and its box now, through the frames
//!   that hold it, or answers `null`.

use axsight_core::Bounds;
use serde_json::{json, Value};

use crate::{BrowserError, Page};

const COLLECT: &str = include_str!("dom/collect.js");
const LOCATE: &str = include_str!("dom/locate.js");
/// Run in every new document before the page's scripts: notes the elements that
/// get click listeners, for `collect.js`.
pub(crate) const LISTENERS: &str = include_str!("dom/listeners.js");

/// One element of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct DomElement {
    /// Its number in its page: the same while the element lives.
    pub id: u64,
    /// ARIA role, explicit or implied by the tag (`button`, `link`, `textbox`…).
    pub role: String,
    /// Its accessible name, roughly as a browser computes it.
    pub name: String,
    /// What a field holds (never a password field's).
    pub value: Option<String>,
    pub placeholder: Option<String>,
    /// A password field.
    pub secret: bool,
    pub checked: Option<bool>,
    pub disabled: bool,
    /// Clickable by what the page does with it (a handler, a listener, a
    /// tabindex, a pointer cursor), not by its tag or role.
    pub clickable: bool,
    /// CSS pixels of the top viewport.
    pub rect: CssRect,
    /// 0 in the top document, 1 inside a frame, and so on.
    pub frame: u32,
}

/// A box in CSS pixels of the top viewport.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CssRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// What one read of a page found.
#[derive(Debug, Clone, PartialEq)]
pub struct DomSnapshot {
    pub elements: Vec<DomElement>,
    /// Elements left out: outside the viewport, or past the budget.
    pub more: usize,
    /// Device pixels per CSS pixel (page zoom included).
    pub device_pixel_ratio: f64,
    pub url: String,
    pub title: String,
}

impl Page {
    /// Reads the page's elements, at most `budget` of them.
    pub async fn read_dom(&self, budget: usize) -> Result<DomSnapshot, BrowserError> {
        let value = self.call_function(COLLECT, json!([budget])).await?;
        parse_snapshot(&value)
    }

    /// Where element `id` is now, or `None` when it is gone.
    pub async fn locate(&self, id: u64) -> Result<Option<(CssRect, f64)>, BrowserError> {
        let value = self.call_function(LOCATE, json!([id])).await?;
        if value.is_null() {
            return Ok(None);
        }
        let rect = rect_of(&value).ok_or_else(|| malformed("a located box"))?;
        let ratio = value["dpr"].as_f64().unwrap_or(1.0);
        Ok(Some((rect, ratio)))
    }
}

/// A box of the page on the screen, for a document whose viewport's top-left
/// corner is at `origin` (screen pixels) and `ratio` device pixels per CSS pixel.
///
/// ```
/// use axsight_browser::{to_screen, CssRect};
/// use axsight_core::{Bounds, Point};
/// let rect = CssRect { x: 100.0, y: 50.0, width: 120.0, height: 40.0 };
/// let b = to_screen(rect, Point { x: 10, y: 153 }, 1.5);
/// assert_eq!(b, Bounds { x: 160, y: 228, width: 180, height: 60 });
/// ```
pub fn to_screen(rect: CssRect, origin: axsight_core::Point, ratio: f64) -> Bounds {
    let x = (rect.x * ratio).round() as i32;
    let y = (rect.y * ratio).round() as i32;
    let right = ((rect.x + rect.width) * ratio).round() as i32;
    let bottom = ((rect.y + rect.height) * ratio).round() as i32;
    Bounds {
        x: origin.x + x,
        y: origin.y + y,
        width: (right - x).max(1),
        height: (bottom - y).max(1),
    }
}

fn malformed(what: &str) -> BrowserError {
    BrowserError::Protocol {
        method: "Runtime.callFunctionOn".into(),
        error: format!("the page's script gave back {what} in an unknown shape"),
    }
}

fn rect_of(value: &Value) -> Option<CssRect> {
    Some(CssRect {
        x: value["x"].as_f64()?,
        y: value["y"].as_f64()?,
        width: value["width"].as_f64()?,
        height: value["height"].as_f64()?,
    })
}

fn parse_snapshot(value: &Value) -> Result<DomSnapshot, BrowserError> {
    let list = value["elements"]
        .as_array()
        .ok_or_else(|| malformed("a list of elements"))?;
    let text = |v: &Value| v.as_str().map(str::to_string);
    let elements = list
        .iter()
        .filter_map(|item| {
            Some(DomElement {
                id: item["id"].as_u64()?,
                role: text(&item["role"])?,
                name: text(&item["name"]).unwrap_or_default(),
                value: text(&item["value"]),
                placeholder: text(&item["placeholder"]),
                secret: item["secret"].as_bool().unwrap_or(false),
                checked: item["checked"].as_bool(),
                disabled: item["disabled"].as_bool().unwrap_or(false),
                clickable: item["clickable"].as_bool().unwrap_or(false),
                rect: rect_of(item)?,
                frame: item["frame"].as_u64().unwrap_or(0) as u32,
            })
        })
        .collect();
    Ok(DomSnapshot {
        elements,
        more: value["more"].as_u64().unwrap_or(0) as usize,
        device_pixel_ratio: value["dpr"].as_f64().filter(|r| *r > 0.0).unwrap_or(1.0),
        url: text(&value["url"]).unwrap_or_default(),
        title: text(&value["title"]).unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_is_read_and_bad_items_skipped() {
        let value = json!({
            "elements": [
                {"id": 3, "role": "button", "name": "Go", "x": 10.5, "y": 20, "width": 40, "height": 20, "frame": 0},
                {"id": 4, "role": "textbox", "name": "Password", "secret": true, "x": 0, "y": 0, "width": 100, "height": 20},
                {"role": "button", "x": 0, "y": 0, "width": 1, "height": 1}
            ],
            "more": 2, "dpr": 1.25, "url": "file:///x.html", "title": "X"
        });
        let snapshot = parse_snapshot(&value).unwrap();
        assert_eq!(snapshot.elements.len(), 2);
        assert_eq!(snapshot.elements[0].rect.x, 10.5);
        assert!(snapshot.elements[1].secret && snapshot.elements[1].value.is_none());
        assert_eq!((snapshot.more, snapshot.device_pixel_ratio), (2, 1.25));
        assert!(parse_snapshot(&json!({"nothing": 1})).is_err());
    }

    #[test]
    fn boxes_scale_with_the_pixel_ratio_from_the_documents_corner() {
        let rect = CssRect {
            x: 0.4,
            y: 0.0,
            width: 10.0,
            height: 10.0,
        };
        let b = to_screen(rect, axsight_core::Point { x: 0, y: 0 }, 2.0);
        assert_eq!((b.x, b.width), (1, 20));
    }
}
