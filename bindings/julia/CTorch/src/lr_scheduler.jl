# lr_scheduler.jl - learning-rate schedules over the library's (ctorch.h "Training": ct_lr_scheduler_*).

"""
    CTorch.LRScheduler

A learning-rate schedule bound to one `CTorch.Optimizer` (`ct_lr_scheduler`, torch.optim.lr_scheduler
with `last_epoch = -1`): made by `CTorch.StepLR`, `MultiStepLR`, `ExponentialLR`,
`CosineAnnealingLR`, `CosineAnnealingWarmRestarts`, `LinearLR`, `ConstantLR` or `PolynomialLR`,
advanced by `CTorch.step!(sched)` after each `CTorch.step!(opt)`, read with `CTorch.last_lr` and
`CTorch.last_epoch`. The library keeps the optimizer alive while the schedule lives; a finalizer or
`close(sched)` releases it.
"""
mutable struct LRScheduler
    ptr::Ptr{L.ct_lr_scheduler}   # C_NULL once closed
    name::Symbol
    function LRScheduler(p::Ptr{L.ct_lr_scheduler}, name::Symbol)
        s = new(p, name)
        finalizer(s -> (p = s.ptr; s.ptr = C_NULL; L.ct_lr_scheduler_release(p)), s)
        return s
    end
end

Base.unsafe_convert(::Type{Ptr{L.ct_lr_scheduler}}, s::LRScheduler) = s.ptr
Base.close(s::LRScheduler) = (p = s.ptr; s.ptr = C_NULL; L.ct_lr_scheduler_release(p); nothing)
Base.isopen(s::LRScheduler) = s.ptr != C_NULL

"""The library's defaults for kind with the settings that are not `nothing` replaced, bound to opt."""
function _scheduler(opt::Optimizer, kind::Cint, name::Symbol, settings; milestones::Vector{Int64} = Int64[])
    o = Ref{L.ct_lr_scheduler_options}()
    check(L.ct_lr_scheduler_options_default(kind, o))
    changes = Dict{Symbol,Any}()
    for (k, v) in pairs(settings)
        v === nothing && continue
        v isa Real && !(v isa Bool) || throw(ArgumentError("CTorch.$name: $k must be a number, got $(repr(v))"))
        T = fieldtype(L.ct_lr_scheduler_options, k)
        T <: Integer && !isinteger(v) && throw(ArgumentError("CTorch.$name: $k must be an integer, got $v"))
        changes[k] = T(v)
    end
    o[] = _replace(o[], changes)
    out = Ref{Ptr{L.ct_lr_scheduler}}(C_NULL)
    GC.@preserve milestones begin  # the library copies them during the call
        if !isempty(milestones)
            o[] = _replace(o[], Dict{Symbol,Any}(:milestones => pointer(milestones),
                                                 :num_milestones => Csize_t(length(milestones))))
        end
        check(L.ct_lr_scheduler_create(opt, o, out))
    end
    return LRScheduler(out[], name)
end

"""
    CTorch.StepLR(opt, step_size; gamma=0.1) -> LRScheduler

Multiply the learning rate by `gamma` every `step_size` steps (torch.optim.lr_scheduler.StepLR).
"""
StepLR(opt::Optimizer, step_size::Integer; gamma = nothing) =
    _scheduler(opt, L.CT_LR_SCHEDULER_STEP, :StepLR, (step_size = step_size, gamma = gamma))

"""
    CTorch.CosineAnnealingLR(opt, T_max; eta_min=0) -> LRScheduler

Anneal the learning rate from its current value down to `eta_min` along a cosine over `T_max` steps
(and back up over the next `T_max`, as torch's recursive formula does).
"""
CosineAnnealingLR(opt::Optimizer, T_max::Integer; eta_min = nothing) =
    _scheduler(opt, L.CT_LR_SCHEDULER_COSINE, :CosineAnnealingLR, (t_max = T_max, eta_min = eta_min))

