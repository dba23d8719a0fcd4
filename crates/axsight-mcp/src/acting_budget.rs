//! A session's budget of acting calls (`serve --rate-limit N`): N a minute,
//! as a bucket that holds N and refills at N a minute, so a burst up to N
//! goes through and a steady stream is held to the rate. Reading tools are
//! never counted.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One session's acting calls left.
#[derive(Debug)]
pub(crate) struct ActingBudget {
    per_minute: u32,
    /// Calls left, and when that was counted.
    left: Mutex<(f64, Instant)>,
}

impl ActingBudget {
    pub(crate) fn new(per_minute: u32) -> ActingBudget {
        ActingBudget::starting_at(per_minute, Instant::now())
    }

    fn starting_at(per_minute: u32, now: Instant) -> ActingBudget {
        ActingBudget {
            per_minute,
            left: Mutex::new((f64::from(per_minute), now)),
        }
    }

    /// A full budget of the same rate, for another session.
    pub(crate) fn afresh(&self) -> ActingBudget {
        ActingBudget::new(self.per_minute)
    }

    /// Takes one call; refused with the words to answer when none is left.
    pub(crate) fn take(&self) -> Result<(), String> {
        self.take_at(Instant::now())
    }

    fn take_at(&self, now: Instant) -> Result<(), String> {
        let rate = f64::from(self.per_minute) / 60.0;
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        let refilled = left.0 + now.saturating_duration_since(left.1).as_secs_f64() * rate;
        *left = (refilled.min(f64::from(self.per_minute)), now);
        if left.0 >= 1.0 {
            left.0 -= 1.0;
            return Ok(());
        }
        let wait = Duration::from_secs_f64((1.0 - left.0) / rate);
        Err(format!(
            "this session made {} acting calls in the last minute, the most it may (serve \
             --rate-limit); the next may come in {:.1} s",
            self.per_minute,
            wait.as_secs_f64()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_up_to_the_rate_goes_then_calls_wait_for_the_refill() {
        let start = Instant::now();
        let budget = ActingBudget::starting_at(3, start);
        for _ in 0..3 {
            assert!(budget.take_at(start).is_ok());
        }
        let refused = budget.take_at(start).unwrap_err();
        assert!(
            refused.contains("3 acting calls") && refused.contains("in 20.0 s"),
            "{refused}"
        );
        // A third of a minute later, one call's worth is back.
        let later = start + Duration::from_secs(20);
        assert!(budget.take_at(later).is_ok());
        assert!(budget.take_at(later).is_err());
        // Idle a long while: the bucket holds no more than the rate.
        let much_later = later + Duration::from_secs(3600);
        for _ in 0..3 {
            assert!(budget.take_at(much_later).is_ok());
        }
        assert!(budget.take_at(much_later).is_err());
    }
}
