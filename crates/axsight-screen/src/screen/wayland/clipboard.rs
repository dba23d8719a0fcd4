//! The clipboard of a wlroots compositor, through `zwlr_data_control_manager_v1`:
//! reading the text whoever holds the selection offers, and holding text of
//! axsight's own, served by a thread with its own connection until another
//! client takes the selection.
//!
//! Wayland gives the selection no owner a client can name, so the clipboard's
//! "owner" here is a digest of its text: what the session needs of it is to tell
//! whether the clipboard still holds what it saw copied out of a password field.

use std::io::Write as _;
use std::os::fd::{AsFd as _, OwnedFd};
use std::time::Duration;

use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{wl_registry, wl_seat};
use wayland_client::{Connection, Dispatch, EventQueue, Proxy as _, QueueHandle};
use wayland_protocols_wlr::data_control::v1::client::{
    zwlr_data_control_device_v1::{self, ZwlrDataControlDeviceV1},
    zwlr_data_control_manager_v1::ZwlrDataControlManagerV1,
    zwlr_data_control_offer_v1::{self, ZwlrDataControlOfferV1},
    zwlr_data_control_source_v1::{self, ZwlrDataControlSourceV1},
};

use super::wayland_error;
use crate::screen::clipboard::{digest, Clipboard};
use crate::{Error, Result};
use axsight_core::ClipboardText;

/// The most text axsight holds or reads at once (as on X11).
const MAX_TEXT_BYTES: usize = 1 << 20;
/// How long the holder of the selection gets to hand its text over.
const READ_DEADLINE: Duration = Duration::from_secs(2);
/// Text types, most wanted first; axsight's own text is offered as all of them.
const TEXT_TYPES: [&str; 5] = [
    "text/plain;charset=utf-8",
    "UTF8_STRING",
    "text/plain",
    "TEXT",
    "STRING",
];

/// What a data-control connection's events say.
#[derive(Default)]
struct State {
    /// Offers made, with the types each offers.
    offers: Vec<(ZwlrDataControlOfferV1, Vec<String>)>,
    /// The selection, once the device has said (`Some(None)`: empty).
    selection: Option<Option<ZwlrDataControlOfferV1>>,
    /// Text to hand to pasting clients, while held.
    serving: Option<String>,
    cancelled: bool,
}

/// A connection to the compositor with a data-control device on its seat.
struct DataDevice {
    conn: Connection,
    queue: EventQueue<State>,
    state: State,
    manager: ZwlrDataControlManagerV1,
    device: ZwlrDataControlDeviceV1,
}

impl DataDevice {
    fn open() -> Result<DataDevice> {
        let conn = Connection::connect_to_env()
            .map_err(|e| Error::Clipboard(format!("cannot connect to the compositor: {e}")))?;
        let (globals, queue) = registry_queue_init::<State>(&conn).map_err(wayland_error)?;
        let qh = queue.handle();
        let seat: wl_seat::WlSeat = globals
            .bind(&qh, 1..=7, ())
            .map_err(|e| Error::Clipboard(format!("the compositor has no seat: {e}")))?;
        let manager: ZwlrDataControlManagerV1 = globals.bind(&qh, 1..=2, ()).map_err(|e| {
            Error::Clipboard(format!(
                "the compositor does not offer zwlr_data_control_manager_v1 ({e}), which \
                 the clipboard needs"
            ))
        })?;
        let device = manager.get_data_device(&seat, &qh, ());
        Ok(DataDevice {
            conn,
            queue,
            state: State::default(),
            manager,
            device,
        })
    }

    /// Dispatches until the device has said what the selection is.
    fn selection(&mut self) -> Result<Option<(ZwlrDataControlOfferV1, Vec<String>)>> {
        while self.state.selection.is_none() {
            self.queue
                .blocking_dispatch(&mut self.state)
                .map_err(wayland_error)?;
        }
        let Some(Some(offer)) = &self.state.selection else {
            return Ok(None);
        };
        let types = self
            .state
            .offers
            .iter()
            .find(|(known, _)| known == offer)
            .map(|(_, types)| types.clone())
            .unwrap_or_default();
        Ok(Some((offer.clone(), types)))
    }
}

/// A wlroots compositor's clipboard, at `WAYLAND_DISPLAY`: each call connects
/// anew (holding text starts a thread with a connection of its own).
#[derive(Debug)]
pub struct DataControl;

