//! ctorch::distributed over the gloo engine: each test launches its ranks as separate processes
//! (this test binary again, running only that test, with RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1
//! and a free MASTER_PORT), which check the collectives' numbers; the launching test fails when a
//! rank fails or does not finish within a bound. Where the gloo module is not built the tests say
//! so and pass, unless CTORCH_REQUIRE_GLOO is set (CTest sets it when it built the module).

use std::fs;
use std::net::TcpListener;
use std::process::{Child, Command};
use std::thread::sleep;
use std::time::{Duration, Instant};

use ctorch::distributed::{self, InitOptions, ProcessGroup, ReduceOp};
use ctorch::{ErrorKind, Tensor};

const CHILD: &str = "CTORCH_TEST_DIST_CHILD";
const BOUND: Duration = Duration::from_secs(120);
const DONE: &str = "ctorch-distributed-rank-finished";

/// Runs `body` on this rank's group and returns true when this process is a rank launched for
/// `test`; false in the launching process. A rank that finishes prints DONE, which `launch`
/// requires, so a rank that ran no test (a wrong name) fails instead of passing.
fn as_rank(test: &str, timeout: Duration, body: impl FnOnce(ProcessGroup)) -> bool {
    if std::env::var(CHILD).ok().as_deref() != Some(test) {
        return false;
    }
    body(ProcessGroup::init_with(&InitOptions::new("gloo").timeout(timeout)).expect("init_process_group"));
    println!("{DONE}");
    true
}

