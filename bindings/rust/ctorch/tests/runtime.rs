//! Runtime switches: seeds and generators, determinism, threads, precision, default dtype and
//! device, the log and memory-pressure handlers.
//!
//! The switches are process-wide and the tests of this file run on parallel threads, so every test
//! that flips one holds SWITCHES and restores what it changed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ctorch::runtime::{self, DebugMode, LogLevel, MatmulPrecision};
use ctorch::{profiler, DType, Device, DeviceType, ErrorKind, Generator, Tensor};

static SWITCHES: Mutex<()> = Mutex::new(());

fn switches() -> MutexGuard<'static, ()> {
    // A failed test must not fail the others with a poisoned lock.
    SWITCHES.lock().unwrap_or_else(|e| e.into_inner())
}

fn bits(t: &Tensor) -> Vec<u32> {
    t.to_vec::<f32>().unwrap().into_iter().map(f32::to_bits).collect()
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

#[test]
fn same_seed_same_bits() {
    let _g = switches();
    runtime::manual_seed(2024).unwrap();
    assert_eq!(runtime::initial_seed(), 2024);
    let (a, an) = (Tensor::rand(&[64]).unwrap(), Tensor::randn(&[3, 5]).unwrap());
    runtime::manual_seed(2024).unwrap();
    let (b, bn) = (Tensor::rand(&[64]).unwrap(), Tensor::randn(&[3, 5]).unwrap());
    assert_eq!(bits(&a), bits(&b));
    assert_eq!(bits(&an), bits(&bn));
    assert!(a.to_vec::<f32>().unwrap().iter().all(|v| (0.0..1.0).contains(v)));
    runtime::manual_seed(2025).unwrap();
    assert_ne!(bits(&Tensor::rand(&[64]).unwrap()), bits(&a), "another seed gives other numbers");
}

#[test]
fn generator_state_replays_draws() {
    let g = Generator::new(Device::CPU).unwrap();
    g.manual_seed(7).unwrap();
    assert_eq!((g.initial_seed(), g.offset()), (7, 0));
    let state = g.state().unwrap();
    let first = g.randint(0, 10, &[2, 3], None, None).unwrap();
    assert_eq!(first.dtype(), DType::Int64);
    assert!(g.offset() > 0, "a draw advances the offset");
    g.set_state(&state).unwrap();
    assert_eq!(g.offset(), 0);
    assert_eq!(g.randint(0, 10, &[2, 3], None, None).unwrap().to_vec::<i64>().unwrap(), first.to_vec::<i64>().unwrap());

    // Offsets replay too: draw, rewind, draw again.
    let x = g.randn(&[8], Some(DType::Float32), None).unwrap();
    g.set_offset(g.offset() - 2).unwrap();
    assert_eq!(bits(&g.randn(&[8], Some(DType::Float32), None).unwrap()), bits(&x));

    let e = g.set_state(&state[..10]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("24 bytes, got 10"), "{e}");
    let e = g.set_state(&[0xff; 24]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format, "{e}");
    assert_eq!(g.initial_seed(), 7, "a rejected state leaves the generator unchanged");
}

#[test]
fn explicit_generator_is_independent_of_the_default() {
    let _g = switches();
    let g = Generator::new(Device::CPU).unwrap();
    g.manual_seed(99).unwrap();
    let mine = g.rand(&[16], None, None).unwrap();
    // Draws from the default generator in between do not move this one.
    g.manual_seed(99).unwrap();
    runtime::manual_seed(1).unwrap();
    let _ = Tensor::rand(&[1000]).unwrap();
    assert_eq!(bits(&g.rand(&[16], None, None).unwrap()), bits(&mine));
    // And drawing with it leaves the default generator where it was.
    runtime::manual_seed(1).unwrap();
    let expected = Tensor::rand(&[4]).unwrap();
    runtime::manual_seed(1).unwrap();
    let _ = g.rand(&[1000], None, None).unwrap();
    assert_eq!(bits(&Tensor::rand(&[4]).unwrap()), bits(&expected));

    // The default generator's handle seeds what operators use without a generator.
    let default = Generator::default_for(Device::CPU).unwrap();
    default.manual_seed(5).unwrap();
    assert_eq!(runtime::initial_seed(), 5);
    let from_handle = default.rand(&[4], None, None).unwrap();
    default.manual_seed(5).unwrap();
    assert_eq!(bits(&Tensor::rand(&[4]).unwrap()), bits(&from_handle));

    assert_eq!(Generator::new(Device::META).unwrap_err().kind(), ErrorKind::Device);
}

#[test]
fn generator_draws() {
    let _g = switches(); // the default dtype decides what zeros and ones give
    let g = Generator::new(Device::CPU).unwrap();
    g.manual_seed(3).unwrap();
    let mut perm = g.randperm(10, None, None).unwrap().to_vec::<i64>().unwrap();
    perm.sort();
    assert_eq!(perm, (0..10).collect::<Vec<_>>());

    let w = Tensor::zeros(&[1000]).unwrap();
    g.uniform_(&w, -2.0, -1.0).unwrap();
    assert!(w.to_vec::<f32>().unwrap().iter().all(|v| (-2.0..-1.0).contains(v)));
    g.normal_(&w, 10.0, 0.0).unwrap();
    assert!(w.to_vec::<f32>().unwrap().iter().all(|&v| v == 10.0));
    g.bernoulli_(&w, 1.0).unwrap();
    assert!(w.to_vec::<f32>().unwrap().iter().all(|&v| v == 1.0));
    assert_eq!(g.uniform_(&w, 1.0, 0.0).unwrap_err().kind(), ErrorKind::InvalidArgument);

    let p = Tensor::from_slice(&[0.0f32, 1.0, 0.0, 1.0]);
    assert_eq!(g.bernoulli(&p).unwrap().to_vec::<f32>().unwrap(), vec![0.0, 1.0, 0.0, 1.0]);
    let e = g.bernoulli(&Tensor::from_slice(&[0.5f32, 1.5])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);

    let weights = Tensor::from_slice(&[0.0f32, 0.0, 5.0, 0.0]);
    assert_eq!(g.multinomial(&weights, 3, true).unwrap().to_vec::<i64>().unwrap(), vec![2, 2, 2]);
    assert_eq!(g.multinomial(&weights, 2, false).unwrap_err().kind(), ErrorKind::InvalidArgument);

    let ones = Tensor::ones(&[100]).unwrap();
    let dropped = g.dropout(&ones, 0.5, true).unwrap().to_vec::<f32>().unwrap();
    assert!(dropped.iter().all(|&v| v == 0.0 || v == 2.0));
    assert!(dropped.contains(&0.0) && dropped.contains(&2.0));
    assert_eq!(g.dropout(&ones, 0.5, false).unwrap().as_ptr(), ones.as_ptr(), "eval mode returns the input");

    assert_eq!(g.rand(&[2], Some(DType::Int64), None).unwrap_err().kind(), ErrorKind::DType);
    assert_eq!(g.randint(5, 5, &[2], None, None).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let meta = g.rand(&[2, 3], None, Some(Device::META)).unwrap();
    assert_eq!((meta.device(), meta.size()), (Device::META, vec![2, 3]));
}

#[test]
fn deterministic_mode_round_trip() {
    let _g = switches();
    assert_eq!(runtime::deterministic_debug_mode(), DebugMode::Off);
    runtime::use_deterministic_algorithms(true, true).unwrap();
    assert!(runtime::are_deterministic_algorithms_enabled());
    assert!(runtime::is_deterministic_algorithms_warn_only_enabled());
    assert_eq!(runtime::deterministic_debug_mode(), DebugMode::Warn);
    runtime::set_deterministic_debug_mode(DebugMode::Error).unwrap();
    assert!(runtime::are_deterministic_algorithms_enabled());
    assert!(!runtime::is_deterministic_algorithms_warn_only_enabled());
    // While on, empty memory reads as NaN.
    let e = Tensor::empty(&[4]).unwrap().to_vec::<f32>().unwrap();
    assert!(e.iter().all(|v| v.is_nan()), "{e:?}");
    runtime::use_deterministic_algorithms(false, true).unwrap();
    assert!(!runtime::are_deterministic_algorithms_enabled());
    assert!(!runtime::is_deterministic_algorithms_warn_only_enabled(), "warn_only means nothing while off");
    assert_eq!(runtime::deterministic_debug_mode(), DebugMode::Off);
}

#[test]
fn num_threads_round_trip() {
    let _g = switches();
    let before = runtime::num_threads();
    assert!(before >= 1);
    runtime::set_num_threads(3).unwrap();
    assert_eq!(runtime::num_threads(), 3);
    for bad in [0, 1025, usize::MAX] {
        let e = runtime::set_num_threads(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad}: {e}");
    }
    assert_eq!(runtime::num_threads(), 3, "a refused count changes nothing");
    runtime::set_num_threads(before).unwrap();
    assert_eq!(runtime::num_threads(), before);
}

#[test]
fn matmul_precision_round_trip() {
    let _g = switches();
    assert_eq!(runtime::float32_matmul_precision().unwrap(), MatmulPrecision::Highest);
    runtime::set_float32_matmul_precision(MatmulPrecision::Medium).unwrap();
    assert_eq!(runtime::float32_matmul_precision().unwrap(), MatmulPrecision::Medium);
    assert_eq!(ctorch::metrics::get("matmul.float32_precision").unwrap(), 2);
    runtime::set_float32_matmul_precision("high".parse().unwrap()).unwrap();
    assert_eq!(runtime::float32_matmul_precision().unwrap().to_string(), "high");
    assert_eq!("fast".parse::<MatmulPrecision>().unwrap_err().kind(), ErrorKind::InvalidArgument);
    runtime::set_float32_matmul_precision(MatmulPrecision::Highest).unwrap();
}

#[test]
fn default_dtype_float64() {
    let _g = switches();
    assert_eq!(runtime::default_dtype(), DType::Float32);
    runtime::set_default_dtype(DType::Float64).unwrap();
    let z = Tensor::zeros(&[2]);
    let exp = Tensor::from_slice(&[1i64]).exp();
    let r = Generator::new(Device::CPU).unwrap().rand(&[2], None, None);
    runtime::set_default_dtype(DType::Float32).unwrap();
    assert_eq!(z.unwrap().dtype(), DType::Float64);
    assert_eq!(exp.unwrap().dtype(), DType::Float64);
    assert_eq!(r.unwrap().dtype(), DType::Float64, "a generator's rand without a dtype takes the default");
    let e = runtime::set_default_dtype(DType::Int32).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert_eq!(runtime::default_dtype(), DType::Float32);
    assert_eq!(Tensor::zeros(&[2]).unwrap().dtype(), DType::Float32);
}

#[test]
fn device_guard_restores() {
    // The default device is per thread, so this needs no lock.
    assert_eq!(runtime::default_device().unwrap(), Device::CPU);
    {
        let outer = runtime::with_device(Device::META).unwrap();
        assert_eq!(outer.device(), Device::META);
        assert_eq!(runtime::default_device().unwrap(), Device::META);
        assert_eq!(Tensor::zeros(&[2, 2]).unwrap().device(), Device::META);
        {
            let _inner = runtime::with_device(Device::CPU).unwrap();
            assert_eq!(Tensor::zeros(&[2]).unwrap().device(), Device::CPU);
        }
        assert_eq!(runtime::default_device().unwrap(), Device::META);
        // Other threads keep their own default device.
        std::thread::spawn(|| assert_eq!(runtime::default_device().unwrap(), Device::CPU)).join().unwrap();
    }
    assert_eq!(runtime::default_device().unwrap(), Device::CPU);
    assert_eq!(Tensor::zeros(&[2]).unwrap().device(), Device::CPU);

    runtime::set_default_device(Device::META).unwrap();
    assert_eq!(Tensor::ones(&[3]).unwrap().device(), Device::META);
    runtime::set_default_device(Device::CPU).unwrap();
    assert_eq!(runtime::default_device().unwrap(), Device::CPU);
}

#[test]
fn log_handler_receives_messages() {
    let _g = switches();
    let seen = Arc::new(Mutex::new(Vec::<(LogLevel, String)>::new()));
    let sink = Arc::clone(&seen);
    runtime::set_log_handler(move |level, message| sink.lock().unwrap().push((level, message.to_string()))).unwrap();
    let before = runtime::log_level();
    assert_eq!(before, LogLevel::Warning);
    runtime::set_log_level(LogLevel::Info).unwrap();
    assert_eq!(runtime::log_level(), LogLevel::Info);

    // Stopping the profiler logs a summary at info level.
    let p = profiler::Profiler::start().unwrap();
    let _ = Tensor::ones(&[2]).unwrap().neg().unwrap();
    p.stop().unwrap();
    let messages = seen.lock().unwrap().clone();
    assert!(
        messages.iter().any(|(l, m)| *l == LogLevel::Info && m.starts_with("profiler: stopped with")),
        "{messages:?}"
    );

    // Below the threshold nothing is delivered.
    seen.lock().unwrap().clear();
    runtime::set_log_level(LogLevel::Warning).unwrap();
    profiler::Profiler::start().unwrap().stop().unwrap();
    assert!(seen.lock().unwrap().is_empty());

    // Removing the handler drops its closure, and the Arc it held with it.
    runtime::clear_log_handler().unwrap();
    assert_eq!(Arc::strong_count(&seen), 1);
    runtime::set_log_level(before).unwrap();
}

#[test]
fn log_handler_panic_resurfaces() {
    let _g = switches();
    runtime::set_log_handler(|_, message| panic!("log handler saw {message}")).unwrap();
    runtime::set_log_level(LogLevel::Info).unwrap();
    let p = profiler::Profiler::start().unwrap();
    let payload = catch_unwind(AssertUnwindSafe(|| p.stop())).unwrap_err();
    runtime::clear_log_handler().unwrap();
    runtime::set_log_level(LogLevel::Warning).unwrap();
    assert!(panic_text(&*payload).starts_with("log handler saw profiler: stopped"), "{}", panic_text(&*payload));
    assert!(!profiler::is_running());
}

/// More bytes than any address space holds: the allocation fails (whatever the overcommit policy)
/// and the handler runs.
const HUGE: i64 = 1 << 62;

#[test]
fn memory_pressure_handler_runs_and_is_removed() {
    let _g = switches();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(None));
    let (c, s) = (Arc::clone(&calls), Arc::clone(&seen));
    runtime::set_memory_pressure_handler(move |device, nbytes| {
        c.fetch_add(1, Ordering::SeqCst);
        *s.lock().unwrap() = Some((device, nbytes));
        false
    })
    .unwrap();
    let e = Tensor::zeros_with(&[HUGE], Some(DType::UInt8), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfMemory, "{e}");
    assert_eq!(calls.load(Ordering::SeqCst), 1, "giving up stops the retries");
    let (device, nbytes) = seen.lock().unwrap().unwrap();
    assert_eq!(device, DeviceType::Cpu);
    assert!(nbytes >= HUGE as usize, "{nbytes}");

    // A handler that says it freed memory gets the allocation retried.
    let c = Arc::clone(&calls);
    runtime::set_memory_pressure_handler(move |_, _| c.fetch_add(1, Ordering::SeqCst) < 100).unwrap();
    calls.store(0, Ordering::SeqCst);
    assert_eq!(Tensor::zeros_with(&[HUGE], Some(DType::UInt8), None).unwrap_err().kind(), ErrorKind::OutOfMemory);
    assert!(calls.load(Ordering::SeqCst) > 1, "retried after the handler freed memory");

    runtime::clear_memory_pressure_handler().unwrap();
    calls.store(0, Ordering::SeqCst);
    assert_eq!(Tensor::zeros_with(&[HUGE], Some(DType::UInt8), None).unwrap_err().kind(), ErrorKind::OutOfMemory);
    assert_eq!(calls.load(Ordering::SeqCst), 0, "a removed handler is not called");
    assert_eq!(Arc::strong_count(&calls), 1, "the removed closures were dropped");
}

#[test]
fn memory_pressure_panic_gives_up_and_resurfaces() {
    let _g = switches();
    runtime::set_memory_pressure_handler(|_, nbytes| panic!("pressure handler asked for {nbytes} bytes")).unwrap();
    let payload = catch_unwind(|| Tensor::zeros_with(&[HUGE], Some(DType::UInt8), None)).unwrap_err();
    runtime::clear_memory_pressure_handler().unwrap();
    assert!(panic_text(&*payload).starts_with("pressure handler asked for"), "{}", panic_text(&*payload));
    // Afterwards the library works as before.
    assert_eq!(Tensor::ones(&[2]).unwrap().sum().unwrap().double_value().unwrap(), 2.0);
}

#[test]
fn plugins_json_is_an_object() {
    ctorch::init().unwrap();
    let json = runtime::plugins_json().unwrap();
    assert!(json.starts_with('{') && json.contains("\"plugins\""), "{json}");
}

#[test]
fn autocast_casts_products_to_bfloat16_and_losses_to_float32() {
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).reshape(&[2, 3]).unwrap();
    let b = Tensor::from_slice(&[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0]).reshape(&[3, 2]).unwrap();
    assert!(!ctorch::runtime::is_autocast_enabled(DeviceType::Cpu).unwrap());
    {
        let _ac = ctorch::autocast(DeviceType::Cpu, DType::BFloat16).unwrap();
        assert!(ctorch::runtime::is_autocast_enabled(DeviceType::Cpu).unwrap());
        let p = a.mm(&b).unwrap();
        assert_eq!(p.dtype(), DType::BFloat16);
        assert_eq!(p.to(DType::Float32).unwrap().to_vec::<f32>().unwrap(), [4.0, 5.0, 10.0, 11.0]);
        let loss = p.mse_loss(&p.add(&p).unwrap()).unwrap();
        assert_eq!(loss.dtype(), DType::Float32);
        let p64 = a.to(DType::Float64).unwrap().mm(&b.to(DType::Float64).unwrap()).unwrap();
        assert_eq!(p64.dtype(), DType::Float64);
    }
    assert!(!ctorch::runtime::is_autocast_enabled(DeviceType::Cpu).unwrap());
    assert_eq!(a.mm(&b).unwrap().dtype(), DType::Float32);
    assert_eq!(ctorch::autocast(DeviceType::Cpu, DType::Float32).unwrap_err().kind(), ErrorKind::DType);
    assert_eq!(ctorch::runtime::autocast_dtype(DeviceType::Cuda).unwrap(), DType::Float16);
}

