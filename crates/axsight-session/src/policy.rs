//! What whoever serves the desktop lets an agent start on it and reach: which
//! programs `open_application` may run, whether a line that needs a shell may
//! run at all, and which apps' windows the tools see (the engine keeps that
//! scope once connected, `AppScope`). Which tools an agent has is the MCP layer's to decide; this module
//! decides on what a tool is asked to do, on plain data.

use std::path::Path;

use axsight_core::{AppScope, Launch};

use crate::ToolError;

/// The desktop policy of a served session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DesktopPolicy {
    /// What `open_application` may start, by desktop id (`org.gnome.gedit`,
    /// with or without `.desktop`), program name (`gedit`, found on `PATH`) or
    /// path (`/usr/bin/gedit`); `None` lets it start anything.
    pub apps: Option<Vec<String>>,
    /// A command line that needs a shell (`$`, `;`, a pipe) runs through
    /// `/bin/sh`, and a shell may be the program started (`sh -c …`). Never
    /// with an allow-list: a shell line can start anything.
    pub shell: bool,
    /// Only these apps' windows are listed, read and acted on; `None`: every
    /// app's. With a scope, `open_application` starts only what `apps` names.
    pub scope: Option<AppScope>,
}

impl DesktopPolicy {
    /// Refuses a policy that contradicts itself.
    pub fn check(&self) -> Result<(), String> {
        if self.shell && self.apps.is_some() {
            return Err(
                "--allow-shell and an app allow-list cannot go together: a shell line can \
                 start any program"
                    .into(),
            );
        }
        if self.apps.as_ref().is_some_and(|apps| apps.is_empty()) {
            return Err("the app allow-list names no app".into());
        }
        if self.scope.as_ref().is_some_and(AppScope::is_empty) {
            return Err("the scope names no app".into());
        }
        Ok(())
    }

    /// Whether `launch` may run; refused with what may.
    ///
    /// ```
    /// use axsight_core::{AppScope, Launch};
    /// use axsight_session::DesktopPolicy;
    /// let policy = DesktopPolicy { apps: Some(vec!["gedit".into()]), shell: false, scope: None };
    /// let gedit = Launch::Program { argv: vec!["gedit".into(), "a.txt".into()], desktop_id: None };
    /// assert!(policy.allows(&gedit).is_ok());
    /// let other = Launch::Program { argv: vec!["xterm".into()], desktop_id: None };
    /// assert!(policy.allows(&other).unwrap_err().to_string().contains("may start only gedit"));
    /// ```
    pub fn allows(&self, launch: &Launch) -> Result<(), ToolError> {
        if let Launch::Program { argv, .. } = launch {
            if let Some(shell) = shell_run_by(argv).filter(|_| !self.shell) {
                return Err(ToolError::NotAllowed(format!(
                    "`{shell}` is a shell, and a shell runs any line: open_application starts \
                     programs, and runs shells only where the server allows them (serve \
                     --allow-shell)"
                )));
            }
        }
        let Some(apps) = &self.apps else {
            if let Some(scope) = &self.scope {
                return Err(ToolError::NotAllowed(format!(
                    "this server shows only {} (serve --scope) and names no app \
                     open_application may start (serve --allow-app)",
                    scope.listed()
                )));
            }
            return Ok(());
        };
        let allowed = match launch {
            Launch::Program { argv, desktop_id } => apps.iter().any(|rule| {
                names_desktop_id(rule, desktop_id.as_deref())
                    || argv
                        .first()
                        .is_some_and(|program| names_program(rule, program))
            }),
            Launch::Shell(_) => false,
        };
        match allowed {
            true => Ok(()),
            false => Err(ToolError::NotAllowed(format!(
                "open_application may start only {}; `{}` is none of them",
                apps.join(", "),
                launch.command()
            ))),
        }
    }
}

/// Shells, which run whatever line they are given (`sh -c '…'`).
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "yash", "fish", "csh", "tcsh", "busybox",
];

/// The shell `argv` runs, if it runs one: as its program, or through `env`
/// (`env FOO=1 bash -c …`).
fn shell_run_by(argv: &[String]) -> Option<String> {
    let name = |word: &str| {
        Path::new(word)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(word)
            .to_string()
    };
    let mut words = argv.iter();
    let mut program = name(words.next()?);
    if program == "env" {
        // Its options and NAME=VALUE settings, then the program it runs.
        let run = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
        program = name(run);
    }
    SHELLS.contains(&program.as_str()).then_some(program)
}

