//! `axsight shot`: the `capture_screenshot` tool on the command line, written to a
//! file, with the caption (and how to map pixels back) on stdout.

use crate::stdout::outln;
use std::path::Path;
use std::process::ExitCode;

use axsight_core::Bounds;
use axsight_session::{ShotRequest, TreeRequest};
use axsight_vision::Format;

use super::Session;
use crate::cli::Scope;

pub struct Shot {
    pub scope: Scope,
    pub index: Option<String>,
    pub region: Option<String>,
    pub max_dimension: Option<u32>,
    pub zoom: Option<f64>,
    pub annotate: bool,
    pub include_ocr: bool,
    pub include_detector: bool,
}

/// `x,y,width,height` as a region.
fn parse_region(text: &str) -> anyhow::Result<Bounds> {
    let numbers: Vec<i32> = text
        .split(',')
        .map(|n| n.trim().parse())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("--region wants x,y,width,height, got '{text}'"))?;
    match numbers[..] {
        [x, y, width, height] => Bounds::from_extents(x, y, width, height)
            .filter(Bounds::has_area)
            .ok_or_else(|| anyhow::anyhow!("--region {text} is empty or off any screen")),
        _ => anyhow::bail!("--region wants x,y,width,height, got '{text}'"),
    }
}

pub async fn run(session: &Session, file: &Path, shot: Shot) -> anyhow::Result<ExitCode> {
    let format = match file.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("jpg") || e.eq_ignore_ascii_case("jpeg") => Format::Jpeg,
        _ => Format::Png,
    };
    // A handle means what `axsight tree` printed for the same --app/--window.
    if shot.index.is_some() {
        let request = TreeRequest {
            app: shot.scope.app.clone(),
            window: shot.scope.window.clone(),
            ..TreeRequest::default()
        };
        session.window_tree(&request, false).await?;
    }
    let scoped = shot.index.is_none();
    let request = ShotRequest {
        app: shot.scope.app.clone().filter(|_| scoped),
        window: shot.scope.window.clone().filter(|_| scoped),
        index: shot.index,
        region: shot.region.as_deref().map(parse_region).transpose()?,
        format,
        max_dimension: shot.max_dimension,
        zoom: shot.zoom,
        annotate: shot.annotate,
        include_ocr: shot.include_ocr,
        include_detector: shot.include_detector,
    };
    match session.screenshot(&request).await {
        Ok(shot) => {
            std::fs::write(file, &shot.picture.bytes)?;
            outln!(
                "{} ({} bytes) -> {}",
                shot.caption,
                shot.picture.bytes.len(),
                file.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("axsight: {error}");
            Ok(ExitCode::from(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_region;

    #[test]
    fn regions_are_four_numbers_with_area() {
        let r = parse_region("10, 20,30,40").unwrap();
        assert_eq!((r.x, r.y, r.width, r.height), (10, 20, 30, 40));
        assert!(parse_region("1,2,3").is_err());
        assert!(parse_region("1,2,0,4").is_err());
        assert!(parse_region("a,b,c,d").is_err());
    }
}
