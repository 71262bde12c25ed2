//! Finds libmfusim and tells cargo how to link it.
//!
//! Order: `MFUSIM_LIB_DIR` (with `MFUSIM_INCLUDE_DIR`, default `$MFUSIM_LIB_DIR/../include`), else pkg-config
//! (`PKG_CONFIG_PATH=<prefix>/lib/pkgconfig`, or `<build>/pkgconfig-uninstalled` for a build tree). The library
//! directory is exported to dependents as `DEP_MFUSIM_LIB_DIR` (the `links` metadata) so that their tests and
//! binaries can carry an rpath to it; this crate's own targets get one here.
//!
//! It also compiles csrc/layout.c, a tiny C helper reporting the sizes and offsets of the header's structs, which
//! the layout test compares with the Rust declarations (linked only where referenced, i.e. by the tests).
use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=MFUSIM_LIB_DIR");
    println!("cargo:rerun-if-env-changed=MFUSIM_INCLUDE_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=csrc/layout.c");

    let (lib_dir, include_dirs) = match env::var_os("MFUSIM_LIB_DIR") {
        Some(dir) => {
            let lib_dir = PathBuf::from(dir);
            let include =
                env::var_os("MFUSIM_INCLUDE_DIR").map(PathBuf::from).unwrap_or_else(|| lib_dir.join("../include"));
            println!("cargo:rustc-link-search=native={}", lib_dir.display());
            println!("cargo:rustc-link-lib=dylib=mfusim");
            (lib_dir, vec![include])
        }
        None => match pkg_config::Config::new().atleast_version("1.0").probe("mfusim") {
            Ok(lib) => {
                let lib_dir = lib.link_paths.first().cloned().unwrap_or_default();
                (lib_dir, lib.include_paths)
            }
            Err(e) => panic!(
                "libmfusim not found: set MFUSIM_LIB_DIR to the directory holding libmfusim.so, or PKG_CONFIG_PATH \
                 to <prefix>/lib/pkgconfig (installed) or <build>/pkgconfig-uninstalled (build tree).\n{e}"
            ),
        },
    };
    if !lib_dir.as_os_str().is_empty() {
        println!("cargo:lib_dir={}", lib_dir.display());
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
    }

    let mut build = cc::Build::new();
    build.file("csrc/layout.c").warnings(true).extra_warnings(true).warnings_into_errors(true);
    for dir in &include_dirs {
        build.include(dir);
    }
    build.compile("mfusim_sys_layout");
}
