//! `axsight kde-authorize`: writes the `.desktop` file that lets this axsight
//! binary use KWin's fake input and ScreenShot2 (KWin refuses both to any
//! program no such file names), and refreshes KDE's service database so that
//! KWin sees it. It writes that one file only.

use crate::stdout::outln;
use std::path::Path;
use std::process::{Command, ExitCode};

use anyhow::Context as _;
use axsight_linux::{kde_desktop_entry, KDE_DESKTOP_FILE};

pub fn run(dir: Option<&Path>, exec: Option<&Path>) -> anyhow::Result<ExitCode> {
    let applications = match dir {
        Some(dir) => dir.to_path_buf(),
        None => super::xdg::data_home()?.join("applications"),
    };
    // KWin compares the file's Exec with the running program's real path.
    let exec = match exec {
        Some(exec) => exec.to_path_buf(),
        None => std::env::current_exe().context("cannot tell where this axsight binary is")?,
    };
    let exec = exec
        .canonicalize()
        .with_context(|| format!("cannot find {}", exec.display()))?;
    std::fs::create_dir_all(&applications)
        .with_context(|| format!("cannot make {}", applications.display()))?;
    let file = applications.join(KDE_DESKTOP_FILE);
    std::fs::write(&file, kde_desktop_entry(&exec))
        .with_context(|| format!("cannot write {}", file.display()))?;
    outln!("wrote {} for {}", file.display(), exec.display());
    match refresh_services() {
        Some(tool) => outln!("{tool} refreshed KDE's service database"),
        None => outln!(
            "no kbuildsycoca6 or kbuildsycoca5 ran: KWin sees the file once KDE's service \
             database is rebuilt (log out and in)"
        ),
    }
    outln!("KWin notices it within seconds: start axsight again, and check with `axsight doctor`");
    outln!("(its screen line names input and screenshots).");
    Ok(ExitCode::SUCCESS)
}

/// Runs KDE's service database builder (Plasma 6's, else 5's): the name of the
/// one that succeeded.
fn refresh_services() -> Option<&'static str> {
    ["kbuildsycoca6", "kbuildsycoca5"].into_iter().find(|tool| {
        Command::new(tool)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    })
}
