//! Puts the directory ctorch-sys linked libctorch from into the rpath of this crate's tests,
//! examples and benchmarks, so they run without LD_LIBRARY_PATH when linked with libctorch.so
//! (`--no-default-features`). A program depending on ctorch links libctorch.a by default; linked
//! with libctorch.so, it finds it the usual way (installed, rpath, or LD_LIBRARY_PATH).
fn main() {
    if let Ok(dir) = std::env::var("DEP_CTORCH_LIBDIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
