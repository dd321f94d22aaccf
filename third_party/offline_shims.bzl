"""Offline stand-ins for repositories that Bazel 4's @bazel_tools loads.

@bazel_tools refers to @rules_cc, @rules_java and @remote_coverage_tools and
would download them. These repository rules write minimal versions whose
macros forward to Bazel's native rules, so builds and tests run offline.
"""

_CC_RULES = [
    "cc_binary",
    "cc_import",
    "cc_library",
    "cc_proto_library",
    "cc_test",
    "cc_toolchain",
    "cc_toolchain_suite",
    "fdo_prefetch_hints",
    "fdo_profile",
    "objc_library",
]

_JAVA_RULES = [
    "java_binary",
    "java_import",
    "java_library",
    "java_runtime",
    "java_toolchain",
]

def _forwarding_bzl(rules):
    lines = ['"""Forwards to the native rules (offline stand-in)."""', ""]
    for rule in rules:
        lines.append("def %s(**attrs):" % rule)
        lines.append("    native.%s(**attrs)" % rule)
        lines.append("")
    return "\n".join(lines)

def _shim_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    for path, content in ctx.attr.files.items():
        ctx.file(path, content)

_shim_repository = repository_rule(
    implementation = _shim_impl,
    attrs = {"files": attr.string_dict()},
)

def offline_shim_repositories():
    if not native.existing_rule("rules_cc"):
        _shim_repository(
            name = "rules_cc",
            files = {
                "BUILD": "",
                "cc/BUILD": "",
                "cc/defs.bzl": _forwarding_bzl(_CC_RULES),
            },
        )
    if not native.existing_rule("rules_java"):
        _shim_repository(
            name = "rules_java",
            files = {
                "BUILD": "",
                "java/BUILD": "",
                "java/defs.bzl": _forwarding_bzl(_JAVA_RULES),
            },
        )
    if not native.existing_rule("remote_coverage_tools"):
        _shim_repository(
            name = "remote_coverage_tools",
            files = {
                "BUILD": "\n".join([
                    'package(default_visibility = ["//visibility:public"])',
                    'filegroup(name = "coverage_report_generator")',
                    'filegroup(name = "lcov_merger")',
                    "",
                ]),
            },
        )
