# docs.jl - runs every ```julia block of docs/julia.md in order, in one module, so the guide's
# snippets keep working (CTest: julia.docs). A block that throws fails the run.
using CTorch

doc = read(joinpath(@__DIR__, "..", "..", "..", "..", "docs", "julia.md"), String)
blocks = [m.captures[1] for m in eachmatch(r"```julia\n(.*?)```"s, doc)]
sandbox = Module(:JuliaDocs)
Core.eval(sandbox, :(using CTorch))
for (k, code) in enumerate(blocks)
    try
        include_string(sandbox, code, "docs/julia.md block $k")
    catch e
        println(stderr, "docs/julia.md block $k failed:\n", code)
        rethrow()
    end
end
println("docs/julia.md: $(length(blocks)) blocks ran")
