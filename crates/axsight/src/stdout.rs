//! The CLI's output: text to standard output, where a reader that went away
//! (`axsight tree | head`) ends the command quietly instead of a panic, as
//! `println!` would. Not for `serve`, whose standard output is the MCP transport.

use std::fmt;
use std::io::{ErrorKind, Write};

/// Writes `text` to standard output and flushes it. A closed pipe exits with
/// status 0 (the reader had what it wanted); any other failure exits with 1.
pub fn write(text: fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(text).and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(error) if error.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
        Err(error) => {
            eprintln!("axsight: cannot write the output: {error}");
            std::process::exit(1);
        }
    }
}

/// `print!` through [`write()`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*)) };
}

/// `println!` through [`write()`].
macro_rules! outln {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {out, outln};
