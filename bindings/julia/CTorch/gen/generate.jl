# generate.jl - writes CTorch.jl's raw layer, src/generated/libctorch.jl: every constant, enum,
# struct, opaque handle and CT_API function of include/ctorch.h, one `ccall` wrapper per function.
# (The operator functions, src/generated/ops.jl, come from the registry by codegen/gen_ops.py, the
# generator every binding's typed operators share.)
#
#   julia bindings/julia/CTorch/gen/generate.jl            # regenerate
#   julia bindings/julia/CTorch/gen/generate.jl --check    # exit 1 when it differs
#
# The header is read as text: comments and preprocessor lines
# go, the annotation macros are dropped, and the remaining declarations are translated one by one.
# The header's `static inline` helpers (ct_value_set_symint, ct_value_set_symints) are written by hand
# in src/values.jl.

const HERE = @__DIR__
const PKG = normpath(joinpath(HERE, ".."))
const ROOT = normpath(joinpath(PKG, "..", "..", ".."))
const HEADER = joinpath(ROOT, "include", "ctorch.h")
const RAW_OUT = joinpath(PKG, "src", "generated", "libctorch.jl")


# ---- the header ----

const SCALARS = Dict(
    "void" => "Cvoid", "char" => "UInt8", "int" => "Cint", "unsigned" => "Cuint", "double" => "Cdouble",
    "float" => "Cfloat", "size_t" => "Csize_t", "int8_t" => "Int8", "int16_t" => "Int16", "int32_t" => "Int32",
    "int64_t" => "Int64", "uint8_t" => "UInt8", "uint16_t" => "UInt16", "uint32_t" => "UInt32", "uint64_t" => "UInt64")

strip_comments(text) = replace(replace(text, r"/\*.*?\*/"s => " "), r"//[^\n]*" => " ")

"""Top-level declarations (split at ';' outside braces), each with the comment block before it."""
function declarations(text)
    # Comments, then preprocessor lines, are blanked with spaces of the same byte length, so that
    # offsets in `code` are offsets in `text` and a declaration can find the comment before it.
    comments = [(m.offset + ncodeunits(m.match), m.match) for m in eachmatch(r"/\*.*?\*/"s, text)]
    code = replace(text, r"/\*.*?\*/"s => s -> " "^ncodeunits(s))
    code = join([(s = strip(l); startswith(s, "#") || s == "extern \"C\" {") ? " "^ncodeunits(l) : l
                 for l in split(code, '\n')], '\n')
    decls = Tuple{String,String}[]
    depth, start = 0, 1
    i = 1
    while i <= ncodeunits(code)
        c = code[i]
        if c == '{'
            depth += 1
        elseif c == '}'
            depth -= 1
            if depth == 0 && startswith(lstrip(code[start:i]), "static inline")
                start = i + 1
            end
            depth = max(depth, 0)
        elseif c == ';' && depth == 0
            d = join(split(code[start:i-1]), " ")
            if occursin(r"\bct_|\bCT_", d)
                before = [c for (e, c) in comments if e <= start + something_nonspace(code, start)]
                push!(decls, (d, isempty(before) ? "" : before[end]))
            end
            start = i + 1
        end
        i = nextind(code, i)
    end
    return decls
end

function something_nonspace(code, start)
    j = start
    while j <= ncodeunits(code) && isspace(code[j])
        j += 1
    end
    return j - start
end

"""The Julia type of a C type as written in a parameter, field or return."""
function jtype(c, known)
    (m = match(r"^NTuple\{(\d+),(.*)\}$", c)) !== nothing && return "NTuple{$(m.captures[1]),$(jtype(m.captures[2], known))}"
    c = replace(c, "struct " => "")
    stars = count(==('*'), c)
    base = strip(replace(replace(c, "*" => " "), r"\bconst\b" => ""))
    base = join(split(base), " ")
    t = get(SCALARS, base, nothing)
    if t === nothing
        t = base in known ? base : "Cvoid"   # DLPack structs and anything foreign: untyped pointers
    end
    for _ in 1:stars
        t = "Ptr{$t}"
    end
    return t
end

function split_params(p)
    p = strip(p)
    (p == "void" || p == "") && return String[]
    out, depth, cur = String[], 0, IOBuffer()
    for ch in p
        if ch == ',' && depth == 0
            push!(out, strip(String(take!(cur))))
            continue
        end
        ch == '(' && (depth += 1)
        ch == ')' && (depth -= 1)
        print(cur, ch)
    end
    push!(out, strip(String(take!(cur))))
    return out
end

"""(type, name) of one parameter or field: `const ct_tensor* const* inputs`."""
function param(p)
    m = match(r"^(.*?)\(\s*\*\s*(\w+)\s*\)\s*\(.*\)$", p)   # a function pointer field
    m !== nothing && return ("void*", m.captures[2])
    m = match(r"^(.*?[\s\*])(\w+)(\[\d*\])?$", p)
    m === nothing && error("cannot parse parameter '$p'")
    m.captures[3] === nothing && return (strip(m.captures[1]), m.captures[2])
    n = m.captures[3][2:end-1]   # a fixed-size array field, "int64_t stride[2]": NTuple{2,Int64}
    return (isempty(n) ? strip(m.captures[1]) * "*" : "NTuple{$n," * strip(m.captures[1]) * "}", m.captures[2])
end

summary_line(comment) = begin
    body = replace(replace(comment, r"^/\*+" => ""), r"\*+/$" => "")
    ls = [strip(replace(l, r"^\s*\*\s?" => "")) for l in split(body, '\n')]
    ls = filter(!isempty, ls)
    isempty(ls) ? "" : ls[1]
