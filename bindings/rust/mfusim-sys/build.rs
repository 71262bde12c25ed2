//! Finds or builds libmfusim and tells cargo how to link it.
//!
//! Order:
//! 1. `DOCS_RS` set (docs.rs): nothing is linked or compiled; the declarations document themselves.
//! 2. `MFUSIM_LIB_DIR` set: the shared libmfusim in that directory (headers in `MFUSIM_INCLUDE_DIR`, default
//!    `$MFUSIM_LIB_DIR/../include`), whatever the features.
//! 3. Feature `bundled` (the default of both crates): the C++ library is built with CMake from the sources
//!    packaged in this crate (`bundled/libmfusim`: symbolic links into the repository, committed, which `cargo
//!    package` follows, so a packaged crate always carries the sources it builds; nlohmann/json comes with them
//!    in `third_party/`). libmfusim is linked statically; the C++ runtime dynamically (`libstdc++.so`, or
//!    `libc++` on Apple and FreeBSD), as for any Rust program using C++: one copy of it per process.
//!    `MFUSIM_NO_BUNDLED=1` falls through to 4.
//! 4. pkg-config (`PKG_CONFIG_PATH=<prefix>/lib/pkgconfig`, or `<build>/pkgconfig-uninstalled` for a build tree).
//!
//! A shared library's directory is exported to dependents as `DEP_MFUSIM_LIB_DIR` (the `links` metadata) so that
//! their tests and binaries can carry an rpath to it; this crate's own targets get one here. A static (bundled)
//! build needs none.
//!
//! It also compiles csrc/layout.c, a tiny C helper reporting the sizes and offsets of the header's structs, which
//! the layout test compares with the Rust declarations (linked only where referenced, i.e. by the tests).
use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    println!("cargo:rerun-if-env-changed=MFUSIM_LIB_DIR");
    println!("cargo:rerun-if-env-changed=MFUSIM_INCLUDE_DIR");
    println!("cargo:rerun-if-env-changed=MFUSIM_NO_BUNDLED");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=csrc/layout.c");
    if env::var_os("DOCS_RS").is_some() {
        return;
    }

    let bundled =
        cfg!(feature = "bundled") && env::var_os("MFUSIM_NO_BUNDLED").map_or(true, |v| v.is_empty() || v == "0");
    let include_dirs = if let Some(dir) = env::var_os("MFUSIM_LIB_DIR") {
        let lib_dir = PathBuf::from(dir);
        let include =
            env::var_os("MFUSIM_INCLUDE_DIR").map(PathBuf::from).unwrap_or_else(|| lib_dir.join("../include"));
        println!("cargo:rustc-link-search=native={}", lib_dir.display());
        println!("cargo:rustc-link-lib=dylib=mfusim");
        shared_lib_dir(&lib_dir);
        vec![include]
    } else if bundled {
        build_bundled()
    } else {
        match pkg_config::Config::new().atleast_version("1.0").probe("mfusim") {
            Ok(lib) => {
                if let Some(dir) = lib.link_paths.first() {
                    shared_lib_dir(dir);
                }
                lib.include_paths
            }
            Err(e) => panic!(
                "libmfusim not found. Either enable the `bundled` feature (builds it from this crate's sources: \
                 needs CMake and a C++20 compiler), or set MFUSIM_LIB_DIR to the directory holding libmfusim.so, \
                 or PKG_CONFIG_PATH to <prefix>/lib/pkgconfig (installed) or <build>/pkgconfig-uninstalled (build \
                 tree).\n{e}"
            ),
        }
    };

    let mut build = cc::Build::new();
    build.file("csrc/layout.c").warnings(true).extra_warnings(true).warnings_into_errors(true);
    for dir in &include_dirs {
        build.include(dir);
        // The layout helper reports the header's structs: a changed header must rebuild it, or the layout test
        // compares the Rust declarations with a stale C layout.
        println!("cargo:rerun-if-changed={}", dir.join("mfusim.h").display());
    }
    build.compile("mfusim_sys_layout");
}

/// Rpath and `links` metadata for a shared libmfusim in `dir`.
fn shared_lib_dir(dir: &Path) {
    if !dir.as_os_str().is_empty() {
        println!("cargo:lib_dir={}", dir.display());
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
}

/// Builds libmfusim.a with CMake from the packaged sources and links it statically; returns the include dirs.
#[cfg(feature = "bundled")]
fn build_bundled() -> Vec<PathBuf> {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    // In a repository checkout these are links into the repository; in a packaged crate, the files themselves.
    let source = manifest.join("bundled/libmfusim");
    let nlohmann = source.join("third_party/nlohmann_json/include");
    for needed in ["CMakeLists.txt", "include/mfusim.h", "src/CMakeLists.txt"] {
        if !source.join(needed).is_file() {
            panic!(
                "the `bundled` feature needs libmfusim's C++ sources, but {} is missing: this copy of mfusim-sys was \
                 packaged without bundled/libmfusim (a checkout without symbolic links?). Use a published crate, or \
                 disable the feature and link a system libmfusim (MFUSIM_LIB_DIR or pkg-config).",
                source.join(needed).display()
            );
        }
    }
    println!("cargo:rerun-if-changed={}", source.join("src").display());
    println!("cargo:rerun-if-changed={}", source.join("include").display());
    println!("cargo:rerun-if-changed={}", source.join("CMakeLists.txt").display());

    let mut cfg = cmake::Config::new(&source);
    cfg.define("MFUSIM_BUILD_TESTS", "OFF")
        .define("MFUSIM_BUILD_BENCHMARKS", "OFF")
        .define("MFUSIM_BUILD_BINDINGS", "OFF")
        .define("MFUSIM_BUILD_CLI", "OFF")
        .define("MFUSIM_BUILD_STATIC", "ON")
        // A user's compiler may warn where ours does not: never fail their build for it.
        .define("MFUSIM_WERROR", "OFF")
        .build_target("mfusim_static");
    // The packaged nlohmann/json, always: the same headers whatever the machine has installed.
    cfg.define("MFUSIM_NLOHMANN_INCLUDE_DIR", &nlohmann);
    // Debug C++ is far slower than the optimised build, and cargo builds dependencies in its dev profile by
    // default: build the library optimised unless asked otherwise (MFUSIM_BUNDLED_PROFILE=Debug).
    println!("cargo:rerun-if-env-changed=MFUSIM_BUNDLED_PROFILE");
    cfg.profile(&env::var("MFUSIM_BUNDLED_PROFILE").unwrap_or_else(|_| "Release".into()));
    let dst = cfg.build();
    println!("cargo:rustc-link-search=native={}", dst.join("build/src").display());
    println!("cargo:rustc-link-lib=static=mfusim");
    // libmfusim.a is C++: its runtime is linked dynamically (see the top of this file).
    let target = env::var("TARGET").unwrap_or_default();
    if target.contains("apple") || target.contains("freebsd") {
        println!("cargo:rustc-link-lib=dylib=c++");
    } else if !target.contains("msvc") {
        println!("cargo:rustc-link-lib=dylib=stdc++");
    }
    println!("cargo:static=1");
    vec![source.join("include")]
}

#[cfg(not(feature = "bundled"))]
fn build_bundled() -> Vec<PathBuf> {
    unreachable!("bundled is only chosen with the feature on")
}
