# json.jl - a small JSON reader for the documents the library returns (ct_op_registry_json,
# ct_metrics_json, ct_program_json, ...), and a writer of objects of strings (checkpoint metadata).
# Julia's standard library has none, and the package depends on nothing else. Objects become
# Dict{String,Any}, arrays Vector{Any}, integers Int64, other numbers Float64, null `nothing`.

module JSON

"""
    JSON.parse(text::AbstractString) -> Any

Parse one JSON document. Objects become `Dict{String,Any}`, arrays `Vector{Any}`, integral
numbers `Int64`, other numbers `Float64`, `null` becomes `nothing`. Throws `ArgumentError`
naming the byte offset for malformed text.
"""
function parse(text::AbstractString)
    s = String(text)
    v, i = _value(s, _skip(s, 1))
    i = _skip(s, i)
    i <= ncodeunits(s) && _fail(s, i, "trailing characters")
    return v
end

_fail(s, i, what) = throw(ArgumentError("JSON.parse: $what at byte $i"))

function _skip(s, i)
    n = ncodeunits(s)
    while i <= n && (c = codeunit(s, i); c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09)
        i += 1
    end
    return i
end

function _value(s, i)
    i > ncodeunits(s) && _fail(s, i, "unexpected end")
    c = codeunit(s, i)
    if c == UInt8('{')
        d = Dict{String,Any}()
        i = _skip(s, i + 1)
        codeunit(s, i) == UInt8('}') && return d, i + 1
        while true
            codeunit(s, i) == UInt8('"') || _fail(s, i, "expected a key")
            k, i = _string(s, i)
            i = _skip(s, i)
            codeunit(s, i) == UInt8(':') || _fail(s, i, "expected ':'")
            v, i = _value(s, _skip(s, i + 1))
            d[k] = v
            i = _skip(s, i)
            c = codeunit(s, i)
            c == UInt8('}') && return d, i + 1
            c == UInt8(',') || _fail(s, i, "expected ',' or '}'")
            i = _skip(s, i + 1)
        end
    elseif c == UInt8('[')
        a = Any[]
        i = _skip(s, i + 1)
        codeunit(s, i) == UInt8(']') && return a, i + 1
        while true
            v, i = _value(s, i)
            push!(a, v)
            i = _skip(s, i)
            c = codeunit(s, i)
            c == UInt8(']') && return a, i + 1
            c == UInt8(',') || _fail(s, i, "expected ',' or ']'")
            i = _skip(s, i + 1)
        end
    elseif c == UInt8('"')
        return _string(s, i)
    elseif startswith(SubString(s, i), "true")
        return true, i + 4
    elseif startswith(SubString(s, i), "false")
        return false, i + 5
    elseif startswith(SubString(s, i), "null")
        return nothing, i + 4
    else
        j = i
        n = ncodeunits(s)
        while j <= n && codeunit(s, j) in b"+-0123456789.eE"
            j += 1
        end
        j == i && _fail(s, i, "unexpected character")
        t = SubString(s, i, j - 1)
        v = tryparse(Int64, t)
        v === nothing && (v = tryparse(Float64, t))
        v === nothing && _fail(s, i, "bad number")
        return v, j
    end
end

function _string(s, i)
    io = IOBuffer()
    i += 1
    n = ncodeunits(s)
    while true
        i > n && _fail(s, i, "unterminated string")
        c = codeunit(s, i)
        if c == UInt8('"')
            return String(take!(io)), i + 1
        elseif c == UInt8('\\')
            e = codeunit(s, i + 1)
            if e == UInt8('u')
                u = Base.parse(UInt16, SubString(s, i + 2, i + 5); base = 16)
                i += 6
                if 0xd800 <= u <= 0xdbff && i + 5 <= n && codeunit(s, i) == UInt8('\\')
                    lo = Base.parse(UInt16, SubString(s, i + 2, i + 5); base = 16)
                    print(io, Char(0x10000 + ((UInt32(u) - 0xd800) << 10) + (lo - 0xdc00)))
                    i += 6
                else
                    print(io, Char(u))
                end
                continue
            end
            write(io, e == UInt8('n') ? UInt8('\n') : e == UInt8('t') ? UInt8('\t') : e == UInt8('r') ? UInt8('\r') :
                      e == UInt8('b') ? 0x08 : e == UInt8('f') ? 0x0c : e)
            i += 2
        else
            write(io, c)
            i += 1
        end
    end
end

"""
    JSON.object_of_strings(entries::Vector{Pair{String,String}}) -> String

The JSON object text of string keys and values (`{"step":"1000"}`), escaping quotes, backslashes
and control characters; other characters are written as they are (UTF-8).
"""
function object_of_strings(entries::Vector{Pair{String,String}})
    io = IOBuffer()
    write(io, '{')
    for (k, (key, value)) in enumerate(entries)
        k > 1 && write(io, ',')
        _write_string(io, key)
        write(io, ':')
        _write_string(io, value)
    end
    write(io, '}')
    return String(take!(io))
end

function _write_string(io::IO, s::String)
    write(io, '"')
    for b in codeunits(s)
        if b == UInt8('"') || b == UInt8('\\')
            write(io, UInt8('\\'), b)
        elseif b < 0x20
            print(io, "\\u00", string(b; base = 16, pad = 2))
        else
            write(io, b)
        end
    end
    write(io, '"')
end

end # module JSON
