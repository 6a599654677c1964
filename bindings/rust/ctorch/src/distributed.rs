//! Distributed: process groups and collectives over the engines of `ct_dist_*` ("gloo" for CPU
//! tensors over TCP, "mpi", "nccl"), as torch.distributed.
//!
//! Every process of a job makes a [`ProcessGroup`] (from the environment torchrun sets, or from
//! [`InitOptions`]), then every rank calls the same collectives in the same order with tensors of
//! the same sizes and dtype. Collectives write their results in place into the tensors given, so
//! they take `&Tensor` like the crate's other in-place operators. Each has an `_async` twin that
//! returns a [`Work`] at once; read the outputs only after [`Work::wait`].
//!
//! ```no_run
//! use ctorch::distributed::{ProcessGroup, ReduceOp};
//! use ctorch::Tensor;
//! # fn main() -> ctorch::Result<()> {
//! // Under a launcher that sets MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE:
//! let pg = ProcessGroup::init("gloo")?;
//! let t = Tensor::from_slice(&[pg.rank() as f32 + 1.0]);
//! pg.all_reduce(&t, ReduceOp::Sum)?;
//! # Ok(())
//! # }
//! ```
//!
//! A rank that never arrives or dies gives the others an error of kind [`ErrorKind::Timeout`] or
//! [`ErrorKind::Distributed`] within the group's timeout; the message names the missing ranks
//! where the engine can know them.

use std::ffi::CStr;
use std::os::raw::c_int;
use std::ptr::{self, NonNull};
use std::time::Duration;

use ctorch_sys as sys;

use crate::error::{c_string, check, Error, ErrorKind, Result};
use crate::tensor::Tensor;

/// How a reduction combines the ranks' values (torch.distributed.ReduceOp).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum.
    Sum,
    /// The product.
    Product,
    /// The minimum.
    Min,
    /// The maximum.
    Max,
    /// The sum divided by the group's size (floating dtypes only, as torch).
    Avg,
}

impl ReduceOp {
    fn to_c(self) -> sys::ct_reduce_op {
        match self {
            ReduceOp::Sum => sys::CT_REDUCE_SUM,
            ReduceOp::Product => sys::CT_REDUCE_PRODUCT,
            ReduceOp::Min => sys::CT_REDUCE_MIN,
            ReduceOp::Max => sys::CT_REDUCE_MAX,
            ReduceOp::Avg => sys::CT_REDUCE_AVG,
        }
    }
}

/// Whether the engine `backend` ("gloo", "mpi", "nccl") was built and its module loads
/// (torch.distributed.is_gloo_available() ...). `InvalidArgument` error for an unknown name.
pub fn is_backend_available(backend: &str) -> Result<bool> {
    Ok(backend_unavailable_reason(backend)?.is_none())
}

/// `None` when the engine `backend` can be used, else why not: not built (with the package to
/// install) or the module's load error. `InvalidArgument` error for an unknown name.
pub fn backend_unavailable_reason(backend: &str) -> Result<Option<String>> {
    let name = c_string("is_backend_available", backend)?;
    let mut out: c_int = 0;
    check(unsafe { sys::ct_dist_is_backend_available(name.as_ptr(), &mut out) })?;
    if out != 0 {
        return Ok(None);
    }
    // SAFETY: ct_last_error returns this thread's NUL-terminated message, copied at once.
    Ok(Some(unsafe { CStr::from_ptr(sys::ct_last_error()) }.to_string_lossy().into_owned()))
}

