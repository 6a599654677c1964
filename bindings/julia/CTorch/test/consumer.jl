# consumer.jl - CTest's julia.consumer: what a newcomer does, from docs/julia.md alone. It takes the
# section "In a project of your own" between its julia.consumer markers (the sh block of install
# and run commands, and the julia block, train.jl), so the guide and this test cannot drift apart,
# and runs the commands with bash in a new project directory outside the tree with a new
# JULIA_DEPOT_PATH (nothing precompiled, no registry), "path/to/ctorch" standing for this checkout.
# The program must train (the loss falls), restore the checkpoint exactly, and catch the bad input.

root = normpath(joinpath(@__DIR__, "..", "..", "..", ".."))
doc = read(joinpath(root, "docs", "julia.md"), String)
m = match(r"<!-- julia\.consumer: begin.*?-->(.*?)<!-- julia\.consumer: end -->"s, doc)
m === nothing && error("docs/julia.md has no julia.consumer section")
blocks(lang) = [c.captures[1] for c in eachmatch(Regex("```$lang\\n(.*?)```", "s"), m.captures[1])]
sh, jl = blocks("sh"), blocks("julia")
length(sh) == 1 && length(jl) == 1 || error("the julia.consumer section needs one sh and one julia block")

output = mktempdir() do dir
    project = mkpath(joinpath(dir, "project"))
    depot = joinpath(dir, "depot")
    write(joinpath(project, "train.jl"), jl[1])
    env = filter(kv -> !(kv.first in ("JULIA_PROJECT", "JULIA_LOAD_PATH")), ENV)
    env["JULIA_DEPOT_PATH"] = depot
    script = replace(sh[1], "path/to/ctorch" => rstrip(root, '/'))
    out = read(setenv(`bash -e -c $script`, env; dir = project), String)
    # Nothing came from outside: the only registry is the one the package ships.
    registries = readdir(joinpath(depot, "registries"))
    registries == ["CTorchOffline"] || error("the depot got other registries: $registries")
    out
end
print(output)

m = match(r"loss ([0-9.]+) -> ([0-9.]+)", output)
m !== nothing && parse(Float64, m.captures[2]) < parse(Float64, m.captures[1]) ||
    error("julia.consumer: the loss did not fall")
occursin("restored model agrees: true", output) || error("julia.consumer: the restored model differs")
occursin("bad input: CT_ERROR_SHAPE", output) || error("julia.consumer: the bad input was not caught as CT_ERROR_SHAPE")
println("julia.consumer: the documented steps worked")