"""
    CTorch.LinearLR(opt; start_factor=1/3, end_factor=1.0, total_iters=5) -> LRScheduler

Scale the learning rate by a factor going linearly from `start_factor` (applied at once) to
`end_factor` over `total_iters` steps: a linear warm-up.
"""
LinearLR(opt::Optimizer; start_factor = nothing, end_factor = nothing, total_iters = nothing) =
    _scheduler(opt, L.CT_LR_SCHEDULER_LINEAR, :LinearLR,
               (start_factor = start_factor, end_factor = end_factor, total_iters = total_iters))

"""
    CTorch.MultiStepLR(opt, milestones; gamma=0.1) -> LRScheduler

Multiply the learning rate by `gamma` at each of the `milestones` (twice at one listed twice).
"""
MultiStepLR(opt::Optimizer, milestones::AbstractVector{<:Integer}; gamma = nothing) =
    _scheduler(opt, L.CT_LR_SCHEDULER_MULTISTEP, :MultiStepLR, (gamma = gamma,);
               milestones = Vector{Int64}(milestones))

"""
    CTorch.ExponentialLR(opt, gamma) -> LRScheduler

Multiply the learning rate by `gamma` every step.
"""
ExponentialLR(opt::Optimizer, gamma::Real) =
    _scheduler(opt, L.CT_LR_SCHEDULER_EXPONENTIAL, :ExponentialLR, (gamma = gamma,))

"""
    CTorch.ConstantLR(opt; factor=1/3, total_iters=5) -> LRScheduler

Scale the learning rate by `factor` until `total_iters` steps have passed.
"""
ConstantLR(opt::Optimizer; factor = nothing, total_iters = nothing) =
    _scheduler(opt, L.CT_LR_SCHEDULER_CONSTANT, :ConstantLR, (factor = factor, total_iters = total_iters))

"""
    CTorch.PolynomialLR(opt; total_iters=5, power=1.0) -> LRScheduler

Decay the learning rate as `(1 - step / total_iters)^power`, to 0 at `total_iters`.
"""
PolynomialLR(opt::Optimizer; total_iters = nothing, power = nothing) =
    _scheduler(opt, L.CT_LR_SCHEDULER_POLYNOMIAL, :PolynomialLR, (total_iters = total_iters, power = power))

"""
    CTorch.CosineAnnealingWarmRestarts(opt, T_0; T_mult=1, eta_min=0) -> LRScheduler

Anneal the learning rate along a cosine to `eta_min` over `T_0` steps, then restart from the base
lr with periods `T_mult` times longer each.
"""
CosineAnnealingWarmRestarts(opt::Optimizer, T_0::Integer; T_mult = nothing, eta_min = nothing) =
    _scheduler(opt, L.CT_LR_SCHEDULER_COSINE_WARM_RESTARTS, :CosineAnnealingWarmRestarts,
               (t_0 = T_0, t_mult = T_mult, eta_min = eta_min))

"""
    CTorch.step!(sched::LRScheduler) -> sched

Advance the schedule one step and set its optimizer's learning rate (scheduler.step()).
"""
step!(s::LRScheduler) = (check(L.ct_lr_scheduler_step(s)); s)

"""
    CTorch.restart!(sched::LRScheduler) -> sched

Start the schedule again from its base lr (scheduler.step(0), what torch's SequentialLR does at a
milestone): the step count becomes 0 and the lr the schedule's value at step 0.
"""
restart!(s::LRScheduler) = (check(L.ct_lr_scheduler_restart(s)); s)

"""
    CTorch.last_lr(sched) -> Float64
    CTorch.last_epoch(sched) -> Int

The learning rate the last step (or the creation) set (scheduler.get_last_lr()[1]), and the number
of steps taken (scheduler.last_epoch; 0 right after creation).
"""
function last_lr(s::LRScheduler)
    out = Ref{Float64}(0)
    check(L.ct_lr_scheduler_get_last_lr(s, out))
    return out[]
end
@doc (@doc last_lr) function last_epoch(s::LRScheduler)
    out = Ref{Int64}(0)
    check(L.ct_lr_scheduler_get_last_epoch(s, out))
    return Int(out[])
end

Base.show(io::IO, s::LRScheduler) =
    print(io, "CTorch.", s.name, isopen(s) ? "(last_epoch = $(last_epoch(s)), last_lr = $(last_lr(s)))" : "(<closed>)")
