# errors.jl - library statuses as CTorchError.

"""
    CTorchError(status, message[, cause])

A failure reported by the C library: `status` is the `ct_status` value (an `Int32`), `kind` its
stable name (`:CT_ERROR_SHAPE`, ...), `message` the library's message for this thread (it names the
operator, the shapes, dtypes and devices involved, and what to do). When the failure came from a
Julia function the library called back (a compiled function, a custom function or kernel, a
hook), `cause` is the exception that function threw, and `message` already contains its text.
"""
struct CTorchError <: Exception
    status::Int32
    kind::Symbol
    message::String
    cause::Any
end

CTorchError(status::Integer, message::AbstractString, cause = nothing) =
    CTorchError(Int32(status), Symbol(unsafe_string(L.ct_status_name(status))), String(message), cause)

function Base.showerror(io::IO, e::CTorchError)
    print(io, "CTorchError(", e.kind, "): ", e.message)
    if e.cause !== nothing
        print(io, "\ncaused by: ")
        showerror(io, e.cause)
    end
end

"""
    CTorch.status_name(status) -> String

The library's stable name of a status (`"CT_ERROR_SHAPE"`); `"CT_ERROR_UNKNOWN"` for others.
"""
status_name(status::Integer) = unsafe_string(L.ct_status_name(status))

"""
    CTorch.last_error() -> String

The message of this thread's last library failure (`ct_last_error`); `""` when none.
"""
last_error() = unsafe_string(L.ct_last_error())

# The exception a Julia callback threw on each thread, until the C call that ran it returns.
const PENDING = Any[]

_pending_slot() = Threads.threadid()

"""Forget any exception a previous callback on this thread left (before a call that may call back)."""
@inline clear_pending() = (@inbounds PENDING[_pending_slot()] = nothing; nothing)

"""Throw the CTorchError for a failed status: the thread's message, and the callback's exception."""
@noinline function throw_status(st::Integer)
    msg = last_error()
    slot = _pending_slot()
    cause = PENDING[slot]
    PENDING[slot] = nothing
    if cause !== nothing
        cause_text = sprint(showerror, cause)
        occursin(first(split(cause_text, '\n')), msg) || (cause = nothing)
    end
    throw(CTorchError(st, annotate_dims(msg), cause))
end

# The library's messages quote dims 0-based ("dim 0: 4 vs 2"). Sizes keep Julia's order (see
# docs/julia.md, "Shapes and memory order"), so its dim d is Julia's dim d + 1: say so rather than
# rewrite the numbers, which a regex could not tell from other numbers in the message.
const DIM_MENTION = r"\bdim(s|ension)?\b\s*[=:]?\s*\[?-?\d"
const DIM_NOTE = " [dims in this message are the library's, counted from 0: its dim 0 is Julia's dim 1]"

annotate_dims(msg::String) = occursin(DIM_MENTION, msg) && !endswith(msg, DIM_NOTE) ? msg * DIM_NOTE : msg

"""
    CTorch.check(status)

Throw a `CTorchError` unless `status` is `CT_OK`.
"""
@inline check(st::Integer) = (st == 0 || throw_status(st); nothing)

"""Copy a library string (char* from an out-parameter) and free it with ct_string_release."""
function take_string(p::Ptr{UInt8})
    p == C_NULL && return nothing
    s = unsafe_string(p)
    L.ct_string_release(p)
    return s
end

"""Call f(out::Ref{Ptr{UInt8}}) -> status and return the library's string."""
function string_out(f)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(f(out))
    return take_string(out[])
end
