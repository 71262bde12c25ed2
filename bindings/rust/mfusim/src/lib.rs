//! Safe Rust binding of libmfusim, which predicts how long one step of an LLM serving engine takes on a GPU.
//!
//! ```no_run
//! use mfusim::{Estimator, Options, Request};
//! let est = Estimator::new(&Options::new("llama-3.1-8b-instruct", "H100"))?;
//! let step = [Request::prefill(512, 0, true), Request::decode(2048)];
//! let us = est.step_time(&step)?;
//! # Ok::<(), mfusim::Error>(())
//! ```
//!
//! # Threading and ownership
//! An [`Estimator`] is immutable once built: it is `Send` and `Sync`, and every method takes `&self`, because the
//! C library guarantees that a `const mfusim_estimator*` may be used from many threads at once, with no lock and no
//! thread-local state. Share it by reference (scoped threads) or in an `Arc`. Dropping it frees the native handle.
//! A [`Report`] owns its native report the same way.
//!
//! # Hot path
//! [`Estimator::step_time`] and [`Estimator::step_time_batch`] allocate nothing: request slices are passed to C as
//! they are (a [`Request`] has the layout of `mfusim_request`), results come back through the stack or the
//! caller's slice, and the error struct lives on the stack (its message is read from that same call's struct
//! when it fails; no call is ever repeated).
//!
//! # Linking
//! `mfusim-sys` links libmfusim: with its `bundled` feature (on by default through this crate's `bundled`
//! feature) it builds the C++ library from the sources packaged in the crate and links it statically, so a
//! binary depending on `mfusim` needs nothing at run time; without it, it links a system libmfusim found by
//! `MFUSIM_LIB_DIR` or pkg-config.
#![deny(missing_docs)]

use std::ffi::{c_char, CStr, CString};
use std::fmt;
use std::mem::MaybeUninit;
use std::path::Path;
use std::ptr::{self, NonNull};

pub use mfusim_sys as sys;

/// The version of the libmfusim actually loaded ("1.0.0").
pub fn version() -> &'static str {
    unsafe { static_str(sys::mfusim_version_string()) }
}

/// MAJOR*10000 + MINOR*100 + PATCH of the loaded library.
pub fn version_number() -> u32 {
    unsafe { sys::mfusim_version_number() }
}

/// The built-in model catalogue.
pub fn models() -> Vec<&'static str> {
    let n = unsafe { sys::mfusim_catalogue_model_count() };
    (0..n).map(|i| unsafe { static_str(sys::mfusim_catalogue_model_name(i)) }).collect()
}

/// The built-in GPU profiles.
pub fn gpus() -> Vec<&'static str> {
    let n = unsafe { sys::mfusim_catalogue_gpu_count() };
    (0..n).map(|i| unsafe { static_str(sys::mfusim_catalogue_gpu_name(i)) }).collect()
}

/// # Safety
/// `p` is NULL or a NUL-terminated string living as long as the returned borrow.
unsafe fn static_str<'a>(p: *const c_char) -> &'a str {
    if p.is_null() {
        ""
    } else {
        CStr::from_ptr(p).to_str().unwrap_or("")
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Errors

/// A libmfusim status (stable numbers, only ever appended).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// A NULL where a value is needed, a bad option or request value.
    InvalidArgument,
    /// A file or directory is missing or unreadable.
    Io,
    /// Malformed JSON or CSV.
    Parse,
    /// Well-formed input describing an impossible model, GPU or table.
    Config,
    /// No built-in model, GPU or quantity of that name.
    UnknownName,
    /// Valid input the chosen model cannot evaluate.
    Unsupported,
    /// Compat mode: InferSim itself raises here.
    CompatCrash,
    /// A struct_size the library does not know.
    StructSize,
    /// Out of memory.
    OutOfMemory,
    /// A bug in libmfusim.
    Internal,
    /// A named quantity is absent from the report.
    NotFound,
    /// A code this binding does not know (a newer library).
    Other(i32),
}

impl Status {
    fn from_raw(code: sys::mfusim_status) -> Status {
        match code {
            sys::MFUSIM_ERR_INVALID_ARGUMENT => Status::InvalidArgument,
            sys::MFUSIM_ERR_IO => Status::Io,
            sys::MFUSIM_ERR_PARSE => Status::Parse,
            sys::MFUSIM_ERR_CONFIG => Status::Config,
            sys::MFUSIM_ERR_UNKNOWN_NAME => Status::UnknownName,
            sys::MFUSIM_ERR_UNSUPPORTED => Status::Unsupported,
            sys::MFUSIM_ERR_COMPAT_CRASH => Status::CompatCrash,
            sys::MFUSIM_ERR_STRUCT_SIZE => Status::StructSize,
            sys::MFUSIM_ERR_OUT_OF_MEMORY => Status::OutOfMemory,
            sys::MFUSIM_ERR_INTERNAL => Status::Internal,
            sys::MFUSIM_ERR_NOT_FOUND => Status::NotFound,
            other => Status::Other(other),
        }
    }

    /// The C status code.
    pub fn code(self) -> i32 {
        match self {
            Status::InvalidArgument => sys::MFUSIM_ERR_INVALID_ARGUMENT,
            Status::Io => sys::MFUSIM_ERR_IO,
            Status::Parse => sys::MFUSIM_ERR_PARSE,
            Status::Config => sys::MFUSIM_ERR_CONFIG,
            Status::UnknownName => sys::MFUSIM_ERR_UNKNOWN_NAME,
            Status::Unsupported => sys::MFUSIM_ERR_UNSUPPORTED,
            Status::CompatCrash => sys::MFUSIM_ERR_COMPAT_CRASH,
            Status::StructSize => sys::MFUSIM_ERR_STRUCT_SIZE,
            Status::OutOfMemory => sys::MFUSIM_ERR_OUT_OF_MEMORY,
            Status::Internal => sys::MFUSIM_ERR_INTERNAL,
            Status::NotFound => sys::MFUSIM_ERR_NOT_FOUND,
            Status::Other(code) => code,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(unsafe { static_str(sys::mfusim_status_string(self.code())) })
    }
}

/// A failed call: the status and the library's message naming the input at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    status: Status,
    message: String,
}

impl Error {
    /// The status.
    pub fn status(&self) -> Status {
        self.status
    }
    /// The library's message.
    pub fn message(&self) -> &str {
        &self.message
    }
    fn new(status: Status, message: impl Into<String>) -> Error {
        Error { status, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mfusim: {}: {}", self.status, self.message)
    }
}

impl std::error::Error for Error {}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Runs `call` with an error struct on the stack; on failure the message is that same call's (a failed call is
/// never repeated: for calls that create something, a repeat could succeed and leak what it created).
#[inline]
fn call(call: impl FnOnce(*mut sys::mfusim_error) -> sys::mfusim_status) -> Result<()> {
    let mut err = MaybeUninit::<sys::mfusim_error>::uninit();
    let status = call(err.as_mut_ptr());
    if status == sys::MFUSIM_OK {
        return Ok(());
    }
    Err(unsafe { error_from(status, err.as_ptr()) })
}

/// # Safety
/// `err` was passed to a call that failed: the library wrote a NUL-terminated message into it.
#[cold]
#[inline(never)]
unsafe fn error_from(status: sys::mfusim_status, err: *const sys::mfusim_error) -> Error {
    let message = ptr::addr_of!((*err).message).cast::<u8>();
    let mut len = 0;
    while len < sys::MFUSIM_ERROR_MESSAGE_CAPACITY && *message.add(len) != 0 {
        len += 1;
    }
    let bytes = std::slice::from_raw_parts(message, len);
    Error::new(Status::from_raw(status), String::from_utf8_lossy(bytes).into_owned())
}

/// A released-layout struct with the library's defaults (`*_init` with this binding's `size_of`).
fn init<T>(f: unsafe extern "C" fn(*mut T, usize, *mut sys::mfusim_error) -> sys::mfusim_status, what: &str) -> T {
    let mut raw = MaybeUninit::<T>::zeroed();
    match call(|err| unsafe { f(raw.as_mut_ptr(), std::mem::size_of::<T>(), err) }) {
        Ok(()) => unsafe { raw.assume_init() },
        // Only a library older than this binding's header refuses its layout: a build mistake, not a run-time
        // condition callers could handle.
        Err(e) => panic!(
            "libmfusim refused this binding's {what} layout ({e}): link the libmfusim {} this crate was built for",
            env!("CARGO_PKG_VERSION")
        ),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Requests and options

/// One request's share of an engine step; the exact layout of `mfusim_request` (24 bytes, no pointers), so a
/// `&[Request]` is handed to C as is.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Request {
    /// Tokens computed this step: a prefill chunk's length, or 1 for a decode.
    pub new_tokens: i64,
    /// Tokens already in the KV cache before this step.
    pub context: i64,
    /// [`Request::NO_OUTPUT`] or 0.
    pub flags: u32,
    reserved: u32,
}

const _: () = {
    assert!(std::mem::size_of::<Request>() == std::mem::size_of::<sys::mfusim_request>());
    assert!(std::mem::align_of::<Request>() == std::mem::align_of::<sys::mfusim_request>());
    assert!(std::mem::offset_of!(Request, context) == std::mem::offset_of!(sys::mfusim_request, context));
    assert!(std::mem::offset_of!(Request, flags) == std::mem::offset_of!(sys::mfusim_request, flags));
    assert!(std::mem::offset_of!(Request, reserved) == std::mem::offset_of!(sys::mfusim_request, reserved));
};

impl Request {
    /// This request produces no token this step (a prefill chunk that is not the last).
    pub const NO_OUTPUT: u32 = sys::MFUSIM_REQUEST_NO_OUTPUT;

    /// `new_tokens` on top of `context` cached tokens, with flags.
    pub const fn new(new_tokens: i64, context: i64, flags: u32) -> Request {
        Request { new_tokens, context, flags, reserved: 0 }
    }
    /// One decode token over `context` tokens of KV history.
    pub const fn decode(context: i64) -> Request {
        Request::new(1, context, 0)
    }
    /// A prefill chunk; `last` says whether it is the prompt's final chunk (which produces a token).
    pub const fn prefill(new_tokens: i64, context: i64, last: bool) -> Request {
        Request::new(new_tokens, context, if last { 0 } else { Request::NO_OUTPUT })
    }
}

#[inline]
fn raw_requests(reqs: &[Request]) -> *const sys::mfusim_request {
    reqs.as_ptr().cast()
}

/// Which model answers queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The per-step model for simulators.
    #[default]
    Roofline,
    /// InferSim number for number, quirks included.
    InferSim,
}

/// What to load. [`Options::new`] fills the library's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Catalogue name, path to a Hugging Face config.json, or the JSON text.
    pub model: String,
    /// Built-in GPU name or path to a JSON profile.
    pub gpu: String,
    /// A bench_data directory, or None (analytical / default efficiencies).
    pub bench_data_dir: Option<String>,
    /// The model answering queries.
    pub mode: Mode,
    /// TP degree (>= 1).
    pub tensor_parallel: i32,
    /// GPUs in the deployment.
    pub world_size: i32,
    /// Nodes.
    pub num_nodes: i32,
    /// FP8 weights and FP8 peak for GEMMs.
    pub fp8_gemm: bool,
    /// FP8 KV cache.
    pub fp8_kv: bool,
    /// DeepEP expert-parallel communication (compat).
    pub deepep: bool,
    /// InferSim's two-batch overlap (compat).
    pub two_batch_overlap: bool,
    /// Compat TBO prefill SM share.
    pub sm_ratio: f64,
    /// Roofline: the serving engine around the kernels: "vllm" (None: the default), "sglang", "trtllm", or
    /// "none" (the kernels alone).
    pub engine: Option<String>,
    /// Roofline: weight quantization overriding the checkpoint's ("bf16", "fp8", "fp8_block", "nvfp4", "mxfp4",
    /// "int4_wo"); None: as the checkpoint states.
    pub quant: Option<String>,
    /// Roofline: GPUs the routed experts are sharded over (EP).
    pub expert_parallel: i32,
    /// Roofline: attention data-parallel replicas inside the EP group.
    pub attention_data_parallel: i32,
    /// Roofline: a calibration file written by `mfusim calibrate --steps` (its path, or its JSON text): per-family
    /// efficiency multipliers and engine terms fitted to your own measurements; None: the built-in constants.
    pub calibration: Option<String>,
}

impl Options {
    /// Options for `model` on `gpu`, everything else at the library's defaults.
    pub fn new(model: impl Into<String>, gpu: impl Into<String>) -> Options {
        let raw: sys::mfusim_options = init(sys::mfusim_options_init, "mfusim_options");
        Options {
            model: model.into(),
            gpu: gpu.into(),
            bench_data_dir: None,
            mode: if raw.mode == sys::MFUSIM_MODE_INFERSIM { Mode::InferSim } else { Mode::Roofline },
            tensor_parallel: raw.tensor_parallel,
            world_size: raw.world_size,
            num_nodes: raw.num_nodes,
            fp8_gemm: raw.fp8_gemm != 0,
            fp8_kv: raw.fp8_kv != 0,
            deepep: raw.deepep != 0,
            two_batch_overlap: raw.two_batch_overlap != 0,
            sm_ratio: raw.sm_ratio,
            engine: None,
            quant: None,
            expert_parallel: raw.expert_parallel,
            attention_data_parallel: raw.attention_data_parallel,
            calibration: None,
        }
    }

    /// The same options with a calibration file's path or JSON text (docs/calibration.md).
    pub fn calibration(mut self, calibration: impl Into<String>) -> Options {
        self.calibration = Some(calibration.into());
        self
    }

    /// The same options with another serving engine ("vllm", "sglang", "trtllm", "none").
    pub fn engine(mut self, engine: impl Into<String>) -> Options {
        self.engine = Some(engine.into());
        self
    }

    /// The same options with another weight quantization ("bf16", "fp8", ...).
    pub fn quant(mut self, quant: impl Into<String>) -> Options {
        self.quant = Some(quant.into());
        self
    }

    /// The same options in another mode.
    pub fn mode(mut self, mode: Mode) -> Options {
        self.mode = mode;
        self
    }
}

/// An `mfusim_options` filled from [`Options`], with the C strings its pointers point into (moving a `CString`
/// does not move its buffer): use `raw` only while this lives.
struct NativeOptions {
    raw: sys::mfusim_options,
    _strings: Vec<CString>,
}

fn cstring(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::new(Status::InvalidArgument, format!("{what} contains a NUL byte")))
}

