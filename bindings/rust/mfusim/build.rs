//! Gives this crate's tests and benchmarks an rpath to the libmfusim that mfusim-sys found, so they run
//! without LD_LIBRARY_PATH (cargo does not pass a dependency's link arguments on).
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_MFUSIM_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_MFUSIM_LIB_DIR") {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{dir}");
        println!("cargo:rustc-link-arg-benches=-Wl,-rpath,{dir}");
    }
}
