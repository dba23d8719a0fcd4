//! Starting applications the way a desktop launcher would, in an environment every
//! toolkit accepts.
//!
//! An app is named by its desktop id (`org.gnome.Calculator`, with or without
//! `.desktop`) or by the `Name=` of a desktop file ([`desktop_launch`] reads its
//! `Exec` into a program and arguments by the Desktop Entry spec), or the caller
//! splits a command line itself (`axsight_core::split_command`). A program is
//! started from its argv, never through a shell; a shell line runs only as
//! [`Launch::Shell`], which the session makes only where serving allowed it. The child
//! gets the display and session bus axsight found, and loses `AT_SPI_BUS_ADDRESS`:
//! Qt 6 apps never register on the accessibility bus when it is set, while every
//! toolkit finds the bus through the session bus or the X root window without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use axsight_core::{split_exec, Launch, Launched};

use crate::discover::Discovery;
use crate::{Error, Result};

/// Variables that would hide the child from the accessibility bus.
const HIDING: &[&str] = &["AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE", "GTK_A11Y"];

/// Java's ATK wrapper, where Debian and Ubuntu install it (libatk-wrapper-java).
/// A JVM loads no assistive technology unless told, and only from its class path.
const JAVA_ATK_WRAPPER: &[&str] = &["/usr/share/java/java-atk-wrapper.jar"];

/// The system property that names the assistive technologies a JVM loads.
const ASSISTIVE_TECHNOLOGIES: &str = "javax.accessibility.assistive_technologies";

/// Starts `launch` detached from axsight (its own session, output discarded),
/// so it outlives the server and never writes into the MCP stream.
pub(crate) fn launch(launch: &Launch, discovery: &Discovery) -> Result<Launched> {
    let command = launch.command();
    let mut child = match launch {
        Launch::Program { argv, .. } => {
            let Some((program, arguments)) = argv.split_first() else {
                return Err(Error::Launch {
                    command,
                    why: "no program named".into(),
                });
            };
            let mut child = Command::new(program);
            child.args(arguments);
            child
        }
        Launch::Shell(line) => {
            let mut child = Command::new("/bin/sh");
            // `exec` so the pid we report is the app's, not the shell's.
            child.arg("-c").arg(format!("exec {line}"));
            child
        }
    };
    child
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for name in HIDING {
        child.env_remove(name);
    }
    if let Some(display) = &discovery.display {
        child.env("DISPLAY", display);
    }
    if let Some(bus) = &discovery.session_bus {
        child.env("DBUS_SESSION_BUS_ADDRESS", bus);
    }
    // Qt and Java apps switch their bridge on only when asked.
    child.env("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1");
    child.env("GNOME_ACCESSIBILITY", "1");
    if let Some(jar) = JAVA_ATK_WRAPPER.iter().map(Path::new).find(|p| p.is_file()) {
        let existing = std::env::var("JAVA_TOOL_OPTIONS").ok();
        child.env(
            "JAVA_TOOL_OPTIONS",
            java_tool_options(existing.as_deref(), jar),
        );
    }
    // Its own process group: a signal to axsight's group must not take it down.
    std::os::unix::process::CommandExt::process_group(&mut child, 0);
    let spawned = child.spawn().map_err(|error| Error::Launch {
        command: command.clone(),
        why: error.to_string(),
    })?;
    let pid = spawned.id();
    // Reap it in the background so it never lingers as a zombie.
    std::thread::spawn(move || {
        let mut spawned = spawned;
        let _ = spawned.wait();
    });
    Ok(Launched { pid, command })
}

/// `JAVA_TOOL_OPTIONS` that switch Java's ATK wrapper `jar` on in any JVM,
/// however the app sets its class path (every JVM reads the variable; the boot
/// class path is searched whatever `-cp` or `-jar` say), keeping the `existing`
/// options. Options that already name assistive technologies are left alone.
fn java_tool_options(existing: Option<&str>, jar: &Path) -> String {
    let existing = existing.map(str::trim).unwrap_or_default();
    if existing.contains(ASSISTIVE_TECHNOLOGIES) {
        return existing.to_string();
    }
    let ours = format!(
        "-Xbootclasspath/a:{} -D{ASSISTIVE_TECHNOLOGIES}=org.GNOME.Accessibility.AtkWrapper",
        jar.display()
    );
    match existing {
        "" => ours,
        existing => format!("{existing} {ours}"),
    }
}

/// What the desktop file `app` names (by its id or its `Name=`) runs, if one
/// does.
pub(crate) fn desktop_launch(app: &str) -> Option<Launch> {
    let app = app.trim();
    if app.is_empty() {
        return None;
    }
    let dirs = application_dirs();
    let id = app.strip_suffix(".desktop").unwrap_or(app);
    let by_id = dirs
        .iter()
        .map(|dir| dir.join(format!("{id}.desktop")))
        .find(|path| path.is_file());
    let file = match by_id {
        Some(path) => path,
        None => by_name(&dirs, app)?,
    };
    let text = std::fs::read_to_string(&file).ok()?;
    let argv = exec_argv(&text, &file)?;
    let desktop_id = file
        .file_stem()
        .and_then(|stem| stem.to_str())
        .map(str::to_string);
    Some(Launch::Program { argv, desktop_id })
}

/// The first desktop file whose `Name=` is `name` (any case).
fn by_name(dirs: &[PathBuf], name: &str) -> Option<PathBuf> {
    dirs.iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "desktop"))
        .find(|path| {
            std::fs::read_to_string(path).is_ok_and(|text| {
                entry_fields(&text)
                    .any(|(key, value)| key == "Name" && value.eq_ignore_ascii_case(name))
            })
        })
}

