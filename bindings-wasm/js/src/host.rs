//! The hosts of the JS binding: a JS object implementing the file, clock and randomness
//! functions ([`JsHost`], the `LroHost` interface of `index.d.ts`), or the core's in-memory
//! store with the JS clock and `crypto.getRandomValues` ([`InMemoryHost`]); and the
//! platform's, for calls whose `config` names no host.
//!
//! wasm32-unknown-unknown has no files, clock, environment or OS randomness of its own:
//! every one of them comes from JS here, as getrandom's documentation asks of libraries (the
//! core never picks a randomness backend itself). The package's Node entry hands the
//! platform in (`__setPlatform`: node:fs and `process.env`); elsewhere the platform is the
//! module's in-memory store and no environment.

use std::cell::RefCell;
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use js_sys::{Array, Function, Reflect, Uint8Array};
use lro_core::host::ForwardingHost;
use lro_core::{
    DirEntry, EntryKind, ErrorCode, Host, LroError, MemoryHost, OffloadConfig, OpenFile,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A JS object implementing `LroHost`.
    #[wasm_bindgen(typescript_type = "LroHost")]
    pub type JsHostObject;

    #[wasm_bindgen(method, catch, js_name = writeAtomic)]
    fn write_atomic(this: &JsHostObject, path: &str, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = createDirAll)]
    fn create_dir_all(this: &JsHostObject, dir: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = readFile)]
    fn read_file(this: &JsHostObject, path: &str) -> Result<Uint8Array, JsValue>;
    #[wasm_bindgen(method, catch, js_name = listDir)]
    fn list_dir(this: &JsHostObject, dir: &str) -> Result<Array, JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeFile)]
    fn remove_file(this: &JsHostObject, path: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn canonicalize(this: &JsHostObject, path: &str) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch, js_name = entryKind)]
    fn entry_kind(this: &JsHostObject, path: &str) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch, js_name = openFile)]
    fn open_file(this: &JsHostObject, dir: &str, name: &str) -> Result<Uint8Array, JsValue>;
    #[wasm_bindgen(method, catch, js_name = sharedDir)]
    fn shared_dir(this: &JsHostObject, dir: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = nowMillis)]
    fn now_millis(this: &JsHostObject) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch, js_name = fillRandom)]
    fn fill_random(this: &JsHostObject, buf: &Uint8Array) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = tempDir)]
    fn temp_dir(this: &JsHostObject) -> Result<String, JsValue>;

    /// `globalThis.crypto`, present in browsers, workers, Deno and Node >= 19.
    #[wasm_bindgen(thread_local_v2, js_namespace = globalThis, js_name = crypto)]
    static CRYPTO: JsValue;
}

