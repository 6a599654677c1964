# autograd.jl - gradients, grad modes, hooks and custom functions (ctorch.h "Autograd").

"""
    requires_grad!(t::Tensor, flag::Bool=true) -> t

Mark a leaf tensor as one whose gradient `backward` computes (floating tensors only).
"""
requires_grad!(t::Tensor, flag::Bool = true) = (check(L.ct_tensor_set_requires_grad(t, flag)); t)

"""
    requires_grad(t::Tensor) -> Bool

Whether `t` requires grad (a marked leaf, or computed from one while grad mode was on).
"""
function requires_grad(t::Tensor)
    out = Ref{Cint}(0)
    check(L.ct_tensor_requires_grad(t, out))
    return out[] != 0
end

"""
    CTorch.is_leaf(t::Tensor) -> Bool

Whether no recorded operator produced `t`.
"""
function is_leaf(t::Tensor)
    out = Ref{Cint}(0)
    check(L.ct_tensor_is_leaf(t, out))
    return out[] != 0
end

"""
    retains_grad(t::Tensor) -> Bool

Whether `retain_grad!` was called on the non-leaf `t`.
"""
function retains_grad(t::Tensor)
    out = Ref{Cint}(0)
    check(L.ct_tensor_retains_grad(t, out))
    return out[] != 0
end

"""
    output_nr(t::Tensor) -> Int

Which result of the operator that made `t` it is (0 for a leaf).
"""
function output_nr(t::Tensor)
    out = Ref{Int64}(0)
    check(L.ct_tensor_output_nr(t, out))
    return Int(out[])
end

"""
    grad(t::Tensor) -> Union{Tensor,Nothing}

The gradient `backward` accumulated into `t`, or `nothing` before any (non-leaf tensors keep one
only after `CTorch.retain_grad!`).
"""
function grad(t::Tensor)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_grad(t, out))
    return out[] == C_NULL ? nothing : wrap(out[])
end

"""
    CTorch.set_grad!(t::Tensor, g::Union{Tensor,Nothing}) -> t

Replace `t`'s gradient; `nothing` clears it (zero_grad).
"""
set_grad!(t::Tensor, g::Union{Tensor,Nothing}) = (check(L.ct_tensor_set_grad(t, g === nothing ? C_NULL : open_ptr(g, "set_grad!"))); t)

"""
    CTorch.retain_grad!(t::Tensor) -> t

Keep a non-leaf tensor's gradient in `grad(t)` after backward.
"""
retain_grad!(t::Tensor) = (check(L.ct_tensor_retain_grad(t)); t)

"""
    CTorch.grad_fn_name(t::Tensor) -> Union{String,Nothing}

The name of the node that made `t` (`"MulBackward"`, a custom function's name + `"Backward"`), or
`nothing` for a leaf.
"""
grad_fn_name(t::Tensor) = string_out(out -> L.ct_tensor_grad_fn_name(t, out))

"""
    detach(t::Tensor) -> Tensor

A tensor sharing `t`'s elements, without history, that does not require grad (a method of
`Base.detach`).
"""
function Base.detach(t::Tensor)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_detach(t, out))
    return wrap(out[])
end

_grad_flags(retain_graph, create_graph, allow_unused = false) =
    Cint((retain_graph ? L.CT_GRAD_RETAIN_GRAPH : 0) | (create_graph ? L.CT_GRAD_CREATE_GRAPH : 0) |
         (allow_unused ? L.CT_GRAD_ALLOW_UNUSED : 0))

"""
    backward(output::Tensor, grad=nothing; retain_graph=false, create_graph=false)

Add d(output)/d(leaf) into the `grad` of every leaf `output` depends on. `grad` is d(loss)/d(output)
(omit it for a one-element output). An exception thrown by a hook or a custom function's backward
reaches the caller as a `CTorchError` with it as `cause`.
"""
function backward(output::Tensor, g::Union{Tensor,Nothing} = nothing; retain_graph::Bool = false,
                  create_graph::Bool = false)
    clear_pending()
    check(L.ct_tensor_backward(output, g === nothing ? C_NULL : open_ptr(g, "backward (the gradient)"), _grad_flags(retain_graph, create_graph)))
    return nothing
end

