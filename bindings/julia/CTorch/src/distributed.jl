# distributed.jl - process groups and collectives (ctorch.h "Distributed": ct_dist_*, ct_work_*), as
# torch.distributed: every rank calls the same collectives in the same order with tensors of the same
# sizes and dtype, and each writes its results into the tensors given (hence the `!` names).

"""
    CTorch.Distributed

Process groups and collectives over the library's engines: `"gloo"` (CPU tensors over TCP),
`"mpi"`, `"nccl"`. `init_process_group("gloo")` joins the ranks a launcher started (MASTER_ADDR,
MASTER_PORT, RANK and WORLD_SIZE in the environment, as torchrun sets them); then `all_reduce!`,
`broadcast!`, `reduce!`, `all_gather!`, `all_gather_into_tensor!`, `reduce_scatter!`,
`reduce_scatter_tensor!`, `gather!`, `scatter!`, `all_to_all!`, `all_to_all_single!`, `send`,
`recv!` and `barrier` on the group; `async=true` returns a `Work` at once (`wait(w)`,
`is_completed(w)`). Reductions take `op = :sum` (or `:product`, `:min`, `:max`, `:avg`). Tensors
must be contiguous: a `Tensor(A)` of a Julia matrix is not (its strides are reversed, see
docs/julia.md), so use vectors or `CTorch.ops.contiguous`.

A rank that never arrives or dies gives the others a `CTorchError` of kind `:CT_ERROR_TIMEOUT` or
`:CT_ERROR_DISTRIBUTED` within the group's timeout, naming the missing ranks where the engine can.
"""
module Distributed

using ..CTorch: Tensor, check, open_ptr, last_error
import ..CTorch
const L = CTorch.LibCTorch

export ProcessGroup, Work, init_process_group, new_group, get_rank, get_world_size, get_backend, is_member,
       is_backend_available, all_reduce!, reduce!, all_gather!, all_gather_into_tensor!,
       reduce_scatter!, reduce_scatter_tensor!, gather!, scatter!, all_to_all!, all_to_all_single!, send, recv!,
       barrier, is_completed

"""
    ProcessGroup

A group of processes and its connections (`ct_process_group`). `close(pg)` finishes the
operations still queued, closes the connections and frees it (torch's `destroy_process_group`);
a finalizer does the same for a forgotten group. Its `Work`s stay valid after it is closed.
"""
mutable struct ProcessGroup
    ptr::Ptr{L.ct_process_group}   # C_NULL once closed
    function ProcessGroup(p::Ptr{L.ct_process_group})
        pg = new(p)
        finalizer(g -> (p = g.ptr; g.ptr = C_NULL; L.ct_process_group_destroy(p)), pg)
        return pg
    end
end

function Base.unsafe_convert(::Type{Ptr{L.ct_process_group}}, pg::ProcessGroup)
    pg.ptr == C_NULL && throw(CTorch.CTorchError(L.CT_ERROR_INVALID_ARGUMENT,
                                                 "the process group was closed. Use it before close(pg)"))
    return pg.ptr
end
Base.close(pg::ProcessGroup) = (p = pg.ptr; pg.ptr = C_NULL; L.ct_process_group_destroy(p); nothing)
Base.isopen(pg::ProcessGroup) = pg.ptr != C_NULL

"""
    Work

An asynchronous collective (torch.distributed's `Work`), from a call with `async=true`. `wait(w)`
waits for it (at most the group's timeout, or `timeout` seconds) and throws its failure;
`is_completed(w)` never blocks. Read the collective's outputs only after `wait`. `close(w)` drops
the handle; the operation still runs to its end.
"""
mutable struct Work
    ptr::Ptr{L.ct_work}
    function Work(p::Ptr{L.ct_work})
        w = new(p)
        finalizer(x -> (p = x.ptr; x.ptr = C_NULL; L.ct_work_release(p)), w)
        return w
    end
end

Base.unsafe_convert(::Type{Ptr{L.ct_work}}, w::Work) = w.ptr
Base.close(w::Work) = (p = w.ptr; w.ptr = C_NULL; L.ct_work_release(p); nothing)

