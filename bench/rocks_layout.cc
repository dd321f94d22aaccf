#include "bench/rocks_layout.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rocksdb/sst_file_writer.h"

namespace lsmbloom {
namespace bench {

absl::StatusOr<rocksdb::DB*> IngestLayout(
    const rocksdb::Options& options, const std::string& dir,
    const std::vector<fixture::FileSpec>& layout,
    const std::function<bool(const fixture::FileSpec&)>& skip_filter) {
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, dir, &db);
  int n = 0;
  for (const fixture::FileSpec& f : layout) {
    if (!s.ok()) break;
    const std::string path = absl::StrCat(dir, "/ingest-", n++, ".sst");
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options, nullptr,
                                  /*invalidate_page_cache=*/true, rocksdb::Env::IO_TOTAL,
                                  skip_filter && skip_filter(f));
    s = writer.Open(path);
    for (const fixture::Entry& e : f.entries) {
      if (!s.ok()) break;
      s = e.tombstone ? writer.Delete(fixture::KeyOf(e.id))
                      : writer.Put(fixture::KeyOf(e.id), fixture::ValueOf(e.id, e.seq));
    }
    if (s.ok()) s = writer.Finish();
    rocksdb::IngestExternalFileOptions ingest;
    ingest.move_files = true;
    if (s.ok()) s = db->IngestExternalFile({path}, ingest);
  }
  if (!s.ok()) {
    delete db;
    return absl::InternalError(s.ToString());
  }
  return db;
}

}  // namespace bench
}  // namespace lsmbloom
