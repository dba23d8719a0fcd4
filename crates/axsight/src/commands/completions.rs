//! `axsight completions SHELL`: the shell's completion script, generated from the
//! clap definitions in `cli.rs` (clap_complete), so it never lags the commands.

use std::process::ExitCode;

use clap::CommandFactory as _;

use crate::cli::Cli;

pub fn print(shell: clap_complete::Shell) -> ExitCode {
    let mut command = Cli::command();
    let name = command.get_name().to_string();
    clap_complete::generate(shell, &mut command, name, &mut std::io::stdout());
    ExitCode::SUCCESS
}