"""
    CTorch.autograd_grad(outputs, inputs; grad_outputs=nothing, retain_graph=false, create_graph=false,
                         allow_unused=false) -> Vector{Union{Tensor,Nothing}}

The gradients of `outputs` (a tensor or a vector of them) with respect to `inputs`, returned
instead of accumulated (torch.autograd.grad). With `create_graph=true` the gradients require grad
themselves (second derivatives); with `allow_unused=true` an unused input gets `nothing`.
"""
function autograd_grad(outputs, inputs; grad_outputs = nothing, retain_graph::Bool = false,
                       create_graph::Bool = false, allow_unused::Bool = false)
    outs = outputs isa Tensor ? [outputs] : collect(outputs)
    ins = inputs isa Tensor ? [inputs] : collect(inputs)
    op = Ptr{L.ct_tensor}[open_ptr(t, "grad (outputs)") for t in outs]
    ip = Ptr{L.ct_tensor}[open_ptr(t, "grad (inputs)") for t in ins]
    gp = grad_outputs === nothing ? nothing :
         Ptr{L.ct_tensor}[g === nothing ? C_NULL : open_ptr(g, "grad (grad_outputs)") for g in (grad_outputs isa Tensor ? [grad_outputs] : grad_outputs)]
    res = fill(Ptr{L.ct_tensor}(C_NULL), length(ins))
    clear_pending()
    GC.@preserve outs ins grad_outputs op ip gp res begin
        check(L.ct_autograd_grad(op, gp === nothing ? C_NULL : pointer(gp), length(op), ip, length(ip),
                                 _grad_flags(retain_graph, create_graph, allow_unused), res))
    end
    return Union{Tensor,Nothing}[p == C_NULL ? nothing : wrap(p) for p in res]
end

# ---- grad modes ----

const GRAD_MODES = (no_grad = L.CT_GRAD_MODE_NO_GRAD, enabled = L.CT_GRAD_MODE_ENABLED,
                    inference = L.CT_GRAD_MODE_INFERENCE)

function _with_grad_mode(f, mode)
    prev = Ref{Cint}(0)
    check(L.ct_grad_mode_set(mode, prev))
    try
        return f()
    finally
        check(L.ct_grad_mode_set(prev[], C_NULL))
    end
end

"""
    no_grad(f)

Run `f()` with grad mode off on this thread (nothing is recorded), restoring the previous mode
afterwards, also when `f` throws:

    no_grad() do
        w .-= 0.1 .* grad(w)
    end
"""
no_grad(f) = _with_grad_mode(f, L.CT_GRAD_MODE_NO_GRAD)

"""
    enable_grad(f)

Run `f()` with grad mode on (inside a `no_grad` block, say), then restore the previous mode.
"""
enable_grad(f) = _with_grad_mode(f, L.CT_GRAD_MODE_ENABLED)

"""
    inference_mode(f)

Run `f()` in inference mode: nothing is recorded, and results are inference tensors, which can
never be saved for backward (cheaper to make). Restores the previous mode.
"""
inference_mode(f) = _with_grad_mode(f, L.CT_GRAD_MODE_INFERENCE)

"""
    is_grad_enabled() -> Bool

Whether this thread's grad mode records operators (it is not no-grad or inference).
"""
is_grad_enabled() = L.ct_grad_mode_get() == L.CT_GRAD_MODE_ENABLED

"""
    CTorch.is_inference_mode_enabled() -> Bool

Whether this thread is in inference mode.
"""
is_inference_mode_enabled() = L.ct_grad_mode_get() == L.CT_GRAD_MODE_INFERENCE

"""
    CTorch.set_grad_enabled(flag::Bool)

Turn this thread's grad mode on or off (prefer the `no_grad` / `enable_grad` blocks).
"""
set_grad_enabled(flag::Bool) =
    check(L.ct_grad_mode_set(flag ? L.CT_GRAD_MODE_ENABLED : L.CT_GRAD_MODE_NO_GRAD, C_NULL))

"""
    CTorch.is_inference(t::Tensor) -> Bool

Whether `t` was made in inference mode.
"""
function is_inference(t::Tensor)
    out = Ref{Cint}(0)
    check(L.ct_tensor_is_inference(t, out))
    return out[] != 0
end

# ---- hooks ----

