//! A third party's first program: depends on `mfusim` only (default features: bundled, static).
use mfusim::{Estimator, Op, Options, Request, Serving, StepResult};

fn main() -> Result<(), mfusim::Error> {
    let est = Estimator::new(&Options::new("llama-3.1-8b-instruct", "H100"))?;
    let us = est.step_time(&[Request::decode(2048)])?;
    assert!(us > 0.0);
    let mut detail = StepResult::default();
    est.step_detail(&[Request::prefill(512, 0, true), Request::decode(2048)], &mut detail)?;
    let top = detail.ops().max_by(|a, b| a.time_us().total_cmp(&b.time_us())).expect("operations");
    let serving = est.serving_estimate(&Serving::default())?;
    println!(
        "libmfusim {} (Rust, bundled): decode step {us:.3} us; mixed step {:.3} us, largest {} ({}, {}); \
         qkv_proj {:.3} us; serving TTFT {:.3} ms, TPOT {:.3} ms",
        mfusim::version(),
        detail.total_us(),
        top.name(),
        top.bound(),
        top.source(),
        detail.op(Op::QkvProj).map_or(0.0, |d| d.time_us()),
        serving.ttft_ms,
        serving.tpot_ms
    );
    Ok(())
}