"""
    wait(w::Work; timeout=nothing)

Wait until the operation finishes, at most `timeout` seconds (`nothing`: the group's timeout), and
throw its failure (the same on every later wait). A `:CT_ERROR_TIMEOUT` error when it has not
finished in time leaves it running.
"""
function Base.wait(w::Work; timeout::Union{Nothing,Real} = nothing)
    # 0 means "the group's timeout" to C: a given timeout waits at least a nanosecond.
    check(L.ct_work_wait(w, timeout === nothing ? 0.0 : max(Float64(timeout), 1e-9)))
    return nothing
end

"""
    is_completed(w::Work) -> Bool

Whether the operation has finished, successfully or not; never blocks.
"""
function is_completed(w::Work)
    out = Ref{Cint}(0)
    check(L.ct_work_is_completed(w, out))
    return out[] != 0
end

const REDUCE_OPS = Dict(:sum => L.CT_REDUCE_SUM, :product => L.CT_REDUCE_PRODUCT, :min => L.CT_REDUCE_MIN,
                        :max => L.CT_REDUCE_MAX, :avg => L.CT_REDUCE_AVG)

_op(op::Symbol) = get(() -> throw(ArgumentError("op must be :sum, :product, :min, :max or :avg, got :$op")),
                      REDUCE_OPS, op)

_seconds(t) = t === nothing ? 0.0 : Float64(t)

"""
    is_backend_available(backend) -> Bool

Whether the engine `"gloo"`, `"mpi"` or `"nccl"` was built and its module loads; when not,
`CTorch.last_error()` says why (the package to install, or the load error). Throws for an unknown
name.
"""
function is_backend_available(backend::AbstractString)
    out = Ref{Cint}(0)
    check(L.ct_dist_is_backend_available(backend, out))
    return out[] != 0
end

"""
    init_process_group(backend="gloo"; init_method=nothing, rank=-1, world_size=-1, timeout=nothing) -> ProcessGroup

Join this process into the world group (torch.distributed.init_process_group). `init_method` is
`"env://"` (`nothing` means the same: MASTER_ADDR and MASTER_PORT, where rank 0 serves the
rendezvous store), `"tcp://HOST:PORT"` or `"file:///PATH"`; `rank` and `world_size` -1 read RANK
and WORLD_SIZE; `timeout` (seconds; `nothing` is 30 minutes) bounds the rendezvous and every later
operation. Also as a do-block, closing the group at its end:
`init_process_group("gloo") do pg ... end`.
"""
function init_process_group(backend::AbstractString = "gloo"; init_method::Union{Nothing,AbstractString} = nothing,
                            rank::Integer = -1, world_size::Integer = -1, timeout::Union{Nothing,Real} = nothing)
    out = Ref{Ptr{L.ct_process_group}}(C_NULL)
    check(L.ct_dist_init_process_group(backend, init_method === nothing ? C_NULL : init_method, rank, world_size,
                                       _seconds(timeout), out))
    return ProcessGroup(out[])
end

function init_process_group(f::Function, backend::AbstractString = "gloo"; kwargs...)
    pg = init_process_group(backend; kwargs...)
    try
        return f(pg)
    finally
        close(pg)
    end
end

"""
    new_group(pg, ranks; timeout=nothing) -> ProcessGroup

A group of some of `pg`'s ranks (torch.distributed.new_group): every rank of `pg` calls it with the
same `ranks` (0-based, as the library numbers ranks), members or not. A member's new group numbers
them 0, 1, ... in the order given; on a rank not listed, `is_member` is false and collectives throw.
"""
function new_group(pg::ProcessGroup, ranks::AbstractVector{<:Integer}; timeout::Union{Nothing,Real} = nothing)
    rs = Cint[r for r in ranks]
    out = Ref{Ptr{L.ct_process_group}}(C_NULL)
    check(L.ct_dist_new_group(pg, rs, length(rs), _seconds(timeout), out))
    return ProcessGroup(out[])
end

