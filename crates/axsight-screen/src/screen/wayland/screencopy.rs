//! Screen capture through `zwlr_screencopy_manager_v1`: each output the region
//! touches is copied into a shared-memory buffer and its pixels put in place in
//! one RGB image of the region, in logical pixels (a scaled output's buffer is
//! sampled down). It never changes anything on screen.

use std::os::fd::AsFd as _;

use axsight_core::{Bounds, Capture, Point};
use wayland_client::protocol::{wl_buffer, wl_shm, wl_shm_pool};
use wayland_client::{Connection, Dispatch, QueueHandle, WEnum};
use wayland_protocols_wlr::screencopy::v1::client::zwlr_screencopy_frame_v1::{
    self, ZwlrScreencopyFrameV1,
};

use super::{wayland_error, State, Wlroots};
use crate::{Error, Result};

/// What the frame being captured has said so far.
#[derive(Debug, Default)]
pub(super) struct FrameState {
    /// The shm buffer it wants: format, width, height, stride.
    buffer: Option<(WEnum<wl_shm::Format>, u32, u32, u32)>,
    /// `buffer_done` came (version 3), or the buffer event (earlier versions).
    /// Version 3 may also offer a dmabuf first; shm is what is used.
    described: bool,
    y_invert: bool,
    ready: bool,
    failed: bool,
}

impl Wlroots {
    /// The pixels of `region` of the layout (cut to the outputs), or of the
    /// whole layout.
    pub fn capture(&mut self, region: Option<Bounds>) -> Result<Capture> {
        let layout = self.layout()?;
        let area = match region {
            Some(region) => region.intersection(&layout).ok_or_else(|| {
                Error::Wayland(format!(
                    "the region [{},{},{},{}] lies off the outputs ([{},{},{},{}])",
                    region.x,
                    region.y,
                    region.width,
                    region.height,
                    layout.x,
                    layout.y,
                    layout.width,
                    layout.height
                ))
            })?,
            None => layout,
        };
        let mut rgb = vec![0u8; area.width as usize * area.height as usize * 3];
        let outputs: Vec<(usize, Bounds)> = self.outputs().into_iter().enumerate().collect();
        for (index, output) in outputs {
            let Some(part) = output.intersection(&area) else {
                continue;
            };
            let image = self.copy_output(index, output, part)?;
            for row in 0..part.height as usize {
                let to = ((part.y - area.y) as usize + row) * area.width as usize
                    + (part.x - area.x) as usize;
                let from = row * part.width as usize;
                let len = part.width as usize * 3;
                rgb[to * 3..to * 3 + len].copy_from_slice(&image[from * 3..from * 3 + len]);
            }
        }
        Ok(Capture {
            origin: Point {
                x: area.x,
                y: area.y,
            },
            width: area.width as u32,
            height: area.height as u32,
            rgb,
        })
    }

    /// The RGB pixels of `part` (layout coordinates) of output `index`, which
    /// sits at `output`, `part.width` × `part.height` of them.
    fn copy_output(&mut self, index: usize, output: Bounds, part: Bounds) -> Result<Vec<u8>> {
        let manager = self.screencopy.clone().ok_or_else(|| {
            Error::Wayland(
                "the compositor does not offer screencopy (zwlr_screencopy_manager_v1), \
                 which screenshots need"
                    .into(),
            )
        })?;
        let proxy = self.state.outputs[index]
            .proxy
            .clone()
            .ok_or_else(|| Error::Wayland("an output has no proxy".into()))?;
        let qh = self.queue.handle();
        self.state.frame = FrameState::default();
        let frame = manager.capture_output_region(
            0,
            &proxy,
            part.x - output.x,
            part.y - output.y,
            part.width,
            part.height,
            &qh,
            (),
        );
        let result = self.fill_frame(&frame, part);
        frame.destroy();
        result
    }

    fn fill_frame(&mut self, frame: &ZwlrScreencopyFrameV1, part: Bounds) -> Result<Vec<u8>> {
        let described = |s: &State| s.frame.described || s.frame.failed;
        self.dispatch_until(described)?;
        let Some((format, width, height, stride)) = self.state.frame.buffer else {
            return Err(Error::Wayland(
                "the compositor would not copy the output".into(),
            ));
        };
        let format = match format {
            WEnum::Value(format) => format,
            WEnum::Unknown(code) => {
                return Err(Error::Wayland(format!(
                    "the compositor offers an unknown pixel format {code:#x}"
                )))
            }
        };
        let order = channel_order(format)?;
        let len = stride as usize * height as usize;
        let fd = rustix::fs::memfd_create("axsight-screencopy", rustix::fs::MemfdFlags::CLOEXEC)
            .map_err(|e| Error::Wayland(format!("cannot make a capture buffer: {e}")))?;
        rustix::fs::ftruncate(&fd, len as u64)
            .map_err(|e| Error::Wayland(format!("cannot size a capture buffer: {e}")))?;
        let qh = self.queue.handle();
        let pool = self.shm.create_pool(fd.as_fd(), len as i32, &qh, ());
        let buffer = pool.create_buffer(
            0,
            width as i32,
            height as i32,
            stride as i32,
            format,
            &qh,
            (),
        );
        frame.copy(&buffer);
        let done = self.dispatch_until(|s: &State| s.frame.ready || s.frame.failed);
        buffer.destroy();
        pool.destroy();
        done?;
        if self.state.frame.failed {
            return Err(Error::Wayland(
                "the compositor failed to copy the output".into(),
            ));
        }
        let mut data = vec![0u8; len];
        rustix::io::pread(&fd, &mut data, 0)
            .map_err(|e| Error::Wayland(format!("cannot read the capture buffer: {e}")))?;
        Ok(to_rgb(
            &data,
            (width as usize, height as usize, stride as usize),
            order,
            self.state.frame.y_invert,
            (part.width as usize, part.height as usize),
        ))
    }

