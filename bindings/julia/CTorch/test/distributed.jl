# distributed.jl - CTorch.Distributed over the gloo engine (CTest: julia.distributed). Each testset
# launches its ranks as julia processes running this file again with CTORCH_TEST_DIST_CHILD naming
# the scenario and RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1 and a free MASTER_PORT set; a rank checks
# the numbers and exits non-zero when one is wrong. A rank that fails or runs past the bound fails
# the testset. Without the gloo module the tests are skipped, unless CTORCH_REQUIRE_GLOO is set.
#
#   CTORCH_LIBRARY=build/src/libctorch.so julia --project=bindings/julia/CTorch bindings/julia/CTorch/test/distributed.jl

using Test
using Sockets: @ip_str, listen, getsockname  # not `send`, which CTorch.Distributed exports too
using CTorch
using CTorch.Distributed

const BOUND = 300  # seconds for one launch: each rank starts julia and loads CTorch
const SELF = @__FILE__
const DONE = "ctorch-distributed-rank-finished"  # a rank that finished prints it; launch requires it

fl(v...) = Tensor(Float32[v...])
vals(t) = Array(t)

function two(pg)
    rank, r = get_rank(pg), Float32(get_rank(pg))
    @assert get_world_size(pg) == 2 && get_backend(pg) == "gloo" && is_member(pg)

    t = fl(r + 1, 10(r + 1)); all_reduce!(pg, t)
    @assert vals(t) == [3, 30]
    t = fl(r + 2); all_reduce!(pg, t; op = :product)
    @assert vals(t) == [6]
    t = fl(r, -r); all_reduce!(pg, t; op = :max)
    @assert vals(t) == [1, 0]
    t = fl(r, -r); all_reduce!(pg, t; op = :min)
    @assert vals(t) == [0, -1]
    t = fl(r + 1); all_reduce!(pg, t; op = :avg)
    @assert vals(t) == [1.5]
    t = Tensor([rank + 5]); all_reduce!(pg, t)
    @assert vals(t) == [11]
    t = fl(r, r, r)
    w = all_reduce!(pg, t; async = true)
    wait(w)
    @assert is_completed(w)
    @assert vals(t) == [1, 1, 1]

    t = fl(7r, 3); broadcast!(pg, t, 1)
    @assert vals(t) == [7, 3]
    t = fl(r + 1); reduce!(pg, t, 0)
    @assert vals(t) == [rank == 0 ? 3 : 2]

    input = fl(r, 2r + 1)
    outs = [fl(0, 0), fl(0, 0)]
    all_gather!(pg, outs, input)
    @assert vals(outs[1]) == [0, 1] && vals(outs[2]) == [1, 3]
    out = fl(0, 0, 0, 0); all_gather_into_tensor!(pg, out, input)
    @assert vals(out) == [0, 1, 1, 3]

    out = fl(0); reduce_scatter!(pg, out, [fl(r + 1), fl(10(r + 1))])
    @assert vals(out) == [rank == 0 ? 3 : 30]
    out = fl(0); reduce_scatter_tensor!(pg, out, fl(r + 1, 10(r + 1)))
    @assert vals(out) == [rank == 0 ? 3 : 30]

    if rank == 1
        got = [fl(0), fl(0)]
        gather!(pg, fl(100 + r), got, 1)
        @assert vals(got[1]) == [100] && vals(got[2]) == [101]
    else
        gather!(pg, fl(100 + r), Tensor[], 1)
    end
    out = fl(0, 0)
    scatter!(pg, out, rank == 0 ? [fl(1, 2), fl(3, 4)] : Tensor[], 0)
    @assert vals(out) == (rank == 0 ? [1, 2] : [3, 4])

    outs = [fl(0), fl(0)]
    all_to_all!(pg, outs, [fl(10r), fl(10r + 1)])
    @assert vals(outs[1]) == [r] && vals(outs[2]) == [10 + r]
    out = fl(0, 0); all_to_all_single!(pg, out, fl(10r, 10r + 1))
    @assert vals(out) == [r, 10 + r]

    if rank == 0
        send(pg, fl(7, 8, 9), 1; tag = 5)
        back = fl(0, 0, 0)
        wait(recv!(pg, back, 1; tag = 6, async = true))
        @assert vals(back) == [14, 16, 18]
    else
        got = fl(0, 0, 0)
        recv!(pg, got, 0; tag = 5)
        @assert vals(got) == [7, 8, 9]
        wait(send(pg, got * 2, 0; tag = 6, async = true))
    end

    e = try broadcast!(pg, fl(r), 2); nothing catch err; err end
    @assert e isa CTorchError && e.kind === :CT_ERROR_INVALID_ARGUMENT
    barrier(pg)
    wait(barrier(pg; async = true))
end

function three(pg)
    rank = get_rank(pg)
    @assert get_world_size(pg) == 3
    t = Tensor([rank + 1.0, 1.0]); all_reduce!(pg, t)
    @assert vals(t) == [6, 3]
    t = Tensor([Int32(3rank)]); broadcast!(pg, t, 2)
    @assert vals(t) == [6]
    outs = [fl(0) for _ in 1:3]
    all_gather!(pg, outs, fl(2rank))
    @assert [vals(o)[1] for o in outs] == [0, 2, 4]
    # A send waits for its receive and a group runs one operation at a time: even ranks send
    # first, odd ranks receive first (all sending first would wait on each other).
    got = fl(0)
    if iseven(rank)
        send(pg, fl(rank), (rank + 1) % 3)
        recv!(pg, got, (rank + 2) % 3)
    else
        recv!(pg, got, (rank + 2) % 3)
        send(pg, fl(rank), (rank + 1) % 3)
    end
    @assert vals(got) == [(rank + 2) % 3]
    sub = new_group(pg, [2, 0])
    if rank == 1
        @assert !is_member(sub) && get_rank(sub) == -1
    else
        @assert get_world_size(sub) == 2 && get_rank(sub) == (rank == 2 ? 0 : 1)
        t = fl(rank + 1); all_reduce!(sub, t)
        @assert vals(t) == [4]
    end
    close(sub)
    barrier(pg)
