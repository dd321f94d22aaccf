#include "src/lookup/storage_search.h"

#include <string>
#include <vector>

#include "src/lookup/candidate_filters.h"
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
  bool shares_read = false;  // Another key of the round made the read.
};

// Moves c past the candidates whose filter rules the key out, counting
// their probes; done when none is left.
void SkipRuledOut(const KeySearch& s, Cursor* c, LocalCounts* counts) {
  for (; c->next < s.count; ++c->next) {
    const FileMeta& m = *s.files[c->next];
    if (!Filtered(m)) return;
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
  std::vector<const Table*> batch_table;
  std::vector<size_t> batch_block;
  std::vector<std::string> buffers;
  std::vector<absl::StatusOr<std::shared_ptr<const void>>> decoded;
  std::vector<size_t> in_round;
  for (KeySearch& s : searches) s.result->Reset();  // Not found until a file answers.
  for (;;) {
    // 1. Each unanswered key's next candidate, and what its block needs: a
    // block two keys need is read once.
    batch.clear();
    batch_table.clear();
    batch_block.clear();
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
      c.shares_read = false;
      const Table& table = *s.files[c.next]->table;
      const size_t block = s.blocks[c.next];
      if (TableLookup::Mapped(table)) continue;
      for (size_t b = 0; b < batch.size() && c.read < 0; ++b) {
        if (batch_table[b] == &table && batch_block[b] == block) {
          c.read = static_cast<long>(b);
          c.shares_read = true;
        }
      }
      if (c.read >= 0) continue;
      TableLookup::PlanFetch(table, block, &c.fetch, &c.reads);
      if (!c.fetch.needs_read) continue;
      c.read = static_cast<long>(batch.size());
      BatchRead r;
      r.file = &TableLookup::File(table);
      r.offset = c.fetch.offset;
      r.n = c.fetch.size;
      batch.push_back(r);
      batch_table.push_back(&table);
      batch_block.push_back(block);
    }
    if (in_round.empty()) break;

    // 2. The round's reads, in flight together, each checked and parsed
    // once (and cached) for every key that needs it.
    if (buffers.size() < batch.size()) buffers.resize(batch.size());
    for (size_t b = 0; b < batch.size(); ++b) {
      buffers[b].resize(batch[b].n);
      batch[b].scratch = &buffers[b][0];
    }
    ReadBatch(absl::MakeSpan(batch), engine);
    decoded.clear();
    for (size_t b = 0; b < batch.size(); ++b) decoded.emplace_back(nullptr);

    // 3. Each key's search of its block.
    for (size_t i : in_round) {
      KeySearch& s = searches[i];
      Cursor& c = cursors[i];
      const FileMeta& m = *s.files[c.next];
      const Table& table = *m.table;
      const size_t block = s.blocks[c.next];
      absl::Status status;
      if (c.read >= 0) {
        const size_t b = static_cast<size_t>(c.read);
        if (c.shares_read) {
          ++c.reads.shared;
        } else {
          decoded[b] =
              TableLookup::DecodeFetched(table, block, batch[b].result, batch[b].status, &c.reads);
        }
        status = decoded[b].ok() ? TableLookup::GetFromHeld(table, block, *decoded[b], s.key,
                                                            s.hash, &c.reads, s.result)
                                 : decoded[b].status();
      } else if (c.fetch.cached != nullptr) {
        status = TableLookup::GetFromHeld(table, block, c.fetch.cached, s.key, s.hash, &c.reads,
                                          s.result);
        c.fetch.cached.reset();  // Searched: the cache may free it once evicted.
      } else {
        status = TableLookup::GetFromBlock(table, block, s.key, s.hash, &c.reads, s.result);
      }
      const bool found = status.ok() && s.result->kind != LookupResult::Kind::kNotFound;
      const bool filtered = Filtered(m);
      if (counts != nullptr) counts->AddSearch(m.level, c.reads, filtered && found, m.predicted_fpr);
      if (!status.ok()) {  // An error ends the lookup: never guess.
        s.status = FileSearchError(m, status);
        s.stopped_at = m.level;
        s.answered = c.next;
        c.done = true;
      } else if (found) {
        s.stopped_at = m.level;
        s.answered = c.next;
        c.done = true;
      } else {
        ++c.next;
      }
    }
    // Every key of the round has searched its block: none is held across
    // the next round's reads (the cache's evictions free them).
    decoded.clear();
  }
}

}  // namespace internal
}  // namespace lsmbloom
