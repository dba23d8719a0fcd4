//! The platform-free heart of axsight: the element model, role normalisation, handles,
//! the selector language, and the compact text format of a tree.
//!
//! This crate does no I/O: it knows nothing of D-Bus, X11, MCP or files, so everything
//! in it is tested on plain data. Engines (such as `axsight-linux`) build [`Tree`]s;
//! the MCP server and the CLI format them and resolve handles and selectors here.
//!
//! # The `Engine` trait
//!
//! `Engine` (in `axsight-core/src/engine.rs`) is what a Windows or macOS backend would
//! implement:
//!
//! - reading: `connect`, `check_alive` (a readiness probe's question: the
//!   registry's ping and an X round trip), `applications`, `window_tree`,
//!   `window_trees`;
//! - acting: `perform` (an `Operation` through the element's accessible interfaces:
//!   run an action, take the focus, set or insert text, set or adjust a value, select
//!   a child, scroll into view; never waiting long for the app's answer), `send_input`
//!   (an `Input`: click, wheel, drag, key chords, text, in screen pixels),
//!   `input_reaches_each` (would pointer input at each of some points land in this
//!   window; `input_reaches` for one),
//!   `activate_window`, `close_window`, `launch`;
//! - capturing: `capture` (the screen's pixels in a region, cut to the screen, or the
//!   whole screen, as a `Capture`);
//! - settling: `mark` (a place in the event stream), `settle`, `next_event`;
//! - watching: `watch_input` (a person's clicks and keys, as [`ObservedInput`], for
//!   recordings; an engine that cannot see them says why).
//!
//! A recording's steps are folded here too, on plain data ([`Recording`]): what a
//! person did, written as the tool calls an agent would make, aimed by selectors
//! that find each element again ([`selector_for`]).
//!
//! An engine's error carries a `FailureKind` (window gone, app gone, element gone, not
//! answering, connection lost, other) so the session can turn it into a stale-handle
//! answer, a plain "not answering", or a reconnect, without knowing the engine's own
//! error type.
//!
//! The CLI and the server share `Session`, so `axsight tree` formats a window the way
//! an agent gets it, and `axsight click` answers as `click_element` does. The reading

mod aim;
mod app_scope;
mod capture;
mod command_line;
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
mod recording;
mod role;
mod screen_mapping;
mod selector;
mod silent;
mod spotted;
mod state;
pub mod terminal;
mod text_detail;
mod tree;

pub use aim::{click_action, clickable_point, element_at, visible_box};
pub use app_scope::AppScope;
pub use capture::Capture;
pub use command_line::{join_command, split_command, split_exec, CommandLineError};
pub use compact::{
    element_head, folds_away, format_element, render, render_with, CompactOptions, InlineLines,
    Rendered,
};
pub use describe::{describe_scores, Scored};
pub use desktop::{
    format_applications, format_outputs, Application, Output, Window, WindowSnapshot,
};
pub use diff::{diff, render_diff, Changed, FieldChange, TreeDiff, WindowChange};
pub use element::{Bounds, Element, ElementId};
pub use engine::{
    ChangeWitness, ClipboardText, ConnectOptions, Engine, EngineError, FailureKind, Launch,
    Launched, Placement, ReadOptions, WindowQuery,
};
pub use handle::{Handle, HandleEntry, HandleParseError, HandleRegistry, Resolved, Source};
pub use heal::{fingerprints, refind, Fingerprint, Refound};
pub use input::{
    parse_keys, split_trailing_keys, Input, InputWatch, Key, KeyChord, KeyError, Modifier,
    MouseButton, Observed, ObservedInput, Point, ScrollDirection, WatchEnded,
};
pub use json::{to_json, JsonElement};
pub use look::Look;
pub use operation::{EventMark, Expecting, Operation, Performed, SettleEnd, SettlePolicy, Settled};
pub use pixel_change::{changed_regions, text_run, JOIN_GAP, MIN_STEP};
pub use quoting::{
    bare, bare_at_most, cut, quote, quote_at_most, quote_typed, quote_whole, MAX_TEXT,
};
pub use recording::{
    seen_changes, selector_for, Chosen, Hit, Parameter, RecordedStep, Recording, SeenChange,
    StepTarget, Typed, Within,
};
pub use role::Role;
pub use screen_mapping::ScreenMapping;
pub use selector::{
    close_matches, Atom, Expr, MatchContext, NearMiss, RoleMatch, Selector, SelectorError, Step,
};
pub use silent::{is_silent_surface, silent_surfaces, MIN_SURFACE};
pub use spotted::{Spotted, SpottedError, SpottedRegistry};
pub use state::{State, StateSet};
pub use text_detail::{Attributes, TextDetail, TextRun};
pub use tree::{Node, NodeId, Tree};
