"""Build settings shared by the library's targets.

LSMBLOOM_COPTS goes on every cc_library of the library (src/ and the
benchmarks' kernels): those targets compile optimised whatever
--compilation_mode the workspace builds with, so a consumer's default
(fastbuild) build gets the same kernels as `-c opt`. Unoptimised, the
Highway kernels, the hashing and the block loops are several times slower
(README.md, "Using lsmbloom from another workspace", has the numbers).
Assertions still follow the mode (-c opt defines NDEBUG, the others do not).

To step through the library in a debugger, build with
--define=lsmbloom_opt=off (and -c dbg): the library then compiles as the
mode says.
"""

LSMBLOOM_COPTS = select({
    "//:lsmbloom_opt_off": [],
    "//conditions:default": ["-O2"],
})
