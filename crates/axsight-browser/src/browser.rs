//! A browser axsight started or attached to: its pages, and the process and
//! profile it owns when it started it. Chromium is spoken to over the DevTools
//! protocol, Firefox over WebDriver BiDi ([`crate::bidi`]); each method picks
//! its protocol's commands.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;

use crate::cdp::Connection;
use crate::launch::{
    accessibility_flags, bidi_endpoint_in_profile, chromium_flags, electron_flags,
    endpoint_at_port, endpoint_from_url, endpoint_in_profile, firefox_flags, free_port,
    is_electron_app, is_firefox, new_profile, FIREFOX_PREFS,
};
use crate::page::{PageTarget, CALL_DEADLINE};
use crate::{bidi, BrowserError, Page};

/// How long a browser has to start and open its DevTools port.
const START_DEADLINE: Duration = Duration::from_secs(20);

/// A page (tab) of the browser.
#[derive(Debug, Clone, PartialEq)]
pub struct PageInfo {
    pub target: String,
    pub title: String,
    pub url: String,
}

/// The protocol a browser is spoken to in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// The Chrome DevTools protocol: Chromium and Electron.
    DevTools,
    /// WebDriver BiDi: Firefox.
    Bidi,
}

/// A connected browser. Dropping one that axsight started ends it and removes
/// its profile.
#[derive(Debug)]
pub struct Browser {
    connection: Connection,
    protocol: Protocol,
    process: Option<Started>,
    /// The process of a browser attached to on this machine, as it says.
    attached_pid: Option<u32>,
    /// Sessions of the pages attached so far, by target id (DevTools only).
    sessions: Mutex<HashMap<String, String>>,
}

