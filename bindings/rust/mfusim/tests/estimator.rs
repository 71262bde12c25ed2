mod common;

use common::*;
use mfusim::{
    disagg_estimate, Bound, DisaggServing, Estimator, Mode, Op, Options, Request, Scenario, Serving, ServingLimit,
    Source, Status, StepResult,
};
use std::ptr;

fn positive(us: f64) -> f64 {
    assert!(us > 0.0 && us.is_finite(), "step time {us}");
    us
}

fn decodes(n: usize, context: i64) -> Vec<Request> {
    vec![Request::decode(context); n]
}

#[test]
fn version_and_catalogue() {
    assert_eq!(mfusim::version_number(), mfusim::sys::MFUSIM_VERSION_NUMBER);
    assert_eq!(mfusim::version().split('.').count(), 3);
    assert!(mfusim::models().contains(&"qwen3-8b"));
    assert!(mfusim::models().contains(&"llama-3.1-8b-instruct"));
    assert!(mfusim::gpus().iter().any(|g| g.eq_ignore_ascii_case("H100")));
}

#[test]
fn roofline_step_times_are_positive_and_grow() {
    for model in ["llama-3.1-8b-instruct", "qwen3-8b"] {
        let est = Estimator::new(&Options::new(model, "H100")).unwrap();
        // The fitted vllm profile has no per-step cost: an empty step is free.
        assert_eq!(est.step_time(&[]).unwrap(), 0.0);
        positive(est.step_time(&decode_step()).unwrap());
        positive(est.step_time(&mixed_step(256)).unwrap());
        let mut prev = 0.0;
        for n in [1, 8, 64, 256, 1024] {
            let us = positive(est.step_time(&decodes(n, 4096)).unwrap());
            assert!(us > prev, "{model}: batch {n}: {us} not above {prev}");
            prev = us;
        }
        prev = 0.0;
        for c in [128, 1024, 8192, 32768] {
            let us = positive(est.step_time(&decodes(64, c)).unwrap());
            assert!(us > prev, "{model}: context {c}: {us} not above {prev}");
            prev = us;
        }
    }
}

#[test]
fn batch_equals_single_calls_bit_for_bit() {
    for (mode, est) in [(Mode::Roofline, roofline()), (Mode::InferSim, compat())] {
        let steps = [decode_step(), mixed_step(256), vec![], mixed_step(17), vec![Request::prefill(4096, 0, true)]];
        let all: Vec<Request> = steps.concat();
        let sizes: Vec<i64> = steps.iter().map(|s| s.len() as i64).collect();
        let mut out = vec![0.0; steps.len()];
        est.step_time_batch(&all, &sizes, &mut out).unwrap();
        for (i, s) in steps.iter().enumerate() {
            assert_eq!(est.step_time(s).unwrap().to_bits(), out[i].to_bits(), "step {i}");
        }
        // An empty step: the engine's fixed per-step cost in roofline mode (0 for the fitted vllm profile), 0 in
        // compat mode.
        assert_eq!(out[2], 0.0, "{mode:?}: empty step {}", out[2]);
        assert!(out[2] >= 0.0);
    }
}

