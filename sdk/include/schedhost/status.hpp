// schedhost/status.hpp - what a hook returns: a code and its reasons, upstream's framework.Status.
#pragma once

#include <schedhost/abi.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost {

enum class Code : std::int32_t {
  Success = SCHEDHOST_SUCCESS,
  Error = SCHEDHOST_ERROR,
  Unschedulable = SCHEDHOST_UNSCHEDULABLE,
  UnschedulableAndUnresolvable = SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE,
  Wait = SCHEDHOST_WAIT,
  Skip = SCHEDHOST_SKIP,
};

// A default-constructed Status is Success and allocates nothing, so the common path is free.
class Status {
 public:
  Status() = default;
  Status(Code code, std::vector<std::string> reasons) : code_(code), reasons_(std::move(reasons)) {}

  static Status Success() { return {}; }
  static Status Error(std::string message) { return {Code::Error, {std::move(message)}}; }
  static Status Skip() { return {Code::Skip, {}}; }
  static Status Wait() { return {Code::Wait, {}}; }
  template <class... Reasons>
  static Status Unschedulable(Reasons&&... reasons) {
    return {Code::Unschedulable, {std::string(std::forward<Reasons>(reasons))...}};
  }
  template <class... Reasons>
  static Status UnschedulableAndUnresolvable(Reasons&&... reasons) {
    return {Code::UnschedulableAndUnresolvable, {std::string(std::forward<Reasons>(reasons))...}};
  }

  Code code() const { return code_; }
  bool ok() const { return code_ == Code::Success; }
  const std::vector<std::string>& reasons() const { return reasons_; }
  void add_reason(std::string reason) { reasons_.push_back(std::move(reason)); }

 private:
  Code code_ = Code::Success;
  std::vector<std::string> reasons_;
};

}  // namespace schedhost
