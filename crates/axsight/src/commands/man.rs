//! `axsight man`: manual pages in roff, generated from the clap definitions in
//! `cli.rs` (clap_mangen): axsight(1) on stdout, or axsight(1) and a page per
//! command (axsight-serve(1), axsight-bench-tree(1), ...) written into a directory,
//! as the Debian package ships them.

use crate::stdout::outln;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::CommandFactory as _;

use crate::cli::Cli;

pub fn run(dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    // Built, so that each command carries its page's name (axsight-serve); no
    // `help` command, which has no page of its own.
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    match dir {
        None => {
            let mut roff = Vec::new();
            page(&command).render(&mut roff)?;
            std::io::stdout()
                .write_all(&roff)
                .context("cannot write the page")?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot make the directory {}", dir.display()))?;
            let mut written = Vec::new();
            write_pages(&command, dir, &mut written)
                .with_context(|| format!("cannot write the pages into {}", dir.display()))?;
            for page in written {
                outln!("{}", page.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A command's page, dated by the commit it was built from where that is known.
fn page(command: &clap::Command) -> clap_mangen::Man {
    let page = clap_mangen::Man::new(command.clone()).manual("axsight manual");
    match crate::version::COMMIT_DATE {
        "" => page,
        date => page.date(date),
    }
}

/// The command's page and its commands' pages, depth first.
fn write_pages(
    command: &clap::Command,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    written.push(page(command).generate_to(dir)?);
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        write_pages(sub, dir, written)?;
    }
    Ok(())
}
