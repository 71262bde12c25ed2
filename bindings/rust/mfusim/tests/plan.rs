//! mfusim::plan: the rows of `mfusim plan` (mfusim_plan), each the serving estimate of its deployment.
use mfusim::{plan, Estimator, Options, PlanRequest, Serving, Status};

#[test]
fn plan_rows_are_serving_estimates_and_the_best_is_the_fastest_within_the_limits() {
    let serving = Serving { input_len: 1024, output_len: 128, ..Serving::default() };
    let request = PlanRequest {
        gpus: vec!["H100".into(), "H200".into()],
        tp_list: vec![1, 2],
        max_concurrency: 16,
        max_tpot_ms: Some(10.0),
        ..PlanRequest::default()
    };
    let options = Options::new("llama-3.1-8b-instruct", "");
    let p = plan(&options, &serving, &request).unwrap();
    assert_eq!(p.rows.len(), 20);
    assert_eq!(p.gpus.len(), 2);
    for (g, gpu) in p.gpus.iter().enumerate() {
        let best = p
            .rows
            .iter()
            .filter(|r| r.gpu_index as usize == g && r.meets_limits == 1)
            .map(|r| r.output_tok_s_gpu)
            .fold(f64::MIN, f64::max);
        let row = &p.rows[gpu.best_row.expect("a deployment meets the limits")];
        assert_eq!(row.best, 1);
        assert_eq!(row.output_tok_s_gpu, best, "{}", gpu.name);
    }
    let row = p.rows[13];
    let mut o = Options::new("llama-3.1-8b-instruct", "H200");
    o.tensor_parallel = row.tp as i32;
    let served =
        Estimator::new(&o).unwrap().serving_estimate(&Serving { concurrency: row.concurrency, ..serving }).unwrap();
    assert_eq!((served.ttft_ms, served.tpot_ms), (row.ttft_ms, row.tpot_ms));

    let bad = PlanRequest { gpus: vec!["no-such-gpu".into()], ..request };
    assert_eq!(plan(&options, &serving, &bad).unwrap_err().status(), Status::UnknownName);
}
