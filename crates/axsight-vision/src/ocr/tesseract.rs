//! Tesseract in process: `libtesseract.so.5` (Debian's `libtesseract5`, which
//! `tesseract-ocr` depends on) opened at run time through its C API, LSTM engine
//! only, fed raw grey pixels (no PNG, no child process).
//!
//! It owns loading the library, a pool of initialised engines (loading a
//! language's model costs ~100 ms, so an engine is made once and reused), and two
//! reads: one line (`--psm 7`) or a sparse page (`--psm 11`, TSV). It does not
//! prepare pictures or decide what a line is: ocr.rs does.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::{Mutex, OnceLock};

use image::GrayImage;

use crate::picture::VisionError;

/// The library's file name: Debian 12's soname (Tesseract 5).
const LIBRARY: &str = "libtesseract.so.5";
/// The hint in every error about a missing Tesseract.
const INSTALL: &str =
    "install libtesseract5 and tesseract-ocr-eng (Debian) or run scripts/install-deps";
/// `tesseract::OEM_LSTM_ONLY`.
const LSTM_ONLY: c_int = 1;
/// `tesseract::PSM_SINGLE_LINE` and `PSM_SPARSE_TEXT`.
pub(super) const SINGLE_LINE: u8 = 7;
pub(super) const SPARSE_TEXT: u8 = 11;

type Handle = *mut c_void;

/// The C API's functions used here, resolved once.
struct Api {
    create: unsafe extern "C" fn() -> Handle,
    delete: unsafe extern "C" fn(Handle),
    init: unsafe extern "C" fn(Handle, *const c_char, *const c_char, c_int) -> c_int,
    set_variable: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    set_page_mode: unsafe extern "C" fn(Handle, c_int),
    set_image: unsafe extern "C" fn(Handle, *const u8, c_int, c_int, c_int, c_int),
    set_resolution: unsafe extern "C" fn(Handle, c_int),
    utf8_text: unsafe extern "C" fn(Handle) -> *mut c_char,
    tsv_text: unsafe extern "C" fn(Handle, c_int) -> *mut c_char,
    mean_confidence: unsafe extern "C" fn(Handle) -> c_int,
    delete_text: unsafe extern "C" fn(*mut c_char),
    /// libgomp's, when Tesseract is built with OpenMP.
    omp_set_max_active_levels: Option<unsafe extern "C" fn(c_int)>,
    /// Keeps the functions above valid: never unloaded.
    _library: libloading::Library,
}

static API: OnceLock<Result<Api, String>> = OnceLock::new();

fn api() -> Result<&'static Api, VisionError> {
    let loaded = API.get_or_init(|| {
        // SAFETY: loading Tesseract runs only its C++ static initialisers, which
        // have no preconditions; each symbol below is declared with the type
        // tesseract/capi.h gives it (Tesseract 4 and 5 share these).
        unsafe {
            let library = libloading::Library::new(LIBRARY).map_err(|e| e.to_string())?;
            macro_rules! get {
                ($name:literal) => {
                    *library
                        .get(concat!($name, "\0").as_bytes())
                        .map_err(|e| format!("{LIBRARY} has no {}: {e}", $name))?
                };
            }
            Ok(Api {
                create: get!("TessBaseAPICreate"),
                delete: get!("TessBaseAPIDelete"),
                init: get!("TessBaseAPIInit2"),
                set_variable: get!("TessBaseAPISetVariable"),
                set_page_mode: get!("TessBaseAPISetPageSegMode"),
                set_image: get!("TessBaseAPISetImage"),
                set_resolution: get!("TessBaseAPISetSourceResolution"),
                utf8_text: get!("TessBaseAPIGetUTF8Text"),
                tsv_text: get!("TessBaseAPIGetTsvText"),
                mean_confidence: get!("TessBaseAPIMeanTextConf"),
                delete_text: get!("TessDeleteText"),
                // Debian's libtesseract is built with libgomp; dlsym on the
                // library's handle searches its dependencies too.
                omp_set_max_active_levels: library
                    .get::<unsafe extern "C" fn(c_int)>(b"omp_set_max_active_levels\0")
                    .ok()
                    .map(|f| *f),
                _library: library,
            })
        }
    });
    loaded
        .as_ref()
        .map_err(|why| match why.contains("cannot open shared object") {
            true => VisionError::OcrMissing(INSTALL),
            false => VisionError::Ocr(why.clone()),
        })
}

/// One initialised Tesseract: used by one thread at a time.
pub(super) struct Engine {
    handle: Handle,
    language: String,
}

// SAFETY: a TessBaseAPI may move between threads; it is only never used by two
// at once, which `&mut self` on every read ensures.
unsafe impl Send for Engine {}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Ok(api) = api() {
            // SAFETY: `handle` came from TessBaseAPICreate and is deleted once.
            unsafe { (api.delete)(self.handle) }
        }
    }
}

