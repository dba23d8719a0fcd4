//! `axsight`: the command line and the MCP server binary. It only wires the crates
//! together: the engine (`axsight-linux`), the core (`axsight-core`) and the server
//! (`axsight-mcp`).

mod allocator;
mod cli;
mod commands;
mod stdout;
mod version;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    init_logging(cli.verbose);
    // Before the runtime starts any thread: discovery, and every app axsight
    // starts, read DISPLAY.
    if let Some(display) = &cli.display {
        std::env::set_var("DISPLAY", display);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("axsight: cannot start the async runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(commands::run(cli.command, cli.grounding)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("axsight: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr (stdout carries the MCP protocol under `serve`).
fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("AXSIGHT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
}
