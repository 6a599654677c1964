//! The profiler: operators run while it records appear in its Chrome trace, by name.
//!
//! One profiler runs per process and these tests run on parallel threads, so each holds PROFILER.

use std::sync::{Mutex, MutexGuard};

use ctorch::profiler::{self, Profiler};
use ctorch::{ErrorKind, Tensor};

static PROFILER: Mutex<()> = Mutex::new(());

fn exclusive() -> MutexGuard<'static, ()> {
    PROFILER.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn operators_appear_in_the_trace() {
    let _g = exclusive();
    let x = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let w = Tensor::from_slice(&[0.5f32, -1.0, 2.0]);
    assert!(!profiler::is_running());
    let p = Profiler::start().unwrap();
    assert!(profiler::is_running());
    let y = x.matmul(&w).unwrap().relu().unwrap();
    let trace = p.stop().unwrap();
    assert!(!profiler::is_running());
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![4.5, 9.0]);
    assert!(trace.starts_with("{\"traceEvents\":["), "{trace}");
    for name in ["\"name\":\"matmul\"", "\"name\":\"relu\"", "\"input_shapes\":[[2,3],[3]]"] {
        assert!(trace.contains(name), "{name} missing from {trace}");
    }
    // A new profiler starts without the spans of the last one.
    let p = Profiler::start().unwrap();
    let trace = p.stop().unwrap();
    assert!(!trace.contains("\"name\":\"relu\""), "{trace}");
}

#[test]
fn one_profiler_at_a_time() {
    let _g = exclusive();
    let p = Profiler::start().unwrap();
    let e = Profiler::start().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("already running"), "{e}");
    // Dropping a running profiler stops it; a new one can start.
    drop(p);
    assert!(!profiler::is_running());
    Profiler::start().unwrap().stop().unwrap();
}

#[test]
fn stop_to_file_writes_the_trace() {
    let _g = exclusive();
    let dir = std::env::temp_dir().join(format!("ctorch-profiler-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trace.json");

    let mut p = Profiler::start().unwrap();
    Tensor::ones(&[4]).unwrap().exp().unwrap();
    // A directory that does not exist: the file cannot be created, and the profiler keeps running.
    let e = p.stop_to_file(dir.join("missing").join("trace.json")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.message().contains("missing"), "{e}");
    assert!(profiler::is_running());
    p.stop_to_file(&path).unwrap();
    assert!(!profiler::is_running());
    let trace = std::fs::read_to_string(&path).unwrap();
    assert!(trace.contains("\"name\":\"exp\""), "{trace}");
    // This profiler has stopped: stopping it again is refused, and its drop stops nobody else's.
    assert_eq!(p.stop_to_file(&path).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let other = Profiler::start().unwrap();
    drop(p);
    assert!(profiler::is_running());
    other.stop().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
