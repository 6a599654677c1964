# indexing.jl - t[i, j:k, :] as views (select and slice), with Julia's 1-based indices.

const TensorIndex = Union{Integer,AbstractRange{<:Integer},Colon,AbstractVector{<:Integer}}

"""
    t[I...] -> Tensor
    t[] -> number

Indexing with one index per dimension, 1-based as for arrays: an integer selects (and drops the
dimension), a range `a:b` or `a:s:b` (s > 0) slices, `:` keeps the dimension, a vector of integers
(`t[[1, 3], :]`, any order, repeats allowed) picks those positions (`index_select`, a copy). With
integers, ranges and colons only the result is a view sharing `t`'s memory (as in PyTorch; `copy`
it to detach the memory), and an all-integer index gives a 0-dim tensor (its value is `t[i, j][]`
or `item`). `t[]` is the value of a
one-element tensor. An index out of range throws `CTorchError` `CT_ERROR_INDEX`. `t[mask]` with a
bool tensor `mask` is `masked_select` (a copy).
"""
Base.getindex(t::Tensor) = item(t)

function Base.getindex(t::Tensor, I::TensorIndex...)
    n = ndims(t)
    length(I) == n || throw(ArgumentError("indexing a $n-dimensional tensor with $(length(I)) indices: give one per " *
                                          "dimension"))
    r = t
    dim = 0   # the library's dim the next index applies to
    for i in I
        if i isa Colon
            dim += 1
            continue
        elseif i isa Integer
            r = ops.select(r, dim, i - 1)
        elseif !(i isa AbstractRange)
            all(k -> 1 <= k <= size(r, dim + 1), i) ||
                throw(CTorchError(L.CT_ERROR_INDEX, "indexing a tensor of size $(size(t)) with $i at dim $(dim + 1) " *
                                  "(1-based): positions must be in 1:$(size(r, dim + 1))"))
            r = ops.index_select(r, dim, Tensor(Int64[k - 1 for k in i]))
            dim += 1
        else
            step(i) > 0 || throw(ArgumentError("indexing a tensor with $i: ranges must increase (use ops.flip)"))
            r = ops.slice(r, dim, first(i) - 1, isempty(i) ? first(i) - 1 : last(i), step(i))
            dim += 1
        end
    end
    return r === t ? ops.slice(t, 0) : r   # all colons: still a new view
end

Base.getindex(t::Tensor, mask::Tensor) = ops.masked_select(t, mask)

"""
    t[I...] = x

Writes `x` (a tensor broadcast to the indexed view's sizes, or a number) into the elements `t[I...]`
selects, in place (`copy_`).
"""
function Base.setindex!(t::Tensor, x, I::TensorIndex...)
    v = getindex(t, I...)
    v .= x
    close(v)
    return t
end

Base.firstindex(t::Tensor, d::Integer) = 1
Base.lastindex(t::Tensor, d::Integer) = size(t, d)
Base.axes(t::Tensor, d::Integer) = Base.OneTo(size(t, d))
