mod common;

use common::*;
use mfusim::{LengthDistribution, Metric, Simulation, Status, TraceRequest};

fn small() -> Simulation {
    Simulation {
        num_prompts: 24,
        warmup: 2,
        max_concurrency: 4,
        input_distribution: LengthDistribution::Uniform,
        input_len: 256.0,
        input_spread: 64.0,
        output_len: 16.0,
        seed: 7,
        ..Simulation::default()
    }
}

#[test]
fn simulate_summary_requests_determinism_errors() {
    let defaults = Simulation::default();
    assert_eq!(defaults.num_prompts, 1000);
    assert!(defaults.request_rate.is_infinite());
    let est = roofline();
    let r = est.simulate(&Simulation { record_timeline: true, ..small() }).unwrap();
    let s = r.summary().unwrap();
    assert_eq!(s.completed, 22);
    assert_eq!(s.total_output_tokens, 22 * 16);
    assert!(s.ttft_ms.mean > 0.0 && s.itl_ms.mean > 0.0 && s.e2el_ms.mean > s.ttft_ms.mean);
    let reqs = r.requests();
    assert_eq!(reqs.len(), 24);
    assert_eq!((reqs[0].warmup, reqs[2].warmup), (1, 0));
    assert!(reqs.iter().all(|q| (192..=320).contains(&q.input_len) && q.output_len == 16));
    assert_eq!(r.timeline().len() as i64, s.steps);
    assert_eq!(r.percentile(Metric::Ttft, 50.0).unwrap(), s.ttft_ms.median);
    assert_eq!(r.percentile(Metric::Itl, 99.0).unwrap(), s.itl_ms.p99);
    assert_eq!(r.percentile(Metric::E2el, 101.0).unwrap_err().status(), Status::InvalidArgument);

    // Determinism, from another thread too (the result is Send).
    let again = std::thread::scope(|scope| scope.spawn(|| est.simulate(&small()).unwrap()).join().unwrap());
    assert_eq!(again.requests(), reqs);
    assert!(again.timeline().is_empty());

    let traced = est
        .simulate(&Simulation {
            trace: vec![
                TraceRequest { arrival_s: 0.0, input_len: 128, output_len: 8, prefix_id: -1, prefix_len: 0 },
                TraceRequest { arrival_s: 0.01, input_len: 256, output_len: 4, prefix_id: 1, prefix_len: 64 },
            ],
            ..Simulation::default()
        })
        .unwrap();
    assert_eq!(traced.requests().len(), 2);

    let err = est.simulate(&Simulation { num_prompts: 0, ..small() }).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("num_prompts"), "{err}");
    let err = compat().simulate(&small()).unwrap_err();
    assert_eq!(err.status(), Status::Unsupported);
}
