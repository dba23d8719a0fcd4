//! Reading a window: walked afresh, or (when events are watched) the last read
//! kept and brought up to date with the events since. Everything together is
//! held to [`READ_DEADLINE`]; an app that stopped answering costs a ping, not
//! every call's timeout.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axsight_core::{
    Bounds, ElementId, ReadOptions, ScreenMapping, Window, WindowQuery, WindowSnapshot,
};
use futures_util::future::join_all;

use super::Accessibility;
use crate::apps::{pick_window, unplaced, AppEntry, WindowPlaces};
use crate::cache::AppCache;
use crate::dbus::{self, ObjRef};
use crate::normalize::build_tree;
use crate::refresh;
use crate::sync::lock;
use crate::walk::{Cut, RawNode, Walker};
use crate::{Error, Result};

/// The longest one whole window read may take, whatever its calls do.
pub const READ_DEADLINE: Duration = Duration::from_secs(8);

/// The longest bringing a kept read up to date may take before the window is
/// read whole instead: object by object, a busy app (a page still loading,
/// each call waiting on its content process) is far slower than one bulk read
/// of its cache, and a patch must not spend the read's whole deadline.
const PATCH_DEADLINE: Duration = Duration::from_millis(400);

/// A frame's children read for its content's corner: the header bar and the
/// content come first.
const MAX_INSET_CHILDREN: usize = 8;
/// Windows whose insets are kept before the lot is dropped.
const MAX_INSETS: usize = 256;
/// AT-SPI's window-relative coordinate type.
const WINDOW_COORDS: u32 = 1;

/// A window read kept for reuse while its app reports no change.
pub(super) struct KeptWindow {
    /// The event log's bookmark taken before the read: later events are replayed.
    bookmark: u64,
    options: ReadOptions,
    raw: Arc<RawNode>,
    /// How its reported boxes become the screen's; `None` when its extents
    /// are window-relative and the screen cannot say where it is.
    mapping: Option<ScreenMapping>,
    /// What failed in the read: a read with gaps is not refreshed but read
    /// whole, since they may have filled.
    gaps: Vec<String>,
    /// What the read left out by design (a table's cells off screen): true
    /// while their elements are unchanged.
    cuts: Vec<Cut>,
    /// The app's witness's mark taken before the read, for an app that misses
    /// events (see [`Accessibility::add_witness`]).
    mark: Option<String>,
    /// This read's number ([`WindowSnapshot::read`]): kept while a refresh
    /// changes nothing.
    read: u64,
    /// Whether an event had come just before the read: the app may still have
    /// been changing, without a word after its last event (Calc recomputes
    /// cells after it), so its drawn parts are read again next time.
    while_busy: bool,
}

/// How long after the last event an app may still be changing silently:
/// LibreOffice's late effects came 0.26–0.65 s after the event that began them.
const BUSY_AFTER_EVENT: Duration = Duration::from_millis(700);

/// Numbers the reads of windows, for [`WindowSnapshot::read`].
static READS: AtomicU64 = AtomicU64::new(1);

fn next_read() -> u64 {
    READS.fetch_add(1, Ordering::Relaxed)
}

/// Kept reads are kept per window and per visibility: a read of hidden
/// elements and one without them answer different questions.
pub(super) type WindowKey = (ElementId, bool);

/// A window and its frame's size: what a frame's inset is kept by.
pub(super) type FrameKey = (ElementId, i32, i32);

/// A window's extents asked ahead of its read (see
/// [`Accessibility::early_extents`]).
pub struct EarlyExtents {
    obj: ObjRef,
    extents: zbus::Result<(i32, i32, i32, i32)>,
}

