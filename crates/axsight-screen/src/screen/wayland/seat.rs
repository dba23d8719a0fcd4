//! Waiting until the compositor's seat has a pointer and a keyboard, as a
//! Wayland client sees it: input devices made some other way (mutter's
//! RemoteDesktop) reach the seat a moment later, and apps bind them only then.

use std::time::{Duration, Instant};

use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{wl_registry, wl_seat};
use wayland_client::{Connection, Dispatch, QueueHandle, WEnum};

use super::wayland_error;
use crate::{Error, Result};

/// Between looks at the seat.
const POLL: Duration = Duration::from_millis(10);

#[derive(Default)]
struct Seat {
    capabilities: u32,
}

/// Waits, up to `deadline`, until the seat at `WAYLAND_DISPLAY` has a pointer
/// and a keyboard; whether it got them.
pub fn await_pointer_and_keyboard(deadline: Duration) -> Result<bool> {
    let conn = Connection::connect_to_env()
        .map_err(|e| Error::Wayland(format!("cannot connect to the compositor: {e}")))?;
    let (globals, mut queue) = registry_queue_init::<Seat>(&conn).map_err(wayland_error)?;
    let qh = queue.handle();
    let _seat: wl_seat::WlSeat = globals
        .bind(&qh, 1..=7, ())
        .map_err(|e| Error::Wayland(format!("the compositor has no seat: {e}")))?;
    let wanted = (wl_seat::Capability::Pointer | wl_seat::Capability::Keyboard).bits();
    let mut seat = Seat::default();
    let end = Instant::now() + deadline;
    loop {
        queue.roundtrip(&mut seat).map_err(wayland_error)?;
        if seat.capabilities & wanted == wanted {
            return Ok(true);
        }
        if Instant::now() >= end {
            return Ok(false);
        }
        std::thread::sleep(POLL);
    }
}

impl Dispatch<wl_seat::WlSeat, ()> for Seat {
    fn event(
        seat: &mut Seat,
        _: &wl_seat::WlSeat,
        event: wl_seat::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Seat>,
    ) {
        if let wl_seat::Event::Capabilities { capabilities } = event {
            seat.capabilities = match capabilities {
                WEnum::Value(caps) => caps.bits(),
                WEnum::Unknown(bits) => bits,
            };
        }
    }
}

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for Seat {
    fn event(
        _: &mut Seat,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Seat>,
    ) {
    }
}