/// How [`ProcessGroup::init_with`] joins the processes of a job. `InitOptions::new("gloo")` is
/// torchrun's way: `env://` (MASTER_ADDR and MASTER_PORT), rank and size from RANK and WORLD_SIZE,
/// the default timeout (30 minutes).
///
/// ```
/// use std::time::Duration;
/// let opts = ctorch::distributed::InitOptions::new("gloo")
///     .init_method("tcp://127.0.0.1:29500")
///     .rank(0)
///     .world_size(2)
///     .timeout(Duration::from_secs(60));
/// assert_eq!(opts.backend, "gloo");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct InitOptions {
    /// The engine: "gloo", "mpi" or "nccl".
    pub backend: String,
    /// Where the ranks meet: "env://" (`None` means the same), "tcp://HOST:PORT" or
    /// "file:///PATH" (an empty directory every rank sees). The mpi engine takes none.
    pub init_method: Option<String>,
    /// This process's rank; `None` reads RANK from the environment.
    pub rank: Option<i32>,
    /// The number of processes; `None` reads WORLD_SIZE from the environment.
    pub world_size: Option<i32>,
    /// Bound on the rendezvous and on every later operation of the group; `None` is 30 minutes.
    pub timeout: Option<Duration>,
}

impl InitOptions {
    /// The options of torchrun's launch for engine `backend`.
    pub fn new(backend: &str) -> InitOptions {
        InitOptions { backend: backend.to_string(), init_method: None, rank: None, world_size: None, timeout: None }
    }

    /// These options meeting at `method` ("env://", "tcp://HOST:PORT", "file:///PATH").
    pub fn init_method(self, method: &str) -> InitOptions {
        InitOptions { init_method: Some(method.to_string()), ..self }
    }

    /// These options with this process's rank given.
    pub fn rank(self, rank: i32) -> InitOptions {
        InitOptions { rank: Some(rank), ..self }
    }

    /// These options with the number of processes given.
    pub fn world_size(self, world_size: i32) -> InitOptions {
        InitOptions { world_size: Some(world_size), ..self }
    }

    /// These options with the group's timeout given.
    pub fn timeout(self, timeout: Duration) -> InitOptions {
        InitOptions { timeout: Some(timeout), ..self }
    }
}

fn seconds(timeout: Option<Duration>) -> f64 {
    timeout.map_or(0.0, |t| t.as_secs_f64())
}

/// A group of processes and its connections (a torch.distributed process group). `Drop` finishes
/// the operations still queued, closes the connections and frees it
/// (`destroy_process_group`); [`Work`]s of the group stay valid. `Send + Sync`: any thread may
/// call its collectives, which run in the order the group received them.
pub struct ProcessGroup {
    ptr: NonNull<sys::ct_process_group>,
}

// SAFETY: the C ABI lets any thread call a group's functions ("Threads" of the header's section).
unsafe impl Send for ProcessGroup {}
unsafe impl Sync for ProcessGroup {}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // SAFETY: we own the group; destroying it once, here.
        unsafe { sys::ct_process_group_destroy(self.ptr.as_ptr()) }
    }
}

impl std::fmt::Debug for ProcessGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ProcessGroup({}, rank {} of {})", self.backend(), self.rank(), self.world_size())
    }
}

/// A handle for an asynchronous operation (torch.distributed's `Work`). `Drop` releases the
/// handle; the operation still runs to its end.
pub struct Work {
    ptr: NonNull<sys::ct_work>,
}

// SAFETY: ct_work_wait and ct_work_is_completed may be called from any thread, several at once.
unsafe impl Send for Work {}
unsafe impl Sync for Work {}

impl Drop for Work {
    fn drop(&mut self) {
        // SAFETY: we own the handle.
        unsafe { sys::ct_work_release(self.ptr.as_ptr()) }
    }
}

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Work").field("completed", &self.is_completed().ok()).finish()
    }
}

impl Work {
    /// Waits until the operation finishes, at most the group's timeout, and returns its outcome
    /// (the same on every later wait). A `Timeout` error when it has not finished in time.
    pub fn wait(&self) -> Result<()> {
        check(unsafe { sys::ct_work_wait(self.ptr.as_ptr(), 0.0) })
    }

    /// [`Work::wait`] for at most `timeout`; a `Timeout` error leaves the operation running (wait
    /// again, or drop the group).
    pub fn wait_timeout(&self, timeout: Duration) -> Result<()> {
        // A zero Duration would mean "the group's timeout" to C: ask for the shortest wait instead.
        let s = timeout.as_secs_f64().max(1e-9);
        check(unsafe { sys::ct_work_wait(self.ptr.as_ptr(), s) })
    }