impl Accessibility {
    /// The extents of the window that the last listing picks for `query`,
    /// with the window asked; `None` when not watching, nothing was listed
    /// yet, or the window has no read to refresh (none kept, or its app
    /// misses events and nothing vouches for it: it is read whole). A read of
    /// that window uses them if the listing still picks it, so that a warm
    /// read waits for one round trip, not two.
    pub async fn early_extents(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Option<EarlyExtents> {
        self.watch.as_ref()?;
        let (obj, coords) = {
            let last = lock(&self.listing);
            let (_, entries) = last.as_ref()?;
            let (entry, index) = pick_window(entries, query).ok()?;
            let key = (
                entry.info.windows[index].id.clone(),
                options.include_invisible,
            );
            let vouched = !entry.quirks.misses_events
                || entry.quirks.spot_check.is_some()
                || entry
                    .info
                    .pid
                    .is_some_and(|pid| lock(&self.witnesses).contains_key(&pid));
            if !vouched || !lock(&self.windows).contains_key(&key) {
                return None;
            }
            (entry.windows[index].clone(), entry.quirks.extent_coords())
        };
        let extents = dbus::extents(&self.conn, &obj, coords).await;
        Some(EarlyExtents { obj, extents })
    }

    /// Reads window `index` of `entry`: walked afresh, or (when watching) the
    /// last read brought up to date; `places` says where it sits. `early`
    /// are its extents if [`Accessibility::early_extents`] asked them.
    pub async fn read_window<P: WindowPlaces>(
        &self,
        places: &P,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
        early: Option<EarlyExtents>,
    ) -> Result<WindowSnapshot> {
        let window = &entry.info.windows[index];
        // An app that just did not answer is pinged before it is read again: a
        // stopped app then costs a ping, not every call's full timeout.
        let stuck_since = lock(&self.stuck).get(&entry.root.bus).copied();
        if let Some(since) = stuck_since {
            if self.answers_ping(&entry.root).await {
                lock(&self.stuck).remove(&entry.root.bus);
            } else {
                let since = match since.elapsed().as_secs() {
                    0 => "since just now".to_string(),
                    seconds => format!("for {seconds} s"),
                };
                return Err(Error::NotAnsweringSince {
                    app: entry.info.name.clone(),
                    since,
                });
            }
        }
        let read = async {
            let Some(watch) = &self.watch else {
                return self
                    .walk_window(places, entry, index, options, 0, None)
                    .await
                    .map(Arc::new);
            };
            let key = (window.id.clone(), options.include_invisible);
            let bookmark = watch.bookmark().await;
            // Taken after the bookmark and before any read: a change the witness
            // sees from here on makes the next mark differ.
            let mark = self.witness_mark(entry).await;
            let refreshed = self
                .refreshed(
                    places,
                    entry,
                    index,
                    options,
                    bookmark,
                    mark.as_deref(),
                    early,
                )
                .await;
            let read = match refreshed {
                Some(read) => read,
                None if lock(&self.stuck).contains_key(&entry.root.bus) => {
                    return Err(Error::Timeout {
                        app: entry.info.name.clone(),
                        ms: dbus::CALL_TIMEOUT.as_millis() as u64,
                    })
                }
                None => Arc::new(
                    self.walk_window(places, entry, index, options, bookmark, mark)
                        .await?,
                ),
            };
            lock(&self.windows).insert(key, read.clone());
            Ok(read)
        };
        let read = tokio::time::timeout(READ_DEADLINE, read)
            .await
            .map_err(|_| Error::Timeout {
                app: entry.info.name.clone(),
                ms: READ_DEADLINE.as_millis() as u64,
            })
            .and_then(|read| read);
        if matches!(read, Err(Error::Timeout { .. })) {
            lock(&self.stuck)
                .entry(entry.root.bus.clone())
                .or_insert_with(Instant::now);
        }
        let read = read?;
        let mapping = read.mapping.unwrap_or(ScreenMapping::IDENTITY);
        let mut tree = build_tree(&read.raw, entry.quirks, mapping);
        if read.mapping.is_none() {
            // Window-relative boxes where the window is not known: none at all
            // rather than boxes that look like the screen's and are not.
            let ids: Vec<_> = tree.ids().collect();
            for id in ids {
                tree.element_mut(id).bounds = None;
            }
        }
        if places.window_relative(entry.quirks) {
            crate::menu_popups::leave_out_open_menus(&mut tree);
        }
        // A window that reports no extents (Java's) is where its X window is.
        let root = tree.root();
        if tree.element(root).bounds.is_none() {
            tree.element_mut(root).bounds = window.bounds;
        }
        // A window that moved without saying so (GTK 3 announces no move) is
        // somewhere else than the app listing says: the listing is read afresh
        // next time, so that no answer places the window where it was.
        if tree.element(root).bounds != window.bounds {
            *lock(&self.listing) = None;
        }
        // The window's own name as just read: the listing's may be older.
        let title = match tree.element(root).name.as_str() {
            "" => window.title.clone(),
            name => name.to_string(),
        };
        Ok(WindowSnapshot {
            app: entry.info.name.clone(),
            pid: entry.info.pid,
            title,
            tree,
            gaps: read
                .gaps
                .iter()
                .cloned()
                .chain(read.cuts.iter().map(|cut| cut.said.clone()))
                .collect(),
            read: Some(read.read),
            accessible: true,
            unplaced: read.mapping.is_none(),
        })
    }

    /// Where `window`'s content starts inside its frame `frame` (as the app
    /// reports it, window-relative): its children's top-left corner, read once
    /// per window and frame size (a window that floats gains a shadow; tiled,
    /// it has none). `None` when the children cannot be read.
    pub async fn frame_inset(&self, window: &Window, frame: Bounds) -> Option<(i32, i32)> {
        let key = (window.id.clone(), frame.width, frame.height);
        if let Some(inset) = lock(&self.insets).get(&key) {
            return Some(*inset);
        }
        let obj = ObjRef::from_element_id(&window.id).ok()?;
        let children: Vec<ObjRef> =
            dbus::call(&self.conn, &obj, dbus::ACCESSIBLE, "GetChildren", ())
                .await
                .ok()?;
        // Window coordinates: the frame's own corner is where it says it is.
        let reads = children.iter().take(MAX_INSET_CHILDREN).map(|child| {
            dbus::call::<_, (i32, i32, i32, i32)>(
                &self.conn,
                child,
                dbus::COMPONENT,
                "GetExtents",
                (WINDOW_COORDS,),
            )
        });
        let corner = join_all(reads)
            .await
            .into_iter()
            .flatten()
            .filter(|&(_, _, width, height)| width > 0 && height > 0)
            .map(|(x, y, _, _)| (x, y))
            .reduce(|a, b| (a.0.min(b.0), a.1.min(b.1)))?;
        let inset = ((corner.0 - frame.x).max(0), (corner.1 - frame.y).max(0));
        let mut insets = lock(&self.insets);
        // Windows come and go: a bound, not a cache to tend.
        if insets.len() >= MAX_INSETS {
            insets.clear();
        }
        insets.insert(key, inset);
        Some(inset)
    }

    /// The mark of the witness of `entry`'s app, for an app that misses events
    /// and has one; `None` otherwise (its windows are then read whole).
    async fn witness_mark(&self, entry: &AppEntry) -> Option<String> {
        if !entry.quirks.misses_events {
            return None;
        }
        let witness = lock(&self.witnesses).get(&entry.info.pid?).cloned()?;
        witness.mark().await
    }

    /// The last read of a window brought up to date with the events since, or
    /// `None` when it should be walked afresh (no earlier read, the window
    /// moved, too much changed; an app that misses events without a witness
    /// whose `mark` is the kept read's). `bookmark` was taken before any call
    /// made here.
    #[allow(clippy::too_many_arguments)]
    async fn refreshed<P: WindowPlaces>(
        &self,
        places: &P,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
        bookmark: u64,
        mark: Option<&str>,
        early: Option<EarlyExtents>,
    ) -> Option<Arc<KeptWindow>> {
        let watch = self.watch.as_ref()?;
        let window = &entry.info.windows[index];
        let obj = &entry.windows[index];
        let kept = lock(&self.windows)
            .get(&(window.id.clone(), options.include_invisible))
            .cloned()?;
        // An app that misses events is vouched for by its witness's mark where
        // it has one, else by spot checks of the kept read, else not at all.
        let spot_check = entry.quirks.spot_check.filter(|_| mark.is_none());
        if entry.quirks.misses_events
            && spot_check.is_none()
            && (mark.is_none() || kept.mark.as_deref() != mark)
        {
            return None;
        }
        // A partial read is read again whole: its gaps may have filled.
        if !kept.options.covers(&options) || !kept.gaps.is_empty() {
            return None;
        }
        // One call to the app: its reply comes after every event the app sent before
        // it, so once the recorder has run the log holds them all. Asked already
        // while the apps were listed, where that picked this window.
        let coords = entry.quirks.extent_coords();
        let extents = async {
            match early {
                Some(early) if &early.obj == obj => early.extents,
                _ => dbus::extents(&self.conn, obj, coords).await,
            }
        };
        // Its title too, in the same round: a toolkit may retitle a window
        // without an event (Qt 5 marking a document modified, `*name`).
        let title = dbus::property::<String>(&self.conn, obj, dbus::ACCESSIBLE, "Name");
        let (asked, title) = futures_util::join!(extents, title);
        if title.is_ok_and(|title| title != kept.raw.name) {
            // The listing names it by its old title too.
            *lock(&self.listing) = None;
            return None;
        }
        let extents = match asked {
            Ok(extents) => Some(extents),
            // Not answering: noted, so that the read ends here instead of
            // waiting out every call of a walk (see `read_window`).
            Err(error) if dbus::failure_kind(&error) == dbus::Failure::NoReply => {
                lock(&self.stuck)
                    .entry(obj.bus.clone())
                    .or_insert_with(Instant::now);
                return None;
            }
            Err(_) => None,
        };
        if extents != kept.raw.extents {
            return None;
        }
        // Where a window with window-relative extents sits is the screen's
        // alone: asked again. Screen extents that did not change keep their
        // scale (a window that moves to a screen of another scale reports new
        // extents).
        if places.window_relative(entry.quirks)
            && mapping_of(places, entry, index, &kept.raw).await != kept.mapping
        {
            return None;
        }
        watch.settle().await;
        let plan = refresh::plan(&watch.since(kept.bookmark, Some(&obj.bus))?)?;
        // Any event of the app, even about objects the kept read does not
        // hold, or a kept read made while the app may still have been changing.
        let while_busy = self.busy();
        let plan = match entry.quirks.libreoffice {
            true => {
                let changed = !plan.is_empty() || kept.while_busy;
                refresh::with_drawn_parts(&kept.raw, plan, &kept.cuts, changed)
            }
            false => plan,
        };
        let plan = refresh::widen(&kept.raw, plan);
        let decided = refresh::decide_moves(&self.conn, &kept.raw, &obj.bus, plan, coords);
        let Ok(mut plan) = tokio::time::timeout(PATCH_DEADLINE, decided).await else {
            tracing::debug!("boxes outlasted the patch's deadline: the window is read whole");
            return None;
        };
        if plan.len() > refresh::MAX_PATCHES {
            let changed = plan.len();
            plan = refresh::coalesce(&kept.raw, &plan)?;
            tracing::debug!(
                changed,
                subtrees = plan.len(),
                "a flood folded into subtrees"
            );
        }
        tracing::debug!(patches = plan.len(), plan = ?plan.iter().take(8).collect::<Vec<_>>(), "a kept read brought up to date");
        let (raw, read, cuts) = if plan.is_empty() {
            (kept.raw.clone(), kept.read, kept.cuts.clone())
        } else {
            let mut cuts = refresh::cuts_kept(&kept.raw, &plan, &kept.cuts);
            let walker = Walker::new(&self.conn, entry.quirks, kept.options, AppCache::default());
            let patch = refresh::patch(&walker, &self.conn, &kept.raw, &obj.bus, plan, coords);
            let Ok(patched) = tokio::time::timeout(PATCH_DEADLINE, patch).await else {
                tracing::debug!("patching outlasted its deadline: the window is read whole");
                return None;
            };
            let raw = patched.ok()?;
            // A patch that met vanishing objects gives way to a whole read.
            let (gaps, new_cuts) = walker.into_parts();
            if !gaps.is_empty() {
                return None;
            }
            // A container read again because it moved says its cuts anew.
            cuts.retain(|kept| !new_cuts.iter().any(|new| new.path == kept.path));
            cuts.extend(new_cuts);
            (Arc::new(raw), next_read(), cuts)
        };
        if spot_check.is_some() && !crate::spot_checks::hold(&self.conn, entry.quirks, &raw).await {
            tracing::debug!("spot checks failed: the window is read whole");
            return None;
        }
        Some(Arc::new(KeptWindow {
            bookmark,
            options: kept.options,
            raw,
            mapping: kept.mapping,
            gaps: Vec::new(),
            cuts,
            mark: mark.map(str::to_string),
            read,
            while_busy,
        }))
    }

    /// Whether an event came within [`BUSY_AFTER_EVENT`].
    fn busy(&self) -> bool {
        self.watch
            .as_ref()
            .and_then(|watch| watch.last_event())
            .is_some_and(|at| at.elapsed() < BUSY_AFTER_EVENT)
    }

    /// Reads a window's tree from the app.
    async fn walk_window<P: WindowPlaces>(
        &self,
        places: &P,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
        bookmark: u64,
        mark: Option<String>,
    ) -> Result<KeptWindow> {
        let obj = entry.windows[index].clone();
        let while_busy = self.busy();
        let cache = match entry.quirks.items_cache() {
            true => AppCache::fetch(&self.conn, &entry.root).await,
            false => AppCache::default(),
        };
        tracing::debug!(cached = cache.len(), "cache fetched");
        let walker = Walker::new(&self.conn, entry.quirks, options, cache);
        let raw = walker.read(obj, true).await.map_err(|aborted| {
            Error::from_failure(
                &entry.info.name,
                aborted.failure,
                aborted.method,
                aborted.error,
            )
        })?;
        let mapping = mapping_of(places, entry, index, &raw).await;
        tracing::debug!(app = %entry.info.name, "window walked");
        let (gaps, cuts) = walker.into_parts();
        Ok(KeptWindow {
            bookmark,
            options,
            raw: Arc::new(raw),
            mapping,
            gaps,
            cuts,
            mark,
            read: next_read(),
            while_busy,
        })
    }
}

/// How window `index` of `entry`, read as `raw`, is put on screen (see
/// [`WindowPlaces::window_mapping`]; [`unplaced`] where the screen shows no
/// such window).
async fn mapping_of<P: WindowPlaces>(
    places: &P,
    entry: &AppEntry,
    index: usize,
    raw: &RawNode,
) -> Option<ScreenMapping> {
    let relative = places.window_relative(entry.quirks);
    places
        .window_mapping(
            entry.info.pid,
            &entry.info.windows[index],
            placed_frame_of(raw, relative),
            &entry.window_ids(),
            relative,
        )
        .await
        .or_else(|| unplaced(relative, entry.scale))
}

/// A window's frame from its extents as read (window-relative where the
/// toolkit reports so); `None` for a frame without real extents (Java's -1s).
fn frame_of(window: &RawNode) -> Option<Bounds> {
    window
        .extents
        .and_then(|(x, y, width, height)| Bounds::from_extents(x, y, width, height))
}

/// What the screen is asked to place a window by: its frame, or, for a frame
/// without extents whose boxes are the screen's (Java's), its first child's
/// box (Java's root pane, which fills the window), which tells the scale its
/// content is drawn at.
fn placed_frame_of(window: &RawNode, relative: bool) -> Option<Bounds> {
    match relative {
        true => frame_of(window),
        false => frame_of(window).or_else(|| window.children.first().and_then(frame_of)),
    }
}
