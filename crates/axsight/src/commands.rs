//! What each command does: connect the engine, call it, print.

use std::process::ExitCode;

use anyhow::Context as _;
use axsight_core::{render, CompactOptions, HandleRegistry};
use axsight_linux::{LinuxEngine, ReadOptions, WindowQuery};

use crate::cli::{BenchCommand, Command};

pub async fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Apps { json } => apps(json).await,
        Command::Tree {
            app,
            window,
            json: _,
            max_depth,
            max_chars,
            include_invisible,
        } => {
            let engine = LinuxEngine::connect().await?;
            let snapshot = engine
                .window_tree(
                    &WindowQuery { app, window },
                    ReadOptions { include_invisible },
                )
                .await?;
            let options = CompactOptions {
                max_depth,
                max_chars,
                include_invisible,
            };
            let out = render(
                &snapshot.tree,
                snapshot.tree.root(),
                &mut HandleRegistry::new(),
                &options,
            );
            print!("{}", out.text);
            for gap in &snapshot.gaps {
                println!("[partial: {gap}]");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            what: BenchCommand::Tree { apps, runs },
        } => {
            let engine = LinuxEngine::connect().await?;
            for app in apps {
                let query = WindowQuery {
                    app: Some(app.clone()),
                    window: None,
                };
                let mut times = Vec::new();
                let mut nodes = 0;
                for _ in 0..runs {
                    let start = std::time::Instant::now();
                    let snapshot = engine.window_tree(&query, ReadOptions::default()).await?;
                    times.push(start.elapsed().as_secs_f64() * 1000.0);
                    nodes = snapshot.tree.len();
                }
                times.sort_by(f64::total_cmp);
                println!(
                    "{app}: {nodes} elements, median {:.1} ms",
                    times[times.len() / 2]
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        _ => anyhow::bail!("not yet"),
    }
}

async fn apps(json: bool) -> anyhow::Result<ExitCode> {
    let engine = LinuxEngine::connect()
        .await
        .context("cannot reach the desktop")?;
    let apps = engine.applications().await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&apps)?);
    } else {
        for app in apps {
            println!(
                "{} (pid {}, {})",
                app.name,
                app.pid.map_or("?".into(), |p| p.to_string()),
                app.toolkit
            );
            for w in app.windows {
                println!("  [{}] {}", w.role, w.title);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
