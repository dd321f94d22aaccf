# The library's sources, one list per layer, for the CMake build.
#
# The same files as the layers' Bazel targets (src/<layer>/BUILD), which stay
# the primary build. //tests:cmake_sources_test compares these lists with
# what Bazel compiles for //:lsmbloom and fails on any difference, so a file
# added to (or removed from) one build must be added to (or removed from)
# the other. Paths are relative to the repository root; headers here are the
# layers' private ones (the public ones are include/lsmbloom/<layer>/*.h).

set(LSMBLOOM_UTIL_SOURCES
  src/util/aligned_buffer.h
  src/util/checksum.cc
  src/util/checksum.h
  src/util/coding.h
  src/util/prefetch.h
  src/util/random.h
  src/util/search.h
)

set(LSMBLOOM_IO_SOURCES
  src/io/batch_read.cc
  src/io/batch_read.h
  src/io/mem_file.cc
  src/io/native_file.h
  src/io/posix_file.cc
  src/io/read_faults.cc
  src/io/read_faults.h
)

set(LSMBLOOM_FILTER_SOURCES
  src/filter/blocked/blocked_bloom_builder.cc
  src/filter/blocked/blocked_bloom_format.cc
  src/filter/blocked/blocked_bloom_format.h
  src/filter/blocked/blocked_bloom_kernels.cc
  src/filter/blocked/blocked_bloom_kernels.h
  src/filter/blocked/blocked_bloom_policy.cc
  src/filter/blocked/blocked_bloom_reader.cc
  src/filter/blocked/blocked_bloom_reference.cc
  src/filter/blocked/blocked_bloom_reference.h
  src/filter/blocked/bloom_math.cc
  src/filter/builtin_policies.cc
  src/filter/classic/classic_bloom.cc
  src/filter/filter_header.cc
  src/filter/filter_header.h
  src/filter/filter_policy.cc
  src/filter/filter_probe.cc
  src/filter/filter_probe.h
  src/filter/hash_buffer.cc
  src/filter/hash_buffer.h
  src/filter/huge_pages.cc
  src/filter/huge_pages.h
  src/filter/kernel_choice.cc
  src/filter/kernel_choice.h
  src/filter/kernel_timing.cc
  src/filter/key_hash.cc
  src/filter/key_hash_short.h
  src/filter/modular/modular_format.cc
  src/filter/modular/modular_format.h
  src/filter/modular/modular_policy.cc
  src/filter/policy_adapter.h
  src/filter/ribbon/ribbon_band.cc
  src/filter/ribbon/ribbon_band.h
  src/filter/ribbon/ribbon_builder.cc
  src/filter/ribbon/ribbon_fallback.cc
  src/filter/ribbon/ribbon_format.cc
  src/filter/ribbon/ribbon_format.h
  src/filter/ribbon/ribbon_kernels.cc
  src/filter/ribbon/ribbon_kernels.h
  src/filter/ribbon/ribbon_layout.h
  src/filter/ribbon/ribbon_math.cc
  src/filter/ribbon/ribbon_policy.cc
  src/filter/ribbon/ribbon_reader.cc
  src/filter/ribbon/ribbon_reference.h
  src/filter/ribbon/ribbon_slack.h
  src/filter/simd.cc
  src/filter/simd_dispatch.h
)

set(LSMBLOOM_TABLE_SOURCES
  src/table/block.cc
  src/table/block.h
  src/table/block_cache.cc
  src/table/block_cache_impl.h
  src/table/block_builder.cc
  src/table/block_builder.h
  src/table/data_block_hash_index.h
  src/table/filter_key_selector.h
  src/table/format.cc
  src/table/format.h
  src/table/prefix_extractor.cc
  src/table/search_state.h
  src/table/table.cc
  src/table/table_filter_modules.cc
  src/table/table_iterator.cc
  src/table/table_builder.cc
  src/table/table_inspection.cc
  src/table/table_inspection.h
  src/table/table_lookup.cc
  src/table/table_lookup.h
  src/table/table_properties.cc
  src/table/table_rep.h
)

set(LSMBLOOM_LOOKUP_SOURCES
  src/lookup/candidate_filters.cc
  src/lookup/candidate_filters.h
  src/lookup/filter_budget.cc
  src/lookup/filter_model.cc
  src/lookup/filter_model.h
  src/lookup/filter_residency.cc
  src/lookup/filter_residency.h
  src/lookup/held_modules.h
  src/lookup/lookup.cc
  src/lookup/lookup_counts.h
  src/lookup/lookup_stats.cc
  src/lookup/scratch.h
  src/lookup/storage_search.cc
  src/lookup/storage_search.h
  src/lookup/version.cc
  src/lookup/version.h
  src/lookup/version_edit.cc
)

set(LSMBLOOM_INSPECT_SOURCES
  src/inspect/block_dump.cc
  src/inspect/escape.cc
  src/inspect/filter_keys.cc
  src/inspect/filter_modules.cc
  src/inspect/inspected_table.cc
)

set(LSMBLOOM_SOURCES
  ${LSMBLOOM_UTIL_SOURCES}
  ${LSMBLOOM_IO_SOURCES}
  ${LSMBLOOM_FILTER_SOURCES}
  ${LSMBLOOM_TABLE_SOURCES}
  ${LSMBLOOM_LOOKUP_SOURCES}
  ${LSMBLOOM_INSPECT_SOURCES}
)
