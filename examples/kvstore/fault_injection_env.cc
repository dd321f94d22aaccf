#include "fault_injection_env.h"

#include <errno.h>

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kvstore {

struct FaultInjectionEnv::Inode {
  std::string data;     // What reads see: the page cache.
  std::string durable;  // What a power failure leaves.
  // Bytes of `data` whose writeback failed: the next sync that succeeds
  // makes them durable as zeros.
  bool lost = false;
  uint64_t lost_begin = 0, lost_end = 0;
};

struct FaultInjectionEnv::DirOp {
  enum Kind { kLink, kRemove, kRename };
  Kind kind;
  std::string name, to;  // `to`: kRename only.
  std::shared_ptr<Inode> inode;  // kLink only.
};

struct FaultInjectionEnv::Dir {
  std::map<std::string, std::shared_ptr<Inode>> live, durable;
  std::vector<DirOp> pending;  // Since the last sync, oldest first.
  bool name_durable = false;   // Its own name in its parent.
};

class FaultInjectionEnv::File : public lsmbloom::WritableFile {
 public:
  File(FaultInjectionEnv* env, std::string path, std::shared_ptr<Inode> inode)
      : env_(env), path_(std::move(path)), inode_(std::move(inode)) {}

  absl::Status Append(std::string_view data) override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    if (closed_) return absl::FailedPreconditionError(absl::StrCat(path_, ": already closed"));
    absl::Status s = env_->Change("append", path_);
    if (!s.ok()) return s;
    inode_->data.append(data.data(), data.size());
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    if (closed_) return absl::FailedPreconditionError(absl::StrCat(path_, ": already closed"));
    absl::Status s = env_->Change("sync", path_);
    if (!s.ok()) return s;
    Inode& inode = *inode_;
    if (env_->SyncFails(path_)) {
      // Linux marks the pages written: they are not retried, and a later
      // sync succeeds without them.
      const bool grew = inode.data.compare(0, inode.durable.size(), inode.durable) == 0;
      if (!inode.lost) inode.lost_begin = grew ? inode.durable.size() : 0;
      inode.lost = true;
      inode.lost_end = inode.data.size();
      return absl::ErrnoToStatus(EIO, absl::StrCat("fdatasync ", path_, " (injected)"));
    }
    env_->SyncInode(inode);
    ++env_->syncs_[path_];
    return absl::OkStatus();
  }

  absl::Status Close() override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    if (closed_) return absl::FailedPreconditionError(absl::StrCat(path_, ": already closed"));
    closed_ = true;
    return absl::OkStatus();
  }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  const std::shared_ptr<Inode> inode_;
  bool closed_ = false;
};

class FaultInjectionEnv::Lock : public FileLock {
 public:
  Lock(FaultInjectionEnv* env, std::string path) : env_(env), path_(std::move(path)) {}
  ~Lock() override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    auto it = env_->locks_.find(path_);
    if (it == env_->locks_.end()) return;  // No lock held, or lost with the power.
    if (it->second <= 1) {
      env_->locks_.erase(it);
    } else {
      --it->second;
    }
  }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
};