end

function generate_raw()
    raw = read(HEADER, String)
    version = match(r"#define CT_VERSION_STRING \"([^\"]+)\"", raw).captures[1]
    io = IOBuffer()
    println(io, "# GENERATED by bindings/julia/CTorch/gen/generate.jl from include/ctorch.h (ctorch $version).")
    println(io, "# Do not edit: change the header and run the generator; test/runtests.jl and CTest fail when")
    println(io, "# this file and the header drift apart. Each function is a `ccall` through the pointer table")
    println(io, "# FUNCTION_POINTERS, which CTorch's __init__ fills from the libctorch it loads (src/find_library.jl).")
    println(io)
    println(io, "# ---- #define constants ----")
    for l in split(raw, '\n')   # line by line: one multi-line regex over the header crashed Julia 1.5's PCRE
        m = match(r"^#define (CT_\w+) (-?\d+|\"[^\"]*\")", l)
        m === nothing || println(io, "const $(m.captures[1]) = $(m.captures[2])")
    end
    decls = declarations(raw)
    known = Set{String}()
    for (d, _) in decls   # every type name first, so parameters of any type resolve
        for m in eachmatch(r"typedef (?:struct|enum) (\w+)", d)
            push!(known, m.captures[1])
        end
        m = match(r"^typedef .*\(\s*\*\s*(\w+)\s*\)", d)
        m !== nothing && push!(known, m.captures[1])
    end
    functions = Tuple{String,String,Vector{Tuple{String,String}},String,String}[]
    println(io)
    println(io, "# ---- types ----")
    for (d, comment) in decls
        if (m = match(r"^typedef enum (\w+) \{(.*)\} (\w+)$", d)) !== nothing
            println(io, "const $(m.captures[1]) = Cint")
            for item in split(m.captures[2], ',')
                item = strip(item)
                isempty(item) && continue
                k, v = strip.(split(item, '='))
                println(io, "const $k = Cint($v)")
            end
        elseif (m = match(r"^typedef struct (\w+) \{(.*)\} (\w+)$", d)) !== nothing
            println(io, "struct $(m.captures[1])")
            for f in split(m.captures[2], ';')
                f = strip(f)
                isempty(f) && continue
                # One declarator per field: "double a, b" would need splitting, which the header avoids.
                occursin(',', f) && !occursin('(', f) && error("generate.jl: split the field \"$f\" into one declaration per field")
                t, n = param(f)
                println(io, "    $n::$(jtype(t, known))")
            end
            println(io, "end")
        elseif (m = match(r"^typedef struct (\w+) (\w+)$", d)) !== nothing
            println(io, "mutable struct $(m.captures[1]) end")
        elseif (m = match(r"^typedef .*\(\s*\*\s*(\w+)\s*\)", d)) !== nothing
            println(io, "const $(m.captures[1]) = Ptr{Cvoid}  # C callback: $(d[9:end])")
        elseif startswith(d, "struct ")
            continue   # DLPack forward declarations
        elseif (m = match(r"^CT_API (?:CT_NODISCARD |CT_DEPRECATED\([^)]*\) )*(.*?)\b(ct_\w+)\((.*)\)$", d)) !== nothing
            ret = strip(m.captures[1])
            params = [param(p) for p in split_params(m.captures[3])]
            push!(functions, (m.captures[2], ret, params, d, summary_line(comment)))
        else
            error("generate.jl: unhandled declaration: $d")
        end
    end
    println(io)
    println(io, "# ---- functions ----")
    println(io, "const FUNCTION_NAMES = (")
    for f in functions
        println(io, "    :$(f[1]),")
    end
    println(io, ")")
    println(io, "const FUNCTION_POINTERS = fill(C_NULL, $(length(functions)))")
    for (k, (name, ret, params, decl, summary)) in enumerate(functions)
        argnames = [n in ("end", "function", "type", "global", "local", "begin") ? n * "_" : n for (_, n) in params]
        types = [jtype(t, known) for (t, _) in params]
        proto = replace(decl, r"^CT_API (CT_NODISCARD )?" => "")
        println(io)
        println(io, "\"\"\"")
        println(io, "    $name($(join(argnames, ", ")))")
        println(io)
        println(io, "`ccall` of `$(replace(proto, "\\" => "\\\\"))`.")
        isempty(summary) || println(io, "\nHeader: ", replace(replace(summary, "\\" => "\\\\"), "\$" => "\\\$"))
        println(io, "\"\"\"")
        tuple = isempty(types) ? "()" : "(" * join(types, ", ") * (length(types) == 1 ? ",)" : ")")
        call = "ccall(@inbounds(FUNCTION_POINTERS[$k]), $(jtype(ret, known)), $tuple" *
               (isempty(argnames) ? ")" : ", " * join(argnames, ", ") * ")")
        println(io, "@inline $name($(join(argnames, ", "))) = $call")
    end
    return String(take!(io))
end

function main(argv)
    check = "--check" in argv
    files = [(RAW_OUT, generate_raw())]
    stale = String[]
    for (path, text) in files
        old = isfile(path) ? read(path, String) : ""
        old == text && continue
        if check
            push!(stale, path)
        else
            mkpath(dirname(path))
            write(path, text)
            println("wrote $path")
        end
    end
    if check && !isempty(stale)
        println(stderr, "generate.jl --check: out of date (run julia bindings/julia/CTorch/gen/generate.jl): ",
                join(stale, ", "))
        return 1
    end
    check && println("generate.jl --check: the generated file matches the header")
    return 0
end

if abspath(PROGRAM_FILE) == @__FILE__
    exit(main(ARGS))
end