/// False (after saying why) when gloo cannot be used here and nothing requires it.
fn gloo_available() -> bool {
    match distributed::backend_unavailable_reason("gloo").unwrap() {
        None => true,
        Some(why) if std::env::var_os("CTORCH_REQUIRE_GLOO").is_some() => panic!("gloo is required here: {why}"),
        Some(why) => {
            eprintln!("skipped: the gloo engine is not available ({why})");
            false
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs `test` as `world` rank processes and waits for all of them, at most BOUND.
fn launch(test: &str, world: i32) {
    launch_expecting(test, world, &vec![true; world as usize]);
}

/// [`launch`], where `finishes[r]` says whether rank r must print DONE (a rank that exits on
/// purpose does not).
fn launch_expecting(test: &str, world: i32, finishes: &[bool]) {
    let port = free_port().to_string();
    let exe = std::env::current_exe().unwrap();
    let logs: Vec<_> =
        (0..world).map(|r| std::env::temp_dir().join(format!("ctorch-dist-{}-{test}-{r}.log", std::process::id()))).collect();
    let mut children: Vec<Child> = (0..world)
        .map(|r| {
            let log = fs::File::create(&logs[r as usize]).unwrap();
            Command::new(&exe)
                .args([test, "--exact", "--nocapture", "--test-threads", "1"])
                .env(CHILD, test)
                .env("RANK", r.to_string())
                .env("WORLD_SIZE", world.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", &port)
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap()
        })
        .collect();
    let start = Instant::now();
    let mut codes = vec![None; children.len()];
    while codes.iter().any(Option::is_none) && start.elapsed() < BOUND {
        for (c, code) in children.iter_mut().zip(codes.iter_mut()) {
            if code.is_none() {
                *code = c.try_wait().unwrap();
            }
        }
        sleep(Duration::from_millis(20));
    }
    for (c, code) in children.iter_mut().zip(&codes) {
        if code.is_none() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
    let mut report = String::new();
    for (r, code) in codes.iter().enumerate() {
        let out = fs::read_to_string(&logs[r]).unwrap_or_default();
        let _ = fs::remove_file(&logs[r]);
        if !code.is_some_and(|c| c.success()) || (finishes[r] && !out.contains(DONE)) {
            report += &format!("rank {r}: {}\n{out}\n", code.map_or("did not finish in time".to_string(), |c| c.to_string()));
        }
    }
    assert!(report.is_empty(), "{test} on {world} ranks failed:\n{report}");
}

fn floats(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

fn two_ranks_body(pg: ProcessGroup) {
    let (rank, world) = (pg.rank(), pg.world_size());
    assert_eq!(world, 2);
    assert_eq!(pg.backend(), "gloo");
    assert!(pg.is_member());
    let r = rank as f32;

    // all_reduce with each op.
    let t = Tensor::from_slice(&[r + 1.0, 10.0 * (r + 1.0)]);
    pg.all_reduce(&t, ReduceOp::Sum).unwrap();
    assert_eq!(floats(&t), [3.0, 30.0]);
    let t = Tensor::from_slice(&[r + 2.0]);
    pg.all_reduce(&t, ReduceOp::Product).unwrap();
    assert_eq!(floats(&t), [6.0]);
    let t = Tensor::from_slice(&[r, -r]);
    pg.all_reduce(&t, ReduceOp::Max).unwrap();
    assert_eq!(floats(&t), [1.0, 0.0]);
    let t = Tensor::from_slice(&[r, -r]);
    pg.all_reduce(&t, ReduceOp::Min).unwrap();
    assert_eq!(floats(&t), [0.0, -1.0]);
    let t = Tensor::from_slice(&[r + 1.0]);
    pg.all_reduce(&t, ReduceOp::Avg).unwrap();
    assert_eq!(floats(&t), [1.5]);
    let t = Tensor::from_slice(&[rank as i64 + 5]);
    pg.all_reduce(&t, ReduceOp::Sum).unwrap();
    assert_eq!(t.to_vec::<i64>().unwrap(), [11]);

    // Asynchronous: the work finishes and the result is there after wait.
    let t = Tensor::from_slice(&[r; 4]);
    let work = pg.all_reduce_async(&t, ReduceOp::Sum).unwrap();
    work.wait().unwrap();
    assert!(work.is_completed().unwrap());
    assert_eq!(floats(&t), [1.0; 4]);

    // broadcast from rank 1.
    let t = Tensor::from_slice(&[r * 7.0, 3.0]);
    pg.broadcast(&t, 1).unwrap();
    assert_eq!(floats(&t), [7.0, 3.0]);

    // reduce to rank 0 only.
    let t = Tensor::from_slice(&[r + 1.0]);
    pg.reduce(&t, 0, ReduceOp::Sum).unwrap();
    assert_eq!(floats(&t), [if rank == 0 { 3.0 } else { 2.0 }]);

    // all_gather into a list and into one tensor.
    let input = Tensor::from_slice(&[r, 2.0 * r + 1.0]);
    let outs = [Tensor::zeros(&[2]).unwrap(), Tensor::zeros(&[2]).unwrap()];
    pg.all_gather(&outs, &input).unwrap();
    assert_eq!(floats(&outs[0]), [0.0, 1.0]);
    assert_eq!(floats(&outs[1]), [1.0, 3.0]);
    let out = Tensor::zeros(&[4]).unwrap();
    pg.all_gather_into_tensor(&out, &input).unwrap();
    assert_eq!(floats(&out), [0.0, 1.0, 1.0, 3.0]);

    // reduce_scatter: rank k gets the sum of every rank's block k.
    let ins = [Tensor::from_slice(&[r + 1.0]), Tensor::from_slice(&[10.0 * (r + 1.0)])];
    let out = Tensor::zeros(&[1]).unwrap();
    pg.reduce_scatter(&out, &ins, ReduceOp::Sum).unwrap();
    assert_eq!(floats(&out), [if rank == 0 { 3.0 } else { 30.0 }]);
    let input = Tensor::from_slice(&[r + 1.0, r + 1.0, 10.0 * (r + 1.0), 10.0 * (r + 1.0)]);
    let out = Tensor::zeros(&[2]).unwrap();
    pg.reduce_scatter_tensor(&out, &input, ReduceOp::Sum).unwrap();
    assert_eq!(floats(&out), if rank == 0 { [3.0, 3.0] } else { [30.0, 30.0] });

    // gather to rank 1, scatter from rank 0.
    let input = Tensor::from_slice(&[100.0 + r]);
    if rank == 1 {
        let outs = [Tensor::zeros(&[1]).unwrap(), Tensor::zeros(&[1]).unwrap()];
        pg.gather(&input, &outs, 1).unwrap();
        assert_eq!((floats(&outs[0]), floats(&outs[1])), (vec![100.0], vec![101.0]));
    } else {
        pg.gather::<Tensor>(&input, &[], 1).unwrap();
    }
    let out = Tensor::zeros(&[2]).unwrap();
    if rank == 0 {
        pg.scatter(&out, &[Tensor::from_slice(&[1.0f32, 2.0]), Tensor::from_slice(&[3.0f32, 4.0])], 0).unwrap();
    } else {
        pg.scatter::<Tensor>(&out, &[], 0).unwrap();
    }
    assert_eq!(floats(&out), if rank == 0 { [1.0, 2.0] } else { [3.0, 4.0] });

    // all_to_all: outputs[k] = rank k's inputs[this rank].
    let ins = [Tensor::from_slice(&[10.0 * r]), Tensor::from_slice(&[10.0 * r + 1.0])];
    let outs = [Tensor::zeros(&[1]).unwrap(), Tensor::zeros(&[1]).unwrap()];
    pg.all_to_all(&outs, &ins).unwrap();
    assert_eq!((floats(&outs[0]), floats(&outs[1])), (vec![r], vec![10.0 + r]));
    let input = Tensor::from_slice(&[10.0 * r, 10.0 * r + 1.0]);
    let out = Tensor::zeros(&[2]).unwrap();
    pg.all_to_all_single(&out, &input).unwrap();
    assert_eq!(floats(&out), [r, 10.0 + r]);
    let err = pg.all_to_all(&outs, &ins[..1]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);

    // send and recv, both ways, synchronous and queued.
    if rank == 0 {
        pg.send(&Tensor::from_slice(&[7.0f32, 8.0, 9.0]), 1, 5).unwrap();
        let back = Tensor::zeros(&[3]).unwrap();
        pg.recv_async(&back, 1, 6).unwrap().wait().unwrap();
        assert_eq!(floats(&back), [14.0, 16.0, 18.0]);
    } else {
        let got = Tensor::zeros(&[3]).unwrap();
        pg.recv(&got, 0, 5).unwrap();
        assert_eq!(floats(&got), [7.0, 8.0, 9.0]);
        pg.send_async(&got.mul_scalar(2).unwrap(), 0, 6).unwrap().wait().unwrap();
    }

    // A rank out of range is the caller's mistake.
    let err = pg.broadcast(&Tensor::from_slice(&[r]), 2).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    pg.barrier().unwrap();
    pg.barrier_async().unwrap().wait().unwrap();
}

#[test]
fn two_ranks_collectives_give_torch_numbers() {
    const NAME: &str = "two_ranks_collectives_give_torch_numbers";
    if as_rank(NAME, Duration::from_secs(60), two_ranks_body) {
        return;
    }
    if gloo_available() {
        launch(NAME, 2);
    }
}

#[test]
fn three_ranks_collectives_and_a_sub_group() {
    const NAME: &str = "three_ranks_collectives_and_a_sub_group";
    if as_rank(NAME, Duration::from_secs(60), |pg| {
        let rank = pg.rank();
        assert_eq!(pg.world_size(), 3);
        let t = Tensor::from_slice(&[rank as f64 + 1.0, 1.0]);
        pg.all_reduce(&t, ReduceOp::Sum).unwrap();
        assert_eq!(t.to_vec::<f64>().unwrap(), [6.0, 3.0]);
        let t = Tensor::from_slice(&[rank as f64]);
        pg.all_reduce(&t, ReduceOp::Avg).unwrap();
        assert_eq!(t.to_vec::<f64>().unwrap(), [1.0]);
        let t = Tensor::from_slice(&[rank as i32 * 3]);
        pg.broadcast(&t, 2).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), [6]);
        let outs: Vec<Tensor> = (0..3).map(|_| Tensor::zeros(&[1]).unwrap()).collect();
        pg.all_gather(&outs, &Tensor::from_slice(&[rank as f32 * 2.0])).unwrap();
        assert_eq!(outs.iter().map(|o| floats(o)[0]).collect::<Vec<_>>(), [0.0, 2.0, 4.0]);
        // A ring of sends: each rank sends to the next and receives from the previous. A send
        // waits for its receive and a group runs one operation at a time, so even ranks send
        // first and odd ranks receive first (all sending first would wait on each other).
        let got = Tensor::zeros(&[1]).unwrap();
        let mine = Tensor::from_slice(&[rank as f32]);
        if rank % 2 == 0 {
            pg.send(&mine, (rank + 1) % 3, 0).unwrap();
            pg.recv(&got, (rank + 2) % 3, 0).unwrap();
        } else {
            pg.recv(&got, (rank + 2) % 3, 0).unwrap();
            pg.send(&mine, (rank + 1) % 3, 0).unwrap();
        }
        assert_eq!(floats(&got), [((rank + 2) % 3) as f32]);

        // The sub-group of ranks 2 and 0, numbered in that order; rank 1 is not in it.
        let sub = pg.new_group(&[2, 0], None).unwrap();
        if rank == 1 {
            assert!(!sub.is_member());
            assert_eq!(sub.rank(), -1);
            let err = sub.all_reduce(&Tensor::from_slice(&[1.0f32]), ReduceOp::Sum).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
        } else {
            assert_eq!(sub.world_size(), 2);
            assert_eq!(sub.rank(), if rank == 2 { 0 } else { 1 });
            let t = Tensor::from_slice(&[rank as f32 + 1.0]);
            sub.all_reduce(&t, ReduceOp::Sum).unwrap();
            assert_eq!(floats(&t), [4.0]);
        }
        pg.barrier().unwrap();
    }) {
        return;
    }
    if gloo_available() {
        launch(NAME, 3);
    }
}

#[test]
fn a_collective_a_peer_never_joins_is_a_timeout() {
    const NAME: &str = "a_collective_a_peer_never_joins_is_a_timeout";
    if as_rank(NAME, Duration::from_secs(3), |pg| {
        let t = Tensor::from_slice(&[1.0f32]);
        if pg.rank() == 0 {
            // Rank 1 joins this all_reduce late: a short wait times out and leaves it running.
            let work = pg.all_reduce_async(&t, ReduceOp::Sum).unwrap();
            let err = work.wait_timeout(Duration::from_millis(200)).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
            assert!(!work.is_completed().unwrap());
            work.wait().unwrap();
            assert_eq!(floats(&t), [2.0]);
            // Rank 1 never calls this one: the group's 3 s timeout ends it.
            let start = Instant::now();
            let err = pg.all_reduce(&t, ReduceOp::Sum).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
            assert!(start.elapsed() < Duration::from_secs(30), "the timeout took {:?}", start.elapsed());
        } else {
            sleep(Duration::from_secs(2));
            pg.all_reduce(&t, ReduceOp::Sum).unwrap();
            sleep(Duration::from_secs(5));
        }
    }) {
        return;
    }
    if gloo_available() {
        launch(NAME, 2);
    }
}

#[test]
fn a_rank_that_dies_fails_the_others_within_the_timeout() {
    const NAME: &str = "a_rank_that_dies_fails_the_others_within_the_timeout";
    if as_rank(NAME, Duration::from_secs(5), |pg| {
        if pg.rank() == 1 {
            // Dies without destroying its group: its connections close under the others.
            std::process::exit(0);
        }
        let start = Instant::now();
        let err = pg.all_reduce(&Tensor::from_slice(&[1.0f32]), ReduceOp::Sum).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Timeout | ErrorKind::Distributed), "{err}");
        assert!(start.elapsed() < Duration::from_secs(60), "the failure took {:?}", start.elapsed());
    }) {
        return;
    }
    if gloo_available() {
        launch_expecting(NAME, 2, &[true, false]);
    }
}

#[test]
fn a_rank_that_never_arrives_is_a_timeout_naming_it() {
    if !gloo_available() {
        return;
    }
    let opts = InitOptions::new("gloo")
        .init_method(&format!("tcp://127.0.0.1:{}", free_port()))
        .rank(0)
        .world_size(2)
        .timeout(Duration::from_secs(1));
    let start = Instant::now();
    let err = ProcessGroup::init_with(&opts).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert!(err.message().contains('1'), "the message does not name rank 1: {err}");
    assert!(start.elapsed() < Duration::from_secs(30), "the rendezvous took {:?}", start.elapsed());
}

#[test]
fn unknown_backend_and_missing_environment_are_invalid_arguments() {
    assert_eq!(distributed::is_backend_available("carrier-pigeon").unwrap_err().kind(), ErrorKind::InvalidArgument);
    let err = ProcessGroup::init_with(&InitOptions::new("carrier-pigeon").rank(0).world_size(1)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
}

#[test]
fn new_statuses_have_their_kinds() {
    assert_eq!(ErrorKind::from_status(ctorch::sys::CT_ERROR_TIMEOUT), ErrorKind::Timeout);
    assert_eq!(ErrorKind::from_status(ctorch::sys::CT_ERROR_DISTRIBUTED), ErrorKind::Distributed);
    assert_eq!(ErrorKind::Timeout.name(), "CT_ERROR_TIMEOUT");
    assert_eq!(ErrorKind::Distributed.name(), "CT_ERROR_DISTRIBUTED");
}

#[test]
fn post_accumulate_hook_sees_the_accumulated_grad() {
    use std::sync::{Arc, Mutex};
    let w = Tensor::from_slice(&[1.0f32, 2.0]).set_requires_grad(true).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    w.register_post_accumulate_grad_hook(move |leaf| {
        let g = leaf.grad().expect("the grad is accumulated before the hook runs");
        s.lock().unwrap().push(g.to_vec::<f32>()?);
        Ok(())
    })
    .unwrap();
    w.mul_scalar(3).unwrap().sum().unwrap().backward().unwrap();
    w.mul_scalar(3).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(*seen.lock().unwrap(), [vec![3.0, 3.0], vec![6.0, 6.0]]);
    let not_leaf = w.mul_scalar(2).unwrap();
    assert_eq!(not_leaf.register_post_accumulate_grad_hook(|_| Ok(())).unwrap_err().kind(), ErrorKind::InvalidArgument);
}