/// Whether allow-list entry `rule` is the desktop id `id`.
fn names_desktop_id(rule: &str, id: Option<&str>) -> bool {
    let rule = rule.strip_suffix(".desktop").unwrap_or(rule);
    id.is_some_and(|id| id == rule)
}

/// Whether allow-list entry `rule` is `program`: a rule without a `/` is a
/// program found on `PATH`, so only a program named the same way (no folder)
/// matches it — `/tmp/x/gedit` is not `gedit`; a rule with one is that file,
/// named by its path or found as it on `PATH`.
fn names_program(rule: &str, program: &str) -> bool {
    if !rule.contains('/') {
        return !program.contains('/') && program == rule;
    }
    if program == rule {
        return true;
    }
    !program.contains('/') && on_path(program).is_some_and(|found| Path::new(rule) == found)
}

/// Where `program` is found on `PATH`.
fn on_path(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(argv: &[&str], desktop_id: Option<&str>) -> Launch {
        Launch::Program {
            argv: argv.iter().map(|w| w.to_string()).collect(),
            desktop_id: desktop_id.map(str::to_string),
        }
    }

    fn allowing(apps: &[&str]) -> DesktopPolicy {
        DesktopPolicy {
            apps: Some(apps.iter().map(|a| a.to_string()).collect()),
            shell: false,
            scope: None,
        }
    }

    #[test]
    fn an_allow_list_names_desktop_ids_programs_and_paths() {
        let policy = allowing(&["org.gnome.Calculator.desktop", "gedit", "/usr/bin/env"]);
        let calculator = program(&["gnome-calculator"], Some("org.gnome.Calculator"));
        assert!(policy.allows(&calculator).is_ok());
        assert!(policy
            .allows(&program(&["gedit", "--new-window"], None))
            .is_ok());
        assert!(policy.allows(&program(&["/usr/bin/env"], None)).is_ok());
        // `env` on PATH is /usr/bin/env on this machine's PATH.
        if on_path("env").as_deref() == Some(Path::new("/usr/bin/env")) {
            assert!(policy.allows(&program(&["env"], None)).is_ok());
        }
    }

    #[test]
    fn a_program_of_the_same_name_elsewhere_or_a_shell_line_is_refused() {
        let policy = allowing(&["gedit"]);
        for launch in [
            program(&["/tmp/evil/gedit"], None),
            program(&["xterm"], None),
            program(&["gedit-evil"], Some("gedit-evil")),
            Launch::Shell("gedit; xterm".into()),
        ] {
            let refused = policy.allows(&launch).unwrap_err().to_string();
            assert!(refused.contains("may start only gedit"), "{refused}");
        }
        assert!(DesktopPolicy::default()
            .allows(&Launch::Shell("x".into()))
            .is_ok());
    }

    #[test]
    fn a_shell_is_a_shell_line_however_it_is_started() {
        let open = DesktopPolicy::default();
        for argv in [
            &["sh", "-c", "echo hi > /tmp/x"][..],
            &["/bin/bash", "-c", "x"],
            &["env", "-i", "A=1", "dash", "-c", "x"],
        ] {
            let refused = open.allows(&program(argv, None)).unwrap_err().to_string();
            assert!(
                refused.contains("is a shell") && refused.contains("--allow-shell"),
                "{refused}"
            );
        }
        // A terminal that runs a shell inside it is a program like any other.
        assert!(open
            .allows(&program(&["gnome-terminal", "--", "bash"], None))
            .is_ok());
        assert!(open
            .allows(&program(&["env", "HOME=/tmp", "gedit"], None))
            .is_ok());
        let shell = DesktopPolicy {
            shell: true,
            ..DesktopPolicy::default()
        };
        assert!(shell.allows(&program(&["sh", "-c", "x"], None)).is_ok());
    }

    #[test]
    fn a_scope_without_an_allow_list_starts_nothing() {
        let scoped = DesktopPolicy {
            scope: Some(AppScope::new(["gedit"])),
            ..DesktopPolicy::default()
        };
        let refused = scoped
            .allows(&program(&["gedit"], None))
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("names no app open_application may start"),
            "{refused}"
        );
        let allowed = DesktopPolicy {
            apps: Some(vec!["gedit".into()]),
            ..scoped
        };
        assert!(allowed.allows(&program(&["gedit"], None)).is_ok());
    }

    #[test]
    fn a_shell_with_an_allow_list_is_refused_when_serving_begins() {
        let mut policy = allowing(&["gedit"]);
        assert!(policy.check().is_ok());
        policy.shell = true;
        assert!(policy.check().unwrap_err().contains("--allow-shell"));
        assert!(allowing(&[]).check().is_err());
    }
}