    /// Dispatches events until `done` holds.
    fn dispatch_until(&mut self, done: impl Fn(&State) -> bool) -> Result<()> {
        while !done(&self.state) {
            self.queue
                .blocking_dispatch(&mut self.state)
                .map_err(wayland_error)?;
        }
        Ok(())
    }
}

/// Where red, green and blue sit in a 4-byte pixel of `format` (little-endian
/// in memory, as wl_shm formats are).
fn channel_order(format: wl_shm::Format) -> Result<[usize; 3]> {
    match format {
        wl_shm::Format::Argb8888 | wl_shm::Format::Xrgb8888 => Ok([2, 1, 0]),
        wl_shm::Format::Abgr8888 | wl_shm::Format::Xbgr8888 => Ok([0, 1, 2]),
        other => Err(Error::Wayland(format!(
            "screens in pixel format {other:?} cannot be captured"
        ))),
    }
}

/// Packed RGB of `size` pixels from a buffer of `width` × `height` 4-byte pixels
/// in rows of `stride` bytes, upside down when `y_invert`, sampled to `size`
/// by [`Capture::sampled`] (a scaled output's buffer is larger than its
/// logical size).
pub(super) fn to_rgb(
    data: &[u8],
    (width, height, stride): (usize, usize, usize),
    order: [usize; 3],
    y_invert: bool,
    (out_width, out_height): (usize, usize),
) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(width * height * 3);
    for y in 0..height {
        let row = if y_invert { height - 1 - y } else { y };
        for x in 0..width {
            let at = row * stride + x * 4;
            match data.get(at..at + 4) {
                Some(px) => rgb.extend(order.iter().map(|&i| px[i])),
                None => rgb.extend([0, 0, 0]),
            }
        }
    }
    let full = Capture {
        origin: Point { x: 0, y: 0 },
        width: width as u32,
        height: height as u32,
        rgb,
    };
    full.sampled(out_width as u32, out_height as u32).rgb
}

impl Dispatch<ZwlrScreencopyFrameV1, ()> for State {
    fn event(
        state: &mut State,
        proxy: &ZwlrScreencopyFrameV1,
        event: zwlr_screencopy_frame_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
        use zwlr_screencopy_frame_v1::Event;
        let frame = &mut state.frame;
        match event {
            Event::Buffer {
                format,
                width,
                height,
                stride,
            } => {
                frame.buffer = Some((format, width, height, stride));
                // Before version 3 there is no `buffer_done`: this is all.
                frame.described |= wayland_client::Proxy::version(proxy) < 3;
            }
            Event::BufferDone => frame.described = true,
            Event::Flags { flags } => {
                frame.y_invert = match flags {
                    WEnum::Value(flags) => flags.contains(zwlr_screencopy_frame_v1::Flags::YInvert),
                    WEnum::Unknown(bits) => bits & 1 != 0,
                }
            }
            Event::Ready { .. } => frame.ready = true,
            Event::Failed => frame.failed = true,
            _ => {}
        }
    }
}

wayland_client::delegate_noop!(State: ignore wl_shm_pool::WlShmPool);
wayland_client::delegate_noop!(State: ignore wl_buffer::WlBuffer);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgrx_rows_with_padding_become_rgb_and_flip_when_inverted() {
        // 2×2 pixels, rows of 12 bytes (4 of padding): blue, green / red, white.
        let data = [
            255, 0, 0, 0, 0, 255, 0, 0, 9, 9, 9, 9, //
            0, 0, 255, 0, 255, 255, 255, 0, 9, 9, 9, 9,
        ];
        let order = channel_order(wl_shm::Format::Xrgb8888).unwrap();
        let rgb = to_rgb(&data, (2, 2, 12), order, false, (2, 2));
        assert_eq!(rgb, [0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255]);
        let flipped = to_rgb(&data, (2, 2, 12), order, true, (2, 2));
        assert_eq!(flipped[..6], [255, 0, 0, 255, 255, 255]);
    }

    #[test]
    fn a_scaled_buffer_is_sampled_to_logical_size() {
        // 2×2 buffer of one output at scale 2, read as 1×1 logical pixel:
        // the mean of the four.
        let data = [1, 2, 3, 0, 5, 6, 7, 0, 9, 9, 9, 0, 9, 9, 9, 0];
        let order = channel_order(wl_shm::Format::Xbgr8888).unwrap();
        assert_eq!(to_rgb(&data, (2, 2, 8), order, false, (1, 1)), [6, 7, 7]);
    }

    #[test]
    fn formats_without_four_byte_pixels_are_refused() {
        assert!(channel_order(wl_shm::Format::Rgb565).is_err());
    }
}