"""    get_rank(pg) -> Int: this process's rank, 0 .. get_world_size(pg) - 1 (-1 when not a member)."""
function get_rank(pg::ProcessGroup)
    out = Ref{Cint}(-1)
    check(L.ct_dist_get_rank(pg, out))
    return Int(out[])
end

"""    get_world_size(pg) -> Int: the number of ranks in the group."""
function get_world_size(pg::ProcessGroup)
    out = Ref{Cint}(0)
    check(L.ct_dist_get_world_size(pg, out))
    return Int(out[])
end

"""    get_backend(pg) -> String: the engine's name ("gloo", "mpi", "nccl")."""
function get_backend(pg::ProcessGroup)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(L.ct_dist_get_backend(pg, out))
    return unsafe_string(out[])
end

"""    is_member(pg) -> Bool: whether this process is one of the group's ranks."""
is_member(pg::ProcessGroup) = get_rank(pg) >= 0

function Base.show(io::IO, pg::ProcessGroup)
    isopen(pg) || return print(io, "ProcessGroup(closed)")
    print(io, "ProcessGroup(\"", get_backend(pg), "\", rank ", get_rank(pg), " of ", get_world_size(pg), ")")
end

# Runs a collective: with async, the new Work; else nothing once it finished. `keep` stays rooted
# for the call (the group keeps its own references while an operation is queued).
function _run(f, async::Bool, keep...)
    GC.@preserve keep begin
        if async
            w = Ref{Ptr{L.ct_work}}(C_NULL)
            check(f(w))
            return Work(w[])
        end
        check(f(Ptr{Ptr{L.ct_work}}(C_NULL)))
        return nothing
    end
end

_handles(ts, what) = Ptr{L.ct_tensor}[open_ptr(t, what) for t in ts]

"""
    all_reduce!(pg, t; op=:sum, async=false)

`t` := `op` over every rank's `t` (torch.distributed.all_reduce). With `async=true`, a `Work`.
"""
all_reduce!(pg::ProcessGroup, t::Tensor; op::Symbol = :sum, async::Bool = false) =
    _run(w -> L.ct_dist_all_reduce(pg, t, _op(op), w), async, pg, t)

"""
    broadcast!(pg, t, src; async=false)

`t` := rank `src`'s `t`, on every rank (torch.distributed.broadcast). A method of `Base.broadcast!`
for a group as its first argument, so the name needs no qualification.
"""
Base.broadcast!(pg::ProcessGroup, t::Tensor, src::Integer; async::Bool = false) =
    _run(w -> L.ct_dist_broadcast(pg, t, src, w), async, pg, t)

"""
    reduce!(pg, t, dst; op=:sum, async=false)

On rank `dst`, `t` := `op` over every rank's `t`; the other ranks' `t` is left as it was.
"""
reduce!(pg::ProcessGroup, t::Tensor, dst::Integer; op::Symbol = :sum, async::Bool = false) =
    _run(w -> L.ct_dist_reduce(pg, t, dst, _op(op), w), async, pg, t)

"""
    all_gather!(pg, outputs, input; async=false)

`outputs[r + 1]` := rank r's `input`, on every rank: one output per rank, each of `input`'s size
and dtype (torch.distributed.all_gather).
"""
function all_gather!(pg::ProcessGroup, outputs::AbstractVector{Tensor}, input::Tensor; async::Bool = false)
    outs = _handles(outputs, "all_gather! (outputs)")
    return _run(w -> L.ct_dist_all_gather(pg, outs, length(outs), input, w), async, pg, outputs, input)
end

"""
    all_gather_into_tensor!(pg, output, input; async=false)

`output` := the ranks' inputs concatenated in rank order (`output` has world size times `input`'s
elements).
"""
all_gather_into_tensor!(pg::ProcessGroup, output::Tensor, input::Tensor; async::Bool = false) =
    _run(w -> L.ct_dist_all_gather_into_tensor(pg, output, input, w), async, pg, output, input)

