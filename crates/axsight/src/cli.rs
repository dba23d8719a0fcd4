//! The command-line interface: arguments and help text.

use clap::{Parser, Subcommand};

/// See and operate the Linux desktop through its accessibility tree.
#[derive(Debug, Parser)]
#[command(name = "axsight", version, about)]
pub struct Cli {
    /// More logging on stderr (-v info, -vv debug); AXSIGHT_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List applications and their windows.
    Apps {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print a window's tree (the active window unless --app or --window say).
    Tree {
        /// Application name (substring) or pid.
        #[arg(long)]
        app: Option<String>,
        /// Window title (substring).
        #[arg(long)]
        window: Option<String>,
        /// Print JSON instead of the compact text.
        #[arg(long)]
        json: bool,
        /// Levels to print below the window.
        #[arg(long)]
        max_depth: Option<usize>,
        /// Characters of output at most.
        #[arg(long, default_value_t = 16_000)]
        max_chars: usize,
        /// Also print elements that are not drawn.
        #[arg(long)]
        include_invisible: bool,
    },
    /// Find elements matching a selector, e.g. 'role:Button && name:Save'.
    Find {
        selector: String,
        /// Limit the search to one application.
        #[arg(long)]
        app: Option<String>,
        /// Limit the search to one window.
        #[arg(long)]
        window: Option<String>,
    },
    /// Check the display, the buses and accessibility, and say how to fix what is wrong.
    Doctor,
    /// Serve MCP over stdio.
    Serve,
    /// Measure tree reads (see `axsight bench tree --help`).
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Time full tree reads of windows, warm (in this process) and print medians.
    Tree {
        /// Applications to read (names, substring match).
        #[arg(long = "app", required = true)]
        apps: Vec<String>,
        /// Reads per application.
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
}