impl Options {
    fn to_native(&self) -> Result<NativeOptions> {
        let mut strings = Vec::new();
        let mut keep = |what: &str, s: Option<&str>| -> Result<*const c_char> {
            match s {
                None => Ok(ptr::null()),
                Some(s) => {
                    let c = cstring(what, s)?;
                    let p = c.as_ptr();
                    strings.push(c);
                    Ok(p)
                }
            }
        };
        let mut raw: sys::mfusim_options = init(sys::mfusim_options_init, "mfusim_options");
        raw.model = keep("model", Some(&self.model))?;
        raw.gpu = keep("gpu", Some(&self.gpu))?;
        raw.bench_data_dir = keep("bench_data_dir", self.bench_data_dir.as_deref())?;
        raw.engine = keep("engine", self.engine.as_deref())?;
        raw.quant = keep("quant", self.quant.as_deref())?;
        raw.calibration = keep("calibration", self.calibration.as_deref())?;
        raw.mode = match self.mode {
            Mode::Roofline => sys::MFUSIM_MODE_ROOFLINE,
            Mode::InferSim => sys::MFUSIM_MODE_INFERSIM,
        };
        raw.tensor_parallel = self.tensor_parallel;
        raw.world_size = self.world_size;
        raw.num_nodes = self.num_nodes;
        raw.fp8_gemm = self.fp8_gemm.into();
        raw.fp8_kv = self.fp8_kv.into();
        raw.deepep = self.deepep.into();
        raw.two_batch_overlap = self.two_batch_overlap.into();
        raw.sm_ratio = self.sm_ratio;
        raw.expert_parallel = self.expert_parallel;
        raw.attention_data_parallel = self.attention_data_parallel;
        Ok(NativeOptions { raw, _strings: strings })
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Planning (mfusim_plan; docs/c-api.md)

/// What [`plan`] searches beyond the model ([`Options`]) and the workload ([`Serving`]). Empty lists take the
/// library's defaults (GPUs H100, H200, B200; TP 1, 2, 4, 8; decode batches 1..256 doubling); `None` limits none.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRequest {
    /// GPU names or profile paths, at most 64.
    pub gpus: Vec<String>,
    /// Tensor-parallel degrees 1..65536 (with `disagg` also GPUs per worker), at most 64.
    pub tp_list: Vec<i64>,
    /// The largest concurrency tried (powers of two from 1), 1..2^20.
    pub max_concurrency: i64,
    /// Mean TTFT limit in ms.
    pub max_ttft_ms: Option<f64>,
    /// Mean TPOT limit in ms.
    pub max_tpot_ms: Option<f64>,
    /// Most GPUs of one deployment; 0: none (with `disagg`: 16).
    pub gpu_budget: i64,
    /// Answer each point by the simulated benchmark.
    pub simulate: bool,
    /// Also search disaggregated deployments (roofline mode only).
    pub disagg: bool,
    /// With `disagg`: requests per decode replica, 1..65536.
    pub decode_batches: Vec<i64>,
    /// With `disagg` and `simulate`: the least-loaded router instead of round-robin.
    pub least_loaded_router: bool,
}

impl Default for PlanRequest {
    fn default() -> PlanRequest {
        let raw: sys::mfusim_plan_request = init(sys::mfusim_plan_request_init, "mfusim_plan_request");
        PlanRequest {
            gpus: Vec::new(),
            tp_list: Vec::new(),
            max_concurrency: raw.max_concurrency,
            max_ttft_ms: None,
            max_tpot_ms: None,
            gpu_budget: raw.gpu_budget,
            simulate: false,
            disagg: false,
            decode_batches: Vec::new(),
            least_loaded_router: false,
        }
    }
}

/// One deployment evaluated (`mfusim_plan_row`, the C layout itself): aggregated (`tp`, `ep`) or, when
/// `disaggregated` is 1, a prefill and a decode pool.
pub type PlanRow = sys::mfusim_plan_row;

/// What the search did on one GPU of the request.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanGpu {
    /// The GPU as the request named it.
    pub name: String,
    /// Rows of this GPU.
    pub evaluated: i64,
    /// Of them, within the limits.
    pub meeting_limits: i64,
    /// Index into [`Plan::rows`] of the chosen deployment; `None` when nothing meets the limits.
    pub best_row: Option<usize>,
    /// Deployments whose weights (or one request's KV cache) do not fit.
    pub skipped_not_fitting: i64,
    /// Deployments the model cannot be sharded over.
    pub skipped_invalid: i64,
    /// Why the last skipped deployment was skipped; "" when none.
    pub last_skip: String,
}

/// The search's data, copied out of the library's handle.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Every deployment evaluated, GPU by GPU, in `mfusim plan --json`'s order.
    pub rows: Vec<PlanRow>,
    /// One per GPU of the request, in its order.
    pub gpus: Vec<PlanGpu>,
    /// The estimators' load warnings.
    pub warnings: Vec<String>,
}