namespace {

std::string WithoutTrailingSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

FaultInjectionEnv::FaultInjectionEnv() { dirs_["/"].name_durable = true; }
FaultInjectionEnv::~FaultInjectionEnv() = default;

absl::Status FaultInjectionEnv::Change(const char* op, const std::string& path) {
  if (!stopped_ && ops_left_ == 0) {
    stopped_ = true;
    stopped_at_ = absl::StrCat(op, " ", path);
  }
  if (stopped_) return absl::UnavailableError(absl::StrCat(op, " ", path, ": power failed"));
  if (ops_left_ > 0) --ops_left_;
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::Running(const char* op, const std::string& path) const {
  if (stopped_) return absl::UnavailableError(absl::StrCat(op, " ", path, ": power failed"));
  return absl::OkStatus();
}

absl::StatusOr<FaultInjectionEnv::Dir*> FaultInjectionEnv::DirOf(const std::string& path,
                                                                 std::string* name) {
  const std::string clean = WithoutTrailingSlash(path);
  auto it = dirs_.find(DirName(clean));
  if (it == dirs_.end()) return absl::NotFoundError(absl::StrCat(path, ": no such directory"));
  *name = clean.substr(clean.rfind('/') + 1);
  return &it->second;
}

std::shared_ptr<FaultInjectionEnv::Inode> FaultInjectionEnv::Find(const std::string& path) const {
  const std::string clean = WithoutTrailingSlash(path);
  auto dir = dirs_.find(DirName(clean));
  if (dir == dirs_.end()) return nullptr;
  auto it = dir->second.live.find(clean.substr(clean.rfind('/') + 1));
  return it == dir->second.live.end() ? nullptr : it->second;
}

bool FaultInjectionEnv::SyncFails(const std::string& path) {
  for (auto it = failing_syncs_.begin(); it != failing_syncs_.end(); ++it) {
    if (absl::EndsWith(path, *it)) {
      failing_syncs_.erase(it);
      return true;
    }
  }
  return false;
}

void FaultInjectionEnv::SyncInode(Inode& inode) {
  inode.durable = inode.data;
  if (inode.lost) {
    const uint64_t end = std::min<uint64_t>(inode.lost_end, inode.durable.size());
    for (uint64_t i = inode.lost_begin; i < end; ++i) inode.durable[i] = '\0';
    inode.lost = false;
  }
}

absl::Status FaultInjectionEnv::EnsureDir(const std::string& dir, bool create) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string clean = WithoutTrailingSlash(dir);
  absl::Status s = Running("mkdir", clean);
  if (!s.ok()) return s;
  if (dirs_.count(clean) > 0) return absl::OkStatus();
  if (Find(clean) != nullptr) return absl::InvalidArgumentError(absl::StrCat(dir, ": not a directory"));
  if (!create) return absl::NotFoundError(absl::StrCat(dir, ": no such directory"));
  if (dirs_.count(DirName(clean)) == 0) {
    return absl::NotFoundError(absl::StrCat("cannot create ", dir, ": no parent"));
  }
  s = Change("mkdir", clean);
  if (!s.ok()) return s;
  dirs_[clean];
  // As the POSIX Env does: the new name is durable once its parent is synced.
  s = Change("syncdir", DirName(clean));
  if (!s.ok()) return s;
  dirs_[clean].name_durable = true;
  return absl::OkStatus();
}

bool FaultInjectionEnv::FileExists(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return false;
  return dirs_.count(WithoutTrailingSlash(path)) > 0 || Find(path) != nullptr;
}

absl::StatusOr<std::vector<std::string>> FaultInjectionEnv::ListDir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = Running("list", dir);
  if (!s.ok()) return s;
  auto it = dirs_.find(WithoutTrailingSlash(dir));
  if (it == dirs_.end()) return absl::NotFoundError(absl::StrCat(dir, ": no such directory"));
  std::vector<std::string> names;
  for (const auto& [name, inode] : it->second.live) names.push_back(name);
  return names;
}

absl::StatusOr<uint64_t> FaultInjectionEnv::GetFileSize(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = Running("stat", path);
  if (!s.ok()) return s;
  std::shared_ptr<Inode> inode = Find(path);
  if (inode == nullptr) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  return inode->data.size();
}

absl::Status FaultInjectionEnv::RemoveFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = Change("remove", path);
  if (!s.ok()) return s;
  std::string name;
  absl::StatusOr<Dir*> dir = DirOf(path, &name);
  if (!dir.ok()) return dir.status();
  if ((*dir)->live.erase(name) == 0) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  (*dir)->pending.push_back({DirOp::kRemove, name, "", nullptr});
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::RenameFile(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = Change("rename", from);
  if (!s.ok()) return s;
  std::string from_name, to_name;
  absl::StatusOr<Dir*> dir = DirOf(from, &from_name);
  if (!dir.ok()) return dir.status();
  absl::StatusOr<Dir*> to_dir = DirOf(to, &to_name);
  if (!to_dir.ok()) return to_dir.status();
  if (*to_dir != *dir) return absl::UnimplementedError("rename across directories");
  auto it = (*dir)->live.find(from_name);
  if (it == (*dir)->live.end()) return absl::NotFoundError(absl::StrCat(from, ": no such file"));
  std::shared_ptr<Inode> inode = it->second;
  (*dir)->live.erase(it);
  (*dir)->live[to_name] = std::move(inode);
  (*dir)->pending.push_back({DirOp::kRename, from_name, to_name, nullptr});
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::TruncateFile(const std::string& path, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = Change("truncate", path);
  if (!s.ok()) return s;
  std::shared_ptr<Inode> inode = Find(path);
  if (inode == nullptr) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  if (size > inode->data.size()) return absl::UnimplementedError("truncate to grow a file");
  inode->data.resize(size);
  if (SyncFails(path)) return absl::ErrnoToStatus(EIO, absl::StrCat("fdatasync ", path));
  SyncInode(*inode);
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::SyncDir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string clean = WithoutTrailingSlash(dir);
  absl::Status s = Change("syncdir", clean);
  if (!s.ok()) return s;
  auto it = dirs_.find(clean);
  if (it == dirs_.end()) return absl::NotFoundError(absl::StrCat(dir, ": no such directory"));
  if (SyncFails(clean)) return absl::ErrnoToStatus(EIO, absl::StrCat("fsync ", dir, " (injected)"));
  it->second.durable = it->second.live;
  it->second.pending.clear();
  for (auto& [path, child] : dirs_) {
    if (path != clean && DirName(path) == clean) child.name_durable = true;
  }
  ++syncs_[clean];
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> FaultInjectionEnv::OpenFile(
    const std::string& path, bool truncate) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = Change(truncate ? "create" : "open", path);
  if (!s.ok()) return s;
  std::string name;
  absl::StatusOr<Dir*> dir = DirOf(path, &name);
  if (!dir.ok()) return dir.status();
  std::shared_ptr<Inode>& inode = (*dir)->live[name];
  if (inode == nullptr) {
    inode = std::make_shared<Inode>();
    (*dir)->pending.push_back({DirOp::kLink, name, "", inode});
  } else if (truncate) {
    inode->data.clear();
  }
  return std::unique_ptr<lsmbloom::WritableFile>(new File(this, path, inode));
}

absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> FaultInjectionEnv::NewWritableFile(
    const std::string& path) {
  return OpenFile(path, /*truncate=*/true);
}

absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> FaultInjectionEnv::NewAppendableFile(
    const std::string& path) {
  return OpenFile(path, /*truncate=*/false);
}

absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>>
FaultInjectionEnv::NewRandomAccessFile(const std::string& path, lsmbloom::FileAccess) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = Running("read", path);
  if (!s.ok()) return s;
  std::shared_ptr<Inode> inode = Find(path);
  if (inode == nullptr) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  return lsmbloom::NewMemRandomAccessFile(inode->data);
}

