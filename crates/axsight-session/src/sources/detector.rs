//! The detector source (`#m`): a UI-element detector model finds the boxes of
//! controls in a window's capture, with or without text.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axsight_core::{Capture, Engine, Source, WindowSnapshot};
use axsight_vision::{Detector, DetectorError, DetectorOptions};

use super::{window_frame, Found, Sighting};
use crate::session::Session;
use crate::ToolError;

/// The session's detector: configured or not, loaded on first use (a model
/// takes a second or so to load), and let go of once it has gone unused for
/// the idle time, if one is set (a loaded model holds about 220 MB).
#[derive(Debug, Default)]
pub(crate) struct DetectorSlot {
    options: Option<DetectorOptions>,
    idle: Option<Duration>,
    loaded: Mutex<Loaded>,
}

/// The model while it is loaded, and how many times it was taken: a release
/// scheduled after one use is void once a later use took it again.
#[derive(Debug, Default)]
struct Loaded {
    detector: Option<Arc<Detector>>,
    uses: u64,
}

impl DetectorSlot {
    pub fn new(options: Option<DetectorOptions>, idle: Option<Duration>) -> DetectorSlot {
        DetectorSlot {
            options,
            idle,
            loaded: Mutex::default(),
        }
    }

    /// The ONNX Runtime library configured for the detector, which OCR's text
    /// detector shares.
    pub(crate) fn runtime_library(&self) -> Option<std::path::PathBuf> {
        self.options.as_ref()?.runtime_library.clone()
    }

    /// The detector, loading it now if it is not loaded, and the number of
    /// this use. A failed load is tried again next time (the user may fix the
    /// file meanwhile).
    fn detector(&self) -> Result<(Arc<Detector>, u64), DetectorError> {
        let options = self.options.clone().ok_or(DetectorError::NoModel)?;
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        loaded.uses += 1;
        if let Some(detector) = loaded.detector.as_ref() {
            return Ok((detector.clone(), loaded.uses));
        }
        let detector = Arc::new(Detector::load(options)?);
        loaded.detector = Some(detector.clone());
        tracing::debug!("the detector's model is loaded");
        Ok((detector, loaded.uses))
    }

    /// After use number `use_number`, lets the model go once the idle time has
    /// passed with no other use. An inference still running keeps its own
    /// reference; the memory goes when it ends.
    fn release_when_idle(self: &Arc<Self>, use_number: u64) {
        let Some(idle) = self.idle else {
            return;
        };
        // No runtime, no timer: as at the end of a process.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let slot = Arc::downgrade(self);
        runtime.spawn(async move {
            tokio::time::sleep(idle).await;
            let Some(slot) = slot.upgrade() else {
                return;
            };
            let mut loaded = slot.loaded.lock().unwrap_or_else(|e| e.into_inner());
            if loaded.uses == use_number && loaded.detector.take().is_some() {
                tracing::debug!(
                    "the detector's model was let go after {} s unused",
                    idle.as_secs_f64()
                );
            }
        });
    }

    /// Whether the model is loaded now.
    pub fn is_loaded(&self) -> bool {
        let loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        loaded.detector.is_some()
    }
}

impl<E: Engine> Session<E> {
    /// Whether the detector's model is in memory now (loaded by a use, and not
    /// yet let go after the idle time).
    pub fn detector_loaded(&self) -> bool {
        self.detector.is_loaded()
    }

    /// Runs the detector on the window: the boxes it finds, numbered.
    pub(crate) async fn detect(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
    ) -> Result<Vec<Sighting>, ToolError> {
        let frame = window_frame(snapshot)?;
        let capture = engine
            .capture(Some(frame))
            .await
            .map_err(ToolError::engine)?;
        let (capture, found) = self.detections(capture).await?;
        self.record_sightings(snapshot, &capture, Source::Detector, found, None)
    }

    /// Whether a detector model is configured (it may not be loaded yet).
    pub(crate) fn has_detector(&self) -> bool {
        self.detector.options.is_some()
    }

    /// The boxes the detector finds in `capture`, in screen pixels, with the
    /// capture handed back.
    pub(crate) async fn detections(
        &self,
        capture: Capture,
    ) -> Result<(Capture, Vec<Found>), ToolError> {
        let slot = self.detector.clone();
        // Loading and inference are CPU work for hundreds of milliseconds: off
        // the runtime.
        let (detector, use_number) = tokio::task::spawn_blocking(move || slot.detector())
            .await
            .map_err(|error| ToolError::CannotAct(format!("the detector failed: {error}")))?
            .map_err(|error| ToolError::CannotAct(error.to_string()))?;
        // Counted from the end of this use, whatever way it ends.
        struct ReleaseLater(Arc<DetectorSlot>, u64);
        impl Drop for ReleaseLater {
            fn drop(&mut self) {
                self.0.release_when_idle(self.1);
            }
        }
        let _release = ReleaseLater(self.detector.clone(), use_number);
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
        Ok((capture, found))
    }
}
