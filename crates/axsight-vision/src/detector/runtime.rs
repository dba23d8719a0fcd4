//! ONNX Runtime, found and loaded once per process.
//!
//! axsight links no ONNX Runtime: it opens the `libonnxruntime` shared library
//! at run time (PyPI's `onnxruntime` wheel carries one), so building stays fast
//! and a machine without the library still runs everything but the detector.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ort::environment::Environment;

use super::DetectorError;

/// The variable naming the library file, read when no path is given.
pub const RUNTIME_VARIABLE: &str = "AXSIGHT_ONNXRUNTIME";

/// The process's ONNX Runtime: the library loaded and its environment built,
/// or why not. ONNX Runtime allows one environment per process, and a library
/// once loaded stays, so the first load decides.
static RUNTIME: OnceLock<Result<(Environment, PathBuf), String>> = OnceLock::new();

/// Loads ONNX Runtime from where [`locate`] finds it (`explicit` first); once a
/// library was loaded (or failed to load), later calls return that outcome. A
/// search that found no library is not kept: OCR looks without a path, and the
/// detector, configured with one, may come later in the same process.
pub(crate) fn runtime(explicit: Option<&Path>) -> Result<&'static Environment, DetectorError> {
    if RUNTIME.get().is_none() {
        // Nothing is loaded yet: a failed search leaves no trace.
        locate(explicit).map_err(DetectorError::Runtime)?;
    }
    let loaded = RUNTIME.get_or_init(|| {
        let path = locate(explicit)?;
        let environment = ort::init_from(&path)
            .map_err(|error| format!("cannot load ONNX Runtime from {}: {error}", path.display()))?
            .with_name("axsight")
            .build()
            .map_err(|error| {
                format!(
                    "ONNX Runtime at {} failed to start: {error}",
                    path.display()
                )
            })?;
        Ok((environment, path))
    });
    match loaded {
        Ok((environment, _)) => Ok(environment),
        Err(why) => Err(DetectorError::Runtime(why.clone())),
    }
}

/// Where ONNX Runtime is: the path given, else `AXSIGHT_ONNXRUNTIME`, else
/// ort's own `ORT_DYLIB_PATH`, else the `onnxruntime` Python package in the
/// active virtual environment, the user's or the system's site packages, else
/// a plain `libonnxruntime.so` in `/usr/local/lib` or `/usr/lib`.
fn locate(explicit: Option<&Path>) -> Result<PathBuf, String> {
    let named = explicit.map(|p| (p.to_path_buf(), "given")).or_else(|| {
        [RUNTIME_VARIABLE, "ORT_DYLIB_PATH"]
            .iter()
            .find_map(|variable| {
                std::env::var_os(variable)
                    .filter(|v| !v.is_empty())
                    .map(|v| (PathBuf::from(v), *variable))
            })
    });
    if let Some((path, whence)) = named {
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "ONNX Runtime library {} ({whence}) does not exist",
                path.display()
            ))
        };
    }
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(PathBuf::from(venv).join("lib"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(PathBuf::from(home).join(".local/lib"));
    }
    roots.push(PathBuf::from("/usr/local/lib"));
    roots.push(PathBuf::from("/usr/lib"));
    for root in &roots {
        // site-packages of each python3.X there (pip), or dist-packages (Debian),
        // the newest Python first.
        let mut pythons: Vec<PathBuf> = std::fs::read_dir(root)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("python3"))
            })
            .collect();
        pythons.sort();
        for python in pythons.iter().rev() {
            for packages in ["site-packages", "dist-packages"] {
                if let Some(library) = library_in(&python.join(packages).join("onnxruntime/capi")) {
                    return Ok(library);
                }
            }
        }
        let plain = root.join("libonnxruntime.so");
        if plain.is_file() {
            return Ok(plain);
        }
    }
    Err(format!(
        "ONNX Runtime not found: no onnxruntime Python package or libonnxruntime.so under {}; \
         install it with `pip install onnxruntime` or point {RUNTIME_VARIABLE} at a libonnxruntime.so",
        roots
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The `libonnxruntime.so.X.Y.Z` in a wheel's `capi` folder.
fn library_in(folder: &Path) -> Option<PathBuf> {
    std::fs::read_dir(folder)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libonnxruntime.so"))
        })
}
