//! The configurations and steps every binding tests and benchmarks (bindings/README.md, "Shared fixtures").
#![allow(dead_code)]
use mfusim::{Estimator, Mode, Options, Request};

pub fn roofline() -> Estimator {
    Estimator::new(&Options::new("llama-3.1-8b-instruct", "H100")).expect("roofline estimator")
}

pub fn compat() -> Estimator {
    Estimator::new(&Options::new("qwen3-8b", "H20").mode(Mode::InferSim)).expect("compat estimator")
}

/// 4 prefill chunks of 512 over 0/1024/2048/3072 cached tokens (even ones not their prompt's last), then decodes
/// over 256 + (i*97 mod 8192) tokens.
pub fn mixed_step(n: usize) -> Vec<Request> {
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

pub fn decode_step() -> Vec<Request> {
    vec![Request::decode(2048)]
}
