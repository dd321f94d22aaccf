// Every public header, and a use of each of their inline functions and
// types, in one translation unit: public_headers_odr_test.sh compiles it
// with several target flags and compares the weak definitions the copies
// share. Not linked into anything.
//
// Built with -fkeep-inline-functions, so every inline function of these
// headers is emitted even when unused; what that flag leaves out (implicit
// constructors, copies and destructors, template instantiations) is used
// below. A new public header must be included here: the test fails naming
// any header that is not.

#include "lsmbloom/filter/blocked_bloom-inl.h"  // Includes hwy/highway.h.
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"
#include "lsmbloom/filter/blocked_bloom_options.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/filter_kind.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash-inl.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_math.h"
#include "lsmbloom/filter/ribbon_options.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/filter/simd.h"
#include "lsmbloom/inspect/escape.h"
#include "lsmbloom/inspect/inspect.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/block_cache.h"
#include "lsmbloom/table/entry.h"
#include "lsmbloom/table/options.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"
#include "lsmbloom/table/table_layout.h"
#include "lsmbloom/table/table_properties.h"

#include <string>
#include <string_view>
#include <vector>

namespace odr_probe {

// Default-constructs, copies, assigns and destroys a T.
template <typename T>
void Touch(T* out) {
  T a;
  T b(a);
  b = a;
  *out = b;
}

template <typename T>
void Copy(const T& from, T* to) {
  T copy(from);
  *to = copy;
}

}  // namespace odr_probe

// External linkage, so nothing here is dropped as unused.
void UsePublicHeaders(std::vector<void*>& sink, std::string_view key, uint64_t hash,
                      const lsmbloom::BlockedBloomReader& reader,
                      lsmbloom::BlockedBloomBuilder& builder,
                      const std::vector<std::string>& keys) {
  using namespace lsmbloom;  // NOLINT: a probe, not library code.
  odr_probe::Touch(static_cast<BlockedBloomOptions*>(sink[0]));
  odr_probe::Touch(static_cast<BlockedBloomGeometry*>(sink[1]));
  odr_probe::Touch(static_cast<BlockedBloomView*>(sink[2]));
  odr_probe::Touch(static_cast<FilterReadOptions*>(sink[3]));
  odr_probe::Touch(static_cast<HashSpec*>(sink[4]));
  odr_probe::Touch(static_cast<TableOptions*>(sink[5]));
  odr_probe::Touch(static_cast<TableReadOptions*>(sink[6]));
  odr_probe::Touch(static_cast<LookupOptions*>(sink[7]));
  odr_probe::Touch(static_cast<TableFile*>(sink[8]));
  odr_probe::Touch(static_cast<VersionEdit*>(sink[9]));
  odr_probe::Touch(static_cast<LevelStats*>(sink[10]));
  odr_probe::Touch(static_cast<LookupStats*>(sink[11]));
  odr_probe::Touch(static_cast<LookupResult*>(sink[12]));
  odr_probe::Touch(static_cast<TableStats*>(sink[13]));
  odr_probe::Touch(static_cast<TableEntry*>(sink[14]));
  odr_probe::Touch(static_cast<TableProperties*>(sink[15]));
  odr_probe::Touch(static_cast<LevelFilterShape*>(sink[16]));
  odr_probe::Touch(static_cast<LevelFilterAllocation*>(sink[17]));
  odr_probe::Touch(static_cast<FilterAllocation*>(sink[18]));
  odr_probe::Touch(static_cast<BlockLocation*>(sink[19]));
  odr_probe::Touch(static_cast<TableLayout*>(sink[20]));
  odr_probe::Touch(static_cast<DataBlockInfo*>(sink[21]));
  odr_probe::Touch(static_cast<IndexEntry*>(sink[22]));
  odr_probe::Touch(static_cast<MetaIndexEntry*>(sink[23]));
  odr_probe::Copy(reader, static_cast<BlockedBloomReader*>(sink[24]));

  // The inline calls an application makes.
  *static_cast<bool*>(sink[25]) = reader.MayMatch(key) && reader.MayMatchHash(hash);
  *static_cast<uint64_t*>(sink[26]) = KeyHash(key) + KeyHashInline(key);
  builder.AddKey(key);
  builder.AddHash(hash);
  builder.AddKeys(keys);
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  builder.AddKeys(views);

  // The opt-in per-target prober, under this file's static target.
  const lsmbloom::HWY_NAMESPACE::BlockedBloomProber prober(reader.view());
  *static_cast<bool*>(sink[27]) =
      prober.MayMatchHash(hash) && lsmbloom::HWY_NAMESPACE::MayMatchHash(reader.view(), hash);
  odr_probe::Touch(static_cast<FilterBudgetOptions*>(sink[28]));
  odr_probe::Touch(static_cast<FilterModuleCheck*>(sink[29]));
}