impl Clipboard for DataControl {
    /// The selection's text, if it holds text.
    fn read(&self) -> Result<Option<ClipboardText>> {
        let mut device = DataDevice::open()?;
        let Some((offer, types)) = device.selection()? else {
            return Ok(None);
        };
        let Some(kind) = TEXT_TYPES
            .iter()
            .find(|t| types.iter().any(|have| have == *t))
        else {
            return Ok(None);
        };
        let (mut reader, writer) =
            std::io::pipe().map_err(|e| Error::Clipboard(format!("cannot make a pipe: {e}")))?;
        offer.receive(kind.to_string(), writer.as_fd());
        device.conn.flush().map_err(wayland_error)?;
        drop(writer); // the holder's copy is the only writer left: EOF when it is done
        let bytes = read_within(&mut reader, READ_DEADLINE)?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let owner = digest(&text);
        Ok(Some(ClipboardText { text, owner }))
    }

    /// The digest of the selection's text, standing for its owner; `None` when it
    /// holds no text.
    fn owner(&self) -> Result<Option<u32>> {
        Ok(self.read()?.map(|held| held.owner))
    }

    /// Takes the selection with `text`, served by a thread of its own until another
    /// client takes it.
    fn hold(&self, text: String) -> Result<()> {
        if text.len() > MAX_TEXT_BYTES {
            return Err(Error::Clipboard(format!(
                "the text is {} bytes; the clipboard takes {MAX_TEXT_BYTES} at most",
                text.len()
            )));
        }
        let mut device = DataDevice::open()?;
        let qh = device.queue.handle();
        let source = device.manager.create_data_source(&qh, ());
        for kind in TEXT_TYPES {
            source.offer(kind.to_string());
        }
        device.device.set_selection(Some(&source));
        device.state.serving = Some(text);
        device
            .queue
            .roundtrip(&mut device.state)
            .map_err(wayland_error)?;
        std::thread::Builder::new()
            .name("axsight-clipboard".into())
            .spawn(move || {
                while !device.state.cancelled {
                    if device.queue.blocking_dispatch(&mut device.state).is_err() {
                        break;
                    }
                }
                source.destroy();
            })
            .map_err(|e| Error::Clipboard(format!("cannot start the clipboard's thread: {e}")))?;
        Ok(())
    }
}

/// Reads `reader` to its end, `deadline` at most, and [`MAX_TEXT_BYTES`].
fn read_within(reader: &mut std::io::PipeReader, deadline: Duration) -> Result<Vec<u8>> {
    use crate::screen::pipe::PipeError;
    crate::screen::pipe::read_within(reader, deadline, MAX_TEXT_BYTES).map_err(|e| match e {
        PipeError::TimedOut => Error::Clipboard(format!(
            "the clipboard's holder did not hand its text over within {} ms",
            deadline.as_millis()
        )),
        PipeError::TooLong => Error::Clipboard(format!(
            "the clipboard holds more than {MAX_TEXT_BYTES} bytes"
        )),
        PipeError::Io(e) => Error::Clipboard(format!("cannot read the clipboard: {e}")),
    })
}

impl Dispatch<ZwlrDataControlDeviceV1, ()> for State {
    fn event(
        state: &mut State,
        _: &ZwlrDataControlDeviceV1,
        event: zwlr_data_control_device_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
        use zwlr_data_control_device_v1::Event;
        match event {
            Event::DataOffer { id } => state.offers.push((id, Vec::new())),
            Event::Selection { id } => state.selection = Some(id),
            Event::Finished => state.cancelled = true,
            _ => {}
        }
    }

    wayland_client::event_created_child!(State, ZwlrDataControlDeviceV1, [
        zwlr_data_control_device_v1::EVT_DATA_OFFER_OPCODE => (ZwlrDataControlOfferV1, ()),
    ]);
}

impl Dispatch<ZwlrDataControlOfferV1, ()> for State {
    fn event(
        state: &mut State,
        offer: &ZwlrDataControlOfferV1,
        event: zwlr_data_control_offer_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
        if let zwlr_data_control_offer_v1::Event::Offer { mime_type } = event {
            if let Some((_, types)) = state.offers.iter_mut().find(|(o, _)| o.id() == offer.id()) {
                types.push(mime_type);
            }
        }
    }
}

impl Dispatch<ZwlrDataControlSourceV1, ()> for State {
    fn event(
        state: &mut State,
        _: &ZwlrDataControlSourceV1,
        event: zwlr_data_control_source_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
        match event {
            zwlr_data_control_source_v1::Event::Send { fd, .. } => {
                if let Some(text) = &state.serving {
                    serve(fd, text);
                }
            }
            zwlr_data_control_source_v1::Event::Cancelled => state.cancelled = true,
            _ => {}
        }
    }
}

/// Writes `text` to a pasting client's pipe; a client that goes away takes
/// nothing, and nothing else breaks.
fn serve(fd: OwnedFd, text: &str) {
    let mut pipe = std::fs::File::from(fd);
    let _ = pipe.write_all(text.as_bytes());
}

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut State,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
    }
}

wayland_client::delegate_noop!(State: ignore wl_seat::WlSeat);
wayland_client::delegate_noop!(State: ZwlrDataControlManagerV1);
