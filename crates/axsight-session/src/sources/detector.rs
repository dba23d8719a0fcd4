//! The detector source (`#m`): a UI-element detector model finds the boxes of
//! controls in a window's capture, with or without text.

use std::sync::{Arc, Mutex};

use axsight_core::{Engine, Source, WindowSnapshot};
use axsight_vision::{Detector, DetectorError, DetectorOptions};

use super::{window_frame, Found, Sighting};
use crate::session::Session;
use crate::ToolError;

/// The session's detector: configured or not, loaded on first use (a model
/// takes a second or so to load) and kept.
#[derive(Debug, Default)]
pub(crate) struct DetectorSlot {
    options: Option<DetectorOptions>,
    loaded: Mutex<Option<Arc<Detector>>>,
}

impl DetectorSlot {
    pub fn new(options: Option<DetectorOptions>) -> DetectorSlot {
        DetectorSlot {
            options,
            loaded: Mutex::default(),
        }
    }

    /// The detector, loading it now if no earlier call did. A failed load is
    /// tried again next time (the user may fix the file meanwhile).
    fn detector(&self) -> Result<Arc<Detector>, DetectorError> {
        let options = self.options.clone().ok_or(DetectorError::NoModel)?;
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(detector) = loaded.as_ref() {
            return Ok(detector.clone());
        }
        let detector = Arc::new(Detector::load(options)?);
        *loaded = Some(detector.clone());
        Ok(detector)
    }
}

impl<E: Engine> Session<E> {
    /// Runs the detector on the window: the boxes it finds, numbered.
    pub(crate) async fn detect(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
    ) -> Result<Vec<Sighting>, ToolError> {
        let slot = self.detector.clone();
        // Loading and inference are CPU work for hundreds of milliseconds: off
        // the runtime.
        let detector = tokio::task::spawn_blocking(move || slot.detector())
            .await
            .map_err(|error| ToolError::CannotAct(format!("the detector failed: {error}")))?
            .map_err(|error| ToolError::CannotAct(error.to_string()))?;
        let frame = window_frame(snapshot)?;
        let capture = engine
            .capture(Some(frame))
            .await
            .map_err(ToolError::engine)?;
        let (capture, detections) = tokio::task::spawn_blocking(move || {
            let detections = detector.detect(&capture);
            (capture, detections)
        })
        .await
        .map_err(|error| ToolError::CannotAct(format!("the detector failed: {error}")))?;
        let detections = detections.map_err(|error| ToolError::CannotAct(error.to_string()))?;
        let found = detections
            .into_iter()
            .map(|d| Found {
                bounds: d.bounds,
                text: String::new(),
                kind: Some(d.label),
                confidence: Some(d.confidence),
            })
            .collect();
        Ok(self.record_sightings(snapshot, &capture, Source::Detector, found))
    }
}
