//! Reading and acting on Linux desktops through AT-SPI2, the accessibility bus:
//! the mechanics of axsight's Linux engine that know nothing of screens.
//!
//! - [`bus`]: reaching the accessibility bus; [`dbus`]: pipelined calls on one
//!   connection to it, the interface names, and what a failed call means;
//! - [`accessibility`]: the engine's accessibility half, [`Accessibility`]:
//!   one connection, the last listing, the kept reads, settling;
//! - [`apps`]: listing the applications and their windows, and choosing the
//!   window a query names (where windows sit is asked of a [`apps::WindowPlaces`]);
//! - [`walk`]: reading a window's tree as raw nodes, with [`cache`] (the bridge's
//!   own `Cache.GetItems`, as an accelerator), [`normalize`] into
//!   `axsight_core::Tree` ([`roles`], [`states`], and per-toolkit [`quirks`],
//!   with [`menu_popups`] and [`web_content`] reshaping what toolkits get wrong);
//! - [`events`]: watching the bus's events, settling after an action, and
//!   [`refresh`]: patching a kept tree from the events since it was read;
//! - [`operate`]: acting through the elements' interfaces (actions, values,
//!   text, selection).
//!
//! It knows no display server and chooses nothing: `axsight-linux` composes it
//! with the screens (`axsight-screen`) into the engine.
//!
//! # Speed
//!
//! - **Pipelined calls.** zbus is driven with raw `call_method`, not generated proxies.
//!   A proxy per object would cost more than the calls. For each object the walker sends
//!   its four basic calls together (`GetAll`, `GetRole`, `GetState`, `GetInterfaces`),
//!   then its extents, actions, accessible id, value and children together. All
//!   children are read concurrently. The calls of a whole tree level are therefore in
//!   flight at once on one connection, and a read costs about one round trip per level.
//!   No thread is spawned per read.
//! - **Fewer calls.** An element that is not drawn gets only its basic calls: no
//!   extents, actions, value or children unless `include_invisible` is set. Action
//!   names are fetched only when `ReadOptions::actions` asks for them, and always for
//!   containers (GTK4 gives many an Action interface with no actions, and a nameless
//!   group with real actions must stay in the compact tree). The
//!   `AccessibleId` is fetched only for toolkits that fill it (not GTK). Text is read
//!   only from editable elements, and values only from the `Value` interface.
//! - **`Cache.GetItems`** (`cache.rs`) returns an app's objects in one call. It is used
//!   as an accelerator, never as the truth:
//!   - An object found in the cache takes its role, name, description, states,
//!     interfaces and child count from there.
//!   - Its cached child list is used only when it is surely complete: the object does
//!     not have MANAGES_DESCENDANTS, the number of cached children equals its child
//!     count, and their indices run 0, 1, 2 … without gaps or repeats.
//!   - Anything else is asked of the object itself. GTK3 leaves out table children
//!     (and counts them as -1), and GTK4 fills its cache lazily; both fall back to
//!     `GetChildren`.
//!   - An app without a usable cache gets an empty `AppCache`, and the walker asks
//!     every object.
//! - **Event-driven warm reads** (`events.rs`, `refresh.rs`, `accessibility/reading.rs`).
//!   - `EventWatch::start` subscribes first, then registers the tree-changing event
//!     kinds with the registry (`RegisterEvent`), so no event falls between the two.
//!   - A recorder task appends each event's sender, object path and kind of `Change`
//!     (`Bounds` < `Node` < `Subtree` < `Windows`) to a bounded log (20 000 entries)
//!     with sequence numbers.
//!   - `refreshed` brings a cached window read up to date. It takes the bookmark
//!     before any call. The windows of an app that misses events
//!     (`Quirks::misses_events`: Chromium sends none when a page is zoomed or a tab
//!     swapped in, and its whole window reads in about 45 ms) are patched only while
//!     a witness vouches for them (`axsight_core::ChangeWitness`, given to the engine
//!     with `Engine::add_witness(pid, …)`): its mark, taken after the bookmark and
//!     before any read, is kept with the read, and a later read reuses it only when
//!     the mark is the same. Without a witness, Java, LibreOffice and Gecko
//!     are vouched for by spot checks (`spot_checks`: the few values their
//!     silent changes move, read again and compared with the kept read); a
//!     Chromium axsight cannot reach over DevTools is read whole every time.
//!     The session gives one for every Chromium it starts (`browsers.rs`,
//!     `PageWitness`), and for one it attaches to on this machine (`--browser-url`):
//!     `Browser::process_id` asks `SystemInfo.getProcessInfo` for the browser
//!     process's id when the DevTools endpoint is on loopback, and a tree read
//!     attaches to the configured browser (at most every 5 s until it is, waiting at
//!     most 300 ms), so an attached browser's windows are vouched for without a
//!     browser tool called first: `Browser::change_mark` (`axsight-browser/src/changes.rs`, the
//!     script `dom/changes.js`) asks every page target, concurrently, for its address,
//!     document, visibility, viewport, zoom and scroll, and a count of DOM mutations
//!     and layout-moving events (scroll, resize, visibility, input, animations)
//!     counted by observers it installs in the page and its same-origin frames. A page
//!     that changed within `CHANGE_QUIET` (500 ms: Chromium hands a page's
//!     accessibility tree to its browser process after layout, so a read just after a
//!     change may still hold the old boxes), that animates, or that holds a frame it
//!     cannot see into, gives no mark. Otherwise it makes one
//!     call to the app (`GetExtents` of the window); a
//!     changed extent, or for GTK4 a changed X11 origin, means a full walk. That call
//!     goes out alongside the listing's pings (`Accessibility::early_extents`: the
//!     window the last listing picks for the query), so a warm read waits for one
//!     round trip, not two; when the new listing picks another window, the call is
//!     made again for that one. An app named alone is read and its other windows
//!     listed by one listing (`Engine::window_tree_listed`), not two at once.
//!   - Each read has a number (`WindowSnapshot::read`), kept while a refresh changes
//!     nothing: the session remembers a window's elements and fingerprints
//!     (`Session::remember`) only when the number is new.
//!   - Then it yields so the recorder, a task on the same runtime, drains its queue.
//!     The ordering argument: a D-Bus reply comes after every signal the same peer sent
//!     before it, so once the reply is in, every event the app emitted before the call
//!     is in the log.
//!   - `refresh::plan` folds the events from that app since the cached bookmark into
//!     one change per object path. Window events or a bookmark older than the log
//!     mean a full walk.
//!   - `refresh::widen` adjusts the plan with what the cached tree knows: a container
//!     that says its box changed is a possible move; a scroll bar whose value changed
//!     re-reads its parent (GTK3 sends no event for the rows a scroll brings into
//!     view); objects not in the tree are dropped, and so is a bounds event of the
//!     window itself (its box is asked before any patch); nothing below a re-read
//!     subtree is read separately (one walk meets each object once).
//!   - `refresh::decide_moves` asks each possibly moved container's box: where it
//!     differs, the subtree is read again (its children moved too and may say
//!     nothing); where not, the container alone (LibreOffice announces unchanged
//!     boxes on every edit). More than 64 objects left are folded into at most 8
//!     subtrees (`refresh::coalesce`), else the window is walked whole; patching and
//!     deciding give way to a whole walk after 400 ms.
//!     Selection and active-descendant events count as subtree changes: the states
//!     they announce live on the children.
//!   - Otherwise `patch` re-reads only what changed: the extents for `Bounds`, the
//!     object alone for `Node` (its whole subtree if it became drawn or undrawn), the
//!     subtree for `Subtree`. A patch that meets vanished objects gives way to a walk.
//!   - The app listing is reused the same way: a ping to each listed app orders its
//!     earlier events, and any window event, any event on an app or window root, or
//!     any event from an app not listed (one registering) means a fresh listing.
//!     Reads of windows no longer listed are forgotten.
//!   - The watch needs a current-thread tokio runtime (the recorder must run when a
//!     read yields); `connect_watching` refuses any other.
//!   - Events that arrive during the patch carry later sequence numbers than the
//!     bookmark, so they are replayed next time; re-reading something twice is harmless.
//!   - The desktop tests wait until a fresh walk shows a change (a rename, a scroll, a
//!     GTK4 display update) and then require the watched engine's next read to print
//!     the same tree.

pub mod accessibility;
pub mod apps;
pub mod bus;
pub mod cache;
pub mod dbus;
mod error;
pub mod events;
pub mod menu_popups;
pub mod normalize;
pub mod one_focus;
pub mod operate;
pub mod quirks;
pub mod refresh;
pub mod roles;
pub mod spot_checks;
pub mod states;
pub mod sync;
pub mod text_reading;
pub mod walk;
pub mod web_content;

pub use accessibility::Accessibility;
pub use error::{Error, Result};
