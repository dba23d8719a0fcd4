//! `axsight bench tree`: warm tree reads inside one process, with the compact text's
//! size per element. Cold reads and the pyatspi baseline are timed by
//! `scripts/bench-tree`, which calls this for the warm figures.

use std::time::Instant;

use axsight_core::{render, CompactOptions, HandleRegistry};
use axsight_linux::{ReadOptions, WindowQuery};
use axsight_mcp::Session;

pub async fn tree(session: &Session, apps: &[String], runs: usize) -> anyhow::Result<()> {
    let engine = session.engine().await?;
    for app in apps {
        let query = WindowQuery {
            app: Some(app.clone()),
            ..WindowQuery::default()
        };
        let mut times = Vec::with_capacity(runs);
        let mut last = None;
        for _ in 0..runs.max(1) {
            let start = Instant::now();
            let snapshot = engine.window_tree(&query, ReadOptions::default()).await?;
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            last = Some(snapshot);
        }
        let Some(snapshot) = last else { continue };
        times.sort_by(f64::total_cmp);
        let rendered = render(
            &snapshot.tree,
            snapshot.tree.root(),
            &mut HandleRegistry::new(),
            &CompactOptions::default(),
        );
        println!(
            "warm {app}: median {:.2} ms over {} reads; {} elements read, {} printed, {} bytes ({:.1} bytes/element)",
            times[times.len() / 2],
            times.len(),
            snapshot.tree.len(),
            rendered.printed,
            rendered.text.len(),
            rendered.text.len() as f64 / rendered.printed.max(1) as f64,
        );
    }
    Ok(())
}
