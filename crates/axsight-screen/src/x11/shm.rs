//! Screen capture through MIT-SHM: the X server writes the image into memory both
//! sides map, instead of sending it over the socket.
//!
//! MIT-SHM 1.2's `ShmCreateSegment` has the server create the segment and pass its fd,
//! which we map read-only. One segment is kept per connection and replaced by a larger
//! one when a larger capture comes. The server frees it when the connection closes;
//! our mapping goes with the `X11` value.
//!
//! Where MIT-SHM is missing or older than 1.2, the segment cannot be made (a remote
//! display: no fd passing over TCP), or any SHM request fails, SHM is switched off for
//! the connection, once, with a debug message; the caller then uses `GetImage`.

use std::ffi::c_void;
use std::os::fd::OwnedFd;
use std::ptr::NonNull;

use rustix::mm::{MapFlags, ProtFlags};
use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::cookie::VoidCookie;
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ImageFormat, Window};
use x11rb::rust_connection::RustConnection;

/// MIT-SHM for one connection.
#[derive(Default)]
pub(super) struct Shm {
    state: State,
}

#[derive(Default)]
enum State {
    /// Not looked at yet.
    #[default]
    Unknown,
    /// MIT-SHM 1.2 is there; the segment of the largest capture so far, if any.
    Ready(Option<Segment>),
    /// Not usable on this connection: captures use `GetImage`.
    Off,
}

/// A segment the server created, mapped here.
struct Segment {
    seg: shm::Seg,
    map: Mapping,
}

/// A part of the screen to capture: x, y, width, height.
pub(super) type Area = (i16, i16, u16, u16);

impl Shm {
    /// Captures `area` of `root` as a ZPixmap image of `len` bytes: the image's depth
    /// and bytes, or `None` when SHM is not usable (then it is not tried again).
    pub(super) fn get_image(
        &mut self,
        conn: &RustConnection,
        root: Window,
        area: Area,
        len: usize,
    ) -> Option<(u8, &[u8])> {
        let (depth, size) = match self.try_get_image(conn, root, area, len) {
            Ok(got) => got,
            Err(reason) => {
                self.switch_off(conn, &reason);
                return None;
            }
        };
        match &self.state {
            State::Ready(Some(segment)) => Some((depth, &segment.map.bytes()[..size])),
            _ => None,
        }
    }

    /// The depth and byte count of the image now in the segment.
    fn try_get_image(
        &mut self,
        conn: &RustConnection,
        root: Window,
        (x, y, width, height): Area,
        len: usize,
    ) -> Result<(u8, usize), String> {
        if matches!(self.state, State::Unknown) {
            check_version(conn)?;
            self.state = State::Ready(None);
        }
        let State::Ready(current) = &mut self.state else {
            return Err("switched off".into());
        };
        if current.as_ref().is_none_or(|s| s.map.len < len) {
            if let Some(old) = current.take() {
                detach(conn, old.seg);
            }
            *current = Some(create(conn, len)?);
        }
        let Some(segment) = current else {
            return Err("no segment".into());
        };
        let reply = conn
            .shm_get_image(
                root,
                x,
                y,
                width,
                height,
                !0,
                ImageFormat::Z_PIXMAP.into(),
                segment.seg,
                0,
            )
            .map_err(|e| format!("ShmGetImage: {e}"))?
            .reply()
            .map_err(|e| format!("ShmGetImage: {e}"))?;
        let size = reply.size as usize;
        if size < len || size > segment.map.len {
            return Err(format!(
                "ShmGetImage wrote {size} bytes, expected {len} (segment of {})",
                segment.map.len
            ));
        }
        Ok((reply.depth, size))
    }

    fn switch_off(&mut self, conn: &RustConnection, reason: &str) {
        if let State::Ready(Some(segment)) = std::mem::replace(&mut self.state, State::Off) {
            detach(conn, segment.seg);
        }
        tracing::debug!(%reason, "MIT-SHM not usable: capturing through GetImage");
    }
}

/// MIT-SHM is there, at version 1.2 at least (for `ShmCreateSegment`).
fn check_version(conn: &RustConnection) -> Result<(), String> {
    let present = conn
        .extension_information(shm::X11_EXTENSION_NAME)
        .map_err(|e| format!("QueryExtension: {e}"))?;
    if present.is_none() {
        return Err("the display has no MIT-SHM extension".into());
    }
    let version = conn
        .shm_query_version()
        .map_err(|e| format!("ShmQueryVersion: {e}"))?
        .reply()
        .map_err(|e| format!("ShmQueryVersion: {e}"))?;
    let (major, minor) = (version.major_version, version.minor_version);
    if (major, minor) < (1, 2) {
        return Err(format!("MIT-SHM {major}.{minor} cannot create segments"));
    }
    Ok(())
}

/// Has the server create a segment of `len` bytes and maps it.
fn create(conn: &RustConnection, len: usize) -> Result<Segment, String> {
    let size = u32::try_from(len).map_err(|_| format!("a {len}-byte segment is too large"))?;
    let seg = conn
        .generate_id()
        .map_err(|e| format!("no id for a segment: {e}"))?;
    let reply = conn
        .shm_create_segment(seg, size, false)
        .map_err(|e| format!("ShmCreateSegment: {e}"))?
        .reply()
        .map_err(|e| format!("ShmCreateSegment: {e}"))?;
    match Mapping::new(reply.shm_fd, len) {
        Ok(map) => Ok(Segment { seg, map }),
        Err(e) => {
            detach(conn, seg);
            Err(format!("cannot map the segment: {e}"))
        }
    }
}

/// Frees the server's side of a segment; an error (the connection is gone) is moot.
fn detach(conn: &RustConnection, seg: shm::Seg) {
    if let Ok(cookie) = conn.shm_detach(seg) {
        VoidCookie::ignore_error(cookie);
    }
}

/// A read-only shared mapping of a segment, unmapped on drop.
struct Mapping {
    ptr: NonNull<c_void>,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value alone; nothing about it is
// tied to the thread that made it.
unsafe impl Send for Mapping {}

impl Mapping {
    /// Maps the first `len` bytes of `fd` (the fd is closed after: the mapping stays).
    fn new(fd: OwnedFd, len: usize) -> rustix::io::Result<Mapping> {
        // SAFETY: a null address lets the kernel place a new mapping where no Rust
        // memory lives; `len` is at most the segment's size, as the server created it.
        let ptr = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ,
                MapFlags::SHARED,
                &fd,
                0,
            )?
        };
        let ptr = NonNull::new(ptr).ok_or(rustix::io::Errno::NOMEM)?;
        Ok(Mapping { ptr, len })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes until `drop`, and any byte value is a
        // valid u8. The server writes into the segment only while it runs a
        // ShmGetImage naming it, and only `Shm::try_get_image` sends one, through
        // `&mut Shm`, so never while this borrow of it lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().cast::<u8>(), self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `len` are the mapping `new` made, and no borrow of it
        // (`bytes`) outlives `self`.
        let _ = unsafe { rustix::mm::munmap(self.ptr.as_ptr(), self.len) };
    }
}
