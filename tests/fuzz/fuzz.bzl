"""A fuzz target as a libFuzzer binary plus a corpus-replay test."""

def fuzz_target(name, deps = []):
    native.cc_library(
        name = name + "_target",
        srcs = [name + "_fuzzer.cc"],
        deps = ["//:lsmbloom"] + deps,
        testonly = True,
        alwayslink = True,
    )
    native.cc_binary(
        name = name + "_fuzzer",
        testonly = True,
        linkopts = ["-fsanitize=fuzzer"],
        tags = ["manual"],
        deps = [":" + name + "_target"],
    )
    native.cc_test(
        name = name + "_corpus_test",
        srcs = ["corpus_replay_main.cc"],
        args = ["tests/fuzz/corpus/" + name],
        data = native.glob(["corpus/" + name + "/**"]),
        deps = [":" + name + "_target"],
    )