/// A thrown JS value as an `io::Error`, keeping the errno name's meaning (`ENOENT` is
/// `NotFound`, which the core turns into `not_found`).
fn io_error(err: JsValue) -> io::Error {
    let code = Reflect::get(&err, &"code".into())
        .ok()
        .and_then(|c| c.as_string())
        .unwrap_or_default();
    let message = || {
        Reflect::get(&err, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .or_else(|| err.as_string())
            .unwrap_or_else(|| format!("{err:?}"))
    };
    // A host's refusal of an offload file (`openFile`): a link not followed, or a handle
    // that failed its checks. The core answers `path_denied`.
    if matches!(code.as_str(), "ELOOP" | "LRO_REFUSED") {
        return lro_core::host::refused(message());
    }
    let kind = match code.as_str() {
        "ENOENT" | "ENOTDIR" => io::ErrorKind::NotFound,
        "EEXIST" => io::ErrorKind::AlreadyExists,
        "EACCES" | "EPERM" => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, message())
}

/// Whether the JS host object has the optional method `name`.
fn has_method(host: &JsHostObject, name: &str) -> bool {
    Reflect::get(host, &name.into()).is_ok_and(|f| f.is_function())
}

fn kind_from_str(kind: &str) -> EntryKind {
    match kind {
        "file" => EntryKind::File,
        "dir" => EntryKind::Dir,
        "symlink" => EntryKind::Symlink,
        _ => EntryKind::Other,
    }
}

fn path_str(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Fills `buf` from `crypto.getRandomValues`; `false` when the environment has none.
fn crypto_random(buf: &mut [u8]) -> bool {
    let get = CRYPTO.with(|c| {
        Reflect::get(c, &"getRandomValues".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    });
    let Some(get) = get else { return false };
    // getRandomValues takes at most 65,536 bytes at a time; ULIDs need 10.
    for chunk in buf.chunks_mut(65_536) {
        let array = Uint8Array::new_with_length(chunk.len() as u32);
        if CRYPTO.with(|c| get.call1(c, &array)).is_err() {
            return false;
        }
        array.copy_to(chunk);
    }
    true
}

/// When a host cannot give randomness, fall back to the clock, as the core's StdHost does:
/// file names stay unique within the process because the ULID generator is monotonic.
fn clock_bytes(now: u64, buf: &mut [u8]) {
    let seed = now.to_le_bytes();
    for (i, b) in buf.iter_mut().enumerate() {
        *b = seed[i % 8] ^ (i as u8).wrapping_mul(151);
    }
}

/// [`Host`] over a JS object implementing `LroHost`.
pub struct JsHost(pub JsHostObject);

impl Host for JsHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        self.0
            .write_atomic(&path_str(path), &parts.concat())
            .map_err(io_error)
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.0.create_dir_all(&path_str(dir)).map_err(io_error)
    }

    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        if name.is_empty() || name == "." || name == ".." || name.contains('/') {
            return Err(lro_core::host::refused(format!(
                "{name:?} is not a file name"
            )));
        }
        // The host's checked read when it has one (the Node host: O_NOFOLLOW|O_NONBLOCK,
        // then fstat). Otherwise what can be done through `LroHost`: the entry must be a
        // regular file (a link is not followed), then it is read by name; a swap between the
        // two calls is the host's to prevent.
        let bytes = if has_method(&self.0, "openFile") {
            self.0.open_file(&path_str(dir), name).map_err(io_error)?
        } else {
            let path = path_str(&dir.join(name));
            match self.entry_kind(Path::new(&path))? {
                EntryKind::File => {}
                EntryKind::Symlink => {
                    return Err(lro_core::host::refused(
                        "a symbolic link, which is never followed",
                    ));
                }
                _ => {
                    return Err(lro_core::host::refused("not a regular file"));
                }
            }
            self.0.read_file(&path).map_err(io_error)?
        };
        let bytes = bytes.to_vec();
        Ok(OpenFile {
            size: Some(bytes.len() as u64),
            reader: Box::new(io::Cursor::new(bytes)),
        })
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let entries = self.0.list_dir(&path_str(dir)).map_err(io_error)?;
        let field = |entry: &JsValue, key: &str| {
            Reflect::get(entry, &key.into())
                .ok()
                .and_then(|v| v.as_string())
        };
        Ok(entries
            .iter()
            .filter_map(|entry| {
                let name = field(&entry, "name")?;
                let kind = kind_from_str(&field(&entry, "kind").unwrap_or_default());
                Some(DirEntry { name, kind })
            })
            .collect())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.0.remove_file(&path_str(path)).map_err(io_error)
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.0
            .canonicalize(&path_str(path))
            .map(PathBuf::from)
            .map_err(io_error)
    }

    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        self.0
            .entry_kind(&path_str(path))
            .map(|k| kind_from_str(&k))
            .map_err(io_error)
    }

    fn shared_dir(&self, dir: &Path) -> io::Result<Option<String>> {
        // Optional: a host without users (a browser store) has nobody to share with.
        if !has_method(&self.0, "sharedDir") {
            return Ok(None);
        }
        let why = self.0.shared_dir(&path_str(dir)).map_err(io_error)?;
        Ok(why.as_string())
    }

    fn now_millis(&self) -> u64 {
        self.0.now_millis().unwrap_or_else(|_| js_sys::Date::now()) as u64
    }

    fn fill_random(&self, buf: &mut [u8]) {
        let array = Uint8Array::new_with_length(buf.len() as u32);
        if self.0.fill_random(&array).is_ok() {
            array.copy_to(buf);
        } else if !crypto_random(buf) {
            clock_bytes(self.now_millis(), buf);
        }
    }

    fn temp_dir(&self) -> PathBuf {
        PathBuf::from(self.0.temp_dir().unwrap_or_else(|_| "/tmp".to_owned()))
    }
}