"""
    CTorch.register_hook(f, t::Tensor) -> Int

Run `f(grad)` on `t`'s gradient during every later backward, before it is used; `f` returns a
replacement `Tensor` of the same sizes, or `nothing` to keep it. Returns an id for
`CTorch.remove_hook`. An exception in `f` stops backward and reaches its caller as a `CTorchError`.

    CTorch.register_hook(w) do g
        g .* 2
    end
"""
function register_hook(f, t::Tensor)
    id = Ref{Int64}(0)
    check(L.ct_tensor_register_hook(t, CFUNCTIONS[:hook], root(f), CFUNCTIONS[:destroy], id))
    return Int(id[])
end

"""
    CTorch.register_post_accumulate_grad_hook(f, t::Tensor) -> Int

Run `f(t)` after each later backward has accumulated leaf `t`'s gradient into `CTorch.grad(t)`
(torch's `register_post_accumulate_grad_hook`); `f` may read or replace the grad, and its result
is ignored. Data-parallel training starts reducing a gradient here while backward goes on
(`CTorch.Distributed.all_reduce!(pg, CTorch.grad(leaf); async = true)`). Returns an id for
`CTorch.remove_hook`. An exception in `f` stops backward and reaches its caller as a
`CTorchError`; `t` must be a leaf that requires grad.
"""
function register_post_accumulate_grad_hook(f, t::Tensor)
    id = Ref{Int64}(0)
    check(L.ct_tensor_register_post_accumulate_grad_hook(t, CFUNCTIONS[:post_accumulate_hook], root(f),
                                                         CFUNCTIONS[:destroy], id))
    return Int(id[])
end

"""
    CTorch.remove_hook(t::Tensor, id::Integer)

Remove a hook `register_hook` or `register_post_accumulate_grad_hook` put on `t`.
"""
remove_hook(t::Tensor, id::Integer) = check(L.ct_tensor_remove_hook(t, id))

# ---- custom functions ----

struct CustomFunction
    name::String
    forward::Any
    backward::Any
end

"""
    CTorch.CustomFunction(name; forward, backward)

A differentiable function given by its forward and backward (torch.autograd.Function), applied by
calling it on tensors:

    square = CTorch.CustomFunction("Square";
        forward = (ctx, x) -> (CTorch.save_for_backward(ctx, x); x .* x),
        backward = (ctx, g) -> (saved = CTorch.saved_tensors(ctx)[1]; 2 .* saved .* g))
    y = square(x)

`forward(ctx, inputs...)` runs with grad mode off and returns a tensor or a tuple of them;
`backward(ctx, grads...)` gets one gradient per output and returns one gradient (or `nothing`) per
input. The node is named `name * "Backward"`. Exceptions in either reach the caller (of the call, or
of `backward`) as a `CTorchError` whose `cause` is the exception.
"""
CustomFunction(name::AbstractString; forward, backward) = CustomFunction(String(name), forward, backward)

"""
    (f::CustomFunction)(inputs::Tensor...; nout=1)

Apply the custom function to `inputs`; `nout` is the number of tensors forward returns.
Returns one `Tensor`, or a tuple for `nout > 1`.
"""
function (f::CustomFunction)(inputs::Tensor...; nout::Integer = 1)
    ip = Ptr{L.ct_tensor}[open_ptr(t, "a custom function's inputs") for t in inputs]
    outs = fill(Ptr{L.ct_tensor}(C_NULL), nout)
    clear_pending()
    GC.@preserve inputs ip outs check(L.ct_autograd_function_apply(f.name, CFUNCTIONS[:forward], CFUNCTIONS[:backward],
                                                                   root(f), CFUNCTIONS[:destroy], ip, length(ip),
                                                                   outs, nout))
    nout == 1 && return wrap(outs[1])
    return Tuple(wrap(p) for p in outs)
end

"""
    CTorch.save_for_backward(ctx, tensors...)

In a custom function's forward: keep tensors for backward.
"""
save_for_backward(ctx::AutogradContext, ts::Tensor...) = foreach(t -> check(L.ct_autograd_ctx_save(ctx.ptr, t)), ts)

"""
    CTorch.saved_tensors(ctx) -> Vector{Tensor}

In a custom function's backward: the tensors forward saved, in order.
"""
function saved_tensors(ctx::AutogradContext)
    n = Ref{Csize_t}(0)
    check(L.ct_autograd_ctx_saved_count(ctx.ptr, n))
    out = Tensor[]
    for i in 0:Int(n[])-1
        p = Ref{Ptr{L.ct_tensor}}(C_NULL)
        check(L.ct_autograd_ctx_saved(ctx.ptr, i, p))
        push!(out, wrap(p[]))
    end
    return out
end