#[test]
fn print_options_warn_always_anomaly_and_denormals() {
    let _guard = switches();
    let x = Tensor::from_slice(&[1.5f32, 2.25, 3.0]);
    runtime::set_print_options(&runtime::PrintOptions { precision: 1, sci_mode: Some(true), ..Default::default() }).unwrap();
    assert_eq!(format!("{x:?}"), "tensor([1.5e+00, 2.2e+00, 3.0e+00])");
    assert_eq!(runtime::print_options().precision, 1);
    let bad = runtime::PrintOptions { linewidth: 0, ..Default::default() };
    assert_eq!(runtime::set_print_options(&bad).unwrap_err().kind(), ErrorKind::InvalidArgument);
    runtime::set_print_options(&runtime::PrintOptions::default()).unwrap();
    assert_eq!(runtime::print_options(), runtime::PrintOptions::default());
    runtime::set_warn_always(true);
    assert!(runtime::is_warn_always_enabled());
    runtime::set_warn_always(false);
    // Anomaly detection names the node whose gradient holds NaN.
    let a = Tensor::from_slice(&[0.0f32, 1.0]).set_requires_grad(true).unwrap();
    runtime::set_anomaly_enabled(true, true);
    let err = (&a / &a).unwrap().sum().unwrap().backward().unwrap_err();
    runtime::set_anomaly_enabled(false, true);
    assert!(!runtime::is_anomaly_enabled());
    assert!(err.to_string().contains("returned nan values"), "{err}");
    let tiny = Tensor::from_slice(&[1e-39f32]);
    if runtime::set_flush_denormal(true) {
        assert_eq!((&tiny * &Tensor::from_slice(&[1.0f32])).unwrap().to_vec::<f32>().unwrap(), [0.0]);
    }
    runtime::set_flush_denormal(false);
    assert!((&tiny * &Tensor::from_slice(&[1.0f32])).unwrap().to_vec::<f32>().unwrap()[0] > 0.0);
}