#[test]
fn errors_are_typed_with_the_library_message() {
    let err = Estimator::new(&Options::new("no-such-model-xyz", "H100")).unwrap_err();
    assert_eq!(err.status(), Status::UnknownName);
    assert!(err.message().contains("no-such-model-xyz"), "{err}");
    assert!(err.to_string().starts_with("mfusim: "), "{err}");
    let err = Estimator::new(&Options::new("qwen3-8b", "no-such-gpu")).unwrap_err();
    assert_eq!(err.status(), Status::UnknownName);
    let mut o = Options::new("qwen3-8b", "H100");
    o.tensor_parallel = 0;
    assert_eq!(Estimator::new(&o).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(
        Estimator::new(&Options::new("qwen3-8b", "H100").mode(Mode::InferSim)).unwrap_err().status(),
        Status::Unsupported
    );

    let est = roofline();
    let err = est.step_time(&[Request::decode(5), Request::new(-3, 0, 0)]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("request 1"), "{err}");
    let mut out = [-1.0; 2];
    let err = est.step_time_batch(&[Request::decode(1), Request::new(1, -1, 0)], &[1, 1], &mut out).unwrap_err();
    assert!(err.message().contains("step 1"), "{err}");
    assert_eq!(out, [-1.0, -1.0], "out written on failure");
    // The library checks the step sizes against requests.len(), naming the step at fault.
    let err = est.step_time_batch(&decode_step(), &[1, 1], &mut out).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("step 1"), "{err}");
    let err = est.step_time_batch(&decodes(3, 100), &[1, 1], &mut out).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "sizes short of the requests");
    assert_eq!(out, [-1.0, -1.0], "out written on failure");
    assert_eq!(est.step_time_batch(&decode_step(), &[1], &mut []).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(est.step_time_batch(&decode_step(), &[-1], &mut out).unwrap_err().status(), Status::InvalidArgument);
    let err = est.step_time(&[Request::new(1, 1, 0x80)]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
}

const _: () = assert!(Op::COUNT <= Op::CAPACITY);

#[test]
fn step_detail_matches_step_time() {
    let est = roofline();
    let mut r = StepResult::default();
    assert!(r.is_empty());
    for reqs in [decode_step(), mixed_step(256)] {
        est.step_detail(&reqs, &mut r).unwrap();
        assert_eq!(r.total_us().to_bits(), est.step_time(&reqs).unwrap().to_bits());
        assert_eq!(r.ops().len(), Op::COUNT);
        assert!(r.ops().any(|d| d.time_us() > 0.0));
        for (i, d) in r.ops().enumerate() {
            assert_eq!(d.index(), i);
            assert_eq!(d.op(), Op::from_index(i));
            assert_eq!(d.name(), d.op().unwrap().name());
        }
        for op in Op::all() {
            assert!(!op.name().is_empty());
            let detail = r.op(op).unwrap();
            assert!(ptr::eq(detail.as_raw(), &r.as_raw().ops[op.index()]));
            assert!(!detail.source().name().is_empty());
            assert!(!matches!(detail.source(), Source::Other(_)) && !matches!(detail.bound(), Bound::Other(_)));
            let _ = (detail.table(), format!("{detail:?}"));
        }
        assert!(Op::from_index(Op::COUNT).is_none());
        assert!(!r.bound().name().is_empty());
        assert!(r.op(Op::Engine).unwrap().time_us() > 0.0, "{r:?}");
    }
    assert_eq!(Op::QkvProj.name(), "qkv_proj");
    assert!(!Op::Engine.to_string().is_empty() && Op::Engine.name() != "unknown");
    assert_eq!(Op::ALL.len(), Op::COUNT);
}

#[test]
fn new_options_and_serving_estimate() {
    let base = positive(roofline().step_time(&decode_step()).unwrap());
    let options = Options::new("llama-3.1-8b-instruct", "H100").engine("none").quant("fp8");
    assert_eq!((options.expert_parallel, options.attention_data_parallel), (1, 1));
    let bare = positive(Estimator::new(&options).unwrap().step_time(&decode_step()).unwrap());
    assert!(bare < base, "engine none {bare} us, default engine {base} us");
    assert!(Estimator::new(&Options::new("llama-3.1-8b-instruct", "H100").engine("no-such-engine")).is_err());

    let w = Serving::default();
    assert!(w.input_len > 0 && w.output_len > 0 && w.concurrency > 0);
    let r = roofline().serving_estimate(&w).unwrap();
    positive(r.ttft_ms);
    positive(r.tpot_ms);
    assert!(!matches!(r.limited_by, ServingLimit::Other(_)));
    let e = roofline().serving_estimate(&Serving { output_len: 0, ..w }).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(!e.message().is_empty());
    assert_eq!(compat().serving_estimate(&w).unwrap_err().status(), Status::Unsupported);
}

#[test]
fn estimates_report_values_by_name() {
    for est in [roofline(), compat()] {
        let report = est.estimate(&Scenario::default()).unwrap();
        for name in ["prefill.ttft_ms", "decode.tpot_ms"] {
            positive(report.value(name).unwrap());
        }
        assert_eq!(report.value("no.such.quantity").unwrap_err().status(), Status::NotFound);
        assert!(!report.is_empty());
        assert_eq!(report.iter().count(), report.len());
        let _ = (report.warnings(), report.soft_errors(), format!("{report:?}"));
    }
    let s = Scenario { input_len: -1, ..Scenario::default() };
    assert_eq!(roofline().estimate(&s).unwrap_err().status(), Status::InvalidArgument);
}

#[test]
fn concurrent_use_gives_identical_results() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Estimator>();
    assert_send_sync::<mfusim::Report>();
    let est = roofline();
    let steps = [decode_step(), mixed_step(256), mixed_step(64), decodes(128, 1000)];
    let want: Vec<f64> = steps.iter().map(|s| est.step_time(s).unwrap()).collect();
    std::thread::scope(|scope| {
        for t in 0..16 {
            let (est, steps, want) = (&est, &steps, &want);
            scope.spawn(move || {
                let mut out = [0.0];
                for k in 0..500 {
                    let i = (t + k) % steps.len();
                    assert_eq!(est.step_time(&steps[i]).unwrap().to_bits(), want[i].to_bits());
                    est.step_time_batch(&steps[i], &[steps[i].len() as i64], &mut out).unwrap();
                    assert_eq!(out[0].to_bits(), want[i].to_bits());
                }
            });
        }
    });
    // Moved to another thread and dropped there.
    std::thread::spawn(move || drop(est)).join().unwrap();
}