    /// Whether the operation has finished, successfully or not; never blocks.
    pub fn is_completed(&self) -> Result<bool> {
        let mut out: c_int = 0;
        check(unsafe { sys::ct_work_is_completed(self.ptr.as_ptr(), &mut out) })?;
        Ok(out != 0)
    }
}

/// Runs a collective synchronously (`work` NULL).
fn run_sync(f: impl FnOnce(*mut *mut sys::ct_work) -> sys::ct_status) -> Result<()> {
    check(f(ptr::null_mut()))
}

/// Runs a collective asynchronously and owns the work handle it writes.
fn run_async(f: impl FnOnce(*mut *mut sys::ct_work) -> sys::ct_status) -> Result<Work> {
    let mut w = ptr::null_mut();
    check(f(&mut w))?;
    NonNull::new(w)
        .map(|ptr| Work { ptr })
        .ok_or_else(|| Error::new(ErrorKind::Internal, "ctorch returned a NULL work handle for an asynchronous collective"))
}

fn mut_handles<T: AsRef<Tensor>>(ts: &[T]) -> Vec<*mut sys::ct_tensor> {
    ts.iter().map(|t| t.as_ref().as_ptr()).collect()
}

fn const_handles<T: AsRef<Tensor>>(ts: &[T]) -> Vec<*const sys::ct_tensor> {
    ts.iter().map(|t| t.as_ref().as_ptr() as *const _).collect()
}

impl ProcessGroup {
    /// Joins this process into the world group of engine `backend` the way torchrun launches it:
    /// MASTER_ADDR and MASTER_PORT (rank 0 serves the rendezvous store there), RANK and
    /// WORLD_SIZE from the environment, a 30-minute timeout. `InvalidArgument` error for a missing
    /// or bad variable (named), `Backend` when the engine is not built, `Timeout` when not every
    /// rank arrived (the message names the missing ones), `Distributed` when a connection failed.
    pub fn init(backend: &str) -> Result<ProcessGroup> {
        ProcessGroup::init_with(&InitOptions::new(backend))
    }

