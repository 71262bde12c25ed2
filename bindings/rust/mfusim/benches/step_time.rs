//! Per-call cost of the Rust binding on the shared fixtures (bindings/README.md), as medians of repeated timed
//! runs; prints `rust <case> <ns>` lines that bindings/bench_all.sh tabulates. A plain harness (no criterion) keeps
//! the build light. Run: cargo bench -p mfusim [-- --quick]
use mfusim::{Estimator, Options, Request};
use std::hint::black_box;
use std::time::Instant;

fn mixed_step(n: usize) -> Vec<Request> {
    (0..n)
        .map(|i| {
            if i < 4 {
                Request::prefill(512, 1024 * i as i64, i % 2 == 1)
            } else {
                Request::decode(256 + ((i * 97) % 8192) as i64)
            }
        })
        .collect()
}

/// Median over `runs` runs of the time per unit, where one call of `f` does `units` units.
fn median_ns(runs: usize, iters: usize, units: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..iters / 10 + 1 {
        f();
    }
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed().as_nanos() as f64 / iters as f64 / units as f64
        })
        .collect();
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[runs / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (runs, scale) = if quick { (3, 1) } else { (9, 10) };
    let est = Estimator::new(&Options::new("llama-3.1-8b-instruct", "H100")).expect("estimator");
    let one = vec![Request::decode(2048)];
    let mixed = mixed_step(256);

    let single = |reqs: &[Request], iters: usize| {
        median_ns(runs, iters, 1, || {
            black_box(est.step_time(black_box(reqs)).unwrap());
        })
    };
    println!("rust single_1 {:.1}", single(&one, 20_000 * scale));
    println!("rust single_256 {:.1}", single(&mixed, 2_000 * scale));

    let batch = |step: &[Request], n_steps: usize, iters: usize| {
        let reqs: Vec<Request> = (0..n_steps).flat_map(|_| step.iter().copied()).collect();
        let sizes = vec![step.len() as i64; n_steps];
        let mut out = vec![0.0; n_steps];
        median_ns(runs, iters, n_steps, || {
            est.step_time_batch(black_box(&reqs), &sizes, &mut out).unwrap();
            black_box(&out);
        })
    };
    println!("rust batch_1x1000_per_step {:.2}", batch(&one, 1000, 20 * scale));
    println!("rust batch_256x64_per_step {:.1}", batch(&mixed, 64, 30 * scale));
}
