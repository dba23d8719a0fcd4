//! `axsight bench tree`: tree reads inside one process, the way the server does
//! them, with the compact text's size per element. `scripts/bench-tree` runs it
//! beside cold (fresh-process) reads and a pyatspi walk on the same desktop.

use crate::stdout::outln;
use std::time::Instant;

use axsight_core::{quote_whole, render, CompactOptions, HandleRegistry};
use axsight_linux::{LinuxEngine, ReadOptions, WindowQuery};

/// Median of `times` in milliseconds.
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or(f64::NAN)
}

async fn time_reads(
    engine: &LinuxEngine,
    query: &WindowQuery,
    runs: usize,
) -> anyhow::Result<(f64, axsight_core::WindowSnapshot)> {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let snapshot = engine
            .window_tree(
                query,
                ReadOptions {
                    actions: true,
                    ..ReadOptions::default()
                },
            )
            .await?;
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        last = Some(snapshot);
    }
    Ok((median(times), last.expect("at least one run")))
}

pub async fn tree(apps: &[String], runs: usize) -> anyhow::Result<()> {
    // Walks every time: what a read costs when the app changed since the last one.
    let walking = LinuxEngine::connect().await?;
    // Watches events: what a read costs when nothing changed (the server's case).
    let watching = LinuxEngine::connect_watching().await?;
    for app in apps {
        let query = WindowQuery {
            app: Some(app.clone()),
            ..WindowQuery::default()
        };
        let (walk, _) = time_reads(&walking, &query, runs).await?;
        let (warm, snapshot) = time_reads(&watching, &query, runs).await?;
        let rendered = render(
            &snapshot.tree,
            snapshot.tree.root(),
            &mut HandleRegistry::new(),
            &CompactOptions::default(),
        );
        outln!(
            "{app}: walk {walk:.2} ms, warm {warm:.2} ms (median of {runs}); {} elements read, {} printed, {} bytes of text ({:.1} bytes/element)",
            snapshot.tree.len(),
            rendered.printed,
            rendered.text.len(),
            rendered.text.len() as f64 / rendered.printed.max(1) as f64,
        );
    }
    // What the server answers get_window_tree with when nothing changed: the
    // engine's warm read, remembered by the session and printed.
    let session = crate::commands::Session::watching();
    for app in apps {
        let request = axsight_session::TreeRequest {
            app: Some(app.clone()),
            ..axsight_session::TreeRequest::default()
        };
        let mut times = Vec::with_capacity(runs + 1);
        for _ in 0..=runs.max(1) {
            let start = Instant::now();
            session.window_tree(&request, false).await?;
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        times.remove(0); // the first read walks
        outln!(
            "{app}: session warm {:.2} ms (median of {})",
            median(times),
            runs.max(1)
        );
    }
    Ok(())
}

/// `axsight bench act`: one click with its settled diff, repeated, the way the
/// server answers `click_element`. Prints one JSON line per way of clicking (the
/// pointer, and the accessible action), with the p50 and the diffs' size.
pub async fn act(app: &str, button: &str, runs: usize) -> anyhow::Result<()> {
    use axsight_session::{ActOptions, ClickOptions};
    let session = crate::commands::Session::watching();
    for background in [false, true] {
        let mut times = Vec::with_capacity(runs);
        let mut sizes = Vec::with_capacity(runs);
        let target = button_in(app, None, button);
        let click = ClickOptions {
            count: 1,
            background,
            ..ClickOptions::default()
        };
        // One untimed click: the first read of the window is a cold one.
        session
            .click(&target, &click, &ActOptions::default())
            .await?;
        for _ in 0..runs.max(1) {
            // An agent's clicks come seconds apart; back to back, the input layer
            // would hold each click until GTK cannot take it for a double click
            // (450 ms after the last). Pausing outside the timed part measures
            // the round trip an agent sees, not that spacing.
            tokio::time::sleep(AGENT_PAUSE).await;
            let start = Instant::now();
            let answer = session
                .click(&target, &click, &ActOptions::default())
                .await?;
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            sizes.push(answer.len());
        }
        let samples: Vec<f64> = times.iter().map(|t| (t * 100.0).round() / 100.0).collect();
        let line = serde_json::json!({
            "tool": "axsight",
            "mode": if background { "accessible-action" } else { "pointer" },
            "button": button,
            "runs": runs.max(1),
            "p50_ms": (median(times) * 100.0).round() / 100.0,
            "answer_bytes_p50": median(sizes.iter().map(|&s| s as f64).collect()),
            "answer_tokens_p50": median(sizes.iter().map(|&s| s as f64 / 4.0).collect()),
            "samples_ms": samples,
        });
        outln!("{line}");
    }
    Ok(())
}

/// `axsight bench clicks`: `buttons` clicked in turn with the pointer, back to
/// back as a sequence of an agent's does, against as many clicks on the first
/// button alone, which the input layer must space by the double-click time.
/// One JSON line: each kind's p50 per sequence, and their ratio.
pub async fn clicks(app: &str, buttons: &[String], runs: usize) -> anyhow::Result<()> {
    use axsight_session::{ActOptions, ClickOptions};
    if buttons.len() < 2 {
        anyhow::bail!("name at least two buttons to click in turn (--buttons 1,2)");
    }
    let session = crate::commands::Session::watching();
    let target = |button: &str| button_in(app, None, button);
    let click = ClickOptions {
        count: 1,
        ..ClickOptions::default()
    };
    let options = ActOptions::default();
    // Untimed: the first read of the window is a cold one.
    session
        .click(&target(&buttons[0]), &click, &options)
        .await?;
    let mut different = Vec::with_capacity(runs);
    let mut same = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        for (times, one_button) in [(&mut different, false), (&mut same, true)] {
            tokio::time::sleep(AGENT_PAUSE).await;
            let start = Instant::now();
            for button in buttons {
                let button = if one_button { &buttons[0] } else { button };
                session.click(&target(button), &click, &options).await?;
            }
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let different = median(different);
    let same = median(same);
    let line = serde_json::json!({
        "tool": "axsight",
        "clicks": buttons.len(),
        "runs": runs.max(1),
        "different_buttons_p50_ms": (different * 10.0).round() / 10.0,
        "one_button_p50_ms": (same * 10.0).round() / 10.0,
        "per_click_different_ms": (different / buttons.len() as f64 * 10.0).round() / 10.0,
        "per_click_one_button_ms": (same / buttons.len() as f64 * 10.0).round() / 10.0,
        "ratio_one_button_to_different": (same / different.max(0.001) * 100.0).round() / 100.0,
    });
    outln!("{line}");
    Ok(())
}

/// How much later the slow reference reads the windows (see [`settle`]).
const REFERENCE_WAIT: std::time::Duration = std::time::Duration::from_millis(1000);

/// `axsight bench settle`: `button` clicked `runs` times with the pointer; each
/// answer against a slow reference's, the same click's diff once
/// [`REFERENCE_WAIT`] more has passed. One JSON line: the answers' p50, how
/// many agreed, and the first disagreement in full.
pub async fn settle(
    app: &str,
    window: Option<&str>,
    targets: &SettleTargets,
    undo: Option<&str>,
    runs: usize,
) -> anyhow::Result<()> {
    use axsight_session::{ActOptions, ClickOptions, Target};
    let session = crate::commands::Session::watching();
    let click = ClickOptions::default();
    let options = ActOptions::default();
    let mut times = Vec::with_capacity(runs);
    let (mut agreed, mut first_disagreement) = (0, None);
    for run in 0..runs.max(1) {
        tokio::time::sleep(AGENT_PAUSE).await;
        let both = session
            .click_against_reference(
                &targets.nth(app, window, run),
                &click,
                &options,
                REFERENCE_WAIT,
            )
            .await?;
        times.push(both.fast_took.as_secs_f64() * 1000.0);
        if both.agree() {
            agreed += 1;
        } else if first_disagreement.is_none() {
            first_disagreement = Some(serde_json::json!({
                "run": run,
                "answer": both.fast,
                "reference": both.slow,
            }));
        }
        if let Some(undo) = undo {
            tokio::time::sleep(AGENT_PAUSE).await;
            // Whatever opened (a dialog) may hold the button: by its whole name.
            let undo = Target::Selector {
                selector: format!("role:Button && name:{}", quote_whole(undo)),
                app: Some(app.to_string()),
                window: None,
            };
            session.click(&undo, &click, &options).await?;
        }
    }
    let line = serde_json::json!({
        "tool": "axsight",
        "target": targets.describe(),
        "runs": runs.max(1),
        "p50_ms": (median(times) * 10.0).round() / 10.0,
        "agreed_with_reference": agreed,
        "reference_wait_ms": REFERENCE_WAIT.as_millis() as u64,
        "first_disagreement": first_disagreement,
    });
    outln!("{line}");
    Ok(())
}

/// What `bench settle` clicks: one button each run, or text fields in turn.
#[derive(Debug)]
pub enum SettleTargets {
    /// The first button whose name holds this text, clicked every run.
    Button(String),
    /// Text fields by whole name, clicked in turn, so that each click moves the focus.
    Fields(Vec<String>),
}

impl SettleTargets {
    /// The targets the command line names: a button, or at least two fields.
    pub fn new(button: Option<String>, fields: Vec<String>) -> anyhow::Result<SettleTargets> {
        match (button, fields.len()) {
            (Some(button), 0) => Ok(SettleTargets::Button(button)),
            (None, n) if n >= 2 => Ok(SettleTargets::Fields(fields)),
            (None, _) => anyhow::bail!(
                "--fields wants at least two names, so that each click moves the focus"
            ),
            (Some(_), _) => anyhow::bail!("give --button or --fields, not both"),
        }
    }

    /// The target of run `run`.
    fn nth(&self, app: &str, window: Option<&str>, run: usize) -> axsight_session::Target {
        match self {
            SettleTargets::Button(button) => button_in(app, window, button),
            SettleTargets::Fields(fields) => axsight_session::Target::Selector {
                selector: format!(
                    "role:Edit && name:{}",
                    quote_whole(&fields[run % fields.len()])
                ),
                app: Some(app.to_string()),
                window: window.map(str::to_string),
            },
        }
    }

    /// How the JSON line names what was clicked.
    fn describe(&self) -> String {
        match self {
            SettleTargets::Button(button) => format!("button {button:?}"),
            SettleTargets::Fields(fields) => format!("fields {}", fields.join(", ")),
        }
    }
}

/// The first button in `app` (and `window`) whose name holds `button`: a part,
/// since names may change with each click ("Count 1", "Count 2").
fn button_in(app: &str, window: Option<&str>, button: &str) -> axsight_session::Target {
    axsight_session::Target::Selector {
        selector: format!("role:Button && text:{}", quote_whole(button)),
        app: Some(app.to_string()),
        window: window.map(str::to_string),
    }
}

/// Time between timed clicks (see [`act`]).
const AGENT_PAUSE: std::time::Duration = std::time::Duration::from_millis(500);

/// `axsight bench sources`: what each screenshot source costs, on the whole screen
/// and on one app's window: capture, PNG encoding, and OCR, p50 over `runs`,
/// with the process's peak memory after each. One JSON line per measurement.
pub async fn sources(
    app: &str,
    runs: usize,
    detector: Option<axsight_vision::DetectorOptions>,
) -> anyhow::Result<()> {
    use axsight_core::{Bounds, WindowQuery};
    use axsight_vision::{encode, read_text, Detector, OcrOptions, PictureOptions};
    let engine = LinuxEngine::connect().await?;
    let query = WindowQuery {
        app: Some(app.to_string()),
        ..WindowQuery::default()
    };
    let window = engine.window_tree(&query, ReadOptions::default()).await?;
    let frame = window
        .tree
        .element(window.tree.root())
        .bounds
        .filter(Bounds::has_area)
        .ok_or_else(|| anyhow::anyhow!("'{app}' has no window on screen"))?;
    let runs = runs.max(1);
    // The detector loads once, as a server loads it on first use.
    let detector = match detector {
        Some(options) => {
            let start = Instant::now();
            let detector = Detector::load(options)?;
            let line = serde_json::json!({
                "what": "detector load",
                "ms": (start.elapsed().as_secs_f64() * 10000.0).round() / 10.0,
                "peak_rss_mb": peak_rss_mb(),
            });
            outln!("{line}");
            Some(detector)
        }
        None => None,
    };
    for (area, region) in [("screen", None), ("window", Some(frame))] {
        let mut capture_ms = Vec::with_capacity(runs);
        let mut capture = None;
        for _ in 0..runs {
            let start = Instant::now();
            capture = Some(engine.capture(region).await?);
            capture_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        let capture = capture.expect("at least one run");
        report(area, "capture", &capture, capture_ms);
        let mut encode_ms = Vec::with_capacity(runs);
        for _ in 0..runs {
            let start = Instant::now();
            encode(&capture, &PictureOptions::default())?;
            encode_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        report(area, "png", &capture, encode_ms);
        // OCR is slow: fewer runs on the whole screen.
        let ocr_runs = if region.is_some() { runs.min(5) } else { 1 };
        let mut ocr_ms = Vec::with_capacity(ocr_runs);
        let mut lines = 0;
        for _ in 0..ocr_runs {
            let start = Instant::now();
            lines = read_text(&capture, &OcrOptions::default())?.len();
            ocr_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        report(area, &format!("ocr ({lines} lines)"), &capture, ocr_ms);
        if let Some(detector) = &detector {
            let mut detect_ms = Vec::with_capacity(runs.min(5));
            let mut boxes = 0;
            for _ in 0..runs.min(5) {
                let start = Instant::now();
                boxes = detector.detect(&capture)?.len();
                detect_ms.push(start.elapsed().as_secs_f64() * 1000.0);
            }
            report(
                area,
                &format!("detector ({boxes} boxes)"),
                &capture,
                detect_ms,
            );
        }
    }
    Ok(())
}

/// One JSON line: what was measured, on what, its p50 and the peak memory so far.
fn report(area: &str, what: &str, capture: &axsight_core::Capture, times: Vec<f64>) {
    let runs = times.len();
    let line = serde_json::json!({
        "area": area,
        "size": format!("{}x{}", capture.width, capture.height),
        "what": what,
        "runs": runs,
        "p50_ms": (median(times) * 10.0).round() / 10.0,
        "peak_rss_mb": peak_rss_mb(),
    });
    outln!("{line}");
}

/// The process's peak resident memory (VmHWM), in MB. OCR runs as a child process
/// and is not in it.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

/// `axsight bench browser`: `browser` (Chromium or Firefox) started on `url`
/// through the session, as `navigate_browser` does; then, in one process, the
/// window's tree read with and without `include_dom`, and `navigate_browser`
/// between `url` and `other` until the new page shows in the tree. JSON lines
/// of p50s.
pub async fn browser(url: &str, browser: &str, other: &str, runs: usize) -> anyhow::Result<()> {
    use axsight_session::{NavigateRequest, TreeOutput, TreeRequest};
    use std::time::Duration;
    let session = crate::commands::Session::watching();
    let navigate = |url: &str| NavigateRequest {
        url: Some(url.to_string()),
        browser: Some(browser.to_string()),
        timeout: Duration::from_secs(30),
        ..NavigateRequest::default()
    };
    let start = Instant::now();
    let opened = session.navigate(&navigate(url)).await?;
    let started_ms = start.elapsed().as_secs_f64() * 1000.0;
    let window = opened
        .split("in '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .ok_or_else(|| anyhow::anyhow!("no window in: {opened}"))?
        .to_string();
    outln!(
        "{}",
        serde_json::json!({ "what": "start browser to settled tree", "ms": round(started_ms) })
    );
    let runs = runs.max(1);
    for include_dom in [false, true] {
        let request = TreeRequest {
            window: Some(window.clone()),
            include_dom,
            ..TreeRequest::default()
        };
        let mut times = Vec::with_capacity(runs);
        let mut bytes = 0;
        for _ in 0..runs {
            let start = Instant::now();
            let TreeOutput::Text(text) = session.window_tree(&request, false).await? else {
                anyhow::bail!("text was asked for");
            };
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            bytes = text.len();
        }
        let what = if include_dom {
            "get_window_tree include_dom"
        } else {
            "get_window_tree"
        };
        outln!(
            "{}",
            serde_json::json!({ "what": what, "runs": runs, "p50_ms": round(median(times)), "bytes": bytes })
        );
    }
    // The baseline, in the same run: the same reads with the browser's
    // witness let go, so that each walks the window whole (the rule for a
    // Chromium that axsight cannot reach over DevTools).
    let request = TreeRequest {
        window: Some(window.clone()),
        ..TreeRequest::default()
    };
    let mut vouched = Vec::with_capacity(runs);
    let mut whole = Vec::with_capacity(runs);
    let engine = session.engine().await?;
    let pid = engine
        .applications()
        .await?
        .into_iter()
        .find(|app| app.windows.iter().any(|w| w.title == window))
        .and_then(|app| app.pid)
        .ok_or_else(|| anyhow::anyhow!("no process shows {window:?}"))?;
    let witness = engine.take_witness(pid);
    for with_witness in [true, false] {
        match (with_witness, &witness) {
            (true, Some(witness)) => engine.add_witness(pid, witness.clone()),
            _ => drop(engine.take_witness(pid)),
        }
        let times = if with_witness {
            &mut vouched
        } else {
            &mut whole
        };
        for _ in 0..runs {
            let start = Instant::now();
            session.window_tree(&request, false).await?;
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    if let Some(witness) = witness {
        engine.add_witness(pid, witness);
    }
    let (vouched, whole) = (median(vouched), median(whole));
    outln!(
        "{}",
        serde_json::json!({
            "what": "get_window_tree, unchanged page: vouched by DevTools vs read whole",
            "runs": runs,
            "vouched_p50_ms": round(vouched),
            "whole_p50_ms": round(whole),
            "whole_over_vouched": round(whole / vouched.max(0.001)),
        })
    );
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs {
        let to = if run % 2 == 0 { other } else { url };
        let start = Instant::now();
        session.navigate(&navigate(to)).await?;
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    outln!(
        "{}",
        serde_json::json!({ "what": "navigate_browser to settled tree", "runs": runs, "p50_ms": round(median(times)) })
    );
    Ok(())
}

fn round(ms: f64) -> f64 {
    (ms * 10.0).round() / 10.0
}
