//! The audit log (`serve --audit-log FILE`): one JSON line for every call of an
//! acting tool — when, which tool, what it aimed at, what it did (the answer's
//! first line, where the element it resolved to is named), how it ended and how
//! long it took (`ok`, `error`, or `refused` by the server's policy). Typed text is never written, only its length: a password typed
//! through `type_into_element` stays out of the log as it stays out of answers.
//! The file is rotated by size: past its limit it becomes `FILE.1` (one old file
//! is kept) and a new one is begun.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axsight_core::cut;
use serde_json::{json, Map, Value};

/// Where a log file is rotated, unless told otherwise.
pub const DEFAULT_MAX_BYTES: u64 = 16 << 20;

/// The arguments that say what a call aimed at; the others are left out, and
/// text is logged by its length only.
const TARGET_ARGUMENTS: &[&str] = &[
    "selector",
    "index",
    "vision_type",
    "x",
    "y",
    "app",
    "window",
    "from",
    "to",
    "key",
    "option",
    "state",
    "action",
    "url",
    "direction",
    "heal",
];
const TEXT_ARGUMENTS: &[&str] = &["text", "text_to_type", "value", "script"];

/// An open audit log.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    max_bytes: u64,
    file: Mutex<(File, u64)>,
}

/// One call, as the log records it.
#[derive(Debug, Clone)]
pub struct AuditEntry<'a> {
    pub tool: &'a str,
    pub arguments: &'a Map<String, Value>,
    /// The answer's text or the error's message.
    pub answer: &'a str,
    pub ok: bool,
    pub took: Duration,
}

impl AuditLog {
    /// Opens (or creates) the log at `path`, appending.
    pub fn open(path: &Path, max_bytes: u64) -> std::io::Result<AuditLog> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let size = file.metadata()?.len();
        Ok(AuditLog {
            path: path.to_path_buf(),
            max_bytes: max_bytes.max(1024),
            file: Mutex::new((file, size)),
        })
    }

    /// Writes one entry; a failed write is logged as a warning, never the call's.
    pub fn record(&self, entry: &AuditEntry<'_>) {
        let mut line = line_of(entry, SystemTime::now()).to_string();
        line.push('\n');
        let mut guard = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if guard.1 + line.len() as u64 > self.max_bytes {
            if let Err(error) = self.rotate(&mut guard) {
                tracing::warn!(%error, path = %self.path.display(), "audit log not rotated");
            }
        }
        match guard.0.write_all(line.as_bytes()) {
            Ok(()) => guard.1 += line.len() as u64,
            Err(error) => {
                tracing::warn!(%error, path = %self.path.display(), "audit entry not written")
            }
        }
    }

    fn rotate(&self, guard: &mut (File, u64)) -> std::io::Result<()> {
        let old = self.path.with_extension(match self.path.extension() {
            Some(ext) => format!("{}.1", ext.to_string_lossy()),
            None => "1".into(),
        });
        std::fs::rename(&self.path, old)?;
        guard.0 = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        guard.1 = 0;
        Ok(())
    }
}

/// The JSON line for `entry`, made at `now`.
fn line_of(entry: &AuditEntry<'_>, now: SystemTime) -> Value {
    let mut target = Map::new();
    for (key, value) in entry.arguments {
        if TARGET_ARGUMENTS.contains(&key.as_str()) {
            target.insert(key.clone(), clipped(value));
        } else if TEXT_ARGUMENTS.contains(&key.as_str()) {
            let length = value.as_str().map_or(0, |t| t.chars().count());
            target.insert(key.clone(), json!(format!("{length} characters")));
        }
    }
    let first_line = entry.answer.lines().next().unwrap_or_default();
    json!({
        "time": utc_time(now),
        "tool": entry.tool,
        "target": target,
        "outcome": outcome(entry),
        "answer": cut(first_line, 300),
        "ms": entry.took.as_millis() as u64,
    })
}

/// `ok`, `error`, or `refused` where the server's policy did not allow the
/// call (`ToolError::NotAllowed`, whose words begin so).
fn outcome(entry: &AuditEntry<'_>) -> &'static str {
    match (entry.ok, entry.answer.starts_with("not allowed: ")) {
        (true, _) => "ok",
        (false, true) => "refused",
        (false, false) => "error",
    }
}

fn clipped(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(cut(text, 200)),
        other => other.clone(),
    }
}

/// `now` as an RFC 3339 time in UTC, to the millisecond.
pub fn utc_time(now: SystemTime) -> String {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs() as i64;
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_rfc3339() {
        assert_eq!(utc_time(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_millis(951_782_400_123); // 2000-02-29
        assert_eq!(utc_time(leap), "2000-02-29T00:00:00.123Z");
        let later = UNIX_EPOCH + Duration::from_secs(1_796_137_845); // 2026-12-01
        assert_eq!(utc_time(later), "2026-12-01T15:10:45.000Z");
    }

    #[test]
    fn typed_text_is_logged_by_its_length_only() {
        let arguments = json!({"index": "#u7", "text_to_type": "hunter2-SECRET", "x": 3})
            .as_object()
            .unwrap()
            .clone();
        let entry = AuditEntry {
            tool: "type_into_element",
            arguments: &arguments,
            answer: "typed 14 characters into #u7 [Edit] Password (typed through EditableText)\ncheck: not read back",
            ok: true,
            took: Duration::from_millis(42),
        };
        let line = line_of(&entry, UNIX_EPOCH).to_string();
        assert!(!line.contains("hunter2"), "{line}");
        assert!(
            line.contains("\"text_to_type\":\"14 characters\""),
            "{line}"
        );
        assert!(
            line.contains("\"index\":\"#u7\"") && line.contains("\"ms\":42"),
            "{line}"
        );
        assert!(
            !line.contains("check:"),
            "only the first line of the answer: {line}"
        );
    }

    #[test]
    fn the_log_is_rotated_past_its_size() {
        let dir = std::env::temp_dir().join(format!("axsight-audit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("audit.jsonl");
        let log = AuditLog::open(&path, 1024).unwrap();
        let arguments = Map::new();
        for _ in 0..20 {
            log.record(&AuditEntry {
                tool: "click_element",
                arguments: &arguments,
                answer: "clicked #u1 [Button] Save with the pointer at (1, 2)",
                ok: true,
                took: Duration::from_millis(1),
            });
        }
        let current = std::fs::metadata(&path).unwrap().len();
        let old = std::fs::metadata(dir.join("audit.jsonl.1")).unwrap().len();
        assert!(current <= 1024 && old <= 1024 && old > 0, "{current} {old}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
