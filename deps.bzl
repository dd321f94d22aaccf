"""Declares lsmbloom's external repositories, all offline.

Call lsmbloom_dependencies() from a WORKSPACE. It provides:
  - @system_libs: Debian's Abseil, Highway, xxHash, GoogleTest, Google
    Benchmark, RocksDB, LevelDB, zstd, snappy and nlohmann-json, found under
    /usr.
  - @rules_cc, @rules_java, @remote_coverage_tools: tiny stand-ins for the
    repositories Bazel 4's own @bazel_tools would otherwise download.
"""

load("//third_party:offline_shims.bzl", "offline_shim_repositories")

def lsmbloom_dependencies():
    offline_shim_repositories()
    if not native.existing_rule("system_libs"):
        native.new_local_repository(
            name = "system_libs",
            path = "/usr",
            build_file = str(Label("//third_party:system_libs.BUILD")),
        )