    /// Joins this process into the world group as `opts` say (torch.distributed.init_process_group).
    pub fn init_with(opts: &InitOptions) -> Result<ProcessGroup> {
        let backend = c_string("init_process_group", &opts.backend)?;
        let method = opts.init_method.as_deref().map(|m| c_string("init_process_group", m)).transpose()?;
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::ct_dist_init_process_group(
                backend.as_ptr(),
                method.as_ref().map_or(ptr::null(), |m| m.as_ptr()),
                opts.rank.unwrap_or(-1),
                opts.world_size.unwrap_or(-1),
                seconds(opts.timeout),
                &mut out,
            )
        })?;
        ProcessGroup::adopt(out)
    }

    fn adopt(ptr: *mut sys::ct_process_group) -> Result<ProcessGroup> {
        NonNull::new(ptr)
            .map(|ptr| ProcessGroup { ptr })
            .ok_or_else(|| Error::new(ErrorKind::Internal, "ctorch returned a NULL process group"))
    }

    /// A group of some of this group's ranks (torch.distributed.new_group): every rank calls it
    /// with the same `ranks`, members or not, in the same order as its other `new_group` calls. A
    /// member's new group numbers `ranks` 0, 1, ... in the order given; on a rank not listed,
    /// [`ProcessGroup::is_member`] is false and collectives give `InvalidArgument` errors.
    /// `timeout` `None` takes this group's.
    pub fn new_group(&self, ranks: &[i32], timeout: Option<Duration>) -> Result<ProcessGroup> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::ct_dist_new_group(self.as_ptr(), ranks.as_ptr(), ranks.len(), seconds(timeout), &mut out) })?;
        ProcessGroup::adopt(out)
    }

    /// The raw handle, borrowed for as long as `self` lives.
    pub fn as_ptr(&self) -> *mut sys::ct_process_group {
        self.ptr.as_ptr()
    }

    /// This process's rank in the group, 0 .. world_size - 1 (-1 when not a member).
    pub fn rank(&self) -> i32 {
        let mut out: c_int = -1;
        // SAFETY: the group is live, so the call cannot fail.
        let status = unsafe { sys::ct_dist_get_rank(self.as_ptr(), &mut out) };
        assert_eq!(status, sys::CT_OK, "ct_dist_get_rank failed on a live group");
        out
    }

    /// The number of ranks in the group.
    pub fn world_size(&self) -> i32 {
        let mut out: c_int = 0;
        let status = unsafe { sys::ct_dist_get_world_size(self.as_ptr(), &mut out) };
        assert_eq!(status, sys::CT_OK, "ct_dist_get_world_size failed on a live group");
        out
    }

    /// Whether this process is one of the group's ranks (false for a [`ProcessGroup::new_group`]
    /// that did not list it).
    pub fn is_member(&self) -> bool {
        self.rank() >= 0
    }

    /// The engine's name: "gloo", "mpi" or "nccl".
    pub fn backend(&self) -> &'static str {
        let mut out: *const std::os::raw::c_char = ptr::null();
        let status = unsafe { sys::ct_dist_get_backend(self.as_ptr(), &mut out) };
        assert_eq!(status, sys::CT_OK, "ct_dist_get_backend failed on a live group");
        // SAFETY: the header promises a static string.
        unsafe { CStr::from_ptr(out) }.to_str().unwrap_or("?")
    }

    // ---- collectives ----

    /// `t` := `op` over every rank's `t` (torch.distributed.all_reduce).
    pub fn all_reduce(&self, t: &Tensor, op: ReduceOp) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_all_reduce(self.as_ptr(), t.as_ptr(), op.to_c(), w) })
    }

    /// [`ProcessGroup::all_reduce`], queued: read `t` after [`Work::wait`].
    pub fn all_reduce_async(&self, t: &Tensor, op: ReduceOp) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_all_reduce(self.as_ptr(), t.as_ptr(), op.to_c(), w) })
    }

    /// `t` := rank `src`'s `t`, on every rank (torch.distributed.broadcast).
    pub fn broadcast(&self, t: &Tensor, src: i32) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_broadcast(self.as_ptr(), t.as_ptr(), src, w) })
    }

    /// [`ProcessGroup::broadcast`], queued.
    pub fn broadcast_async(&self, t: &Tensor, src: i32) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_broadcast(self.as_ptr(), t.as_ptr(), src, w) })
    }

    /// On rank `dst`, `t` := `op` over every rank's `t`; other ranks' `t` is left as it was.
    pub fn reduce(&self, t: &Tensor, dst: i32, op: ReduceOp) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_reduce(self.as_ptr(), t.as_ptr(), dst, op.to_c(), w) })
    }

    /// [`ProcessGroup::reduce`], queued.
    pub fn reduce_async(&self, t: &Tensor, dst: i32, op: ReduceOp) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_reduce(self.as_ptr(), t.as_ptr(), dst, op.to_c(), w) })
    }

    /// `outputs[r]` := rank r's `input`, on every rank; one output per rank, each of `input`'s
    /// sizes and dtype (torch.distributed.all_gather).
    pub fn all_gather<T: AsRef<Tensor>>(&self, outputs: &[T], input: &Tensor) -> Result<()> {
        let outs = mut_handles(outputs);
        run_sync(|w| unsafe { sys::ct_dist_all_gather(self.as_ptr(), outs.as_ptr(), outs.len(), input.as_ptr(), w) })
    }

    /// [`ProcessGroup::all_gather`], queued (the group keeps the tensors alive).
    pub fn all_gather_async<T: AsRef<Tensor>>(&self, outputs: &[T], input: &Tensor) -> Result<Work> {
        let outs = mut_handles(outputs);
        run_async(|w| unsafe { sys::ct_dist_all_gather(self.as_ptr(), outs.as_ptr(), outs.len(), input.as_ptr(), w) })
    }

    /// `output` := the ranks' `input`s concatenated in rank order (all_gather_into_tensor):
    /// `output` has world_size times `input`'s first dim, or `[world_size, *input.size()]`.
    pub fn all_gather_into_tensor(&self, output: &Tensor, input: &Tensor) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_all_gather_into_tensor(self.as_ptr(), output.as_ptr(), input.as_ptr(), w) })
    }

    /// [`ProcessGroup::all_gather_into_tensor`], queued.
    pub fn all_gather_into_tensor_async(&self, output: &Tensor, input: &Tensor) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_all_gather_into_tensor(self.as_ptr(), output.as_ptr(), input.as_ptr(), w) })
    }

    /// `output` := `op` over every rank's `inputs[this rank]`; one input per rank
    /// (torch.distributed.reduce_scatter).
    pub fn reduce_scatter<T: AsRef<Tensor>>(&self, output: &Tensor, inputs: &[T], op: ReduceOp) -> Result<()> {
        let ins = const_handles(inputs);
        run_sync(|w| unsafe { sys::ct_dist_reduce_scatter(self.as_ptr(), output.as_ptr(), ins.as_ptr(), ins.len(), op.to_c(), w) })
    }

    /// [`ProcessGroup::reduce_scatter`], queued.
    pub fn reduce_scatter_async<T: AsRef<Tensor>>(&self, output: &Tensor, inputs: &[T], op: ReduceOp) -> Result<Work> {
        let ins = const_handles(inputs);
        run_async(|w| unsafe { sys::ct_dist_reduce_scatter(self.as_ptr(), output.as_ptr(), ins.as_ptr(), ins.len(), op.to_c(), w) })
    }

    /// `output` := `op` over every rank's block `this rank` of `input`, `input` being world_size
    /// blocks of `output`'s elements in rank order (reduce_scatter_tensor).
    pub fn reduce_scatter_tensor(&self, output: &Tensor, input: &Tensor, op: ReduceOp) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_reduce_scatter_tensor(self.as_ptr(), output.as_ptr(), input.as_ptr(), op.to_c(), w) })
    }

    /// [`ProcessGroup::reduce_scatter_tensor`], queued.
    pub fn reduce_scatter_tensor_async(&self, output: &Tensor, input: &Tensor, op: ReduceOp) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_reduce_scatter_tensor(self.as_ptr(), output.as_ptr(), input.as_ptr(), op.to_c(), w) })
    }

    /// On rank `dst`, `outputs[r]` := rank r's `input` (one output per rank); the other ranks pass
    /// no outputs (torch.distributed.gather).
    pub fn gather<T: AsRef<Tensor>>(&self, input: &Tensor, outputs: &[T], dst: i32) -> Result<()> {
        let outs = mut_handles(outputs);
        run_sync(|w| unsafe { sys::ct_dist_gather(self.as_ptr(), input.as_ptr(), outs.as_ptr(), outs.len(), dst, w) })
    }

    /// [`ProcessGroup::gather`], queued.
    pub fn gather_async<T: AsRef<Tensor>>(&self, input: &Tensor, outputs: &[T], dst: i32) -> Result<Work> {
        let outs = mut_handles(outputs);
        run_async(|w| unsafe { sys::ct_dist_gather(self.as_ptr(), input.as_ptr(), outs.as_ptr(), outs.len(), dst, w) })
    }

    /// `output` := rank `src`'s `inputs[this rank]`; ranks other than `src` pass no inputs
    /// (torch.distributed.scatter).
    pub fn scatter<T: AsRef<Tensor>>(&self, output: &Tensor, inputs: &[T], src: i32) -> Result<()> {
        let ins = const_handles(inputs);
        run_sync(|w| unsafe { sys::ct_dist_scatter(self.as_ptr(), output.as_ptr(), ins.as_ptr(), ins.len(), src, w) })
    }

    /// [`ProcessGroup::scatter`], queued.
    pub fn scatter_async<T: AsRef<Tensor>>(&self, output: &Tensor, inputs: &[T], src: i32) -> Result<Work> {
        let ins = const_handles(inputs);
        run_async(|w| unsafe { sys::ct_dist_scatter(self.as_ptr(), output.as_ptr(), ins.as_ptr(), ins.len(), src, w) })
    }

    /// `outputs[r]` := rank r's `inputs[this rank]` (torch.distributed.all_to_all; one tensor
    /// per rank in each list, all of the same sizes). `InvalidArgument` error for lists of
    /// different lengths.
    pub fn all_to_all<T: AsRef<Tensor>, U: AsRef<Tensor>>(&self, outputs: &[T], inputs: &[U]) -> Result<()> {
        let (outs, ins) = all_to_all_handles(outputs, inputs)?;
        run_sync(|w| unsafe { sys::ct_dist_all_to_all(self.as_ptr(), outs.as_ptr(), ins.as_ptr(), ins.len(), w) })
    }

    /// [`ProcessGroup::all_to_all`], queued.
    pub fn all_to_all_async<T: AsRef<Tensor>, U: AsRef<Tensor>>(&self, outputs: &[T], inputs: &[U]) -> Result<Work> {
        let (outs, ins) = all_to_all_handles(outputs, inputs)?;
        run_async(|w| unsafe { sys::ct_dist_all_to_all(self.as_ptr(), outs.as_ptr(), ins.as_ptr(), ins.len(), w) })
    }

    /// `output`'s block r := rank r's `input` block `this rank`, blocks being equal splits of the
    /// first dim (all_to_all_single without split sizes).
    pub fn all_to_all_single(&self, output: &Tensor, input: &Tensor) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_all_to_all_single(self.as_ptr(), output.as_ptr(), input.as_ptr(), w) })
    }

    /// [`ProcessGroup::all_to_all_single`], queued.
    pub fn all_to_all_single_async(&self, output: &Tensor, input: &Tensor) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_all_to_all_single(self.as_ptr(), output.as_ptr(), input.as_ptr(), w) })
    }

    /// Sends `t` to rank `dst`, which receives it with [`ProcessGroup::recv`] from this rank and
    /// the same `tag` into a tensor of the same sizes and dtype.
    pub fn send(&self, t: &Tensor, dst: i32, tag: i32) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_send(self.as_ptr(), t.as_ptr(), dst, tag, w) })
    }

    /// [`ProcessGroup::send`], queued (torch.distributed.isend).
    pub fn send_async(&self, t: &Tensor, dst: i32, tag: i32) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_send(self.as_ptr(), t.as_ptr(), dst, tag, w) })
    }

    /// Receives into `t` what rank `src` sent with `tag`.
    pub fn recv(&self, t: &Tensor, src: i32, tag: i32) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_recv(self.as_ptr(), t.as_ptr(), src, tag, w) })
    }

    /// [`ProcessGroup::recv`], queued (torch.distributed.irecv).
    pub fn recv_async(&self, t: &Tensor, src: i32, tag: i32) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_recv(self.as_ptr(), t.as_ptr(), src, tag, w) })
    }

    /// Returns once every rank of the group has called it (torch.distributed.barrier).
    pub fn barrier(&self) -> Result<()> {
        run_sync(|w| unsafe { sys::ct_dist_barrier(self.as_ptr(), w) })
    }

    /// [`ProcessGroup::barrier`], queued.
    pub fn barrier_async(&self) -> Result<Work> {
        run_async(|w| unsafe { sys::ct_dist_barrier(self.as_ptr(), w) })
    }
}

fn all_to_all_handles<T: AsRef<Tensor>, U: AsRef<Tensor>>(
    outputs: &[T],
    inputs: &[U],
) -> Result<(Vec<*mut sys::ct_tensor>, Vec<*const sys::ct_tensor>)> {
    if outputs.len() != inputs.len() {
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("all_to_all: {} outputs and {} inputs. Give one of each per rank.", outputs.len(), inputs.len()),
        ));
    }
    Ok((mut_handles(outputs), const_handles(inputs)))
}
