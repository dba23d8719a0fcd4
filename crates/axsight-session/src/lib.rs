//! One agent's view of the desktop: a [`Session`] over an
//! [`axsight_core::Engine`], and every policy that decides what a tool does.
//!
//! A session holds the connection to the desktop, the handle registry that
//! makes `#u14` mean the same element in every answer, and the screenshot
//! sources' and browsers' state. Its methods are the tools: reading
//! (`window_tree`, `find`, `find_described`), acting (`click`, `type_into`,
//! `press_key`, `set_value`, `place_window`, …, each answered with the diff of
//! what changed), browsing (`navigate`), capturing (`screenshot`) and
//! recording a person's work as a plan (`record`, `start_recording`). Answers
//! are the text an agent reads.
//!
//! It knows no protocol: the MCP server (`axsight-mcp`) and the CLI (`axsight`)
//! both drive it, so a command and a tool print the same text. Where a protocol
//! must take part — the client's own vision model — it does so through a trait
//! ([`ClientModel`]) or by a question handed back in an error
//! ([`ToolError::NeedsClientModel`]).
//!
//! # The CLI and the server
//!
//! acting commands (`click`, `type`, `key`, `bench act`) use `Session::watching()`:
//! settling needs events. `Session::read_options` decides what a read fetches: action
//! names are read for JSON and always in a watching session, whose reads are reused
//! for every kind of answer. Reads for acting always carry action names.

mod acting;
mod browsers;
mod browsing;
mod describe;
mod error;
mod policy;
mod recording;
mod screenshot;
mod session;
mod sources;
mod target;

pub use acting::{
    ActOptions, AgainstReference, ClickOptions, ClipboardRequest, Condition, NewValue,
    SequenceStart,
};
pub use browsers::{BrowserSetup, READ_ATTACH_DEADLINE};
pub use browsing::NavigateRequest;
pub use error::ToolError;
pub use policy::DesktopPolicy;
pub use recording::{Plan, RecordNews, RecordOptions, PLAN_VERSION};
pub use screenshot::{Shot, ShotRequest};
pub use session::{Findings, Found, Grounding, Session, TreeOutput, TreeRequest};
pub use sources::{
    ClientModel, FallThrough, VisionAnswer, VisionChannel, VisionQuestion, VISION_SYSTEM_PROMPT,
};
pub use target::Target;
