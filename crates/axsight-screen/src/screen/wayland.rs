//! A client of a wlroots compositor's own protocols: a virtual pointer and a
//! virtual keyboard for real input (`zwlr_virtual_pointer_v1`,
//! `zwp_virtual_keyboard_v1`), and screencopy for the screen's pixels
//! (`zwlr_screencopy_manager_v1`), on one Wayland connection; the clipboard
//! through data-control, on connections of its own ([`clipboard`]).
//!
//! sway, Hyprland, river, labwc and wayfire offer these to any client; GNOME and
//! KDE do not (their backends go through D-Bus). Coordinates are the output
//! layout's, in logical pixels, as the compositor's IPC reports windows. It
//! knows nothing of windows: the compositor's own IPC does. Outputs, the seat,
//! keymaps and the data-control clipboard serve KWin's backend too.

pub mod clipboard;
mod input;
mod keyboard;
mod keymap;
mod screencopy;
pub mod seat;

use std::time::Instant;

use wayland_client::globals::{registry_queue_init, GlobalList, GlobalListContents};
use wayland_client::protocol::{wl_output, wl_registry, wl_seat, wl_shm};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, WEnum};
use wayland_protocols::xdg::xdg_output::zv1::client::{
    zxdg_output_manager_v1::ZxdgOutputManagerV1, zxdg_output_v1,
};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};
use wayland_protocols_wlr::screencopy::v1::client::zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1;
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
};

use axsight_core::Bounds;

use crate::screen::click_gap::ClickPacing;
use crate::{Error, Result};

/// One output (monitor) and where it sits in the layout.
#[derive(Debug, Clone, Default)]
struct Output {
    /// The `wl_output` global's name, which the proxy's user data carries.
    global: u32,
    proxy: Option<wl_output::WlOutput>,
    x: i32,
    y: i32,
    /// The current mode, in physical pixels.
    mode: (i32, i32),
    scale: i32,
    /// Rotated a quarter turn (90° or 270°): width and height swap.
    turned: bool,
    /// Where xdg-output places it, which is the truth where it is offered
    /// (wlroots sends 0,0 as every `wl_output`'s position).
    logical: Option<Bounds>,
    /// Its name (`Virtual-1`, `DP-1`), from `wl_output` 4 or xdg-output 2.
    name: String,
}

impl Output {
    /// Where the output sits in the layout, in logical pixels.
    fn bounds(&self) -> Bounds {
        if let Some(logical) = self.logical {
            return logical;
        }
        let scale = self.scale.max(1);
        let (w, h) = match self.turned {
            true => (self.mode.1, self.mode.0),
            false => self.mode,
        };
        Bounds {
            x: self.x,
            y: self.y,
            width: w / scale,
            height: h / scale,
        }
    }
}

/// What the event queue's handlers fill in.
#[derive(Default)]
pub(crate) struct State {
    outputs: Vec<Output>,
    /// The screencopy frame being captured, if any.
    frame: screencopy::FrameState,
}

impl State {
    /// The outputs' bounds in the layout.
    pub(crate) fn outputs(&self) -> Vec<Bounds> {
        self.outputs.iter().map(Output::bounds).collect()
    }

    /// The outputs, each with its scale: its mode's pixels per logical pixel,
    /// fractional where the compositor scales by a fraction (`wl_output`'s
    /// own scale is the integer above it). Wayland names no primary.
    pub(crate) fn named_outputs(&self) -> Vec<axsight_core::Output> {
        self.outputs
            .iter()
            .map(|output| {
                let bounds = output.bounds();
                let across = if output.turned {
                    output.mode.1
                } else {
                    output.mode.0
                };
                let scale = match (across, bounds.width) {
                    (pixels, logical) if pixels > 0 && logical > 0 => {
                        (f64::from(pixels) / f64::from(logical) * 100.0).round() / 100.0
                    }
                    _ => f64::from(output.scale.max(1)),
                };
                axsight_core::Output {
                    name: output.name.clone(),
                    bounds,
                    scale,
                    primary: false,
                }
            })
            .collect()
    }

    /// The box around every output: what absolute pointer positions span.
    pub(crate) fn layout(&self) -> Result<Bounds> {
        self.outputs
            .iter()
            .map(Output::bounds)
            .reduce(|all, b| all.union(&b))
            .ok_or_else(|| Error::Wayland("the compositor shows no output".into()))
    }

    /// Whether `at` is on an output; an error listing the outputs when not.
    pub(crate) fn check_on_output(&self, at: axsight_core::Point) -> Result<()> {
        let outputs = self.outputs();
        if outputs.iter().any(|o| o.contains(at.x, at.y)) {
            return Ok(());
        }
        let shown: Vec<String> = outputs
            .iter()
            .map(|o| format!("[{},{},{},{}]", o.x, o.y, o.width, o.height))
            .collect();
        Err(Error::Wayland(format!(
            "point ({}, {}) is on no output (outputs: {})",
            at.x,
            at.y,
            shown.join(", ")
        )))
    }
}