#[derive(Debug)]
struct Started {
    child: std::process::Child,
    profile: PathBuf,
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Browser {
    /// Starts `program` (a Chromium, an Electron app, or Firefox) with the
    /// flags that expose its pages, opening `url` if given, with `env` added
    /// to its environment (the desktop's display and bus), and connects to it.
    pub async fn launch(
        program: &std::path::Path,
        extra: &[String],
        url: Option<&str>,
        env: &[(String, String)],
    ) -> Result<Browser, BrowserError> {
        let failed = |why: String| BrowserError::Launch {
            program: program.display().to_string(),
            why,
        };
        let profile =
            new_profile().map_err(|error| failed(format!("no profile folder: {error}")))?;
        let protocol = match is_firefox(&program.to_string_lossy()) {
            true => Protocol::Bidi,
            false => Protocol::DevTools,
        };
        let mut command = std::process::Command::new(program);
        // An Electron app keeps the user's own profile: it gets a DevTools port
        // of axsight's choosing instead of a profile of its own.
        let electron_port = match protocol {
            Protocol::DevTools if is_electron_app(&program.to_string_lossy()) => Some(
                free_port()
                    .map_err(|error| failed(format!("no free port for DevTools: {error}")))?,
            ),
            _ => None,
        };
        match protocol {
            Protocol::Bidi => {
                std::fs::write(profile.join("user.js"), FIREFOX_PREFS)
                    .map_err(|error| failed(format!("cannot write its profile: {error}")))?;
                // Gecko's accessibility on whatever the desktop's setting says.
                command
                    .args(firefox_flags(&profile))
                    .env("GNOME_ACCESSIBILITY", "1");
            }
            Protocol::DevTools => match electron_port {
                Some(port) => {
                    command.args(electron_flags(port));
                }
                None => {
                    if crate::launch::is_chromium(&program.to_string_lossy()) {
                        command.args(chromium_flags());
                    }
                    command.args(accessibility_flags(&profile));
                }
            },
        }
        command
            .args(extra)
            .args(url)
            // Variables that hide a program from the accessibility bus.
            .env_remove("NO_AT_BRIDGE")
            .env_remove("GTK_A11Y")
            .envs(env.iter().map(|(name, value)| (name, value)))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // Its own process group: a signal to axsight's group must not take it down.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().map_err(|error| BrowserError::Launch {
            program: program.display().to_string(),
            why: error.to_string(),
        })?;
        let started = Started { child, profile };
        let endpoint = match protocol {
            Protocol::Bidi => bidi_endpoint_in_profile(&started.profile, START_DEADLINE).await?,
            Protocol::DevTools => match electron_port {
                Some(port) => endpoint_at_port(port, START_DEADLINE).await?,
                None => endpoint_in_profile(&started.profile, START_DEADLINE).await?,
            },
        };
        let connection = Connection::connect(&endpoint, CALL_DEADLINE).await?;
        if protocol == Protocol::Bidi {
            bidi::new_session(&connection, CALL_DEADLINE).await?;
        }
        Ok(Browser {
            connection,
            protocol,
            process: Some(started),
            attached_pid: None,
            sessions: Mutex::default(),
        })
    }

    /// Connects to a browser already running with a DevTools endpoint
    /// (`http://127.0.0.1:9222` or its `ws://` address).
    pub async fn attach(url: &str) -> Result<Browser, BrowserError> {
        let endpoint = endpoint_from_url(url, CALL_DEADLINE).await?;
        let connection = Connection::connect(&endpoint, CALL_DEADLINE).await?;
        // A process id means something only on this machine.
        let attached_pid = match on_loopback(&endpoint) {
            true => browser_process(&connection).await,
            false => None,
        };
        Ok(Browser {
            connection,
            protocol: Protocol::DevTools,
            process: None,
            attached_pid,
            sessions: Mutex::default(),
        })
    }

    /// The browser's process, when axsight started it.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.child.id())
    }

    /// The browser's process, whether axsight started it or attached to it on
    /// this machine (then as the browser tells, `SystemInfo.getProcessInfo`);
    /// `None` for a browser elsewhere or one that does not say.
    pub fn process_id(&self) -> Option<u32> {
        self.pid().or(self.attached_pid)
    }

    /// The protocol the browser is spoken to in.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The connection to the browser.
    pub(crate) fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Whether the browser still answers.
    pub async fn alive(&self) -> bool {
        if self.protocol == Protocol::Bidi {
            return bidi::alive(&self.connection).await;
        }
        self.connection
            .call(
                "Browser.getVersion",
                json!({}),
                None,
                Duration::from_secs(2),
            )
            .await
            .is_ok()
    }

    /// Its pages, in the browser's order.
    pub async fn pages(&self) -> Result<Vec<PageInfo>, BrowserError> {
        if self.protocol == Protocol::Bidi {
            let mut pages = Vec::new();
            for (context, url) in bidi::tabs(&self.connection, CALL_DEADLINE).await? {
                let page = self.page(&context).await?;
                // A tab between documents may not answer: it has no title yet.
                let title = page
                    .evaluate("document.title")
                    .await
                    .ok()
                    .and_then(|t| t.as_str().map(str::to_string))
                    .unwrap_or_default();
                pages.push(PageInfo {
                    target: context,
                    title,
                    url,
                });
            }
            return Ok(pages);
        }
        let targets = self
            .connection
            .call("Target.getTargets", json!({}), None, CALL_DEADLINE)
            .await?;
        Ok(targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "page")
            .map(|t| PageInfo {
                target: t["targetId"].as_str().unwrap_or_default().to_string(),
                title: t["title"].as_str().unwrap_or_default().to_string(),
                url: t["url"].as_str().unwrap_or_default().to_string(),
            })
            .collect())
    }

    /// Opens a new tab on `url`; its target id.
    pub async fn open_tab(&self, url: &str) -> Result<String, BrowserError> {
        if self.protocol == Protocol::Bidi {
            let context = bidi::create_tab(&self.connection, CALL_DEADLINE).await?;
            if url != "about:blank" {
                bidi::navigate(&self.connection, &context, url, CALL_DEADLINE).await?;
            }
            return Ok(context);
        }
        let created = self
            .connection
            .call(
                "Target.createTarget",
                json!({ "url": url }),
                None,
                CALL_DEADLINE,
            )
            .await?;
        created["targetId"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| BrowserError::Protocol {
                method: "Target.createTarget".into(),
                error: "no targetId in its answer".into(),
            })
    }

    /// Brings the tab to the front of its window.
    pub async fn activate(&self, target: &str) -> Result<(), BrowserError> {
        if self.protocol == Protocol::Bidi {
            return bidi::activate(&self.connection, target, CALL_DEADLINE).await;
        }
        self.connection
            .call(
                "Target.activateTarget",
                json!({ "targetId": target }),
                None,
                CALL_DEADLINE,
            )
            .await
            .map(|_| ())
    }

    /// Moves the window that holds tab `target` so its top-left corner is at
    /// (`x`, `y`) on screen.
    pub async fn move_window(&self, target: &str, x: i32, y: i32) -> Result<(), BrowserError> {
        if self.protocol == Protocol::Bidi {
            return Err(BrowserError::Protocol {
                method: "Browser.setWindowBounds".into(),
                error: "moving a window is done over the DevTools protocol only".into(),
            });
        }
        let window = self
            .connection
            .call(
                "Browser.getWindowForTarget",
                json!({ "targetId": target }),
                None,
                CALL_DEADLINE,
            )
            .await?;
        self.connection
            .call(
                "Browser.setWindowBounds",
                json!({ "windowId": window["windowId"], "bounds": { "left": x, "top": y } }),
                None,
                CALL_DEADLINE,
            )
            .await
            .map(|_| ())
    }

    /// The page of target `target`, attaching to it on first use.
    pub async fn page(&self, target: &str) -> Result<Page, BrowserError> {
        if self.protocol == Protocol::Bidi {
            return Ok(Page {
                connection: self.connection.clone(),
                target: target.to_string(),
                protocol: PageTarget::Bidi,
            });
        }
        let known = self
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(target)
            .cloned();
        let session = match known {
            Some(session) => session,
            None => {
                let attached = self
                    .connection
                    .call(
                        "Target.attachToTarget",
                        json!({ "targetId": target, "flatten": true }),
                        None,
                        CALL_DEADLINE,
                    )
                    .await?;
                let session = attached["sessionId"]
                    .as_str()
                    .ok_or_else(|| BrowserError::Protocol {
                        method: "Target.attachToTarget".into(),
                        error: "no sessionId in its answer".into(),
                    })?
                    .to_string();
                // From the next document on, click listeners are noted before
                // the page's scripts run; the current one gets it now, for
                // the listeners added from here on.
                // Chromium runs new-document scripts only for a session
                // with the Page domain on.
                let _ = self
                    .connection
                    .call("Page.enable", json!({}), Some(&session), CALL_DEADLINE)
                    .await;
                let params = json!({ "source": crate::dom::LISTENERS });
                let added = self
                    .connection
                    .call(
                        "Page.addScriptToEvaluateOnNewDocument",
                        params,
                        Some(&session),
                        CALL_DEADLINE,
                    )
                    .await;
                if let Err(error) = added {
                    tracing::warn!(%error, "no click-listener tracker in this tab");
                }
                let now = json!({ "expression": crate::dom::LISTENERS });
                let _ = self
                    .connection
                    .call("Runtime.evaluate", now, Some(&session), CALL_DEADLINE)
                    .await;
                self.sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(target.to_string(), session.clone());
                session
            }
        };
        Ok(Page {
            connection: self.connection.clone(),
            target: target.to_string(),
            protocol: PageTarget::DevTools { session },
        })
    }
}

