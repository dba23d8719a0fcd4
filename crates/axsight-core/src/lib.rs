//! The platform-free heart of axsight: the element model, role normalisation, handles,
//! the selector language, and the compact text format of a tree.
//!
//! This crate does no I/O: it knows nothing of D-Bus, X11, MCP or files, so everything
//! in it is tested on plain data. Engines (such as `axsight-linux`) build [`Tree`]s;
//! the MCP server and the CLI format them and resolve handles and selectors here.

mod aim;
mod capture;
mod compact;
mod describe;
mod desktop;
mod diff;
mod element;
mod engine;
mod handle;
mod heal;
mod input;
mod json;
mod look;
mod operation;
mod pixel_change;
mod quoting;
mod role;
mod selector;
mod silent;
mod spotted;
mod state;
mod tree;

pub use aim::{click_action, clickable_point, element_at, visible_box};
pub use capture::Capture;
pub use compact::{
    element_head, folds_away, format_element, render, render_with, CompactOptions, InlineLines,
    Rendered,
};
pub use describe::{describe_scores, Scored};
pub use desktop::{format_applications, Application, Window, WindowSnapshot};
pub use diff::{diff, render_diff, Changed, FieldChange, TreeDiff, WindowChange};
pub use element::{Bounds, Element, ElementId};
pub use engine::{
    ChangeWitness, ClipboardText, ConnectOptions, Engine, EngineError, FailureKind, Launched,
    Placement, ReadOptions, WindowQuery,
};
pub use handle::{Handle, HandleEntry, HandleParseError, HandleRegistry, Resolved, Source};
pub use heal::{fingerprints, refind, Fingerprint, Refound};
pub use input::{
    parse_keys, split_trailing_keys, Input, Key, KeyChord, KeyError, Modifier, MouseButton, Point,
    ScrollDirection,
};
pub use json::{to_json, JsonElement};
pub use look::Look;
pub use operation::{EventMark, Expecting, Operation, Performed, SettleEnd, SettlePolicy, Settled};
pub use pixel_change::{changed_regions, text_run, JOIN_GAP, MIN_STEP};
pub use quoting::{bare, bare_at_most, cut, quote, quote_at_most, quote_whole, MAX_TEXT};
pub use role::Role;
pub use selector::{Atom, Expr, MatchContext, RoleMatch, Selector, SelectorError, Step};
pub use silent::{is_silent_surface, silent_surfaces, MIN_SURFACE};
pub use spotted::{Spotted, SpottedError, SpottedRegistry};
pub use state::{State, StateSet};
pub use tree::{Node, NodeId, Tree};
