//! Reads the captures `scripts/bench_ocr.py` makes (DIR/NAME.png beside
//! DIR/NAME.json, `axsight tree --json`) with `read_text` and writes
//! OUT/NAME.lines.tsv for `bench_ocr.py --lines OUT`, printing the time per
//! window (median of 3 runs after one warm-up run, which loads the models): wall
//! time, and the CPU time of the whole process (all its threads) meanwhile.
//!
//!     cargo run --release -p axsight-vision --example ocr_lines -- DIR OUT [--page] [--threads N] [--scale S] [--upscale N]
//!
//! `--page`: without the text detector (Tesseract's own layout analysis);
//! `--scale`: the detector's (`OcrOptions::detector_scale`); `--upscale`: the
//! line crops' magnification (`OcrOptions::upscale`).

use std::path::PathBuf;
use std::time::Instant;

use axsight_core::{Capture, Point};
use axsight_vision::{read_text, OcrOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, out, ..] = &args[..] else {
        return Err(
            "usage: ocr_lines DIR OUT [--page] [--threads N] [--scale S] [--upscale N]".into(),
        );
    };
    let (dir, out) = (PathBuf::from(dir), PathBuf::from(out));
    std::fs::create_dir_all(&out)?;
    let mut options = OcrOptions::default();
    if args.iter().any(|a| a == "--page") {
        options.text_detector = None;
    }
    if let Some(at) = args.iter().position(|a| a == "--scale") {
        options.detector_scale = args.get(at + 1).ok_or("--scale needs S")?.parse()?;
    }
    if let Some(at) = args.iter().position(|a| a == "--threads") {
        options.threads = args.get(at + 1).ok_or("--threads needs N")?.parse()?;
    }
    if let Some(at) = args.iter().position(|a| a == "--upscale") {
        options.upscale = args.get(at + 1).ok_or("--upscale needs N")?.parse()?;
    }
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "png") && p.with_extension("json").is_file())
        .collect();
    names.sort();
    let mut all = Vec::new();
    for png in names {
        let tree: serde_json::Value =
            serde_json::from_slice(&std::fs::read(png.with_extension("json"))?)?;
        let bounds = &tree["tree"]["bounds"];
        let origin = Point {
            x: bounds["x"].as_i64().unwrap_or(0) as i32,
            y: bounds["y"].as_i64().unwrap_or(0) as i32,
        };
        let image = image::open(&png)?.to_rgb8();
        let capture = Capture {
            origin,
            width: image.width(),
            height: image.height(),
            rgb: image.into_raw(),
        };
        read_text(&capture, &options)?;
        let mut times = Vec::new();
        let mut cpu = Vec::new();
        let mut lines = Vec::new();
        for _ in 0..3 {
            let (start, cpu_start) = (Instant::now(), cpu_ms());
            lines = read_text(&capture, &options)?;
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            cpu.push(cpu_ms() - cpu_start);
        }
        times.sort_by(f64::total_cmp);
        cpu.sort_by(f64::total_cmp);
        all.push((times[1], cpu[1]));
        let name = png.file_stem().and_then(|s| s.to_str()).unwrap_or("window");
        let tsv: String = lines
            .iter()
            .map(|l| {
                let b = l.bounds;
                format!(
                    "{}\t{}\t{}\t{}\t{:.3}\t{}\n",
                    b.x, b.y, b.width, b.height, l.confidence, l.text
                )
            })
            .collect();
        std::fs::write(out.join(format!("{name}.lines.tsv")), tsv)?;
        println!(
            "{name:14} {}x{} {:4} lines {:7.1} ms wall {:7.1} ms CPU",
            capture.width,
            capture.height,
            lines.len(),
            times[1],
            cpu[1]
        );
    }
    let n = all.len().max(1) as f64;
    println!(
        "mean {:.1} ms wall, {:.1} ms CPU per window",
        all.iter().map(|t| t.0).sum::<f64>() / n,
        all.iter().map(|t| t.1).sum::<f64>() / n
    );
    Ok(())
}

/// The process's CPU time so far, all threads, user and system (Linux's
/// /proc/self/stat, in clock ticks of 10 ms).
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the
    // 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) * 10.0
}