"""
    reduce_scatter!(pg, output, inputs; op=:sum, async=false)

`output` := `op` over every rank's `inputs[this rank + 1]` (one input per rank).
"""
function reduce_scatter!(pg::ProcessGroup, output::Tensor, inputs::AbstractVector{Tensor}; op::Symbol = :sum,
                         async::Bool = false)
    ins = _handles(inputs, "reduce_scatter! (inputs)")
    return _run(w -> L.ct_dist_reduce_scatter(pg, output, ins, length(ins), _op(op), w), async, pg, output, inputs)
end

"""
    reduce_scatter_tensor!(pg, output, input; op=:sum, async=false)

`output` := `op` over every rank's block `this rank` of `input`, `input` being world-size blocks of
`output`'s elements in rank order.
"""
reduce_scatter_tensor!(pg::ProcessGroup, output::Tensor, input::Tensor; op::Symbol = :sum, async::Bool = false) =
    _run(w -> L.ct_dist_reduce_scatter_tensor(pg, output, input, _op(op), w), async, pg, output, input)

"""
    gather!(pg, input, outputs, dst; async=false)

On rank `dst`, `outputs[r + 1]` := rank r's `input`; the other ranks pass `Tensor[]`.
"""
function gather!(pg::ProcessGroup, input::Tensor, outputs::AbstractVector{Tensor}, dst::Integer; async::Bool = false)
    outs = _handles(outputs, "gather! (outputs)")
    return _run(w -> L.ct_dist_gather(pg, input, outs, length(outs), dst, w), async, pg, input, outputs)
end

"""
    scatter!(pg, output, inputs, src; async=false)

`output` := rank `src`'s `inputs[this rank + 1]`; the ranks other than `src` pass `Tensor[]`.
"""
function scatter!(pg::ProcessGroup, output::Tensor, inputs::AbstractVector{Tensor}, src::Integer; async::Bool = false)
    ins = _handles(inputs, "scatter! (inputs)")
    return _run(w -> L.ct_dist_scatter(pg, output, ins, length(ins), src, w), async, pg, output, inputs)
end

"""
    all_to_all!(pg, outputs, inputs; async=false)

`outputs[r + 1]` := rank r's `inputs[this rank + 1]` (one tensor per rank in each, of equal sizes).
"""
function all_to_all!(pg::ProcessGroup, outputs::AbstractVector{Tensor}, inputs::AbstractVector{Tensor};
                     async::Bool = false)
    length(outputs) == length(inputs) ||
        throw(ArgumentError("all_to_all!: $(length(outputs)) outputs and $(length(inputs)) inputs. Give one of each per rank."))
    outs = _handles(outputs, "all_to_all! (outputs)")
    ins = _handles(inputs, "all_to_all! (inputs)")
    return _run(w -> L.ct_dist_all_to_all(pg, outs, ins, length(ins), w), async, pg, outputs, inputs)
end

"""
    all_to_all_single!(pg, output, input; async=false)

`output`'s block r := rank r's `input` block `this rank`, blocks being equal splits of the elements.
"""
all_to_all_single!(pg::ProcessGroup, output::Tensor, input::Tensor; async::Bool = false) =
    _run(w -> L.ct_dist_all_to_all_single(pg, output, input, w), async, pg, output, input)

"""
    send(pg, t, dst; tag=0, async=false)

Send `t` to rank `dst`, which receives it with `recv!(pg, u, src; tag)` into a tensor of the same
size and dtype.
"""
send(pg::ProcessGroup, t::Tensor, dst::Integer; tag::Integer = 0, async::Bool = false) =
    _run(w -> L.ct_dist_send(pg, t, dst, tag, w), async, pg, t)

"""
    recv!(pg, t, src; tag=0, async=false)

Receive into `t` what rank `src` sent with `tag`.
"""
recv!(pg::ProcessGroup, t::Tensor, src::Integer; tag::Integer = 0, async::Bool = false) =
    _run(w -> L.ct_dist_recv(pg, t, src, tag, w), async, pg, t)

"""
    barrier(pg; async=false)

Return once every rank of the group has called it.
"""
barrier(pg::ProcessGroup; async::Bool = false) = _run(w -> L.ct_dist_barrier(pg, w), async, pg)

end # module Distributed