#[test]
fn empty_step_costs_the_engines_per_step_term() {
    let opts = Options::new("llama-3.1-8b-instruct", "H100").engine(r#"{"base": "vllm", "step_us": 250}"#);
    let est = Estimator::new(&opts).unwrap();
    assert_eq!(est.step_time(&[]).unwrap(), 250.0);
    assert!(est.step_time(&decode_step()).unwrap() > 250.0);
}

#[test]
fn calibration_scales_the_families_it_names() {
    let base = Estimator::new(&Options::new("llama-3.1-8b-instruct", "H100")).unwrap();
    let doubled = r#"{"mfusim_calibration": 1, "efficiency": {"decode_attention": 2.0}}"#;
    let cal = Estimator::new(&Options::new("llama-3.1-8b-instruct", "H100").calibration(doubled)).unwrap();
    let step = decodes(64, 4096);
    let (mut b, mut c) = (StepResult::default(), StepResult::default());
    base.step_detail(&step, &mut b).unwrap();
    cal.step_detail(&step, &mut c).unwrap();
    let attention = |r: &StepResult| r.op(Op::AttnDecode).unwrap().time_us();
    assert!(attention(&b) > 0.0);
    assert!((attention(&c) - 2.0 * attention(&b)).abs() <= 1e-9 * attention(&b));
    assert!((c.total_us() - b.total_us() - attention(&b)).abs() <= 1e-9 * c.total_us());
    let bad = Options::new("llama-3.1-8b-instruct", "H100")
        .calibration(r#"{"mfusim_calibration": 1, "efficiency": {"gemm": 9}}"#);
    let e = Estimator::new(&bad).unwrap_err();
    assert!(e.message().contains("efficiency.gemm"), "{}", e.message());
}

/// mfusim_disagg_estimate through the binding (docs/disagg.md): every field lands where the C struct puts it (TTFT
/// is its five parts; E2E and throughput follow from TTFT, TPOT and the GPUs of both pools), TTFT grows with the
/// prompt, more prefill workers cut the prefill queue, and bad inputs give the library's errors.
#[test]
fn disagg_estimate_through_the_binding() {
    let w = DisaggServing::default();
    assert!(w.input_len > 0 && w.output_len > 0 && w.concurrency > 0);
    assert_eq!((w.prefill_workers, w.decode_workers), (1, 1));
    let prefill = roofline();
    let decode =
        Estimator::new(&Options { tensor_parallel: 2, ..Options::new("llama-3.1-8b-instruct", "H100") }).unwrap();
    let w = DisaggServing { input_len: 2048, output_len: 256, concurrency: 32, decode_batch: 64, ..w };
    let r = disagg_estimate(&prefill, &decode, &w).unwrap();
    for v in [r.ttft_ms, r.tpot_ms, r.prefill_ms, r.transfer_ms, r.kv_transfer_bytes] {
        positive(v);
    }
    let near =
        |name: &str, got: f64, want: f64| assert!((got - want).abs() <= 1e-9 * want.abs(), "{name} {got} != {want}");
    near("ttft", r.ttft_ms, r.admission_ms + r.prefill_queue_ms + r.prefill_ms + r.transfer_ms + r.decode_wait_ms);
    near("e2e", r.e2e_ms, r.ttft_ms + (w.output_len - 1) as f64 * r.tpot_ms);
    near("throughput", r.output_tokens_per_s_per_gpu, r.requests_per_s * w.output_len as f64 / 3.0);
    assert_eq!((r.prefill_gpus, r.decode_gpus, r.transfer_over_network), (1, 2, false));

    let longer = disagg_estimate(&prefill, &decode, &DisaggServing { input_len: 8192, ..w }).unwrap();
    assert!(longer.prefill_ms > r.prefill_ms && longer.ttft_ms > r.ttft_ms, "{longer:?} vs {r:?}");
    let more = disagg_estimate(&prefill, &decode, &DisaggServing { prefill_workers: 4, ..w }).unwrap();
    assert!(more.prefill_queue_ms < r.prefill_queue_ms, "{} vs {}", more.prefill_queue_ms, r.prefill_queue_ms);

    let e = disagg_estimate(&prefill, &decode, &DisaggServing { prefill_workers: 0, ..w }).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("prefill_workers"), "{}", e.message());
    let compat = compat();
    let e = disagg_estimate(&compat, &compat, &DisaggServing::default()).unwrap_err();
    assert_eq!(e.status(), Status::Unsupported);
}

/// The safe wrapper copies every field of mfusim_disagg_result to its own field: the same estimate through the raw
/// FFI (estimators built with mfusim-sys alone) gives bit-identical numbers, field by field (the library is
/// deterministic; a swapped pair in the wrapper's copy fails here).
#[test]
fn disagg_estimate_equals_the_raw_c_call() {
    use mfusim::sys;
    use std::ffi::CString;
    use std::mem::{size_of, MaybeUninit};

    let (model, gpu) = (CString::new("llama-3.1-8b-instruct").unwrap(), CString::new("H100").unwrap());
    let create = |tp: i32| -> *mut sys::mfusim_estimator {
        let mut o = MaybeUninit::<sys::mfusim_options>::zeroed();
        let mut err = MaybeUninit::<sys::mfusim_error>::zeroed();
        let mut est = ptr::null_mut();
        unsafe {
            assert_eq!(sys::mfusim_options_init(o.as_mut_ptr(), size_of::<sys::mfusim_options>(), ptr::null_mut()), 0);
            let mut o = o.assume_init();
            (o.model, o.gpu, o.tensor_parallel) = (model.as_ptr(), gpu.as_ptr(), tp);
            assert_eq!(sys::mfusim_estimator_create(&o, &mut est, err.as_mut_ptr()), sys::MFUSIM_OK);
        }
        est
    };
    let (raw_prefill, raw_decode) = (create(1), create(2));
    let w =
        DisaggServing { input_len: 3000, output_len: 200, concurrency: 48, prefill_workers: 2, ..Default::default() };
    let mut rw = MaybeUninit::<sys::mfusim_disagg_serving>::zeroed();
    let mut c = MaybeUninit::<sys::mfusim_disagg_result>::zeroed();
    let c = unsafe {
        let n = size_of::<sys::mfusim_disagg_serving>();
        assert_eq!(sys::mfusim_disagg_serving_init(rw.as_mut_ptr(), n, ptr::null_mut()), sys::MFUSIM_OK);
        let n = size_of::<sys::mfusim_disagg_result>();
        assert_eq!(sys::mfusim_disagg_result_init(c.as_mut_ptr(), n, ptr::null_mut()), sys::MFUSIM_OK);
        let mut rw = rw.assume_init();
        (rw.input_len, rw.output_len, rw.concurrency, rw.prefill_workers) = (3000, 200, 48, 2);
        let mut err = MaybeUninit::<sys::mfusim_error>::zeroed();
        let st = sys::mfusim_disagg_estimate(raw_prefill, raw_decode, &rw, c.as_mut_ptr(), err.as_mut_ptr());
        sys::mfusim_estimator_free(raw_prefill);
        sys::mfusim_estimator_free(raw_decode);
        assert_eq!(st, sys::MFUSIM_OK);
        c.assume_init()
    };
    let decode =
        Estimator::new(&Options { tensor_parallel: 2, ..Options::new("llama-3.1-8b-instruct", "H100") }).unwrap();
    let r = disagg_estimate(&roofline(), &decode, &w).unwrap();
    let pairs = [
        ("ttft_ms", r.ttft_ms, c.ttft_ms),
        ("tpot_ms", r.tpot_ms, c.tpot_ms),
        ("e2e_ms", r.e2e_ms, c.e2e_ms),
        ("output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu, c.output_throughput_tok_s_gpu),
        ("requests_per_s", r.requests_per_s, c.request_throughput_req_s),
        ("admission_ms", r.admission_ms, c.admission_ms),
        ("prefill_queue_ms", r.prefill_queue_ms, c.prefill_queue_ms),
        ("prefill_ms", r.prefill_ms, c.prefill_ms),
        ("transfer_ms", r.transfer_ms, c.transfer_ms),
        ("decode_wait_ms", r.decode_wait_ms, c.decode_wait_ms),
        ("prefill_batch_ms", r.prefill_batch_ms, c.prefill_batch_ms),
        ("prompts_per_batch", r.prompts_per_batch, c.prompts_per_batch),
        ("prefill_utilization", r.prefill_utilization, c.prefill_utilization),
        ("decode_step_ms", r.decode_step_ms, c.decode_step_ms),
        ("decode_batch", r.decode_batch, c.decode_batch),
        ("decode_slots", r.decode_slots, c.decode_slots),
        ("kv_transfer_bytes", r.kv_transfer_bytes, c.kv_transfer_bytes),
    ];
    for (name, safe, raw) in pairs {
        assert_eq!(safe.to_bits(), raw.to_bits(), "{name}: wrapper {safe}, C {raw}");
    }
    assert_eq!(
        (r.transfer_over_network, r.prefill_gpus, r.decode_gpus),
        (c.transfer_over_network != 0, c.prefill_gpus, c.decode_gpus)
    );
}
