//! Starting Chromium (or an Electron app) so that axsight can see into it:
//! the page's accessibility tree on (`--force-renderer-accessibility`) and a
//! DevTools endpoint on loopback; and finding the endpoint of one already
//! running (`http://127.0.0.1:9222`). Starting Firefox the same way: its
//! WebDriver BiDi endpoint on a port it picks, in a fresh, quiet profile.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::BrowserError;

mod electron;
pub use electron::{electron_flags, free_port, is_electron_app};

/// How often the profile is checked for the DevTools port file.
const PORT_POLL: Duration = Duration::from_millis(50);

/// The flags that expose a Chromium-based program's page tree and a DevTools
/// endpoint on a port the program picks (written to `DevToolsActivePort`).
pub fn accessibility_flags(profile: &Path) -> Vec<String> {
    vec![
        "--force-renderer-accessibility".into(),
        "--remote-debugging-address=127.0.0.1".into(),
        "--remote-debugging-port=0".into(),
        format!("--user-data-dir={}", profile.display()),
    ]
}

/// The flags Chromium itself needs to start quietly in a fresh profile (root
/// needs `--no-sandbox`; a headless X server has no GPU).
pub fn chromium_flags() -> Vec<String> {
    let mut flags: Vec<String> = [
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--password-store=basic",
    ]
    .map(String::from)
    .to_vec();
    if is_root() {
        flags.push("--no-sandbox".into());
    }
    flags
}

pub(crate) fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|ids| ids.split_whitespace().nth(1).map(|e| e == "0"))
        })
        .unwrap_or(false)
}

/// Whether `program` is a Chromium-based browser by its name.
pub fn is_chromium(program: &str) -> bool {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program)
        .to_ascii_lowercase();
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
        "chrome",
    ]
    .contains(&name.as_str())
}

/// Whether `program` is Firefox by its name.
pub fn is_firefox(program: &str) -> bool {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program)
        .to_ascii_lowercase();
    ["firefox", "firefox-esr", "firefox-bin"].contains(&name.as_str())
}

/// The Firefox to start: the first `firefox-esr` or `firefox` on `PATH`.
pub fn find_firefox() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["firefox-esr", "firefox"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// The flags that start Firefox in `profile`, apart from any Firefox already
/// running, with its WebDriver BiDi endpoint on a loopback port it picks
/// (written to the profile's `WebDriverBiDiServer.json`).
pub fn firefox_flags(profile: &Path) -> Vec<String> {
    vec![
        "--remote-debugging-port=0".into(),
        "-no-remote".into(),
        "-profile".into(),
        profile.display().to_string(),
    ]
}

/// The preferences a started Firefox's profile gets (its `user.js`).
pub(crate) const FIREFOX_PREFS: &str = include_str!("launch/firefox-user.js");

/// The Chromium to start: `/usr/lib/chromium/chromium` (Debian's program
/// itself; its `/usr/bin` wrapper script adds flags of its own), else the
/// first Chromium-based browser on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    let debian = PathBuf::from("/usr/lib/chromium/chromium");
    if debian.is_file() {
        return Some(debian);
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome-stable",
        "google-chrome",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|candidate| candidate.is_file())
}

/// A fresh profile folder for a browser this process starts.
pub fn new_profile() -> std::io::Result<PathBuf> {
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!(
        "axsight-browser-{}-{}",
        std::process::id(),
        PROFILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

static PROFILES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Waits until the browser using `profile` has written its DevTools port, and
/// returns its WebSocket address.
pub async fn endpoint_in_profile(
    profile: &Path,
    deadline: Duration,
) -> Result<String, BrowserError> {
    let file = profile.join("DevToolsActivePort");
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                if port.trim().parse::<u16>().is_ok() {
                    return Ok(format!("ws://127.0.0.1:{}{}", port.trim(), path.trim()));
                }
            }
        }
        if start.elapsed() >= deadline {
            return Err(BrowserError::Unreachable {
                endpoint: file.display().to_string(),
                why: format!(
                    "the browser wrote no DevTools port within {} ms",
                    deadline.as_millis()
                ),
            });
        }
        tokio::time::sleep(PORT_POLL).await;
    }
}

/// Waits until the Firefox using `profile` has written its WebDriver BiDi
/// port, and returns its session's WebSocket address.
pub async fn bidi_endpoint_in_profile(
    profile: &Path,
    deadline: Duration,
) -> Result<String, BrowserError> {
    let file = profile.join("WebDriverBiDiServer.json");
    let start = Instant::now();
    loop {
        let written = std::fs::read_to_string(&file)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
        if let Some(server) = written {
            if let (Some(host), Some(port)) =
                (server["ws_host"].as_str(), server["ws_port"].as_u64())
            {
                return Ok(format!("ws://{host}:{port}/session"));
            }
        }
        if start.elapsed() >= deadline {
            return Err(BrowserError::Unreachable {
                endpoint: file.display().to_string(),
                why: format!(
                    "Firefox wrote no WebDriver BiDi port within {} ms",
                    deadline.as_millis()
                ),
            });
        }
        tokio::time::sleep(PORT_POLL).await;
    }
}

