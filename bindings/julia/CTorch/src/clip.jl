# clip.jl - gradient clipping over the library's (ct_clip_grad_norm, ct_clip_grad_value).

"""Handles of params' tensors (a model, an optimizer, a tensor or a vector of tensors), with them."""
function _param_handles(params)
    ps = parameters(params)
    return ps, Ptr{L.ct_tensor}[open_ptr(p, "gradient clipping") for p in ps]
end

"""
    CTorch.clip_grad_norm!(params, max_norm; norm_type=2) -> Float64

Scale the gradients of `params` (a vector of tensors, a model or an optimizer) in place so that
their combined `norm_type`-norm is at most `max_norm` (torch.nn.utils.clip_grad_norm_; `norm_type`
may be `Inf`). Returns the total norm before clipping. Parameters without a gradient are skipped.
A negative or NaN `max_norm` throws `CTorchError` (`CT_ERROR_INVALID_ARGUMENT`).
"""
function clip_grad_norm!(params, max_norm::Real; norm_type::Real = 2)
    ps, ptrs = _param_handles(params)
    total = Ref{Float64}(0)
    GC.@preserve ps ptrs check(L.ct_clip_grad_norm(isempty(ptrs) ? C_NULL : pointer(ptrs), length(ptrs),
                                                   Float64(max_norm), Float64(norm_type), total))
    return total[]
end

"""
    CTorch.clip_grad_value!(params, clip_value) -> nothing

Clamp every element of the gradients of `params` into `[-clip_value, clip_value]` in place
(torch.nn.utils.clip_grad_value_).
"""
function clip_grad_value!(params, clip_value::Real)
    ps, ptrs = _param_handles(params)
    GC.@preserve ps ptrs check(L.ct_clip_grad_value(isempty(ptrs) ? C_NULL : pointer(ptrs), length(ptrs),
                                                    Float64(clip_value)))
    return nothing
end
