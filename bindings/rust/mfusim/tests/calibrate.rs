//! Fitting calibrations (calibrate_steps / calibrate_kernels), as tests/c/c_api_test.c's test_calibrate: steps
//! timed by a "true" model whose GEMMs run 1.5x slower are fitted back, the document applied through
//! Options::calibration reproduces them, and bad input fails with the library's status and message.
use mfusim::{calibrate_kernels, calibrate_steps, Estimator, Options, Request, Status};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A directory of its own under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("mfusim_rust_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn steps_are_fitted_back() {
    let truth = Estimator::new(
        &Options::new("qwen3-8b", "H100").calibration(r#"{"mfusim_calibration": 1, "efficiency": {"gemm": 1.5}}"#),
    )
    .unwrap();
    let dir = TempDir::new("steps");
    let path = dir.0.join("steps.jsonl");
    let mut text = String::from("{\"model\": \"qwen3-8b\", \"gpu\": \"H100\"}\n");
    for i in 0..64i64 {
        let step = [Request::new(1 + (i % 4) * 170, 256 * (i % 8), 0), Request::decode(500 + 37 * i)];
        let t = truth.step_time(&step).unwrap();
        writeln!(
            text,
            r#"{{"requests": [{{"new_tokens": {}, "context": {}}}, {{"new_tokens": 1, "context": {}}}], "measured_us": {t:?}, "group": "g{}"}}"#,
            step[0].new_tokens,
            step[0].context,
            step[1].context,
            i % 4
        )
        .unwrap();
    }
    std::fs::write(&path, text).unwrap();

    // Model and GPU from the file's header.
    let fit = calibrate_steps(&path, &Options::new("", ""), 0).unwrap();
    assert!(fit.improved, "{}", fit.report);
    assert!(fit.document.contains("\"mfusim_calibration\""), "{}", fit.document);
    assert!(fit.report.contains("held out"), "{}", fit.report);
    let fitted = Estimator::new(&Options::new("qwen3-8b", "H100").calibration(fit.document.clone())).unwrap();
    let probe = [Request::new(300, 1000, 0), Request::decode(4000), Request::decode(90)];
    let (t_truth, t_fitted) = (truth.step_time(&probe).unwrap(), fitted.step_time(&probe).unwrap());
    assert!((t_fitted / t_truth - 1.0).abs() < 0.03, "fitted {t_fitted} us, truth {t_truth} us");

    let e = calibrate_steps(&path, &Options::new("", ""), 1).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("folds"), "{e}");
    let e = calibrate_steps(Path::new("/nonexistent/steps.jsonl"), &Options::new("", ""), 0).unwrap_err();
    assert_eq!(e.status(), Status::Io);
    assert!(e.message().contains("/nonexistent/steps.jsonl"), "{e}");
    let e = calibrate_steps(Path::new("steps\0.jsonl"), &Options::new("", ""), 0).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
}

#[test]
fn kernels_are_fitted() {
    // A few GEMM rows measured on an "A100" (AIConfigurator layout: m, n, k, latency in ms).
    let dir = TempDir::new("kernels");
    let mut csv = String::from("m,n,k,latency\n");
    for i in 0..48u32 {
        let (n, k, m) = (1024u64 << (i % 4), 2048u64 << ((i / 4) % 3), 1u64 << (i / 12 * 3));
        let (m, n, k) = (m as f64, n as f64, k as f64);
        let ms = 0.004 + 2.0 * m * n * k / 200e12 * 1e3 + 2.0 * n * k / 1.4e12 * 1e3;
        writeln!(csv, "{m},{n},{k},{ms:.6}").unwrap();
    }
    std::fs::write(dir.0.join("gemm_bf16.csv"), csv).unwrap();

    let fit = calibrate_kernels(&dir.0, &Options::new("", "A100")).unwrap();
    assert!(fit.document.contains("\"gpu\""), "{}", fit.document);
    assert!(fit.report.contains("gemm"), "{}", fit.report);

    let e = calibrate_kernels(&dir.0, &Options::new("", "")).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("options.gpu"), "{e}");
    let e = calibrate_kernels(Path::new("/nonexistent/kernels"), &Options::new("", "A100")).unwrap_err();
    assert!(e.message().contains("/nonexistent/kernels"), "{e}");
}

/// A string holding a NUL is refused naming it (CString), never passed cut at the NUL (issue #23).
#[test]
fn strings_with_a_nul_are_refused() {
    let err = Estimator::new(&Options::new("qwen3-8b\0junk", "H100")).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("NUL"), "{}", err.message());
    let err = calibrate_steps(Path::new("steps\0.jsonl"), &Options::new("", ""), 0).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("steps_path contains a NUL byte"), "{}", err.message());
}

/// The default tensor_parallel (1) against a header naming tp 2 is refused; 0 takes the header's.
#[test]
fn tensor_parallel_against_the_header() {
    let dir = TempDir::new("tp_header");
    let steps = dir.0.join("steps.jsonl");
    std::fs::write(
        &steps,
        "{\"model\": \"qwen3-8b\", \"gpu\": \"H100\", \"tp\": 2}\n\
         {\"requests\": [{\"new_tokens\": 1, \"context\": 10}], \"measured_us\": 5000}\n",
    )
    .unwrap();
    let err = calibrate_steps(&steps, &Options::new("", ""), 0).unwrap_err();
    assert!(err.message().contains("header says tp 2"), "{}", err.message());
    let mut options = Options::new("", "");
    options.tensor_parallel = 0;
    let cal = calibrate_steps(&steps, &options, 0).unwrap();
    assert!(cal.document.contains("\"tp\": 2"), "{}", cal.document);
}
