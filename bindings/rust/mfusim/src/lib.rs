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
//! caller's slice, and the error detail is only fetched, by repeating the pure call, when a call fails.
#![deny(missing_docs)]

use std::ffi::{c_char, CStr, CString};
use std::fmt;
use std::mem::MaybeUninit;
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

/// Runs `call` with no error struct (the fast path); on failure runs it again with one to fetch the message.
/// Every call wrapped this way is a pure function of its inputs, so the repeat fails the same way.
#[inline]
fn call(mut call: impl FnMut(*mut sys::mfusim_error) -> sys::mfusim_status) -> Result<()> {
    let status = call(ptr::null_mut());
    if status == sys::MFUSIM_OK {
        return Ok(());
    }
    Err(with_message(status, call))
}

#[cold]
#[inline(never)]
fn with_message(
    status: sys::mfusim_status,
    mut call: impl FnMut(*mut sys::mfusim_error) -> sys::mfusim_status,
) -> Error {
    let mut err = Box::new(MaybeUninit::<sys::mfusim_error>::zeroed());
    let again = call(err.as_mut_ptr());
    if again == sys::MFUSIM_OK {
        return Error::new(Status::from_raw(status), "(failed, then succeeded when repeated for its message)");
    }
    let err = unsafe { err.assume_init_ref() };
    let message = unsafe { CStr::from_ptr(err.message.as_ptr()) }.to_string_lossy().into_owned();
    Error::new(Status::from_raw(again), message)
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
}

impl Options {
    /// Options for `model` on `gpu`, everything else at the library's defaults.
    pub fn new(model: impl Into<String>, gpu: impl Into<String>) -> Options {
        let mut raw = MaybeUninit::<sys::mfusim_options>::uninit();
        let raw = unsafe {
            sys::mfusim_options_init(raw.as_mut_ptr());
            raw.assume_init()
        };
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
        }
    }

    /// The same options in another mode.
    pub fn mode(mut self, mode: Mode) -> Options {
        self.mode = mode;
        self
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
        let cstring = |what: &str, s: &str| {
            CString::new(s).map_err(|_| Error::new(Status::InvalidArgument, format!("{what} contains a NUL byte")))
        };
        let model = cstring("model", &options.model)?;
        let gpu = cstring("gpu", &options.gpu)?;
        let bench = options.bench_data_dir.as_deref().map(|d| cstring("bench_data_dir", d)).transpose()?;
        let mut raw = MaybeUninit::<sys::mfusim_options>::uninit();
        let mut raw = unsafe {
            sys::mfusim_options_init(raw.as_mut_ptr());
            raw.assume_init()
        };
        raw.model = model.as_ptr();
        raw.gpu = gpu.as_ptr();
        raw.bench_data_dir = bench.as_ref().map_or(ptr::null(), |b| b.as_ptr());
        raw.mode = match options.mode {
            Mode::Roofline => sys::MFUSIM_MODE_ROOFLINE,
            Mode::InferSim => sys::MFUSIM_MODE_INFERSIM,
        };
        raw.tensor_parallel = options.tensor_parallel;
        raw.world_size = options.world_size;
        raw.num_nodes = options.num_nodes;
        raw.fp8_gemm = options.fp8_gemm.into();
        raw.fp8_kv = options.fp8_kv.into();
        raw.deepep = options.deepep.into();
        raw.two_batch_overlap = options.two_batch_overlap.into();
        raw.sm_ratio = options.sm_ratio;
        let mut out = ptr::null_mut();
        call(|err| unsafe { sys::mfusim_estimator_create(&raw, &mut out, err) })?;
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
// Step detail

/// An operation of the step breakdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Op(pub i32);

impl Op {
    /// Number of operations this binding knows (`MFUSIM_OP_COUNT`); a library may know more or fewer, see
    /// [`StepResult::ops`].
    pub const COUNT: usize = sys::MFUSIM_OP_COUNT;
    /// `MFUSIM_OP_CAPACITY`: the slots the ABI reserves for operations, whatever their number.
    pub const CAPACITY: usize = sys::MFUSIM_OP_CAPACITY;
    /// Every operation this binding knows, in order.
    pub fn all() -> impl Iterator<Item = Op> {
        (0..Op::COUNT as i32).map(Op)
    }
    /// The name the CLI's JSON uses ("qkv_proj").
    pub fn name(self) -> &'static str {
        unsafe { static_str(sys::mfusim_op_name(self.0)) }
    }
}

/// What dominated an operation (name via [`bound_name`]).
pub type Bound = sys::mfusim_bound;
/// Where an efficiency value came from (name via [`source_name`]).
pub type Source = sys::mfusim_source;

/// "compute", "memory", ...
pub fn bound_name(bound: Bound) -> &'static str {
    unsafe { static_str(sys::mfusim_bound_name(bound)) }
}
/// "table_exact", "analytical", ...
pub fn source_name(source: Source) -> &'static str {
    unsafe { static_str(sys::mfusim_source_name(source)) }
}

/// A step time with its breakdown (the C struct itself, filled in place by [`Estimator::step_detail`]).
#[derive(Clone)]
pub struct StepResult {
    raw: sys::mfusim_step_result,
}

impl Default for StepResult {
    fn default() -> StepResult {
        let mut raw = MaybeUninit::<sys::mfusim_step_result>::zeroed();
        unsafe {
            sys::mfusim_step_result_init(raw.as_mut_ptr());
            StepResult { raw: raw.assume_init() }
        }
    }
}

impl StepResult {
    /// Total step time, microseconds.
    pub fn total_us(&self) -> f64 {
        self.raw.total_us
    }
    /// The bound of the operation that took the most time.
    pub fn bound(&self) -> Bound {
        self.raw.bound
    }
    /// The breakdown, indexed by [`Op`]: the library's `n_ops` valid entries (`MFUSIM_OP_COUNT` as the library
    /// knows it; zeros before the first [`Estimator::step_detail`]).
    pub fn ops(&self) -> &[sys::mfusim_op_detail] {
        let n = usize::try_from(self.raw.n_ops).unwrap_or(0).min(self.raw.ops.len());
        &self.raw.ops[..n]
    }
    /// One operation's detail; `None` if the library that filled this result does not know `op`.
    pub fn op(&self, op: Op) -> Option<&sys::mfusim_op_detail> {
        usize::try_from(op.0).ok().and_then(|i| self.ops().get(i))
    }
    /// The table that supplied an operation's efficiency, relative to bench_data; "" if none (or no such op).
    pub fn table(&self, op: Op) -> &str {
        let Some(detail) = self.op(op) else { return "" };
        let t = &detail.table;
        let bytes: &[u8] = unsafe { std::slice::from_raw_parts(t.as_ptr().cast(), t.len()) };
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        std::str::from_utf8(&bytes[..end]).unwrap_or("")
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
        let mut raw = MaybeUninit::<sys::mfusim_scenario>::uninit();
        let raw = unsafe {
            sys::mfusim_scenario_init(raw.as_mut_ptr());
            raw.assume_init()
        };
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
        let mut raw = MaybeUninit::<sys::mfusim_scenario>::uninit();
        let mut raw = unsafe {
            sys::mfusim_scenario_init(raw.as_mut_ptr());
            raw.assume_init()
        };
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