/// Whether a DevTools endpoint (`ws://HOST:PORT/…`) is on this machine.
fn on_loopback(endpoint: &str) -> bool {
    let authority = endpoint
        .split_once("://")
        .map_or(endpoint, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The id of the browser process a DevTools connection reaches, as the browser
/// tells it; `None` where it does not (older browsers, Electron builds without
/// the domain).
async fn browser_process(connection: &Connection) -> Option<u32> {
    let info = connection
        .call("SystemInfo.getProcessInfo", json!({}), None, CALL_DEADLINE)
        .await
        .ok()?;
    info.get("processInfo")?
        .as_array()?
        .iter()
        .find(|process| process.get("type").and_then(|t| t.as_str()) == Some("browser"))?
        .get("id")?
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
}

#[cfg(test)]
mod tests {
    use super::on_loopback;

    #[test]
    fn only_endpoints_on_this_machine_are_on_loopback() {
        for here in [
            "ws://127.0.0.1:9222/devtools/browser/x",
            "ws://localhost:9222/devtools/browser/x",
            "ws://[::1]:9222/devtools/browser/x",
            "ws://127.0.0.2:1/",
        ] {
            assert!(on_loopback(here), "{here}");
        }
        for elsewhere in [
            "ws://10.0.0.5:9222/devtools/browser/x",
            "ws://example.org:9222/devtools/browser/x",
            "ws://[2001:db8::1]:9222/",
        ] {
            assert!(!on_loopback(elsewhere), "{elsewhere}");
        }
    }
}