/// A Wayland connection to the compositor at `WAYLAND_DISPLAY`, its globals,
/// and its outputs' places followed (after one round trip): what every client
/// of a compositor's own protocols starts from.
pub(crate) fn connect_following_outputs(
) -> Result<(Connection, GlobalList, EventQueue<State>, State)> {
    let conn = Connection::connect_to_env()
        .map_err(|e| Error::Wayland(format!("cannot connect to the compositor: {e}")))?;
    let (globals, mut queue) = registry_queue_init::<State>(&conn).map_err(wayland_error)?;
    let qh = queue.handle();
    let mut state = State::default();
    bind_outputs(&globals, &qh, &mut state);
    if let Ok(xdg) = globals.bind::<ZxdgOutputManagerV1, _, _>(&qh, 1..=3, ()) {
        for output in &state.outputs {
            if let Some(proxy) = &output.proxy {
                xdg.get_xdg_output(proxy, &qh, output.global);
            }
        }
    }
    queue.roundtrip(&mut state).map_err(wayland_error)?;
    Ok((conn, globals, queue, state))
}

/// A connection to a wlroots compositor with a virtual pointer and keyboard.
pub struct Wlroots {
    conn: Connection,
    queue: EventQueue<State>,
    state: State,
    shm: wl_shm::WlShm,
    pointer: ZwlrVirtualPointerV1,
    /// The virtual keyboard, with the keymap it holds.
    keyboard: (ZwpVirtualKeyboardV1, keymap::Keymap),
    screencopy: Option<ZwlrScreencopyManagerV1>,
    /// Event timestamps count from here.
    started: Instant,
    clicks: ClickPacing,
}

impl Wlroots {
    /// Connects to the compositor at `WAYLAND_DISPLAY` and makes the virtual
    /// devices. A compositor without the virtual-pointer or virtual-keyboard
    /// protocol is an error naming what it lacks; one without screencopy is
    /// not (input works; screenshots are refused when asked for).
    pub fn connect() -> Result<Wlroots> {
        let (conn, globals, mut queue, mut state) = connect_following_outputs()?;
        let qh = queue.handle();
        let missing = |what: &'static str| {
            move |e| {
                Error::Wayland(format!(
                    "the compositor does not offer {what} ({e}): axsight's Wayland input needs \
                     a wlroots compositor (sway, Hyprland, river, labwc, wayfire)"
                ))
            }
        };
        let seat: wl_seat::WlSeat = globals.bind(&qh, 1..=7, ()).map_err(missing("wl_seat"))?;
        let shm: wl_shm::WlShm = globals.bind(&qh, 1..=1, ()).map_err(missing("wl_shm"))?;
        let pointers: ZwlrVirtualPointerManagerV1 = globals
            .bind(&qh, 1..=2, ())
            .map_err(missing("zwlr_virtual_pointer_manager_v1"))?;
        let keyboards: ZwpVirtualKeyboardManagerV1 = globals
            .bind(&qh, 1..=1, ())
            .map_err(missing("zwp_virtual_keyboard_manager_v1"))?;
        let screencopy = globals.bind(&qh, 1..=3, ()).ok();
        // One pointer and one keyboard for the connection's life, made now:
        // clients bind a wl_pointer or wl_keyboard only once the seat says it
        // has one, and input sent before that is lost.
        let pointer = pointers.create_virtual_pointer(Some(&seat), &qh, ());
        let keyboard = keyboards.create_virtual_keyboard(&seat, &qh, ());
        keyboard::send_keymap(&keyboard, &keymap::Keymap::default())?;
        queue.roundtrip(&mut state).map_err(wayland_error)?;
        Ok(Wlroots {
            conn,
            queue,
            state,
            shm,
            pointer,
            keyboard: (keyboard, keymap::Keymap::default()),
            screencopy,
            started: Instant::now(),
            clicks: ClickPacing::default(),
        })
    }

    /// One round trip: the compositor has handled every request sent before.
    pub fn round_trip(&mut self) -> Result<()> {
        self.queue
            .roundtrip(&mut self.state)
            .map(drop)
            .map_err(wayland_error)
    }

    /// The outputs' bounds in the layout.
    pub fn outputs(&self) -> Vec<Bounds> {
        self.state.outputs()
    }

    /// The box around every output: what absolute pointer positions span.
    fn layout(&self) -> Result<Bounds> {
        self.state.layout()
    }

    /// Milliseconds since connecting, as event timestamps.
    fn now(&self) -> u32 {
        self.started.elapsed().as_millis() as u32
    }
}

/// Whether a US keyboard types `keysym` (with Shift at most): what a session
/// with a US layout can type by keysyms alone.
pub fn on_a_us_keyboard(keysym: u32) -> bool {
    keymap::Keymap::in_base(keysym)
}

