#pragma once
// An exclusive lock on an output folder, so two runs can never write into one folder at once (their results would
// mix: lines of both in one log, one's results.json over the other's). flock(2) on DIR/.ccsim.lock: the kernel drops
// it when the holder exits, however it exits, so a killed run never leaves a stale lock. The file holds the holder's
// pid, which the refusal names.

#include <filesystem>
#include <string>

namespace ccsim::api {

class FolderLock {
public:
  /// Locks `dir` (which must exist) or throws io::InputError(option, ...) naming the pid that holds it.
  FolderLock(const std::filesystem::path& dir, const std::string& option);
  ~FolderLock();
  FolderLock(const FolderLock&)            = delete;
  FolderLock& operator=(const FolderLock&) = delete;

private:
  int fd_ = -1;
};

/// DIR/.ccsim.lock.
std::filesystem::path lock_file_path(const std::filesystem::path& dir);

} // namespace ccsim::api
