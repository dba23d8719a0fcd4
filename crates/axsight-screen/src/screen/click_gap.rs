//! The pause between clicks that keeps two separate clicks from being taken for
//! one double click: when it is needed, and waiting it out. Pure timing, shared
//! by every input backend (XTest, Wayland virtual pointers).

use std::time::{Duration, Instant};

/// How long after a click the next click or drag waits, unless both are on
/// different controls that count their own clicks. Toolkits count presses in
/// one widget closer together than their double-click time (GTK: 400 ms) as
/// one multiple click, whatever the distance: measured in a GTK3 entry, a
/// double click 80 px from a single click up to 300 ms before selected
/// nothing, and selected the word 500 ms after. Ten clicks on ten different
/// GTK4 calculator buttons with no pause at all all landed.
pub const CLICK_GAP: Duration = Duration::from_millis(450);

/// A click or drag, as the next one's pause needs it.
#[derive(Debug, Clone, Copy)]
struct Press {
    at: Instant,
    /// How many times the button went down (2: a double click).
    count: u8,
    /// The control pressed, when it counts its own clicks.
    control: Option<u64>,
}

/// The last click or drag an input backend sent.
#[derive(Debug, Default)]
pub struct ClickPacing {
    last: Option<Press>,
}

impl ClickPacing {
    /// Waits out the rest of [`CLICK_GAP`] since the last click when this
    /// press of `count` on `control` needs it (`needs_click_gap`), so that it
    /// starts a click of its own; then counts from now. A count of 0 (a
    /// pointer motion) neither waits nor counts.
    pub fn await_gap(&mut self, count: u8, control: Option<u64>) {
        if count == 0 {
            return;
        }
        if let Some(last) = self.last {
            if needs_click_gap(&last, count, control) {
                std::thread::sleep(CLICK_GAP.saturating_sub(last.at.elapsed()));
            }
        }
        self.last = Some(Press {
            at: Instant::now(),
            count,
            control,
        });
    }
}

/// Whether a press of `count` on `control` must wait out [`CLICK_GAP`] after
/// `last`: always, but for single clicks on two different controls that each
/// count their own clicks. A multiple click waits too, before and after: GTK3
/// takes a press soon after a double click for a triple, wherever it lands.
fn needs_click_gap(last: &Press, count: u8, control: Option<u64>) -> bool {
    let different_controls = matches!((last.control, control), (Some(a), Some(b)) if a != b);
    !(different_controls && last.count <= 1 && count <= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_single_clicks_on_two_different_controls_go_without_a_pause() {
        let last = |count, control| Press {
            at: Instant::now(),
            count,
            control,
        };
        assert!(!needs_click_gap(&last(1, Some(1)), 1, Some(2)));
        // The same control: a second click there would make a double click.
        assert!(needs_click_gap(&last(1, Some(1)), 1, Some(1)));
        // Anything not known to count its own clicks (a field, a list row, a
        // point) may be part of the widget clicked before.
        assert!(needs_click_gap(&last(1, Some(1)), 1, None));
        assert!(needs_click_gap(&last(1, None), 1, Some(2)));
        assert!(needs_click_gap(&last(1, None), 1, None));
        // Multiple clicks, before or after.
        assert!(needs_click_gap(&last(2, Some(1)), 1, Some(2)));
        assert!(needs_click_gap(&last(1, Some(1)), 2, Some(2)));
    }

    #[test]
    fn a_second_click_on_the_same_control_waits_out_the_gap() {
        let mut pacing = ClickPacing::default();
        pacing.await_gap(1, Some(7));
        let started = Instant::now();
        pacing.await_gap(1, Some(7));
        assert!(started.elapsed() >= CLICK_GAP - Duration::from_millis(5));
    }
}
