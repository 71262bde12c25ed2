//! mfusim::sweep: the points of `mfusim sweep` (mfusim_sweep), each the estimate of its own step or workload.
use mfusim::{sweep, Estimator, Options, Request, Serving, Status, SweepParam, SweepRequest};

fn values(v: &[i64]) -> Vec<String> {
    v.iter().map(i64::to_string).collect()
}

#[test]
fn serving_sweep_is_monotone_in_concurrency() {
    let serving = Serving { input_len: 1024, output_len: 128, ..Serving::default() };
    let request = SweepRequest {
        serving: true,
        vary: SweepParam::Concurrency,
        vary_values: values(&[1, 2, 4, 8, 16, 32]),
        ..SweepRequest::default()
    };
    let s = sweep(&Options::new("llama-3.1-8b-instruct", "H100"), &serving, &request).unwrap();
    assert_eq!(s.rows.len(), 6);
    assert!(s.rows.iter().all(|r| r.ok == 1 && r.step_ms == 0.0), "{:?}", s.errors);
    for (i, pair) in s.rows.windows(2).enumerate() {
        assert_eq!(pair[1].vary_index as usize, i + 1);
        // More requests in flight share each step: every request waits longer, the GPU produces more.
        assert!(pair[1].tpot_ms >= pair[0].tpot_ms, "TPOT falls from point {i}: {:?}", pair);
        assert!(pair[1].output_tok_s_gpu > pair[0].output_tok_s_gpu, "throughput falls from point {i}: {:?}", pair);
    }
    let est = Estimator::new(&Options::new("llama-3.1-8b-instruct", "H100")).unwrap();
    let served = est.serving_estimate(&Serving { concurrency: 8, ..serving }).unwrap();
    assert_eq!((s.rows[3].ttft_ms, s.rows[3].tpot_ms), (served.ttft_ms, served.tpot_ms));
}

#[test]
fn step_sweep_rows_are_step_times_series_major() {
    let request = SweepRequest {
        vary: SweepParam::DecodeBatch,
        vary_values: values(&[1, 16, 128]),
        series: Some((SweepParam::Tp, values(&[1, 2]))),
        context: 4096,
        ..SweepRequest::default()
    };
    let s = sweep(&Options::new("llama-3.1-8b-instruct", "H100"), &Serving::default(), &request).unwrap();
    assert_eq!(s.rows.len(), 6);
    for (i, row) in s.rows.iter().enumerate() {
        assert_eq!((row.vary_index as usize, row.series_index as usize), (i % 3, i / 3));
        assert!(row.ok == 1 && row.step_ms > 0.0 && !s.details[i].is_empty() && s.errors[i].is_empty());
    }
    for series in s.rows.chunks(3) {
        assert!(series[0].step_ms <= series[1].step_ms && series[1].step_ms <= series[2].step_ms, "{series:?}");
    }
    let mut o = Options::new("llama-3.1-8b-instruct", "H100");
    o.tensor_parallel = 2;
    let us = Estimator::new(&o).unwrap().step_time(&[Request::decode(4096); 16]).unwrap();
    assert_eq!(s.rows[4].step_ms, us / 1000.0);
}

#[test]
fn bad_sweeps_name_the_field() {
    let options = Options::new("llama-3.1-8b-instruct", "H100");
    let step_of_concurrency =
        SweepRequest { vary: SweepParam::Concurrency, vary_values: values(&[1]), ..SweepRequest::default() };
    let err = sweep(&options, &Serving::default(), &step_of_concurrency).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("concurrency"), "{}", err.message());
    let negative = SweepRequest { vary_values: values(&[-1]), ..SweepRequest::default() };
    let err = sweep(&options, &Serving::default(), &negative).unwrap_err();
    assert!(err.status() == Status::InvalidArgument && err.message().contains("decode-batch"), "{}", err.message());
    let empty = SweepRequest::default();
    let err = sweep(&options, &Serving::default(), &empty).unwrap_err();
    assert!(err.status() == Status::InvalidArgument && err.message().contains("vary_values"), "{}", err.message());
}
