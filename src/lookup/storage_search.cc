#include "src/lookup/storage_search.h"

#include <string>
#include <vector>

#include "src/table/table_lookup.h"

namespace lsmbloom {
namespace internal {
namespace {

// Where one key stands between rounds.
struct Cursor {
  size_t next = 0;  // The candidate to search next, once past ruled-out ones.
  bool done = false;
  // This round's fetch of candidate `next`: its plan, and its read's index
  // in the round's batch (-1: nothing to read).
  BlockFetch fetch;
  BlockReads reads;
  long read = -1;
};

// Moves c past the candidates whose filter rules the key out, counting
// their probes; done when none is left.
void SkipRuledOut(const KeySearch& s, Cursor* c, LocalCounts* counts) {
  for (; c->next < s.count; ++c->next) {
    const FileMeta& m = *s.files[c->next];
    if (m.step == FilterStep::kNone) return;
    const bool ruled_out = !s.maybe[c->next];
    if (counts != nullptr) counts->AddProbe(m.level, ruled_out, m.predicted_fpr);
    if (!ruled_out) return;
  }
  c->done = true;
}

}  // namespace

void SearchInRounds(absl::Span<KeySearch> searches, BatchReadEngine engine, LocalCounts* counts) {
  std::vector<Cursor> cursors(searches.size());
  std::vector<BatchRead> batch;
  std::vector<std::string> buffers;
  std::vector<size_t> in_round;
  for (KeySearch& s : searches) s.result->Reset();  // Not found until a file answers.
  for (;;) {
    // 1. Each unanswered key's next candidate, and what its block needs.
    batch.clear();
    in_round.clear();
    for (size_t i = 0; i < searches.size(); ++i) {
      KeySearch& s = searches[i];
      Cursor& c = cursors[i];
      if (c.done) continue;
      SkipRuledOut(s, &c, counts);
      if (c.done) continue;
      in_round.push_back(i);
      c.reads = BlockReads();
      c.fetch = BlockFetch();
      c.read = -1;
      const Table& table = *s.files[c.next]->table;
      if (TableLookup::Mapped(table)) continue;
      TableLookup::PlanFetch(table, s.blocks[c.next], &c.fetch, &c.reads);
      if (!c.fetch.needs_read) continue;
      c.read = static_cast<long>(batch.size());
      BatchRead r;
      r.file = &TableLookup::File(table);
      r.offset = c.fetch.offset;
      r.n = c.fetch.size;
      batch.push_back(r);
    }
    if (in_round.empty()) break;

    // 2. The round's reads, in flight together.
    if (buffers.size() < batch.size()) buffers.resize(batch.size());
    for (size_t b = 0; b < batch.size(); ++b) {
      buffers[b].resize(batch[b].n);
      batch[b].scratch = &buffers[b][0];
    }
    ReadBatch(absl::MakeSpan(batch), engine);

    // 3. Each key's search of its block.
    for (size_t i : in_round) {
      KeySearch& s = searches[i];
      Cursor& c = cursors[i];
      const FileMeta& m = *s.files[c.next];
      const Table& table = *m.table;
      const size_t block = s.blocks[c.next];
      absl::Status status;
      if (c.read >= 0) {
        const BatchRead& r = batch[static_cast<size_t>(c.read)];
        status = TableLookup::GetFromFetched(table, block, c.fetch, r.result, r.status, s.key,
                                             s.hash, &c.reads, s.result);
      } else if (c.fetch.cached != nullptr) {
        status = TableLookup::GetFromFetched(table, block, c.fetch, {}, absl::OkStatus(), s.key,
                                             s.hash, &c.reads, s.result);
      } else {
        status = TableLookup::GetFromBlock(table, block, s.key, s.hash, &c.reads, s.result);
      }
      const bool found = status.ok() && s.result->kind != LookupResult::Kind::kNotFound;
      const bool filtered = m.step != FilterStep::kNone;
      if (counts != nullptr) counts->AddSearch(m.level, c.reads, filtered && found, m.predicted_fpr);
      if (!status.ok()) {  // An error ends the lookup: never guess.
        s.status = FileSearchError(m, status);
        s.stopped_at = m.level;
        c.done = true;
      } else if (found) {
        s.stopped_at = m.level;
        c.done = true;
      } else {
        ++c.next;
      }
    }
  }
}

}  // namespace internal
}  // namespace lsmbloom