/// The built-in host for environments without files: the core's [`MemoryHost`] store, with
/// the real clock and `crypto.getRandomValues` (MemoryHost's own fixed clock and seeded
/// generator are for reproducible tests). Descriptors point into this store (`/tmp/...`);
/// read the files back with `readResource` or `extract`.
pub struct InMemoryHost {
    /// The files.
    pub store: MemoryHost,
}

impl Host for InMemoryHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        self.store.write_atomic(path, parts)
    }
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.store.create_dir_all(dir)
    }
    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        self.store.open_file(dir, name)
    }
    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.store.list_dir(dir)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.store.remove_file(path)
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.store.canonicalize(path)
    }
    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        self.store.entry_kind(path)
    }
    fn now_millis(&self) -> u64 {
        js_sys::Date::now() as u64
    }
    fn fill_random(&self, buf: &mut [u8]) {
        if !crypto_random(buf) {
            self.store.fill_random(buf);
        }
    }
    fn temp_dir(&self) -> PathBuf {
        self.store.temp_dir()
    }
}

/// Either host, so one offloader type serves both.
pub enum BindingHost {
    /// A JS object.
    Js(JsHost),
    /// The built-in in-memory store, one per module.
    Memory(Rc<InMemoryHost>),
}

impl BindingHost {
    fn get(&self) -> &(dyn Host + 'static) {
        match self {
            Self::Js(h) => h,
            Self::Memory(h) => &**h,
        }
    }
}

impl ForwardingHost for BindingHost {
    type Target = dyn Host;
    fn target(&self) -> &(dyn Host + 'static) {
        self.get()
    }
}

/// What the JS platform gives: a host for files, and its environment.
struct Platform {
    host: JsHostObject,
    environment: Function,
}

thread_local! {
    static PLATFORM: RefCell<Option<Platform>> = const { RefCell::new(None) };
    static MEMORY: Rc<InMemoryHost> = Rc::new(InMemoryHost {
        store: MemoryHost::new(),
    });
}

/// Internal to the package's Node entry (`lro.js`): the files and the environment of calls
/// whose `config` names no host, as the native addon has them: `host` (node:fs) and
/// `environment()` (returning the `ATLATL_PROMPT__OFFLOAD__*` variables of `process.env`).
#[wasm_bindgen(js_name = __setPlatform, skip_typescript)]
pub fn set_platform(host: JsHostObject, environment: Function) {
    PLATFORM.with(|p| *p.borrow_mut() = Some(Platform { host, environment }));
}

/// The host of a call whose `config` names none: the platform's, or the module's
/// in-memory store.
pub fn platform_host() -> BindingHost {
    PLATFORM.with(|p| match &*p.borrow() {
        Some(platform) => BindingHost::Js(JsHost(platform.host.clone().unchecked_into())),
        None => BindingHost::Memory(MEMORY.with(Rc::clone)),
    })
}

/// The platform's `ATLATL_PROMPT__OFFLOAD__*` variables over `config` (none without a
/// platform: a browser has no environment).
pub fn platform_environment(config: &mut OffloadConfig) -> Result<(), LroError> {
    let environment = PLATFORM.with(|p| p.borrow().as_ref().map(|p| p.environment.clone()));
    let Some(environment) = environment else {
        return Ok(());
    };
    let vars = environment.call0(&JsValue::NULL).map_err(|e| {
        LroError::new(
            ErrorCode::InvalidConfig,
            format!("cannot read the environment: {}", io_error(e)),
        )
    })?;
    config.apply_env(crate::values::variables(&vars)?)
}

/// A configuration file read through the platform's host (`configFromToml`), with the core's
/// checks: a regular file (node:fs would wait on a FIFO for good) of at most 1 MiB, read with
/// the host's `readFile`, not its checked `openFile` (a configuration file may well be a link,
/// or have several).
pub fn read_platform_file(path: &str) -> Result<String, LroError> {
    let host = platform_host();
    lro_core::config_file::read_config_file_from_host(
        &host,
        Path::new(path),
        |resolved| match &host {
            BindingHost::Js(js) => {
                js.0.read_file(&resolved.to_string_lossy())
                    .map(|b| b.to_vec())
                    .map_err(io_error)
            }
            BindingHost::Memory(memory) => memory
                .store
                .file(resolved)
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file")),
        },
    )
}