end

function timeout(pg)
    t = fl(1)
    if get_rank(pg) == 0
        w = all_reduce!(pg, t; async = true)
        e = try wait(w; timeout = 0.2); nothing catch err; err end
        @assert e isa CTorchError && e.kind === :CT_ERROR_TIMEOUT "a short wait gave $e"
        @assert !is_completed(w)
        wait(w)
        @assert vals(t) == [2]
        e = try all_reduce!(pg, t); nothing catch err; err end
        @assert e isa CTorchError && e.kind === :CT_ERROR_TIMEOUT "an all_reduce rank 1 never joins gave $e"
    else
        sleep(2)
        all_reduce!(pg, t)
        sleep(5)
    end
end

const SCENARIOS = Dict("two" => (two, 60), "three" => (three, 60), "timeout" => (timeout, 3))

function free_port()
    server = listen(ip"127.0.0.1", 0)
    port = Int(getsockname(server)[2])
    close(server)
    return port
end

function gloo_available()
    Distributed.is_backend_available("gloo") && return true
    haskey(ENV, "CTORCH_REQUIRE_GLOO") && error("gloo is required here: $(CTorch.last_error())")
    @info "skipped: the gloo engine is not available ($(CTorch.last_error()))"
    return false
end

"""Run `scenario` on `world` rank processes; true when every rank exited 0 within BOUND."""
function launch(scenario, world)
    port = string(free_port())
    julia = joinpath(Sys.BINDIR, Base.julia_exename())
    project = dirname(Base.active_project())
    logs = [tempname() for _ in 1:world]
    procs = map(0:world-1) do r
        env = merge(Dict{String,String}(ENV), Dict("CTORCH_TEST_DIST_CHILD" => scenario, "RANK" => string(r),
                    "WORLD_SIZE" => string(world), "MASTER_ADDR" => "127.0.0.1", "MASTER_PORT" => port))
        cmd = setenv(`$julia --startup-file=no --project=$project $SELF`, env)
        run(pipeline(cmd; stdout = logs[r+1] * ".out", stderr = logs[r+1] * ".err"); wait = false)
    end
    start = time()
    while any(p -> !process_exited(p), procs) && time() - start < BOUND
        sleep(0.05)
    end
    ok = true
    for (r, p) in enumerate(procs)
        finished = process_exited(p)
        finished || (kill(p); wait(p))
        out, err = read(logs[r] * ".out", String), read(logs[r] * ".err", String)
        if !success(p) || !occursin(DONE, out)
            ok = false
            println(stderr, "rank $(r-1) of $scenario: ", finished ? "exit $(p.exitcode)" : "killed after $(BOUND) s",
                    "\n", out, err)
        end
        rm(logs[r] * ".out"; force = true)
        rm(logs[r] * ".err"; force = true)
    end
    return ok
end

if haskey(ENV, "CTORCH_TEST_DIST_CHILD")
    f, seconds = SCENARIOS[ENV["CTORCH_TEST_DIST_CHILD"]]
    init_process_group(f, "gloo"; timeout = seconds)
    println(DONE)
else
    @testset "CTorch.Distributed" begin
        @testset "the new statuses have their kinds" begin
            @test CTorch.status_name(18) == "CT_ERROR_TIMEOUT"
            @test CTorch.status_name(19) == "CT_ERROR_DISTRIBUTED"
            @test CTorchError(19, "m").kind === :CT_ERROR_DISTRIBUTED
        end
        @testset "an unknown backend or op is refused" begin
            @test_throws CTorchError Distributed.is_backend_available("carrier-pigeon")
            @test_throws CTorchError init_process_group("carrier-pigeon"; rank = 0, world_size = 1)
        end
        if gloo_available()
            @testset "one rank: queries, and a closed group is refused" begin
                pg = init_process_group("gloo"; init_method = "tcp://127.0.0.1:$(free_port())", rank = 0,
                                        world_size = 1, timeout = 30)
                @test (get_rank(pg), get_world_size(pg), get_backend(pg)) == (0, 1, "gloo")
                t = fl(2)
                @test_throws ArgumentError all_reduce!(pg, t; op = :mean)
                all_reduce!(pg, t)
                @test vals(t) == [2]
                close(pg)
                @test !isopen(pg)
                @test_throws CTorchError all_reduce!(pg, t)
            end
            @testset "a rank that never arrives is a timeout naming it" begin
                start = time()
                e = try
                    init_process_group("gloo"; init_method = "tcp://127.0.0.1:$(free_port())", rank = 0,
                                       world_size = 2, timeout = 1)
                catch err
                    err
                end
                @test e isa CTorchError && e.kind === :CT_ERROR_TIMEOUT
                @test occursin("1", e.message)
                @test time() - start < 30
            end
            @testset "two ranks give torch's numbers for every collective" begin
                @test launch("two", 2)
            end
            @testset "three ranks: all_reduce, broadcast, all_gather, a ring of sends, a sub-group" begin
                @test launch("three", 3)
            end
            @testset "a collective a peer never joins is a timeout" begin
                @test launch("timeout", 2)
            end
        end
    end
end