absl::StatusOr<std::unique_ptr<FileLock>> FaultInjectionEnv::LockFile(const std::string& path,
                                                                      bool shared) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status s = Running("lock", path);
  if (!s.ok()) return s;
  auto held = locks_.find(path);
  if (shared) {
    if (held != locks_.end() && held->second < 0) {
      return absl::UnavailableError(absl::StrCat(path, ": the store is open for writing"));
    }
    if (Find(path) == nullptr) return std::unique_ptr<FileLock>(new Lock(this, ""));
    ++locks_[path];
    return std::unique_ptr<FileLock>(new Lock(this, path));
  }
  if (held != locks_.end()) {
    return absl::UnavailableError(absl::StrCat(path, ": the store is already open"));
  }
  if (Find(path) == nullptr) {
    std::string name;
    absl::StatusOr<Dir*> dir = DirOf(path, &name);
    if (!dir.ok()) return dir.status();
    s = Change("create", path);
    if (!s.ok()) return s;
    auto inode = std::make_shared<Inode>();
    (*dir)->live[name] = inode;
    (*dir)->pending.push_back({DirOp::kLink, name, "", inode});
  }
  locks_[path] = -1;
  return std::unique_ptr<FileLock>(new Lock(this, path));
}

void FaultInjectionEnv::StopAfter(int64_t ops) {
  std::lock_guard<std::mutex> lock(mu_);
  ops_left_ = ops;
}

bool FaultInjectionEnv::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

std::string FaultInjectionEnv::stopped_at() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_at_;
}

void FaultInjectionEnv::FailNextSync(const std::string& suffix) {
  std::lock_guard<std::mutex> lock(mu_);
  failing_syncs_.push_back(suffix);
}

uint64_t FaultInjectionEnv::SyncsOf(const std::string& suffix) const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t syncs = 0;
  for (const auto& [path, count] : syncs_) {
    if (absl::EndsWith(path, suffix)) syncs += count;
  }
  return syncs;
}

absl::StatusOr<std::string> FaultInjectionEnv::DurableContents(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Inode> inode = Find(path);
  if (inode == nullptr) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  return inode->durable;
}

void FaultInjectionEnv::PowerFailure(std::mt19937_64& rng, bool keep_some_unsynced) {
  std::lock_guard<std::mutex> lock(mu_);
  // Parents sort before their children, so a lost parent is gone by the
  // time its children are looked at.
  for (auto it = dirs_.begin(); it != dirs_.end();) {
    const bool lost = it->first != "/" && (!it->second.name_durable ||
                                           dirs_.count(DirName(it->first)) == 0);
    it = lost ? dirs_.erase(it) : std::next(it);
  }
  std::set<Inode*> seen;
  for (auto& [path, dir] : dirs_) {
    const size_t committed = keep_some_unsynced ? rng() % (dir.pending.size() + 1) : 0;
    for (size_t i = 0; i < committed; ++i) {
      const DirOp& op = dir.pending[i];
      if (op.kind == DirOp::kLink) {
        dir.durable[op.name] = op.inode;
      } else if (op.kind == DirOp::kRemove) {
        dir.durable.erase(op.name);
      } else if (auto from = dir.durable.find(op.name); from != dir.durable.end()) {
        std::shared_ptr<Inode> inode = from->second;
        dir.durable.erase(from);
        dir.durable[op.to] = std::move(inode);
      }
    }
    dir.pending.clear();
    dir.live = dir.durable;
    for (auto& [name, inode] : dir.live) {
      if (!seen.insert(inode.get()).second) continue;
      std::string kept = inode->durable;
      const bool grew = inode->data.size() > kept.size() &&
                        inode->data.compare(0, kept.size(), kept) == 0;
      if (keep_some_unsynced && grew && !inode->lost) {
        kept.append(inode->data, kept.size(), rng() % (inode->data.size() - kept.size() + 1));
      }
      inode->data = kept;
      inode->durable = std::move(kept);
      inode->lost = false;
    }
  }
  locks_.clear();
  failing_syncs_.clear();
  stopped_ = false;
  stopped_at_.clear();
  ops_left_ = -1;
}

}  // namespace kvstore
