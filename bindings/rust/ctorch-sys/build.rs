//! Finds libctorch and links it: statically with the `static` feature (the default, so that a
//! program runs without finding a shared library), dynamically without it.
//!
//! Where it looks, first match wins:
//! 1. `CTORCH_DIR`: an absolute path to a directory holding the library, or to an install prefix
//!    with `lib/` under it.
//! 2. pkg-config's `ctorch` package (an installed ctorch, or `PKG_CONFIG_PATH` pointing at one).
//! 3. The repository's own CMake build, `build/src` beside this crate's `bindings/rust`.
//!
//! The directory is passed on to dependents as `DEP_CTORCH_LIBDIR`, so a crate's own build script
//! can put it in an rpath (the `ctorch` crate does, for its tests and examples).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn library_name(static_link: bool) -> &'static str {
    if static_link {
        "libctorch.a"
    } else if cfg!(target_os = "macos") {
        "libctorch.dylib"
    } else {
        "libctorch.so"
    }
}

fn from_ctorch_dir(name: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env::var_os("CTORCH_DIR")?);
    // A build script runs in its package's directory, not the caller's: relative paths mislead.
    if dir.is_relative() {
        panic!("CTORCH_DIR={} is relative: give an absolute path", dir.display());
    }
    [dir.join("lib"), dir.join("src"), dir.clone()].into_iter().find(|d| d.join(name).exists()).or_else(|| {
        panic!("CTORCH_DIR={} holds no {name} (looked in lib/, src/ and the directory itself)", dir.display())
    })
}

fn from_pkg_config(name: &str) -> Option<PathBuf> {
    let out = Command::new("pkg-config").args(["--variable=libdir", "ctorch"]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    dir.join(name).exists().then_some(dir)
}

fn from_repository(name: &str) -> Option<PathBuf> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").ok()?);
    let dir = manifest.join("../../../build/src").canonicalize().ok()?;
    dir.join(name).exists().then_some(dir)
}

fn main() {
    println!("cargo:rerun-if-env-changed=CTORCH_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");
    let static_link = env::var_os("CARGO_FEATURE_STATIC").is_some();
    let name = library_name(static_link);
    let dir = from_ctorch_dir(name).or_else(|| from_pkg_config(name)).or_else(|| from_repository(name));
    let Some(dir) = dir else {
        panic!(
            "ctorch-sys: {name} not found. Build ctorch (scripts/setup.sh builds build/src), install it where \
             pkg-config finds ctorch.pc, or set CTORCH_DIR to the directory holding it."
        );
    };
    println!("cargo:rerun-if-changed={}", Path::new(&dir).join(name).display());
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:libdir={}", dir.display());
    if static_link {
        println!("cargo:rustc-link-lib=static=ctorch");
        // What libctorch.a itself links against (ctorch.pc's Libs.private and Requires.private).
        for lib in ["openblas", "stdc++", "m", "pthread", "dl"] {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    } else {
        println!("cargo:rustc-link-lib=dylib=ctorch");
        // The crate's own tests find the library without LD_LIBRARY_PATH.
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
}