/// The deployment search of `mfusim plan` as data (`mfusim_plan`). `options` names the model, engine and
/// quantization (its GPU and parallelism are searched); `serving` the lengths and engine limits (its concurrency
/// is searched). Deployments that do not fit are counted, not failed. Builds estimators: seconds, not a hot path.
pub fn plan(options: &Options, serving: &Serving, request: &PlanRequest) -> Result<Plan> {
    let mut options = options.clone();
    if options.gpu.is_empty() {
        options.gpu = "H100".to_string(); // searched: any name passes the options' own check
    }
    let native = options.to_native()?;
    let raw_serving = serving.to_raw();
    let names = request.gpus.iter().map(|g| cstring("gpus", g)).collect::<Result<Vec<CString>>>()?;
    let name_ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
    let mut raw: sys::mfusim_plan_request = init(sys::mfusim_plan_request_init, "mfusim_plan_request");
    if !name_ptrs.is_empty() {
        raw.gpus = name_ptrs.as_ptr();
        raw.gpu_count = name_ptrs.len();
    }
    if !request.tp_list.is_empty() {
        raw.tp_list = request.tp_list.as_ptr();
        raw.tp_count = request.tp_list.len();
    }
    if !request.decode_batches.is_empty() {
        raw.decode_batches = request.decode_batches.as_ptr();
        raw.decode_batch_count = request.decode_batches.len();
    }
    raw.max_concurrency = request.max_concurrency;
    raw.max_ttft_ms = request.max_ttft_ms.unwrap_or(0.0);
    raw.max_tpot_ms = request.max_tpot_ms.unwrap_or(0.0);
    raw.gpu_budget = request.gpu_budget;
    raw.simulate = request.simulate.into();
    raw.disagg = request.disagg.into();
    raw.least_loaded_router = request.least_loaded_router.into();
    let mut handle = ptr::null_mut();
    call(|err| unsafe { sys::mfusim_plan(&native.raw, &raw_serving, &raw, &mut handle, err) })?;
    // SAFETY: a result mfusim_plan made; freed once, below, after everything is copied out of it.
    unsafe {
        let (mut n_rows, mut n_gpus) = (0usize, 0usize);
        let rows = sys::mfusim_plan_result_rows(handle, &mut n_rows);
        let gpus = sys::mfusim_plan_result_gpus(handle, &mut n_gpus);
        let rows = if rows.is_null() { Vec::new() } else { std::slice::from_raw_parts(rows, n_rows).to_vec() };
        let mut out_gpus = Vec::with_capacity(n_gpus);
        for i in 0..n_gpus {
            let g = &*gpus.add(i);
            out_gpus.push(PlanGpu {
                name: static_str(sys::mfusim_plan_result_gpu_name(handle, i)).to_string(),
                evaluated: g.evaluated,
                meeting_limits: g.meeting_limits,
                best_row: usize::try_from(g.best_row).ok(),
                skipped_not_fitting: g.skipped_not_fitting,
                skipped_invalid: g.skipped_invalid,
                last_skip: static_str(sys::mfusim_plan_result_last_skip(handle, i)).to_string(),
            });
        }
        let warnings = static_str(sys::mfusim_plan_result_warnings(handle))
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        sys::mfusim_plan_result_free(handle);
        Ok(Plan { rows, gpus: out_gpus, warnings })
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Sweeping (mfusim_sweep; docs/c-api.md)

/// The parameter a sweep varies (`mfusim_sweep_param`). Step sweeps vary the step (`DecodeBatch`, `Context`,
/// `Chunk`), serving sweeps the workload (`Concurrency`, `Isl`, `Osl`); `Tp`, `Gpu` and `Model` go with either.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SweepParam {
    /// Decode requests in the step.
    DecodeBatch,
    /// Tokens each decode has cached.
    Context,
    /// New tokens of the step's one prefill chunk (0: none).
    Chunk,
    /// Requests in flight.
    Concurrency,
    /// Prompt tokens.
    Isl,
    /// Generated tokens.
    Osl,
    /// Tensor-parallel degree.
    Tp,
    /// GPU names or profile paths.
    Gpu,
    /// Model names, paths or JSON.
    Model,
}

impl SweepParam {
    fn to_raw(self) -> sys::mfusim_sweep_param {
        match self {
            SweepParam::DecodeBatch => sys::MFUSIM_SWEEP_DECODE_BATCH,
            SweepParam::Context => sys::MFUSIM_SWEEP_CONTEXT,
            SweepParam::Chunk => sys::MFUSIM_SWEEP_CHUNK,
            SweepParam::Concurrency => sys::MFUSIM_SWEEP_CONCURRENCY,
            SweepParam::Isl => sys::MFUSIM_SWEEP_ISL,
            SweepParam::Osl => sys::MFUSIM_SWEEP_OSL,
            SweepParam::Tp => sys::MFUSIM_SWEEP_TP,
            SweepParam::Gpu => sys::MFUSIM_SWEEP_GPU,
            SweepParam::Model => sys::MFUSIM_SWEEP_MODEL,
        }
    }
}

/// What [`sweep`] varies, and the step every point starts from (`mfusim_sweep_request`; the defaults are the
/// library's). Values are decimal integers or names, as on `mfusim sweep`'s command line.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRequest {
    /// `false`: time one step per point; `true`: the serving metrics.
    pub serving: bool,
    /// Serving: the simulated benchmark instead of the closed form.
    pub simulate: bool,
    /// The x axis.
    pub vary: SweepParam,
    /// Its values, 1..4096 of them.
    pub vary_values: Vec<String>,
    /// A second parameter (every x of the first series value, then the next), with its values.
    pub series: Option<(SweepParam, Vec<String>)>,
    /// The step every point starts from: decodes ...
    pub decode_batch: i64,
    /// ... at this many cached tokens each ...
    pub context: i64,
    /// ... and one prefill chunk of this many new tokens (0: none).
    pub chunk: i64,
}

impl Default for SweepRequest {
    fn default() -> SweepRequest {
        let raw: sys::mfusim_sweep_request = init(sys::mfusim_sweep_request_init, "mfusim_sweep_request");
        SweepRequest {
            serving: raw.serving != 0,
            simulate: raw.simulate != 0,
            vary: SweepParam::DecodeBatch,
            vary_values: Vec::new(),
            series: None,
            decode_batch: raw.decode_batch,
            context: raw.context,
            chunk: raw.chunk,
        }
    }
}

/// One point of a sweep (`mfusim_sweep_row`, the C layout itself): `vary_index` and `series_index` into the
/// request's values, `ok` 1 when evaluated (0: refused, the metrics 0), `step_ms` for step sweeps, `ttft_ms`,
/// `tpot_ms`, `output_tok_s_gpu`, `e2e_ms`, `request_throughput_req_s` for serving sweeps.
pub type SweepRow = sys::mfusim_sweep_row;

/// The sweep's data, copied out of the library's handle.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// Every point, series-major.
    pub rows: Vec<SweepRow>,
    /// Per row: what bounded the step or limited the running requests ("" for a refused point).
    pub details: Vec<String>,
    /// Per row: why the point was refused ("" when evaluated).
    pub errors: Vec<String>,
    /// The estimators' load warnings.
    pub warnings: Vec<String>,
}

