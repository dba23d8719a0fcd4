//! `axsight record` and `axsight replay`: a person's work recorded as a plan of
//! tool calls, and a plan run again through the MCP tools themselves (an
//! in-process server), so a replay does exactly what an agent's
//! `execute_sequence` of the same steps would.

use std::collections::HashMap;
use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use anyhow::{bail, Context as _};
use axsight_linux::LinuxEngine;
use axsight_mcp::{InProcessClient, ServeOptions};
use axsight_session::{Grounding, Plan, RecordNews, RecordOptions};
use serde_json::{json, Map, Value};

use super::Session;
use crate::stdout::outln;

/// Most steps sent in one `execute_sequence` (its own limit).
const STEPS_PER_CALL: usize = 50;

/// Records until Ctrl+C (or SIGTERM), then writes the plan to `out` or stdout.
pub async fn record(
    out: Option<PathBuf>,
    every_text_a_parameter: bool,
    stop_key: &str,
) -> anyhow::Result<ExitCode> {
    let chords = axsight_core::parse_keys(stop_key)
        .with_context(|| format!("--stop-key {stop_key} is not a key"))?;
    let [stop] = <[_; 1]>::try_from(chords)
        .map_err(|_| anyhow::anyhow!("--stop-key takes one key or chord, not a sequence"))?;
    let session = Session::watching();
    let options = RecordOptions {
        every_text_a_parameter,
        stop_key: Some(stop.clone()),
    };
    let mut count = 0;
    let plan = session
        .record(options, axsight_mcp::stop_asked(), |news| match news {
            RecordNews::Watching(how) => {
                eprintln!(
                    "recording (watching {how}): work in the apps; {stop} (or Ctrl+C here) ends it"
                );
            }
            RecordNews::Step(step) => {
                count += 1;
                eprintln!("{count:>3}. {step}");
            }
        })
        .await?;
    let text =
        serde_json::to_string_pretty(&plan.to_json(&axsight_mcp::utc_time(SystemTime::now())))?;
    match &out {
        Some(path) => std::fs::write(path, format!("{text}\n"))
            .with_context(|| format!("cannot write the plan to {}", path.display()))?,
        None => outln!("{text}"),
    }
    let parameters: Vec<&str> = plan.parameters.iter().map(|p| p.name.as_str()).collect();
    eprintln!(
        "{} steps{}{}{}",
        plan.steps.len(),
        match parameters.is_empty() {
            true => String::new(),
            false => format!(", parameters: {}", parameters.join(", ")),
        },
        match plan.fragile.len() {
            0 => String::new(),
            n => format!(", {n} that may miss on replay (see `fragile`)"),
        },
        out.map(|path| format!(": written to {}", path.display()))
            .unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}

/// Replays the plan at `path` with `params` (`NAME=VALUE`).
pub async fn replay(
    path: &Path,
    params: &[String],
    grounding: Grounding,
) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the plan {}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    let plan = Plan::from_json(&value).map_err(anyhow::Error::msg)?;
    let mut values = HashMap::new();
    for param in params {
        let Some((name, value)) = param.split_once('=') else {
            bail!("--param takes NAME=VALUE, not `{param}`");
        };
        values.insert(name.trim().to_string(), value.to_string());
    }
    for parameter in plan.parameters.iter().filter(|p| p.secret) {
        if !values.contains_key(&parameter.name) && std::io::stdin().is_terminal() {
            let value = ask_secret(&format!(
                "{} (typed into {}): ",
                parameter.name, parameter.field
            ))?;
            values.insert(parameter.name.clone(), value);
        }
    }
    let steps = plan.steps_with(&values).map_err(anyhow::Error::msg)?;
    let mut client =
        InProcessClient::start::<LinuxEngine>(grounding, ServeOptions::default()).await?;
    let mut done = 0;
    for chunk in chunks(&steps) {
        let mut arguments = Map::new();
        arguments.insert("steps".into(), Value::Array(chunk.to_vec()));
        arguments.insert("stop_on_error".into(), json!(true));
        let answer = client.call("execute_sequence", arguments).await?;
        outln!("{}", answer.text.trim_end());
        if answer.is_error {
            eprintln!(
                "replay stopped: a step among {}–{} of {} failed (above)",
                done + 1,
                done + chunk.len(),
                steps.len()
            );
            return Ok(ExitCode::FAILURE);
        }
        done += chunk.len();
    }
    eprintln!("replayed {done} steps");
    Ok(ExitCode::SUCCESS)
}

/// The steps in runs of at most [`STEPS_PER_CALL`], never parting a step
/// from the `find` steps whose handles it names (`as`).
fn chunks(steps: &[Value]) -> Vec<&[Value]> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < steps.len() {
        let mut end = (start + STEPS_PER_CALL).min(steps.len());
        while end < steps.len() && end > start + 1 && steps[end - 1].get("as").is_some() {
            end -= 1;
        }
        chunks.push(&steps[start..end]);
        start = end;
    }
    chunks
}

/// Reads a line from the terminal with its echo off.
fn ask_secret(prompt: &str) -> anyhow::Result<String> {
    use rustix::termios::{tcgetattr, tcsetattr, LocalModes, OptionalActions};
    let stdin = std::io::stdin();
    eprint!("{prompt}");
    std::io::stderr().flush()?;
    let before = tcgetattr(&stdin).context("cannot read the terminal's settings")?;
    let mut quiet = before.clone();
    quiet.local_modes.remove(LocalModes::ECHO);
    tcsetattr(&stdin, OptionalActions::Now, &quiet).context("cannot turn the echo off")?;
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    let _ = tcsetattr(&stdin, OptionalActions::Now, &before);
    eprintln!();
    read.context("cannot read the answer")?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_steps_keep_a_drag_with_its_finds() {
        let call = json!({"tool": "click_element"});
        let find = json!({"find": "x", "as": "a"});
        let mut steps = vec![call.clone(); 48];
        steps.extend([find.clone(), find, json!({"tool": "mouse_drag"})]);
        steps.extend(vec![call; 5]);
        let sizes: Vec<usize> = chunks(&steps).iter().map(|c| c.len()).collect();
        assert_eq!(sizes, [48, 8]);
        assert_eq!(chunks(&[]).len(), 0);
    }
}