/// Where desktop files live, most specific first.
fn application_dirs() -> Vec<PathBuf> {
    let home = std::env::var("XDG_DATA_HOME")
        .ok()
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var("HOME")
                .ok()
                .map(|h| Path::new(&h).join(".local/share"))
        });
    let system = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    home.into_iter()
        .chain(system.split(':').map(PathBuf::from))
        .map(|dir| dir.join("applications"))
        .collect()
}

/// The `key=value` lines of a desktop file's `[Desktop Entry]` group.
fn entry_fields(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut in_entry = false;
    text.lines().filter_map(move |line| {
        let line = line.trim();
        if line.starts_with('[') {
            in_entry = line == "[Desktop Entry]";
            return None;
        }
        if !in_entry {
            return None;
        }
        let (key, value) = line.split_once('=')?;
        Some((key.trim(), value.trim()))
    })
}

/// The `Exec=` command of desktop file `text` (at `path`) as a program and its
/// arguments, by the Desktop Entry spec: the value's escapes undone, its words
/// split by its quoting, and its field codes expanded where they name the
/// entry itself (`%c`, `%i`, `%k`) and dropped where they stand for files or
/// URLs, which a start by name has none of.
fn exec_argv(text: &str, path: &Path) -> Option<Vec<String>> {
    let field = |name: &str| {
        entry_fields(text)
            .find(|(key, _)| *key == name)
            .map(|(_, value)| unescape(value))
    };
    let exec = field("Exec")?;
    let mut argv = Vec::new();
    for word in split_exec(&exec).ok()? {
        match word.as_str() {
            "%f" | "%F" | "%u" | "%U" | "%d" | "%D" | "%n" | "%N" | "%v" | "%m" => {}
            "%i" => {
                if let Some(icon) = field("Icon").filter(|icon| !icon.is_empty()) {
                    argv.push("--icon".to_string());
                    argv.push(icon);
                }
            }
            "%c" => argv.push(field("Name").unwrap_or_default()),
            "%k" => argv.push(path.display().to_string()),
            _ => argv.push(without_field_codes(&word)),
        }
    }
    (!argv.is_empty()).then_some(argv)
}

/// A desktop file value's escapes (`\s`, `\n`, `\t`, `\r`, `\\`) undone.
fn unescape(value: &str) -> String {
    let mut out = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push(' '),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            // Kept for the quoting rules, which read backslashes of their own.
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A word with the field codes inside it removed, `%%` kept as `%`.
fn without_field_codes(word: &str) -> String {
    let mut out = String::new();
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('%', Some('%')) => {
                out.push('%');
                chars.next();
            }
            ('%', Some(_)) => {
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALCULATOR: &str = "[Desktop Entry]\nName=Calculator\nExec=gnome-calculator %U\n\n[Desktop Action new]\nExec=other\n";

    fn argv(text: &str) -> Option<Vec<String>> {
        exec_argv(text, Path::new("/usr/share/applications/app.desktop"))
    }

    #[test]
    fn exec_lines_are_programs_and_arguments_without_file_codes() {
        assert_eq!(argv(CALCULATOR).unwrap(), ["gnome-calculator"]);
        let text = "[Desktop Entry]\nExec=app --rate 50%% %f\n";
        assert_eq!(argv(text).unwrap(), ["app", "--rate", "50%"]);
        assert_eq!(argv("[Other]\nExec=x\n"), None);
    }

    #[test]
    fn exec_quoting_and_the_entrys_own_codes_are_the_specs() {
        let text = "[Desktop Entry]\nName=My App\nIcon=my-app\n\
                    Exec=\"/opt/my app/run\" --name %c %i --file %k -c \"echo \\\\$HOME; x\"\n";
        assert_eq!(
            argv(text).unwrap(),
            [
                "/opt/my app/run",
                "--name",
                "My App",
                "--icon",
                "my-app",
                "--file",
                "/usr/share/applications/app.desktop",
                "-c",
                "echo $HOME; x"
            ]
        );
        // The value's own escapes come first, then the quoting: `\s` is a space,
        // one word inside quotes and two outside.
        assert_eq!(
            argv("[Desktop Entry]\nExec=app \"a\\sb\" c\\sd\n").unwrap(),
            ["app", "a b", "c", "d"]
        );
    }

    #[test]
    fn java_apps_get_the_atk_wrapper_and_keep_their_options() {
        let jar = Path::new("/usr/share/java/java-atk-wrapper.jar");
        let ours = "-Xbootclasspath/a:/usr/share/java/java-atk-wrapper.jar \
                    -Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper";
        assert_eq!(java_tool_options(None, jar), ours);
        assert_eq!(java_tool_options(Some("  "), jar), ours);
        assert_eq!(
            java_tool_options(Some("-Xmx1g"), jar),
            format!("-Xmx1g {ours}")
        );
        // A user's own choice of assistive technology stands.
        let own = "-Djavax.accessibility.assistive_technologies=com.example.Reader";
        assert_eq!(java_tool_options(Some(own), jar), own);
    }

    #[test]
    fn only_the_desktop_entry_group_counts() {
        let fields: Vec<_> = entry_fields(CALCULATOR).collect();
        assert_eq!(
            fields,
            [("Name", "Calculator"), ("Exec", "gnome-calculator %U")]
        );
    }
}