/// The sweep of `mfusim sweep` as data (`mfusim_sweep`). `options` is the deployment every point starts from (a
/// varied GPU, model or TP replaces its own), `serving` the workload of a serving sweep. A point the library
/// refuses keeps its row with `ok` 0; a request mixing step and serving parameters, or a value out of its bound,
/// is `Status::InvalidArgument` naming the field. Builds estimators: not a hot path.
///
/// ```no_run
/// use mfusim::{sweep, Options, Serving, SweepParam, SweepRequest};
///
/// let request = SweepRequest {
///     serving: true,
///     vary: SweepParam::Concurrency,
///     vary_values: ["1", "8", "64"].map(String::from).to_vec(),
///     ..SweepRequest::default()
/// };
/// let serving = Serving { input_len: 1024, output_len: 128, ..Serving::default() };
/// let s = sweep(&Options::new("llama-3.1-8b-instruct", "H100"), &serving, &request)?;
/// for (row, detail) in s.rows.iter().zip(&s.details) {
///     println!("{} {:.2} ms/token ({detail})", request.vary_values[row.vary_index as usize], row.tpot_ms);
/// }
/// # Ok::<(), mfusim::Error>(())
/// ```
pub fn sweep(options: &Options, serving: &Serving, request: &SweepRequest) -> Result<Sweep> {
    let native = options.to_native()?;
    let raw_serving = serving.to_raw();
    let vary = request.vary_values.iter().map(|v| cstring("vary_values", v)).collect::<Result<Vec<CString>>>()?;
    let vary_ptrs: Vec<*const c_char> = vary.iter().map(|c| c.as_ptr()).collect();
    let no_series = Vec::new();
    let series_values = request.series.as_ref().map_or(&no_series, |(_, v)| v);
    let series = series_values.iter().map(|v| cstring("series_values", v)).collect::<Result<Vec<CString>>>()?;
    let series_ptrs: Vec<*const c_char> = series.iter().map(|c| c.as_ptr()).collect();
    let mut raw: sys::mfusim_sweep_request = init(sys::mfusim_sweep_request_init, "mfusim_sweep_request");
    raw.serving = request.serving.into();
    raw.simulate = request.simulate.into();
    raw.vary = request.vary.to_raw();
    if !vary_ptrs.is_empty() {
        raw.vary_values = vary_ptrs.as_ptr();
        raw.vary_count = vary_ptrs.len();
    }
    if let Some((param, _)) = request.series {
        raw.series = param.to_raw();
        if !series_ptrs.is_empty() {
            raw.series_values = series_ptrs.as_ptr();
            raw.series_count = series_ptrs.len();
        }
    }
    raw.decode_batch = request.decode_batch;
    raw.context = request.context;
    raw.chunk = request.chunk;
    let mut handle = ptr::null_mut();
    call(|err| unsafe { sys::mfusim_sweep(&native.raw, &raw_serving, &raw, &mut handle, err) })?;
    // SAFETY: a result mfusim_sweep made; freed once, below, after everything is copied out of it.
    unsafe {
        let mut n = 0usize;
        let rows = sys::mfusim_sweep_result_rows(handle, &mut n);
        let rows = if rows.is_null() { Vec::new() } else { std::slice::from_raw_parts(rows, n).to_vec() };
        let details = (0..n).map(|i| static_str(sys::mfusim_sweep_result_detail(handle, i)).to_string()).collect();
        let errors = (0..n).map(|i| static_str(sys::mfusim_sweep_result_error(handle, i)).to_string()).collect();
        let warnings = static_str(sys::mfusim_sweep_result_warnings(handle))
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        sys::mfusim_sweep_result_free(handle);
        Ok(Sweep { rows, details, errors, warnings })
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The estimator

/// A loaded, immutable model on a GPU. `Send + Sync`: the C contract makes a const estimator safe to use from
/// many threads at once.
pub struct Estimator {
    raw: NonNull<sys::mfusim_estimator>,
}

// SAFETY: the handle is not tied to the thread that made it, and every function taking a const estimator is
// documented thread-safe, lock-free and free of thread-local state (mfusim.h, "Conventions"). Only Drop takes
// the handle mutably, and Drop has exclusive access by construction.
unsafe impl Send for Estimator {}
unsafe impl Sync for Estimator {}

impl Estimator {
    /// Parses the model and GPU and loads the tables. Reads files: build once, query many times.
    pub fn new(options: &Options) -> Result<Estimator> {
        let native = options.to_native()?;
        let mut out = ptr::null_mut();
        call(|err| unsafe { sys::mfusim_estimator_create(&native.raw, &mut out, err) })?;
        NonNull::new(out)
            .map(|raw| Estimator { raw })
            .ok_or_else(|| Error::new(Status::Internal, "mfusim_estimator_create succeeded without an estimator"))
    }

    /// Messages produced while loading that did not stop it, one per line; "" if none.
    pub fn load_warnings(&self) -> &str {
        unsafe { static_str(sys::mfusim_estimator_load_warnings(self.raw.as_ptr())) }
    }

    /// The time of one engine step in microseconds. An empty step gives the engine's fixed per-step overhead in
    /// roofline mode, and 0 in compat mode (InferSim has no step without work). Allocation-free.
    #[inline]
    pub fn step_time(&self, requests: &[Request]) -> Result<f64> {
        let mut us = 0.0;
        call(|err| unsafe {
            sys::mfusim_step_time(self.raw.as_ptr(), raw_requests(requests), requests.len(), &mut us, err)
        })?;
        Ok(us)
    }

    /// Many steps in one call: step i is the next `step_sizes[i]` requests, its time goes to `out[i]`. The sizes
    /// must add up to `requests.len()` exactly (the library checks it and names the step at fault), and `out`
    /// must have at least `step_sizes.len()` slots. On failure `out` is untouched. Allocation-free.
    pub fn step_time_batch(&self, requests: &[Request], step_sizes: &[i64], out: &mut [f64]) -> Result<()> {
        // The one check C cannot make: how long `out` is.
        if out.len() < step_sizes.len() {
            return Err(Error::new(
                Status::InvalidArgument,
                format!("out has {} slots for {} steps", out.len(), step_sizes.len()),
            ));
        }
        call(|err| unsafe {
            sys::mfusim_step_time_batch(
                self.raw.as_ptr(),
                raw_requests(requests),
                requests.len(),
                step_sizes.as_ptr(),
                step_sizes.len(),
                out.as_mut_ptr(),
                err,
            )
        })
    }

    /// The step time with its breakdown by operation, written into `out` (reuse it: no allocation).
    pub fn step_detail(&self, requests: &[Request], out: &mut StepResult) -> Result<()> {
        call(|err| unsafe {
            sys::mfusim_step_detail(self.raw.as_ptr(), raw_requests(requests), requests.len(), &mut out.raw, err)
        })
    }

    /// Evaluates a TTFT / TPOT scenario.
    pub fn estimate(&self, scenario: &Scenario) -> Result<Report> {
        let raw = scenario.to_raw();
        let mut out = ptr::null_mut();
        call(|err| unsafe { sys::mfusim_estimate(self.raw.as_ptr(), &raw, &mut out, err) })?;
        NonNull::new(out)
            .map(|raw| Report { raw })
            .ok_or_else(|| Error::new(Status::Internal, "mfusim_estimate succeeded without a report"))
    }

    /// The steady-state TTFT, TPOT and throughput of a closed-loop serving workload, from this estimator's own
    /// step times. Roofline mode only ([`Status::Unsupported`] in compat mode). No allocation on success.
    pub fn serving_estimate(&self, serving: &Serving) -> Result<ServingResult> {
        let raw = serving.to_raw();
        let mut out: sys::mfusim_serving_result = init(sys::mfusim_serving_result_init, "mfusim_serving_result");
        call(|err| unsafe { sys::mfusim_serving_estimate(self.raw.as_ptr(), &raw, &mut out, err) })?;
        Ok(ServingResult::from_raw(&out))
    }
    /// Simulates a serving benchmark against this deployment, step by step, with this estimator's own step times
    /// (docs/simulate.md). Roofline mode only ([`Status::Unsupported`] in compat mode). Deterministic: the same
    /// simulation gives the same result. A bad field is [`Status::InvalidArgument`] naming it. Allocates.
    pub fn simulate(&self, simulation: &Simulation) -> Result<SimulationResult> {
        let raw = simulation.to_raw();
        let mut out = ptr::null_mut();
        call(|err| unsafe { sys::mfusim_simulate(self.raw.as_ptr(), &raw, &mut out, err) })?;
        NonNull::new(out)
            .map(|raw| SimulationResult { raw })
            .ok_or_else(|| Error::new(Status::Internal, "mfusim_simulate succeeded without a result"))
    }
}

impl Drop for Estimator {
    fn drop(&mut self) {
        unsafe { sys::mfusim_estimator_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Estimator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Estimator").field("raw", &self.raw).finish()
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Calibration

/// A fitted calibration (docs/calibration.md), copied out of the native one, which is freed at once: a plain
/// value. Pass [`document`](Calibration::document) as [`Options::calibration`] (or write it to a file) to use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Calibration {
    /// The calibration file's JSON text, as `mfusim calibrate -o` writes it.
    pub document: String,
    /// The fit's report for a human: coefficients and errors before, in training and held out.
    pub report: String,
    /// Whether the fit beats the defaults on data it did not see (what `mfusim calibrate -o` requires before
    /// writing). A fit that does not is still returned.
    pub improved: bool,
}

impl Calibration {
    /// Copies a calibration the library just made, then frees it.
    fn take(raw: *mut sys::mfusim_calibration, what: &str) -> Result<Calibration> {
        let Some(raw) = NonNull::new(raw) else {
            return Err(Error::new(Status::Internal, format!("{what} succeeded without a calibration")));
        };
        struct Owned(NonNull<sys::mfusim_calibration>);
        impl Drop for Owned {
            fn drop(&mut self) {
                unsafe { sys::mfusim_calibration_free(self.0.as_ptr()) }
            }
        }
        let owned = Owned(raw);
        let text = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        unsafe {
            Ok(Calibration {
                document: text(sys::mfusim_calibration_document(owned.0.as_ptr())),
                report: text(sys::mfusim_calibration_report(owned.0.as_ptr())),
                improved: sys::mfusim_calibration_improved(owned.0.as_ptr()) != 0,
            })
        }
    }
}

fn path_cstring(what: &str, path: &Path) -> Result<CString> {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes()
    };
    #[cfg(not(unix))]
    let bytes = path
        .to_str()
        .ok_or_else(|| Error::new(Status::InvalidArgument, format!("{what} is not valid UTF-8")))?
        .as_bytes();
    CString::new(bytes).map_err(|_| Error::new(Status::InvalidArgument, format!("{what} contains a NUL byte")))
}

/// The native options of a calibration call: an empty model or GPU passes NULL, which the C API reads as "not
/// given" (a steps file's header may name them).
fn calibration_options(options: &Options) -> Result<NativeOptions> {
    let mut native = options.to_native()?;
    if options.model.is_empty() {
        native.raw.model = ptr::null();
    }
    if options.gpu.is_empty() {
        native.raw.gpu = ptr::null();
    }
    Ok(native)
}

/// Fits a calibration to measured engine steps, as `mfusim calibrate --steps` does: `steps_path` is a JSONL file
/// of measured steps (a header line naming the model and GPU, then one step per line; docs/calibration.md).
/// `options` gives the deployment; an empty [`Options::model`] or [`Options::gpu`] (`Options::new("", "")`) takes
/// the file header's, whose engine also applies when [`Options::engine`] is None and its tp when
/// [`Options::tensor_parallel`] is 0 (another value wins over the header's, as `--tp` does, but 1, the default,
/// against a header naming another tp is [`Status::InvalidArgument`]). [`Options::calibration`] must be None. `folds`: cross-validation folds, >= 2
/// (0: the default, 5). Reads files and fits: seconds, not a hot path.
pub fn calibrate_steps(steps_path: &Path, options: &Options, folds: u32) -> Result<Calibration> {
    let path = path_cstring("steps_path", steps_path)?;
    let folds = i32::try_from(folds)
        .map_err(|_| Error::new(Status::InvalidArgument, format!("folds must be at most {}", i32::MAX)))?;
    let native = calibration_options(options)?;
    let mut out = ptr::null_mut();
    call(|err| unsafe { sys::mfusim_calibrate_steps(&native.raw, path.as_ptr(), folds, &mut out, err) })?;
    Calibration::take(out, "mfusim_calibrate_steps")
}

/// Fits the GPU profile's own constants to measured kernels, as `mfusim calibrate --kernels` does: `kernels_dir`
/// is an AIConfigurator-format directory, [`Options::gpu`] the GPU they were measured on and
/// [`Options::bench_data_dir`] optional MFU tables; the other options are not used (`Options::new("", gpu)`).
pub fn calibrate_kernels(kernels_dir: &Path, options: &Options) -> Result<Calibration> {
    let dir = path_cstring("kernels_dir", kernels_dir)?;
    let native = calibration_options(options)?;
    let mut out = ptr::null_mut();
    call(|err| unsafe { sys::mfusim_calibrate_kernels(&native.raw, dir.as_ptr(), &mut out, err) })?;
    Calibration::take(out, "mfusim_calibrate_kernels")
}

// ---------------------------------------------------------------------------------------------------------------
// Step detail

/// An operation of the step breakdown (`mfusim_op`; stable numbers, only appended).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
#[repr(i32)]
pub enum Op {
    /// Fused q/k/v projection GEMM (MLA: its down/up projections).
    QkvProj = sys::MFUSIM_OP_QKV_PROJ,
    /// Attention over the prefill chunks, cached prefixes counted.
    AttnPrefill = sys::MFUSIM_OP_ATTN_PREFILL,
    /// Attention of the decode tokens over their KV history.
    AttnDecode = sys::MFUSIM_OP_ATTN_DECODE,
    /// Attention output projection GEMM.
    OProj = sys::MFUSIM_OP_O_PROJ,
    /// Dense MLP (gate/up + down GEMMs).
    Ffn = sys::MFUSIM_OP_FFN,
    /// Routed experts (grouped GEMM), max with their weight load.
    MoeExperts = sys::MFUSIM_OP_MOE_EXPERTS,
    /// Shared experts.
    MoeShared = sys::MFUSIM_OP_MOE_SHARED,
    /// Linear-attention (GDN) layers, core and projections.
    LinearAttn = sys::MFUSIM_OP_LINEAR_ATTN,
    /// Logits for the tokens that produce output.
    LmHead = sys::MFUSIM_OP_LM_HEAD,
    /// Tensor-parallel all-reduces.
    TpAllReduce = sys::MFUSIM_OP_TP_ALLREDUCE,
    /// Expert-parallel dispatch/combine or compat's plain all-reduce.
    EpComm = sys::MFUSIM_OP_EP_COMM,
    /// Weight bytes beyond what compute hides.
    WeightLoad = sys::MFUSIM_OP_WEIGHT_LOAD,
    /// Small GPU kernels: norms, rotary, activations, residual adds.
    Overhead = sys::MFUSIM_OP_OVERHEAD,
    /// The engine around the kernels: scheduling, input preparation, sampling, launch gaps.
    Engine = sys::MFUSIM_OP_ENGINE,
}

impl Op {
    /// Number of operations this binding knows (`MFUSIM_OP_COUNT`); a library may know more or fewer, see
    /// [`StepResult::ops`].
    pub const COUNT: usize = sys::MFUSIM_OP_COUNT;
    /// `MFUSIM_OP_CAPACITY`: the slots the ABI reserves for operations, whatever their number.
    pub const CAPACITY: usize = sys::MFUSIM_OP_CAPACITY;
    /// Every operation this binding knows, in order (index = C number).
    pub const ALL: [Op; Op::COUNT] = [
        Op::QkvProj,
        Op::AttnPrefill,
        Op::AttnDecode,
        Op::OProj,
        Op::Ffn,
        Op::MoeExperts,
        Op::MoeShared,
        Op::LinearAttn,
        Op::LmHead,
        Op::TpAllReduce,
        Op::EpComm,
        Op::WeightLoad,
        Op::Overhead,
        Op::Engine,
    ];

    /// Every operation this binding knows, in order.
    pub fn all() -> impl Iterator<Item = Op> {
        Op::ALL.into_iter()
    }
    /// The operation with C number `index`, if this binding knows it.
    pub fn from_index(index: usize) -> Option<Op> {
        Op::ALL.get(index).copied()
    }
    /// The C number (`mfusim_op`), also its index in [`StepResult::ops`].
    pub fn index(self) -> usize {
        self as i32 as usize
    }
    /// The name the CLI's JSON uses ("qkv_proj").
    pub fn name(self) -> &'static str {
        unsafe { static_str(sys::mfusim_op_name(self as i32)) }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What dominated an operation (`mfusim_bound`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Bound {
    /// Nothing (the operation did not run).
    None,
    /// Compute-bound.
    Compute,
    /// Memory-bound.
    Memory,
    /// Communication-bound.
    Communication,
    /// A fixed cost.
    Fixed,
    /// A code this binding does not know (a newer library).
    Other(i32),
}

impl Bound {
    fn from_raw(raw: sys::mfusim_bound) -> Bound {
        match raw {
            sys::MFUSIM_BOUND_NONE => Bound::None,
            sys::MFUSIM_BOUND_COMPUTE => Bound::Compute,
            sys::MFUSIM_BOUND_MEMORY => Bound::Memory,
            sys::MFUSIM_BOUND_COMMUNICATION => Bound::Communication,
            sys::MFUSIM_BOUND_FIXED => Bound::Fixed,
            other => Bound::Other(other),
        }
    }
    /// The C number.
    pub fn code(self) -> i32 {
        match self {
            Bound::None => sys::MFUSIM_BOUND_NONE,
            Bound::Compute => sys::MFUSIM_BOUND_COMPUTE,
            Bound::Memory => sys::MFUSIM_BOUND_MEMORY,
            Bound::Communication => sys::MFUSIM_BOUND_COMMUNICATION,
            Bound::Fixed => sys::MFUSIM_BOUND_FIXED,
            Bound::Other(code) => code,
        }
    }
    /// "compute", "memory", ...
    pub fn name(self) -> &'static str {
        unsafe { static_str(sys::mfusim_bound_name(self.code())) }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an efficiency value came from (`mfusim_source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// The operation needs no efficiency value (or did not run).
    None,
    /// A measured row matched exactly.
    TableExact,
    /// Interpolated between measured rows.
    TableInterpolated,
    /// The nearest measured row or shape, at [`OpDetail::distance`].
    TableNearest,
    /// No table covers it: the analytical efficiency model.
    Analytical,
    /// A constant default (compat: InferSim's per-GPU default MFU).
    Default,
    /// A code this binding does not know (a newer library).
    Other(i32),
}

impl Source {
    fn from_raw(raw: sys::mfusim_source) -> Source {
        match raw {
            sys::MFUSIM_SOURCE_NONE => Source::None,
            sys::MFUSIM_SOURCE_TABLE_EXACT => Source::TableExact,
            sys::MFUSIM_SOURCE_TABLE_INTERPOLATED => Source::TableInterpolated,
            sys::MFUSIM_SOURCE_TABLE_NEAREST => Source::TableNearest,
            sys::MFUSIM_SOURCE_ANALYTICAL => Source::Analytical,
            sys::MFUSIM_SOURCE_DEFAULT => Source::Default,
            other => Source::Other(other),
        }
    }
    /// The C number.
    pub fn code(self) -> i32 {
        match self {
            Source::None => sys::MFUSIM_SOURCE_NONE,
            Source::TableExact => sys::MFUSIM_SOURCE_TABLE_EXACT,
            Source::TableInterpolated => sys::MFUSIM_SOURCE_TABLE_INTERPOLATED,
            Source::TableNearest => sys::MFUSIM_SOURCE_TABLE_NEAREST,
            Source::Analytical => sys::MFUSIM_SOURCE_ANALYTICAL,
            Source::Default => sys::MFUSIM_SOURCE_DEFAULT,
            Source::Other(code) => code,
        }
    }
    /// "table_exact", "analytical", ...
    pub fn name(self) -> &'static str {
        unsafe { static_str(sys::mfusim_source_name(self.code())) }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One operation's share of a step, borrowed from its [`StepResult`].
#[derive(Clone, Copy)]
pub struct OpDetail<'a> {
    index: usize,
    raw: &'a sys::mfusim_op_detail,
}

impl<'a> OpDetail<'a> {
    /// The operation; `None` for one the loaded library knows and this binding does not (see [`Self::name`]).
    pub fn op(&self) -> Option<Op> {
        Op::from_index(self.index)
    }
    /// The operation's C number (its index in [`StepResult::ops`]).
    pub fn index(&self) -> usize {
        self.index
    }
    /// The operation's name as the loaded library knows it ("qkv_proj").
    pub fn name(&self) -> &'static str {
        unsafe { static_str(sys::mfusim_op_name(self.index as i32)) }
    }
    /// This operation's share of the step, all layers, per GPU, in microseconds.
    pub fn time_us(&self) -> f64 {
        self.raw.time_us
    }
    /// FLOPs per GPU for the whole step (0 where not modelled).
    pub fn flops(&self) -> f64 {
        self.raw.flops
    }
    /// Bytes moved per GPU for the whole step (0 where not modelled).
    pub fn bytes(&self) -> f64 {
        self.raw.bytes
    }
    /// The MFU applied (0 if none).
    pub fn efficiency(&self) -> f64 {
        self.raw.efficiency
    }
    /// [`Source::TableNearest`]: the distance to the measured shape.
    pub fn distance(&self) -> f64 {
        self.raw.distance
    }
    /// What dominated it.
    pub fn bound(&self) -> Bound {
        Bound::from_raw(self.raw.bound)
    }
    /// Where its efficiency came from.
    pub fn source(&self) -> Source {
        Source::from_raw(self.raw.source)
    }
    /// The table that supplied the efficiency, relative to bench_data; "" if none.
    pub fn table(&self) -> &'a str {
        let t = &self.raw.table;
        let bytes: &'a [u8] = unsafe { std::slice::from_raw_parts(t.as_ptr().cast(), t.len()) };
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        std::str::from_utf8(&bytes[..end]).unwrap_or("")
    }
    /// The raw FFI struct.
    pub fn as_raw(&self) -> &'a sys::mfusim_op_detail {
        self.raw
    }
}

impl fmt::Debug for OpDetail<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpDetail")
            .field("name", &self.name())
            .field("time_us", &self.time_us())
            .field("flops", &self.flops())
            .field("bytes", &self.bytes())
            .field("efficiency", &self.efficiency())
            .field("distance", &self.distance())
            .field("bound", &self.bound())
            .field("source", &self.source())
            .field("table", &self.table())
            .finish()
    }
}

/// A step time with its breakdown (the C struct inside, filled in place by [`Estimator::step_detail`]: reuse
/// one to stay allocation-free).
#[derive(Clone)]
pub struct StepResult {
    raw: sys::mfusim_step_result,
}

impl Default for StepResult {
    fn default() -> StepResult {
        StepResult { raw: init(sys::mfusim_step_result_init, "mfusim_step_result") }
    }
}

impl StepResult {
    /// Total step time, microseconds.
    pub fn total_us(&self) -> f64 {
        self.raw.total_us
    }
    /// The bound of the operation that took the most time.
    pub fn bound(&self) -> Bound {
        Bound::from_raw(self.raw.bound)
    }
    /// Number of valid operations: `MFUSIM_OP_COUNT` as the loaded library knows it (0 before the first
    /// [`Estimator::step_detail`]).
    pub fn len(&self) -> usize {
        usize::try_from(self.raw.n_ops).unwrap_or(0).min(self.raw.ops.len())
    }
    /// Whether no operation is filled in yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The breakdown in C order (index = [`Op::index`]): the library's valid entries.
    pub fn ops(&self) -> impl ExactSizeIterator<Item = OpDetail<'_>> + '_ {
        self.raw.ops[..self.len()].iter().enumerate().map(|(index, raw)| OpDetail { index, raw })
    }
    /// One operation's detail; `None` if the library that filled this result does not know `op`.
    pub fn op(&self, op: Op) -> Option<OpDetail<'_>> {
        let index = op.index();
        (index < self.len()).then(|| OpDetail { index, raw: &self.raw.ops[index] })
    }
    /// The raw FFI struct.
    pub fn as_raw(&self) -> &sys::mfusim_step_result {
        &self.raw
    }
}

impl fmt::Debug for StepResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StepResult")
            .field("total_us", &self.total_us())
            .field("bound", &self.bound())
            .field("ops", &self.ops().collect::<Vec<_>>())
            .finish()
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios and reports

/// Which phases a scenario runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phases {
    /// Prefill and decode.
    #[default]
    Both,
    /// Prefill only.
    PrefillOnly,
    /// Decode only.
    DecodeOnly,
}

/// InferSim's TTFT / TPOT question. `Scenario::default()` is the library's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scenario {
    /// Prompt tokens.
    pub input_len: i64,
    /// Generated tokens.
    pub output_len: i64,
    /// Tokens per prefill step per GPU.
    pub max_prefill_tokens: i64,
    /// Decode batch per GPU; < 0: from target_tgs and target_tpot_ms.
    pub decode_batch: i64,
    /// Tokens/GPU/s goal for the default batch.
    pub target_tgs: f64,
    /// TPOT SLO in ms.
    pub target_tpot_ms: f64,
    /// Phases to run.
    pub phases: Phases,
}

impl Default for Scenario {
    fn default() -> Scenario {
        let raw: sys::mfusim_scenario = init(sys::mfusim_scenario_init, "mfusim_scenario");
        Scenario {
            input_len: raw.input_len,
            output_len: raw.output_len,
            max_prefill_tokens: raw.max_prefill_tokens,
            decode_batch: raw.decode_batch,
            target_tgs: raw.target_tgs,
            target_tpot_ms: raw.target_tpot_ms,
            phases: match raw.phases {
                sys::MFUSIM_PHASES_PREFILL_ONLY => Phases::PrefillOnly,
                sys::MFUSIM_PHASES_DECODE_ONLY => Phases::DecodeOnly,
                _ => Phases::Both,
            },
        }
    }
}

impl Scenario {
    fn to_raw(self) -> sys::mfusim_scenario {
        let mut raw: sys::mfusim_scenario = init(sys::mfusim_scenario_init, "mfusim_scenario");
        raw.input_len = self.input_len;
        raw.output_len = self.output_len;
        raw.max_prefill_tokens = self.max_prefill_tokens;
        raw.decode_batch = self.decode_batch;
        raw.target_tgs = self.target_tgs;
        raw.target_tpot_ms = self.target_tpot_ms;
        raw.phases = match self.phases {
            Phases::Both => sys::MFUSIM_PHASES_BOTH,
            Phases::PrefillOnly => sys::MFUSIM_PHASES_PREFILL_ONLY,
            Phases::DecodeOnly => sys::MFUSIM_PHASES_DECODE_ONLY,
        };
        raw
    }
}

/// The named quantities of an estimate (the oracle's column names, e.g. "prefill.ttft_ms"). Owns the native
/// report; immutable, so `Send + Sync`.
pub struct Report {
    raw: NonNull<sys::mfusim_report>,
}

// SAFETY: an immutable report; its functions only read it.
unsafe impl Send for Report {}
unsafe impl Sync for Report {}

impl Report {
    /// Number of quantities.
    pub fn len(&self) -> usize {
        unsafe { sys::mfusim_report_count(self.raw.as_ptr()) }
    }
    /// Whether the report is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The quantities in the library's order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> + '_ {
        (0..self.len()).map(move |i| unsafe {
            (
                static_str(sys::mfusim_report_name(self.raw.as_ptr(), i)),
                sys::mfusim_report_value_at(self.raw.as_ptr(), i),
            )
        })
    }
    /// A quantity by name; [`Status::NotFound`] if the report lacks it.
    pub fn value(&self, name: &str) -> Result<f64> {
        let name = CString::new(name).map_err(|_| Error::new(Status::InvalidArgument, "name contains a NUL byte"))?;
        let mut out = 0.0;
        call(|err| unsafe { sys::mfusim_report_value(self.raw.as_ptr(), name.as_ptr(), &mut out, err) })?;
        Ok(out)
    }
    /// Warnings joined by " | "; "" if none.
    pub fn warnings(&self) -> &str {
        unsafe { static_str(sys::mfusim_report_warnings(self.raw.as_ptr())) }
    }
    /// Soft errors joined by " | "; "" if none.
    pub fn soft_errors(&self) -> &str {
        unsafe { static_str(sys::mfusim_report_soft_errors(self.raw.as_ptr())) }
    }
}

impl Drop for Report {
    fn drop(&mut self) {
        unsafe { sys::mfusim_report_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Serving estimates

/// A closed-loop serving workload: `concurrency` clients each keep one request of `input_len` prompt tokens and
/// `output_len` generated tokens in flight, served with aggregated in-flight batching. `Serving::default()` is
/// the library's default; 0 in the last three fields means the engine's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Serving {
    /// Prompt tokens per request (ISL).
    pub input_len: i64,
    /// Generated tokens per request (OSL), >= 1.
    pub output_len: i64,
    /// Requests held in flight by the clients.
    pub concurrency: i64,
    /// Scheduler token budget per step; 0: the engine's default.
    pub max_batched_tokens: i64,
    /// Most requests running at once; 0: the engine's default.
    pub max_seqs: i64,
    /// Share of GPU memory the engine may use (weights + KV); 0: the engine's default.
    pub gpu_memory_utilization: f64,
    /// 0: steady state; k >= 1: means over k requests per client, the first wave (all at once) included.
    pub requests_per_client: f64,
}

impl Default for Serving {
    fn default() -> Serving {
        let raw: sys::mfusim_serving = init(sys::mfusim_serving_init, "mfusim_serving");
        Serving {
            input_len: raw.input_len,
            output_len: raw.output_len,
            concurrency: raw.concurrency,
            max_batched_tokens: raw.max_batched_tokens,
            max_seqs: raw.max_seqs,
            gpu_memory_utilization: raw.gpu_memory_utilization,
            requests_per_client: raw.requests_per_client,
        }
    }
}

impl Serving {
    fn to_raw(self) -> sys::mfusim_serving {
        let mut raw: sys::mfusim_serving = init(sys::mfusim_serving_init, "mfusim_serving");
        raw.input_len = self.input_len;
        raw.output_len = self.output_len;
        raw.concurrency = self.concurrency;
        raw.max_batched_tokens = self.max_batched_tokens;
        raw.max_seqs = self.max_seqs;
        raw.gpu_memory_utilization = self.gpu_memory_utilization;
        raw.requests_per_client = self.requests_per_client;
        raw
    }
}

/// What held the number of running requests below the concurrency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ServingLimit {
    /// Every client's request runs at once.
    None,
    /// Prompts arrive faster than the token budget admits them.
    TokenBudget,
    /// [`Serving::max_seqs`].
    MaxSeqs,
    /// The KV cache holds fewer requests than the concurrency.
    KvCapacity,
    /// A code this binding does not know (a newer library).
    Other(i32),
}

/// A serving estimate. Times in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServingResult {
    /// Mean time to first token, waiting for admission included.
    pub ttft_ms: f64,
    /// Mean time per output token after the first.
    pub tpot_ms: f64,
    /// Mean request latency: ttft + (output_len - 1) * tpot.
    pub e2e_ms: f64,
    /// Generated tokens per second per GPU of the deployment.
    pub output_tokens_per_s_per_gpu: f64,
    /// Finished requests per second, whole deployment.
    pub requests_per_s: f64,
    /// A step of the steady decode batch alone.
    pub decode_step_ms: f64,
    /// A step of the decode batch plus the prefill chunks it carries.
    pub mixed_step_ms: f64,
    /// Share of steps that carry prefill chunks.
    pub mixed_step_fraction: f64,
    /// Mean requests decoding in a step (per attention replica).
    pub decode_batch: f64,
    /// Prefill tokens a mixed step carries.
    pub prefill_tokens_per_mixed_step: f64,
    /// Steps a prompt's chunks span.
    pub prefill_steps_per_request: f64,
    /// Share of ttft spent waiting for admission.
    pub queue_ms: f64,
    /// Mean requests admitted at once (per attention replica).
    pub running_requests: f64,
    /// KV-cache tokens per attention replica.
    pub kv_capacity_tokens: f64,
    /// What held the running requests below the concurrency.
    pub limited_by: ServingLimit,
}

impl ServingResult {
    fn from_raw(r: &sys::mfusim_serving_result) -> ServingResult {
        ServingResult {
            ttft_ms: r.ttft_ms,
            tpot_ms: r.tpot_ms,
            e2e_ms: r.e2e_ms,
            output_tokens_per_s_per_gpu: r.output_throughput_tok_s_gpu,
            requests_per_s: r.request_throughput_req_s,
            decode_step_ms: r.decode_step_ms,
            mixed_step_ms: r.mixed_step_ms,
            mixed_step_fraction: r.mixed_step_fraction,
            decode_batch: r.decode_batch,
            prefill_tokens_per_mixed_step: r.prefill_tokens_per_mixed_step,
            prefill_steps_per_request: r.prefill_steps_per_request,
            queue_ms: r.queue_ms,
            running_requests: r.running_requests,
            kv_capacity_tokens: r.kv_capacity_tokens,
            limited_by: match r.limited_by {
                sys::MFUSIM_SERVING_LIMIT_NONE => ServingLimit::None,
                sys::MFUSIM_SERVING_LIMIT_TOKEN_BUDGET => ServingLimit::TokenBudget,
                sys::MFUSIM_SERVING_LIMIT_MAX_SEQS => ServingLimit::MaxSeqs,
                sys::MFUSIM_SERVING_LIMIT_KV_CAPACITY => ServingLimit::KvCapacity,
                other => ServingLimit::Other(other),
            },
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Disaggregated serving (mfusim_disagg_estimate; docs/disagg.md)

/// A disaggregated serving workload: `prefill_workers` workers compute the prompts, `decode_workers` workers
/// generate the tokens, and each request's KV cache moves from one pool to the other, while `concurrency` clients
/// each keep one request of `input_len` prompt tokens and `output_len` generated tokens in flight.
/// `DisaggServing::default()` is the library's default; 0 in the last four fields means the engine's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DisaggServing {
    /// Prompt tokens per request (ISL).
    pub input_len: i64,
    /// Generated tokens per request (OSL), >= 1.
    pub output_len: i64,
    /// Requests held in flight by the clients.
    pub concurrency: i64,
    /// Workers of the prefill pool, >= 1.
    pub prefill_workers: i64,
    /// Workers of the decode pool, >= 1.
    pub decode_workers: i64,
    /// Most prompts per prefill batch of an attention replica; 0: as many as the token budget admits.
    pub prefill_batch: i64,
    /// Most requests an attention replica decodes at once; 0: the engine's max_seqs.
    pub decode_batch: i64,
    /// The prefill workers' token budget; 0: the engine's default.
    pub max_batched_tokens: i64,
    /// Share of GPU memory the engines may use; 0: their default.
    pub gpu_memory_utilization: f64,
}

impl Default for DisaggServing {
    fn default() -> DisaggServing {
        let raw: sys::mfusim_disagg_serving = init(sys::mfusim_disagg_serving_init, "mfusim_disagg_serving");
        DisaggServing {
            input_len: raw.input_len,
            output_len: raw.output_len,
            concurrency: raw.concurrency,
            prefill_workers: raw.prefill_workers,
            decode_workers: raw.decode_workers,
            prefill_batch: raw.prefill_batch,
            decode_batch: raw.decode_batch,
            max_batched_tokens: raw.max_batched_tokens,
            gpu_memory_utilization: raw.gpu_memory_utilization,
        }
    }
}

impl DisaggServing {
    fn to_raw(self) -> sys::mfusim_disagg_serving {
        let mut raw: sys::mfusim_disagg_serving = init(sys::mfusim_disagg_serving_init, "mfusim_disagg_serving");
        raw.input_len = self.input_len;
        raw.output_len = self.output_len;
        raw.concurrency = self.concurrency;
        raw.prefill_workers = self.prefill_workers;
        raw.decode_workers = self.decode_workers;
        raw.prefill_batch = self.prefill_batch;
        raw.decode_batch = self.decode_batch;
        raw.max_batched_tokens = self.max_batched_tokens;
        raw.gpu_memory_utilization = self.gpu_memory_utilization;
        raw
    }
}

/// A disaggregated serving estimate (docs/disagg.md derives it). Times in milliseconds; `ttft_ms` is
/// `admission_ms + prefill_queue_ms + prefill_ms + transfer_ms + decode_wait_ms`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DisaggResult {
    /// Mean time to first token: the five parts below added.
    pub ttft_ms: f64,
    /// Mean time per output token after the first: the decode pool's step at its mean batch.
    pub tpot_ms: f64,
    /// Mean request latency: ttft + (output_len - 1) * tpot.
    pub e2e_ms: f64,
    /// Generated tokens per second per GPU, both pools' GPUs counted.
    pub output_tokens_per_s_per_gpu: f64,
    /// Finished requests per second, whole deployment.
    pub requests_per_s: f64,
    /// The engine's admission, tokenisation and first token out.
    pub admission_ms: f64,
    /// Waiting for a prefill worker.
    pub prefill_queue_ms: f64,
    /// One prompt's prefill on an idle worker.
    pub prefill_ms: f64,
    /// The KV cache from the prefill to the decode worker.
    pub transfer_ms: f64,
    /// Waiting for a decode slot.
    pub decode_wait_ms: f64,
    /// One prefill batch of `prompts_per_batch` prompts.
    pub prefill_batch_ms: f64,
    /// Prompts per prefill batch of an attention replica of a prefill worker.
    pub prompts_per_batch: f64,
    /// Busy share of the prefill pool.
    pub prefill_utilization: f64,
    /// The decode step at `decode_batch`.
    pub decode_step_ms: f64,
    /// Mean requests decoding per attention replica of a decode worker.
    pub decode_batch: f64,
    /// The most requests a decode replica holds (batch, max_seqs, KV cache).
    pub decode_slots: f64,
    /// One request's KV over the busiest GPU link, in bytes.
    pub kv_transfer_bytes: f64,
    /// True: the KV cache moves over RDMA between nodes; false: over NVLink inside one domain.
    pub transfer_over_network: bool,
    /// GPUs of one prefill worker.
    pub prefill_gpus: i64,
    /// GPUs of one decode worker.
    pub decode_gpus: i64,
}

impl DisaggResult {
    fn from_raw(r: &sys::mfusim_disagg_result) -> DisaggResult {
        DisaggResult {
            ttft_ms: r.ttft_ms,
            tpot_ms: r.tpot_ms,
            e2e_ms: r.e2e_ms,
            output_tokens_per_s_per_gpu: r.output_throughput_tok_s_gpu,
            requests_per_s: r.request_throughput_req_s,
            admission_ms: r.admission_ms,
            prefill_queue_ms: r.prefill_queue_ms,
            prefill_ms: r.prefill_ms,
            transfer_ms: r.transfer_ms,
            decode_wait_ms: r.decode_wait_ms,
            prefill_batch_ms: r.prefill_batch_ms,
            prompts_per_batch: r.prompts_per_batch,
            prefill_utilization: r.prefill_utilization,
            decode_step_ms: r.decode_step_ms,
            decode_batch: r.decode_batch,
            decode_slots: r.decode_slots,
            kv_transfer_bytes: r.kv_transfer_bytes,
            transfer_over_network: r.transfer_over_network != 0,
            prefill_gpus: r.prefill_gpus,
            decode_gpus: r.decode_gpus,
        }
    }
}

/// Disaggregated serving (`mfusim_disagg_estimate`, docs/disagg.md): `prefill` describes one worker of the
/// prefill pool and `decode` one of the decode pool (the same model and GPU; each its own `tensor_parallel`,
/// `expert_parallel` and `attention_data_parallel`; the same estimator may be both). Both in roofline mode (else
/// [`Status::Unsupported`]) on the same GPU (else [`Status::Config`]); a bad field is [`Status::InvalidArgument`]
/// naming it. No allocation on success; its cost grows with the concurrency (about a millisecond at 1,000).
pub fn disagg_estimate(prefill: &Estimator, decode: &Estimator, serving: &DisaggServing) -> Result<DisaggResult> {
    let raw = serving.to_raw();
    let mut out: sys::mfusim_disagg_result = init(sys::mfusim_disagg_result_init, "mfusim_disagg_result");
    call(|err| unsafe { sys::mfusim_disagg_estimate(prefill.raw.as_ptr(), decode.raw.as_ptr(), &raw, &mut out, err) })?;
    Ok(DisaggResult::from_raw(&out))
}

// ---------------------------------------------------------------------------------------------------------------
// Engine simulation (mfusim_simulate; docs/simulate.md)

/// One request of a trace (`mfusim_trace_request`): send time in seconds, lengths, shared prefix (-1: none).
pub type TraceRequest = sys::mfusim_trace_request;
/// One request as the client saw it (`mfusim_simulated_request`), times in ms; `warmup` 1: not in the statistics.
pub type SimulatedRequest = sys::mfusim_simulated_request;
/// One engine step of a recorded timeline (`mfusim_simulated_step`).
pub type SimulatedStep = sys::mfusim_simulated_step;
/// A distribution over the measured requests in ms (`mfusim_latency_summary`).
pub type LatencySummary = sys::mfusim_latency_summary;
/// A run's statistics over the measured requests (`mfusim_simulation_summary`).
pub type SimulationSummary = sys::mfusim_simulation_summary;

/// How prompt and output lengths are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LengthDistribution {
    /// The mean exactly.
    #[default]
    Fixed,
    /// Integers in [mean - spread, mean + spread].
    Uniform,
    /// Standard deviation `spread`.
    Normal,
    /// Log-normal with that mean and standard deviation.
    Lognormal,
}

impl LengthDistribution {
    fn code(self) -> sys::mfusim_length_distribution {
        match self {
            LengthDistribution::Fixed => sys::MFUSIM_LENGTH_FIXED,
            LengthDistribution::Uniform => sys::MFUSIM_LENGTH_UNIFORM,
            LengthDistribution::Normal => sys::MFUSIM_LENGTH_NORMAL,
            LengthDistribution::Lognormal => sys::MFUSIM_LENGTH_LOGNORMAL,
        }
    }
}

/// The scheduler the simulated engine runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SchedulerPolicy {
    /// The estimator's engine's own.
    #[default]
    Engine,
    /// vLLM V1: running requests first, chunked prefill, preemption by recomputation.
    VllmV1,
    /// SGLang: prefill batches first, new-token-ratio admission, retraction.
    Sglang,
    /// TensorRT-LLM: GUARANTEED_NO_EVICT admission, generation requests first.
    Trtllm,
    /// TensorRT-LLM's MAX_UTILIZATION capacity policy: the newest request paused when the KV cache runs out.
    TrtllmMaxUtilization,
}

/// A quantity for [`SimulationResult::percentile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Per measured request.
    Ttft,
    /// Per measured request with more than one output token.
    Tpot,
    /// Per generated token after the first.
    Itl,
    /// Request latency, per measured request.
    E2el,
    /// Reaching the engine to first scheduled, per measured request.
    Queue,
}

/// A simulated serving benchmark (`mfusim_simulation`); `Simulation::default()` is the library's defaults. Scheduler
/// values of 0 keep the engine's defaults; SLOs of 0 are none. A non-empty `trace` replaces the generated requests.
#[derive(Clone, Debug, PartialEq)]
pub struct Simulation {
    /// Requests sent, 1..=2^24 (unused with a trace).
    pub num_prompts: i64,
    /// The first requests sent, left out of the statistics.
    pub warmup: i64,
    /// Requests per second; `f64::INFINITY`: every request at time 0.
    pub request_rate: f64,
    /// Gamma shape of the gaps between sends: 1 Poisson, < 1 burstier, > 1 steadier.
    pub burstiness: f64,
    /// Send at exact 1/request_rate intervals instead of gamma gaps.
    pub constant_rate: bool,
    /// Most requests in flight (vLLM bench's semaphore); 0: no limit.
    pub max_concurrency: i64,
    /// How prompt lengths are drawn.
    pub input_distribution: LengthDistribution,
    /// Mean prompt tokens.
    pub input_len: f64,
    /// Spread of the prompt lengths (see [`LengthDistribution`]).
    pub input_spread: f64,
    /// How output lengths are drawn.
    pub output_distribution: LengthDistribution,
    /// Mean generated tokens.
    pub output_len: f64,
    /// Spread of the output lengths.
    pub output_spread: f64,
    /// Shared prefixes: request i starts with prefix i mod this; 0: none.
    pub num_prefix_prompts: i64,
    /// Tokens of each shared prefix, within the input length.
    pub prefix_len: i64,
    /// Seed of every random draw: the same seed gives the same run.
    pub seed: u64,
    /// The scheduler policy.
    pub scheduler: SchedulerPolicy,
    /// Token budget per step; 0: the engine's.
    pub max_batched_tokens: i64,
    /// Most running requests; 0: the engine's.
    pub max_seqs: i64,
    /// KV block size in tokens; 0: 16.
    pub block_tokens: i64,
    /// vLLM: most tokens of one prefill chunk per step; 0: no cap.
    pub long_prefill_token_threshold: i64,
    /// Share of GPU memory for weights and KV cache; 0: the engine's.
    pub gpu_memory_utilization: f64,
    /// Chunked prefill (true: as the engine does).
    pub chunked_prefill: bool,
    /// Prefix caching (true: as the engine does).
    pub prefix_caching: bool,
    /// Goodput SLO on TTFT, ms; 0: none.
    pub slo_ttft_ms: f64,
    /// Goodput SLO on TPOT, ms; 0: none.
    pub slo_tpot_ms: f64,
    /// Goodput SLO on request latency, ms; 0: none.
    pub slo_e2el_ms: f64,
    /// When not empty, the requests themselves (max_concurrency still applies).
    pub trace: Vec<TraceRequest>,
    /// Keep one [`SimulatedStep`] per engine step.
    pub record_timeline: bool,
    /// Closed-loop clients (infinite rate, `max_concurrency`) start evenly over this many seconds; 0: together.
    pub ramp_up_s: f64,
}

impl Default for Simulation {
    fn default() -> Simulation {
        let raw: sys::mfusim_simulation = init(sys::mfusim_simulation_init, "mfusim_simulation");
        let kind = |k| match k {
            sys::MFUSIM_LENGTH_UNIFORM => LengthDistribution::Uniform,
            sys::MFUSIM_LENGTH_NORMAL => LengthDistribution::Normal,
            sys::MFUSIM_LENGTH_LOGNORMAL => LengthDistribution::Lognormal,
            _ => LengthDistribution::Fixed,
        };
        Simulation {
            num_prompts: raw.num_prompts,
            warmup: raw.warmup,
            request_rate: raw.request_rate,
            burstiness: raw.burstiness,
            constant_rate: raw.constant_rate != 0,
            max_concurrency: raw.max_concurrency,
            input_distribution: kind(raw.input_distribution),
            input_len: raw.input_len,
            input_spread: raw.input_spread,
            output_distribution: kind(raw.output_distribution),
            output_len: raw.output_len,
            output_spread: raw.output_spread,
            num_prefix_prompts: raw.num_prefix_prompts,
            prefix_len: raw.prefix_len,
            seed: raw.seed,
            scheduler: SchedulerPolicy::Engine,
            max_batched_tokens: raw.max_batched_tokens,
            max_seqs: raw.max_seqs,
            block_tokens: raw.block_tokens,
            long_prefill_token_threshold: raw.long_prefill_token_threshold,
            gpu_memory_utilization: raw.gpu_memory_utilization,
            chunked_prefill: raw.disable_chunked_prefill == 0,
            prefix_caching: raw.disable_prefix_caching == 0,
            slo_ttft_ms: raw.slo_ttft_ms,
            slo_tpot_ms: raw.slo_tpot_ms,
            slo_e2el_ms: raw.slo_e2el_ms,
            trace: Vec::new(),
            record_timeline: raw.record_timeline != 0,
            ramp_up_s: raw.ramp_up_s,
        }
    }
}

impl Simulation {
    /// The C struct; its trace pointer borrows `self.trace` (valid while `self` is).
    fn to_raw(&self) -> sys::mfusim_simulation {
        let mut raw: sys::mfusim_simulation = init(sys::mfusim_simulation_init, "mfusim_simulation");
        raw.num_prompts = self.num_prompts;
        raw.warmup = self.warmup;
        raw.request_rate = self.request_rate;
        raw.burstiness = self.burstiness;
        raw.constant_rate = i32::from(self.constant_rate);
        raw.max_concurrency = self.max_concurrency;
        raw.input_distribution = self.input_distribution.code();
        raw.input_len = self.input_len;
        raw.input_spread = self.input_spread;
        raw.output_distribution = self.output_distribution.code();
        raw.output_len = self.output_len;
        raw.output_spread = self.output_spread;
        raw.num_prefix_prompts = self.num_prefix_prompts;
        raw.prefix_len = self.prefix_len;
        raw.seed = self.seed;
        raw.scheduler = match self.scheduler {
            SchedulerPolicy::Engine => sys::MFUSIM_SCHEDULER_ENGINE,
            SchedulerPolicy::VllmV1 => sys::MFUSIM_SCHEDULER_VLLM_V1,
            SchedulerPolicy::Sglang => sys::MFUSIM_SCHEDULER_SGLANG,
            SchedulerPolicy::Trtllm => sys::MFUSIM_SCHEDULER_TRTLLM,
            SchedulerPolicy::TrtllmMaxUtilization => sys::MFUSIM_SCHEDULER_TRTLLM_MAX_UTILIZATION,
        };
        raw.max_batched_tokens = self.max_batched_tokens;
        raw.max_seqs = self.max_seqs;
        raw.block_tokens = self.block_tokens;
        raw.long_prefill_token_threshold = self.long_prefill_token_threshold;
        raw.gpu_memory_utilization = self.gpu_memory_utilization;
        raw.disable_chunked_prefill = i32::from(!self.chunked_prefill);
        raw.disable_prefix_caching = i32::from(!self.prefix_caching);
        raw.slo_ttft_ms = self.slo_ttft_ms;
        raw.slo_tpot_ms = self.slo_tpot_ms;
        raw.slo_e2el_ms = self.slo_e2el_ms;
        if !self.trace.is_empty() {
            raw.trace = self.trace.as_ptr();
            raw.trace_count = self.trace.len();
        }
        raw.record_timeline = i32::from(self.record_timeline);
        raw.ramp_up_s = self.ramp_up_s;
        raw
    }
}

/// A finished simulation: owns the native result (freed on drop). Immutable: `Send` and `Sync`.
pub struct SimulationResult {
    raw: NonNull<sys::mfusim_simulation_result>,
}

// SAFETY: the result is immutable after mfusim_simulate returns; its accessors only read it (mfusim.h).
unsafe impl Send for SimulationResult {}
unsafe impl Sync for SimulationResult {}

impl SimulationResult {
    /// The run's statistics.
    pub fn summary(&self) -> Result<SimulationSummary> {
        let mut out: SimulationSummary = init(sys::mfusim_simulation_summary_init, "mfusim_simulation_summary");
        call(|err| unsafe { sys::mfusim_simulation_result_summary(self.raw.as_ptr(), &mut out, err) })?;
        Ok(out)
    }

    /// Every request in send order, warm-up included; borrowed from the result, no copy.
    pub fn requests(&self) -> &[SimulatedRequest] {
        let mut n = 0usize;
        let p = unsafe { sys::mfusim_simulation_result_requests(self.raw.as_ptr(), &mut n) };
        if p.is_null() || n == 0 {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(p, n) }
    }

    /// One record per engine step when the simulation set `record_timeline`; empty otherwise.
    pub fn timeline(&self) -> &[SimulatedStep] {
        let mut n = 0usize;
        let p = unsafe { sys::mfusim_simulation_result_timeline(self.raw.as_ptr(), &mut n) };
        if p.is_null() || n == 0 {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(p, n) }
    }

    /// The `p`-th percentile (0..=100, NumPy's linear interpolation) of a metric in ms; 0 when there is no value.
    pub fn percentile(&self, metric: Metric, p: f64) -> Result<f64> {
        let code = match metric {
            Metric::Ttft => sys::MFUSIM_METRIC_TTFT,
            Metric::Tpot => sys::MFUSIM_METRIC_TPOT,
            Metric::Itl => sys::MFUSIM_METRIC_ITL,
            Metric::E2el => sys::MFUSIM_METRIC_E2EL,
            Metric::Queue => sys::MFUSIM_METRIC_QUEUE,
        };
        let mut out = 0.0;
        call(|err| unsafe { sys::mfusim_simulation_result_percentile(self.raw.as_ptr(), code, p, &mut out, err) })?;
        Ok(out)
    }
}

impl Drop for SimulationResult {
    fn drop(&mut self) {
        unsafe { sys::mfusim_simulation_result_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for SimulationResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimulationResult").field("requests", &self.requests().len()).finish()
    }
}
