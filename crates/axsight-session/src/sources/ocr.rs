//! The OCR source (`#o`): axsight-vision's `read_text` reads a window's capture
//! (PP-OCR's text detector finds the lines, Tesseract in process reads them);
//! each line it reads becomes a sighting.

use axsight_core::{Capture, Engine, Source, WindowSnapshot};
use axsight_vision::{read_line, read_text, OcrOptions};

use super::{window_frame, Found, Sighting};
use crate::session::Session;
use crate::ToolError;

impl<E: Engine> Session<E> {
    /// Reads the window's text with OCR: its lines, numbered (none over secret
    /// fields).
    pub(crate) async fn read_ocr(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
    ) -> Result<Vec<Sighting>, ToolError> {
        let frame = window_frame(snapshot)?;
        let capture = engine
            .capture(Some(frame))
            .await
            .map_err(ToolError::engine)?;
        let (capture, found) = self.ocr_lines(capture).await?;
        self.record_sightings(snapshot, &capture, Source::Ocr, found, None)
    }

    /// The lines OCR reads in `capture`, in screen pixels, with the capture
    /// handed back.
    pub(crate) async fn ocr_lines(
        &self,
        capture: Capture,
    ) -> Result<(Capture, Vec<Found>), ToolError> {
        let options = OcrOptions {
            runtime_library: self.detector.runtime_library(),
            ..OcrOptions::default()
        };
        // OCR blocks for a few hundred milliseconds: off the runtime.
        let (capture, lines) = tokio::task::spawn_blocking(move || {
            let lines = read_text(&capture, &options);
            (capture, lines)
        })
        .await
        .map_err(|error| ToolError::CannotAct(format!("OCR failed: {error}")))?;
        let lines = lines.map_err(|error| ToolError::CannotAct(error.to_string()))?;
        let found = lines
            .into_iter()
            .map(|line| Found {
                bounds: line.bounds,
                text: line.text,
                kind: None,
                confidence: Some(line.confidence),
            })
            .collect();
        Ok((capture, found))
    }

    /// What OCR reads in `capture` taken as one line of text; `None` when it
    /// reads nothing or cannot run.
    pub(crate) async fn ocr_line(&self, capture: Capture) -> Option<String> {
        let options = OcrOptions {
            runtime_library: self.detector.runtime_library(),
            ..OcrOptions::default()
        };
        let read = tokio::task::spawn_blocking(move || read_line(&capture, &options)).await;
        match read {
            Ok(Ok(line)) => line.map(|line| line.text),
            Ok(Err(error)) => {
                tracing::debug!(%error, "OCR of one line failed");
                None
            }
            Err(error) => {
                tracing::debug!(%error, "OCR of one line failed");
                None
            }
        }
    }
}
