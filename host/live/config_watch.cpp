#include "live/config_watch.hpp"

#include <spdlog/spdlog.h>

#include <optional>

namespace schedhost::live {

using Clock = std::chrono::steady_clock;

ConfigWatch::ConfigWatch(ConfigWatchOptions options, WatchedFiles loaded,
                         std::function<void(const std::string&)> on_accepted,
                         std::function<void(const std::string&)> on_refused)
    : options_(std::move(options)),
      loaded_(std::move(loaded)),
      on_accepted_(std::move(on_accepted)),
      on_refused_(std::move(on_refused)),
      thread_([this] { run(); }) {}

ConfigWatch::~ConfigWatch() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cancel_.store(true);
  wake_.notify_all();
  thread_.join();
}

bool ConfigWatch::sleep_unless_stopped(std::chrono::milliseconds d) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, d, [this] { return stopping_; });
}

void ConfigWatch::run() {
  // The last set checked (or loaded): only a change from it is checked.
  WatchedFiles checked = loaded_;
  // A set seen to differ, and since when it has stayed the same.
  std::optional<WatchedFiles> settling;
  Clock::time_point since{};
  while (sleep_unless_stopped(options_.poll)) {
    const WatchedFiles now = snapshot(options_.paths);
    if (now == checked || now == loaded_) {  // nothing new, or back to what is being served
      checked = now;
      settling.reset();
      continue;
    }
    if (!settling || *settling != now) {  // still changing: wait for it to settle
      settling = now;
      since = Clock::now();
      continue;
    }
    if (Clock::now() - since < options_.quiet) continue;
    spdlog::debug("serve: configuration change settled ({}); checking it in child processes",
                  describe_changes(loaded_, now));
    ConfigCheck check = options_.check;
    check.cancel = &cancel_;
    const CheckVerdict verdict = check_out_of_process(check, changed_plugin_files(loaded_, now));
    if (cancel_.load()) return;  // serve is stopping: the verdict no longer matters
    if (snapshot(options_.paths) != now) continue;  // changed during the check: check it again
    checked = now;
    settling.reset();
    if (verdict.ok) {
      on_accepted_(describe_changes(loaded_, now));
      return;
    }
    on_refused_(verdict.message);
  }
}

}  // namespace schedhost::live
