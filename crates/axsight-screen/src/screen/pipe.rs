//! Reading a pipe that another process writes into (a clipboard's holder, KWin's
//! screenshots): to its end, within a deadline and a size, so that a writer that
//! stalls or never stops cannot hold the caller.

use std::io::Read as _;
use std::time::{Duration, Instant};

/// Why a pipe was not read to its end.
#[derive(Debug)]
pub enum PipeError {
    /// The writer did not finish within the deadline.
    TimedOut,
    /// The writer sent more than the most asked for.
    TooLong,
    Io(std::io::Error),
}

/// Reads `reader` to its end, `deadline` at most, and `max_bytes`.
pub fn read_within(
    reader: &mut std::io::PipeReader,
    deadline: Duration,
    max_bytes: usize,
) -> Result<Vec<u8>, PipeError> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let end = Instant::now() + deadline;
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(PipeError::TimedOut);
        }
        let timeout = Timespec::try_from(left).ok();
        let mut fds = [PollFd::new(reader, PollFlags::IN)];
        poll(&mut fds, timeout.as_ref()).map_err(|e| PipeError::Io(e.into()))?;
        if fds[0].revents().is_empty() {
            continue;
        }
        let read = reader.read(&mut chunk).map_err(PipeError::Io)?;
        if read == 0 {
            return Ok(bytes);
        }
        bytes.extend_from_slice(&chunk[..read]);
        if bytes.len() > max_bytes {
            return Err(PipeError::TooLong);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn a_pipe_is_read_to_its_end_or_refused() {
        let (mut reader, mut writer) = std::io::pipe().unwrap();
        writer.write_all(b"hello").unwrap();
        drop(writer);
        assert_eq!(
            read_within(&mut reader, Duration::from_secs(1), 10).unwrap(),
            b"hello"
        );
        let (mut reader, mut writer) = std::io::pipe().unwrap();
        writer.write_all(b"too long").unwrap();
        drop(writer);
        assert!(matches!(
            read_within(&mut reader, Duration::from_secs(1), 3),
            Err(PipeError::TooLong)
        ));
        let (mut reader, _open) = std::io::pipe().unwrap();
        assert!(matches!(
            read_within(&mut reader, Duration::from_millis(20), 3),
            Err(PipeError::TimedOut)
        ));
    }
}