/// Engines made and given back, ready for the next read.
static POOL: Mutex<Vec<Engine>> = Mutex::new(Vec::new());

impl Engine {
    /// An engine for `language` from the pool, or a new one.
    pub(super) fn take(language: &str) -> Result<Engine, VisionError> {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = pool.iter().position(|e| e.language == language) {
            return Ok(pool.swap_remove(at));
        }
        drop(pool);
        Engine::new(language)
    }

    /// Gives the engine back for later reads.
    pub(super) fn give_back(self) {
        POOL.lock().unwrap_or_else(|e| e.into_inner()).push(self);
    }

    fn new(language: &str) -> Result<Engine, VisionError> {
        let api = api()?;
        let bad_language = || {
            VisionError::Ocr(format!(
                "tesseract has no '{language}' language data: install tesseract-ocr-{} \
                 (Debian) or run scripts/install-deps",
                language.split('+').next().unwrap_or("eng"),
            ))
        };
        let c_language = CString::new(language).map_err(|_| bad_language())?;
        // SAFETY: the handle is fresh; the strings outlive the calls; a null
        // data path means Tesseract's compiled-in tessdata directory.
        unsafe {
            let handle = (api.create)();
            if handle.is_null() {
                return Err(VisionError::Ocr("TessBaseAPICreate failed".into()));
            }
            let engine = Engine {
                handle,
                language: language.to_string(),
            };
            if (api.init)(handle, std::ptr::null(), c_language.as_ptr(), LSTM_ONLY) != 0 {
                return Err(bad_language());
            }
            // Its chatter ("Estimating resolution", "Empty page") goes nowhere.
            (api.set_variable)(handle, c"debug_file".as_ptr(), c"/dev/null".as_ptr());
            Ok(engine)
        }
    }

    /// Sets `image` (kept alive by the caller until the read is done) and mode.
    fn set(&mut self, image: &GrayImage, mode: u8, dpi: u32) -> Result<&'static Api, VisionError> {
        let api = api()?;
        // No OpenMP teams: ocr.rs runs one engine per core itself, and
        // Tesseract's OpenMP threads (its LSTM asks for 4 per layer, past any
        // num_threads setting) spin against those, doubling the time, most of
        // it in the kernel (futex); the CLI had `OMP_THREAD_LIMIT=1` for this.
        // With zero active levels every parallel region runs on the thread that
        // meets it. The setting is the calling thread's (OpenMP 5), so it is
        // made before each read.
        if let Some(levels) = api.omp_set_max_active_levels {
            // SAFETY: takes any count; 0 is valid.
            unsafe { levels(0) }
        }

        let (width, height) = image.dimensions();
        let too_big = || VisionError::Ocr(format!("a {width}x{height} picture is too big"));
        let w = c_int::try_from(width).map_err(|_| too_big())?;
        let h = c_int::try_from(height).map_err(|_| too_big())?;
        // SAFETY: the buffer holds width*height grey bytes, one row after
        // another (bytes_per_line = width); Tesseract copies it.
        unsafe {
            (api.set_page_mode)(self.handle, c_int::from(mode));
            (api.set_image)(self.handle, image.as_raw().as_ptr(), w, h, 1, w);
            (api.set_resolution)(self.handle, dpi as c_int);
        }
        Ok(api)
    }

    /// Reads `image` as one line: its text (words joined by single spaces) and
    /// Tesseract's mean word confidence, 0 to 100.
    pub(super) fn read_line(
        &mut self,
        image: &GrayImage,
        dpi: u32,
    ) -> Result<(String, f32), VisionError> {
        let api = self.set(image, SINGLE_LINE, dpi)?;
        // SAFETY: the image is set; the text returned is freed with TessDeleteText.
        let text = unsafe { take_text(api, (api.utf8_text)(self.handle)) };
        let confidence = unsafe { (api.mean_confidence)(self.handle) };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        Ok((text, confidence.clamp(0, 100) as f32))
    }

    /// Reads `image` in `mode` and answers Tesseract's TSV (no header row).
    pub(super) fn read_tsv(
        &mut self,
        image: &GrayImage,
        mode: u8,
        dpi: u32,
    ) -> Result<String, VisionError> {
        let api = self.set(image, mode, dpi)?;
        // SAFETY: as in `read_line`.
        Ok(unsafe { take_text(api, (api.tsv_text)(self.handle, 0)) })
    }
}

/// Copies and frees a string Tesseract returned (null: nothing read).
///
/// # Safety
/// `text` is null or a NUL-terminated string from the C API.
unsafe fn take_text(api: &Api, text: *mut c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    let copy = CStr::from_ptr(text).to_string_lossy().into_owned();
    (api.delete_text)(text);
    copy
}
