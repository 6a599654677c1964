# find_library.jl - where CTorch finds libctorch.

using Libdl

"""
    find_libctorch() -> String

The path of the libctorch shared library CTorch loads, the first of:

1. the environment variable `CTORCH_LIBRARY` (a file path; an error when it names no file);
2. the repository's own build, `build/src/libctorch.so` beside `bindings/` (when this package is
   used from a ctorch checkout that has been built with `scripts/setup.sh`);
3. `libctorch` on the system library path (`ldconfig`, `LD_LIBRARY_PATH`), as installed by
   `cmake --install`.

Throws an `ErrorException` saying what was tried when none exists.
"""
function find_libctorch()
    env = get(ENV, "CTORCH_LIBRARY", "")
    if !isempty(env)
        isfile(env) || error("CTorch: CTORCH_LIBRARY is set to '$env', which is not a file. " *
                             "Point it at libctorch.so (build/src/libctorch.so in a ctorch build)")
        return abspath(env)
    end
    repo = normpath(joinpath(@__DIR__, "..", "..", "..", "..", "build", "src", "libctorch.so"))
    isfile(repo) && return repo
    sys = Libdl.find_library(["libctorch"])
    isempty(sys) || return sys
    error("CTorch: libctorch not found: CTORCH_LIBRARY is unset, $repo does not exist, and no libctorch is on " *
          "the system library path. Build ctorch (scripts/setup.sh) or set CTORCH_LIBRARY=/path/to/libctorch.so")
end