/// Waits until a program started with `--remote-debugging-port=PORT` answers
/// there, and returns its WebSocket address.
pub async fn endpoint_at_port(port: u16, deadline: Duration) -> Result<String, BrowserError> {
    let url = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    loop {
        let left = deadline.saturating_sub(start.elapsed());
        match endpoint_from_url(&url, left.min(Duration::from_secs(1))).await {
            Ok(endpoint) => return Ok(endpoint),
            Err(error) if start.elapsed() >= deadline => return Err(error),
            Err(_) => tokio::time::sleep(PORT_POLL).await,
        }
    }
}

/// The browser's WebSocket address from its HTTP endpoint
/// (`http://127.0.0.1:9222` → `/json/version`'s `webSocketDebuggerUrl`); a
/// `ws://` address is taken as it is.
pub async fn endpoint_from_url(url: &str, deadline: Duration) -> Result<String, BrowserError> {
    if url.starts_with("ws://") {
        return Ok(url.to_string());
    }
    let unreachable = |why: String| BrowserError::Unreachable {
        endpoint: url.to_string(),
        why,
    };
    let authority = url
        .strip_prefix("http://")
        .ok_or_else(|| unreachable("give an http:// or ws:// address on loopback".into()))?
        .trim_end_matches('/');
    let host = authority.split('/').next().unwrap_or(authority);
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(host).await?;
        stream
            .write_all(
                format!("GET /json/version HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
            )
            .await?;
        // Chromium keeps the connection open whatever the request says: read
        // the headers, then as much body as they announce.
        let mut answer = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let read = stream.read(&mut chunk).await?;
            answer.extend_from_slice(&chunk[..read]);
            if read == 0 || response_complete(&answer) {
                return Ok::<_, std::io::Error>(answer);
            }
        }
    };
    let answer = tokio::time::timeout(deadline, exchange)
        .await
        .map_err(|_| unreachable(format!("no answer within {} ms", deadline.as_millis())))?
        .map_err(|error| unreachable(error.to_string()))?;
    let text = String::from_utf8_lossy(&answer);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    let version: serde_json::Value = serde_json::from_str(body).map_err(|_| {
        unreachable("its /json/version is not JSON: is it a DevTools endpoint?".into())
    })?;
    version["webSocketDebuggerUrl"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| unreachable("its /json/version names no webSocketDebuggerUrl".into()))
}

/// Whether an HTTP answer has its headers and all the body they announce.
fn response_complete(answer: &[u8]) -> bool {
    let text = String::from_utf8_lossy(answer);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())?
    });
    length.is_some_and(|length| body.len() >= length)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_complete_once_its_body_is_as_long_as_announced() {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n";
        assert!(!response_complete(head.as_bytes()));
        assert!(!response_complete(format!("{head}ab").as_bytes()));
        assert!(response_complete(format!("{head}abcd").as_bytes()));
        assert!(!response_complete(b"HTTP/1.1 200 OK\r\nContent-Len"));
    }

    #[test]
    fn chromium_is_known_by_its_program_name() {
        assert!(is_chromium("/usr/lib/chromium/chromium"));
        assert!(is_chromium("google-chrome-stable"));
        assert!(!is_chromium("gedit"));
        assert!(!is_chromium("/opt/chromium-tools/run"));
    }

    #[test]
    fn firefox_is_known_by_its_program_name_and_keeps_to_its_profile() {
        assert!(is_firefox("/usr/bin/firefox-esr"));
        assert!(is_firefox("firefox"));
        assert!(!is_firefox("/usr/lib/chromium/chromium"));
        assert!(!is_chromium("firefox-esr"));
        let flags = firefox_flags(Path::new("/tmp/p"));
        assert_eq!(
            flags,
            [
                "--remote-debugging-port=0",
                "-no-remote",
                "-profile",
                "/tmp/p"
            ]
        );
        // Nothing of a first run, and no password prompt over the page.
        assert!(FIREFOX_PREFS.contains(r#"user_pref("signon.rememberSignons", false);"#));
        assert!(FIREFOX_PREFS.contains(r#"user_pref("browser.aboutwelcome.enabled", false);"#));
        let prefs = FIREFOX_PREFS
            .lines()
            .filter(|l| l.starts_with("user_pref("))
            .count();
        let comments = FIREFOX_PREFS
            .lines()
            .filter(|l| l.starts_with("//"))
            .count();
        assert_eq!(prefs + comments, FIREFOX_PREFS.lines().count());
    }

    #[test]
    fn flags_name_the_profile_and_loopback() {
        let flags = accessibility_flags(Path::new("/tmp/p"));
        assert!(flags.contains(&"--force-renderer-accessibility".to_string()));
        assert!(flags.contains(&"--user-data-dir=/tmp/p".to_string()));
        assert!(flags.contains(&"--remote-debugging-address=127.0.0.1".to_string()));
    }
}
