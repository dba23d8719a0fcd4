//! One accessible element as the engines report it, already normalised.

use crate::{Role, State, StateSet};

/// An element's identity: stable for the live object's lifetime, opaque to everyone but
/// the engine that made it (for AT-SPI: the bus name and object path).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElementId(pub String);

/// A rectangle in screen pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Bounds {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

impl Bounds {
    /// Builds bounds from raw extents, or `None` for the values toolkits use to mean
    /// "nowhere": `i32::MIN` positions (GTK3 closed menus, unmapped popovers), negative
    /// sizes, and the `-1,-1,-1,-1` of a page that is still loading.
    ///
    /// ```
    /// use axsight_core::Bounds;
    /// assert!(Bounds::from_extents(i32::MIN, i32::MIN, 0, 0).is_none());
    /// assert!(Bounds::from_extents(0, 0, i32::MAX, 10).is_none());
    /// assert_eq!(Bounds::from_extents(10, 20, 30, 40).unwrap().center(), (25, 40));
    /// ```
    pub fn from_extents(x: i32, y: i32, width: i32, height: i32) -> Option<Bounds> {
        // Far beyond any screen: also keeps `x + width` from overflowing.
        const FAR: u32 = 1 << 20;
        let garbage = width < 0
            || height < 0
            || x.unsigned_abs() > FAR
            || y.unsigned_abs() > FAR
            || width.unsigned_abs() > FAR
            || height.unsigned_abs() > FAR;
        let loading = (x, y, width, height) == (-1, -1, -1, -1);
        (!garbage && !loading).then_some(Bounds {
            x,
            y,
            width,
            height,
        })
    }

    /// Whether the rectangle covers at least one pixel.
    pub fn has_area(&self) -> bool {
        self.width > 0 && self.height > 0
    }

    /// How many pixels it covers (as `i64`: a product of two `i32`s).
    pub fn area(&self) -> i64 {
        i64::from(self.width) * i64::from(self.height)
    }

    /// The centre point, where a click aims.
    pub fn center(&self) -> (i32, i32) {
        (self.x + self.width / 2, self.y + self.height / 2)
    }

    /// The same rectangle moved by `(dx, dy)`.
    pub fn offset(&self, dx: i32, dy: i32) -> Bounds {
        Bounds {
            x: self.x + dx,
            y: self.y + dy,
            ..*self
        }
    }

    /// The pixels both rectangles cover, if any.
    ///
    /// ```
    /// use axsight_core::Bounds;
    /// let a = Bounds { x: 0, y: 0, width: 10, height: 10 };
    /// let b = Bounds { x: 5, y: 5, width: 10, height: 10 };
    /// assert_eq!(a.intersection(&b), Some(Bounds { x: 5, y: 5, width: 5, height: 5 }));
    /// assert_eq!(a.intersection(&a.offset(20, 0)), None);
    /// ```
    pub fn intersection(&self, other: &Bounds) -> Option<Bounds> {
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        let right = (self.x + self.width).min(other.x + other.width);
        let bottom = (self.y + self.height).min(other.y + other.height);
        (right > x && bottom > y).then_some(Bounds {
            x,
            y,
            width: right - x,
            height: bottom - y,
        })
    }

    /// The smallest rectangle holding both.
    ///
    /// ```
    /// use axsight_core::Bounds;
    /// let a = Bounds { x: 0, y: 0, width: 10, height: 10 };
    /// let b = Bounds { x: 20, y: 5, width: 10, height: 10 };
    /// assert_eq!(a.union(&b), Bounds { x: 0, y: 0, width: 30, height: 15 });
    /// ```
    pub fn union(&self, other: &Bounds) -> Bounds {
        let (x, y) = (self.x.min(other.x), self.y.min(other.y));
        let right = (self.x + self.width).max(other.x + other.width);
        let bottom = (self.y + self.height).max(other.y + other.height);
        Bounds {
            x,
            y,
            width: right - x,
            height: bottom - y,
        }
    }

    /// Whether the point lies inside the rectangle.
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x && x < self.x + self.width && y >= self.y && y < self.y + self.height
    }

    /// Whether `inner` lies inside the rectangle, give or take `slack` pixels
    /// on each side.
    ///
    /// ```
    /// use axsight_core::Bounds;
    /// let window = Bounds { x: 10, y: 10, width: 100, height: 50 };
    /// assert!(window.holds(&Bounds { x: 8, y: 20, width: 30, height: 10 }, 2));
    /// assert!(!window.holds(&Bounds { x: 8, y: 20, width: 30, height: 10 }, 1));
    /// ```
    pub fn holds(&self, inner: &Bounds, slack: i32) -> bool {
        inner.x >= self.x - slack
            && inner.y >= self.y - slack
            && inner.x + inner.width <= self.x + self.width + slack
            && inner.y + inner.height <= self.y + self.height + slack
    }

    /// Whether the two rectangles share at least one pixel.
    pub fn intersects(&self, other: &Bounds) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

/// An element of an accessibility tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub id: ElementId,
    pub role: Role,
    /// The toolkit's own role name (`push button`), kept for selectors and JSON.
    pub raw_role: String,
    pub name: String,
    pub description: String,
    /// The toolkit's stable identifier (AT-SPI `AccessibleId`), often empty.
    pub accessible_id: String,
    /// Text or numeric value, for editable and value-bearing elements. Never set for
    /// secret fields: engines must not read them, and formatting redacts them anyway.
    pub value: Option<String>,
    /// A field's placeholder (hint text shown while it is empty: `Search…`),
    /// kept apart from its value so that an empty field never reads as filled.
    /// Set only while the field is empty.
    pub hint: Option<String>,
    pub states: StateSet,
    pub bounds: Option<Bounds>,
    /// Whether the element holds a secret (a password field): its value is never
    /// kept, printed or matched.
    pub secret: bool,
    /// How many characters a secret holds, where the toolkit says (never its
    /// text): what tells a typed password arrived whole.
    pub secret_length: Option<usize>,
    /// Whether the element offers actions at all; known even when their names
    /// were not read.
    pub actionable: bool,
    /// The names of its actions, when they were read.
    pub actions: Vec<String>,
}

impl Element {
    /// A plain element with just an identity and a role; the rest empty.
    pub fn new(id: impl Into<String>, role: Role, raw_role: impl Into<String>) -> Element {
        Element {
            id: ElementId(id.into()),
            role,
            raw_role: raw_role.into(),
            name: String::new(),
            description: String::new(),
            accessible_id: String::new(),
            value: None,
            hint: None,
            states: StateSet::EMPTY,
            bounds: None,
            secret: false,
            secret_length: None,
            actionable: false,
            actions: Vec::new(),
        }
    }

    /// Whether the element is printed `disabled`: a control (by its actions,
    /// its focus or its role) that is neither enabled nor sensitive.
    pub fn is_disabled(&self) -> bool {
        crate::compact::is_disabled(self)
    }

    /// Whether the element holds a secret whose value must never be shown.
    pub fn is_secret(&self) -> bool {
        self.secret || self.raw_role == "password text"
    }

    /// Whether the element is drawn on screen: SHOWING, and not a zero-size box.
    pub fn is_shown(&self) -> bool {
        self.states.contains(State::Showing) && self.bounds.is_none_or(|b| b.has_area())
    }
}