/// The key a US keyboard types `keysym` with (its evdev code), and whether
/// Shift goes with it: for input that presses the session's own keys (KWin's
/// fake input).
pub(crate) fn us_key(keysym: u32) -> Option<(u32, bool)> {
    keymap::Keymap::default()
        .stroke(keysym)
        .map(|stroke| (stroke.evdev, stroke.shift))
}

/// Packed RGB of 32-bit pixels stored B, G, R, then alpha or padding (the
/// `xrgb8888` of Wayland buffers, QImage's RGB32 and ARGB32 on a little-endian
/// machine), `width` × `height` in rows of `stride` bytes.
pub(crate) fn rgb_of_bgrx(data: &[u8], (width, height, stride): (usize, usize, usize)) -> Vec<u8> {
    screencopy::to_rgb(
        data,
        (width, height, stride),
        [2, 1, 0],
        false,
        (width, height),
    )
}

/// The evdev code of `modifier`'s (left) key.
pub(crate) fn modifier_code(modifier: axsight_core::Modifier) -> u32 {
    keyboard::modifier_key(modifier).evdev
}

/// Binds every `wl_output` the registry lists, each with its global name.
fn bind_outputs(globals: &GlobalList, qh: &QueueHandle<State>, state: &mut State) {
    let outputs: Vec<(u32, u32)> = globals.contents().with_list(|list| {
        list.iter()
            .filter(|g| g.interface == "wl_output")
            .map(|g| (g.name, g.version))
            .collect()
    });
    for (name, version) in outputs {
        let proxy =
            globals
                .registry()
                .bind::<wl_output::WlOutput, _, _>(name, version.min(4), qh, name);
        state.outputs.push(Output {
            global: name,
            proxy: Some(proxy),
            scale: 1,
            ..Output::default()
        });
    }
}

/// A failed Wayland request or dispatch: the compositor gone or protocol error.
pub(crate) fn wayland_error(error: impl std::fmt::Display) -> Error {
    Error::DisplayLost(format!("the Wayland compositor connection failed: {error}"))
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
        // Outputs plugged in later are not followed: a new connection sees them.
    }
}

impl Dispatch<wl_output::WlOutput, u32> for State {
    fn event(
        state: &mut State,
        _: &wl_output::WlOutput,
        event: wl_output::Event,
        global: &u32,
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
        let Some(output) = state.outputs.iter_mut().find(|o| o.global == *global) else {
            return;
        };
        match event {
            wl_output::Event::Geometry {
                x, y, transform, ..
            } => {
                output.x = x;
                output.y = y;
                output.turned = matches!(
                    transform,
                    WEnum::Value(
                        wl_output::Transform::_90
                            | wl_output::Transform::_270
                            | wl_output::Transform::Flipped90
                            | wl_output::Transform::Flipped270
                    )
                );
            }
            wl_output::Event::Mode {
                flags,
                width,
                height,
                ..
            } => {
                let current = match flags {
                    WEnum::Value(flags) => flags.contains(wl_output::Mode::Current),
                    WEnum::Unknown(bits) => bits & 1 != 0,
                };
                if current {
                    output.mode = (width, height);
                }
            }
            wl_output::Event::Scale { factor } => output.scale = factor,
            wl_output::Event::Name { name } => output.name = name,
            _ => {}
        }
    }
}

impl Dispatch<zxdg_output_v1::ZxdgOutputV1, u32> for State {
    fn event(
        state: &mut State,
        _: &zxdg_output_v1::ZxdgOutputV1,
        event: zxdg_output_v1::Event,
        global: &u32,
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
        let Some(output) = state.outputs.iter_mut().find(|o| o.global == *global) else {
            return;
        };
        let logical = output.logical.get_or_insert(Bounds {
            x: 0,
            y: 0,
            width: 0,
            height: 0,
        });
        match event {
            zxdg_output_v1::Event::LogicalPosition { x, y } => (logical.x, logical.y) = (x, y),
            zxdg_output_v1::Event::LogicalSize { width, height } => {
                (logical.width, logical.height) = (width, height)
            }
            zxdg_output_v1::Event::Name { name } if output.name.is_empty() => output.name = name,
            _ => {}
        }
    }
}

wayland_client::delegate_noop!(State: ZxdgOutputManagerV1);
wayland_client::delegate_noop!(State: ignore wl_seat::WlSeat);
wayland_client::delegate_noop!(State: ignore wl_shm::WlShm);
wayland_client::delegate_noop!(State: ZwlrVirtualPointerManagerV1);
wayland_client::delegate_noop!(State: ZwlrVirtualPointerV1);
wayland_client::delegate_noop!(State: ZwpVirtualKeyboardManagerV1);
wayland_client::delegate_noop!(State: ZwpVirtualKeyboardV1);
wayland_client::delegate_noop!(State: ZwlrScreencopyManagerV1);
