"""Settings shared by every target of this workspace."""

TEST_DEPS = ["@system_libs//:gtest_main"]
