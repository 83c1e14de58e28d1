// `serve --watch-config`: a thread that polls the configuration file and the plugin directories
// (live/watched_files.hpp), waits until a change has settled (no further change for `quiet`, so
// that a file still being copied is not checked mid-copy), checks the new set out of process
// (live/config_check.hpp) and says what it found: accepted (the caller drains and re-executes)
// or refused (the caller keeps serving). A refused set is not checked again; only a further
// change is.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "live/config_check.hpp"
#include "live/watched_files.hpp"

namespace schedhost::live {

struct ConfigWatchOptions {
  WatchedPaths paths;
  ConfigCheck check;
  std::chrono::milliseconds poll{1000};
  std::chrono::milliseconds quiet{2000};
};

class ConfigWatch {
 public:
  // loaded: the snapshot taken before the serving process read its files (a change made while
  // it loaded is then seen as a change). on_accepted(what changed) is called once, on the watch
  // thread, which then ends; on_refused(`<file>: <reason>`) once per refused set.
  ConfigWatch(ConfigWatchOptions options, WatchedFiles loaded,
              std::function<void(const std::string& changes)> on_accepted,
              std::function<void(const std::string& reason)> on_refused);
  // Stops polling; a check in progress is cut short (its child killed).
  ~ConfigWatch();
  ConfigWatch(const ConfigWatch&) = delete;
  ConfigWatch& operator=(const ConfigWatch&) = delete;

 private:
  void run();
  bool sleep_unless_stopped(std::chrono::milliseconds d);

  const ConfigWatchOptions options_;
  const WatchedFiles loaded_;
  const std::function<void(const std::string&)> on_accepted_;
  const std::function<void(const std::string&)> on_refused_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<bool> cancel_{false};  // stopping_, for the check's children
  std::thread thread_;
};

}  // namespace schedhost::live
