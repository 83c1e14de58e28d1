// schedhost/cycle_state.hpp - typed access to one pod's CycleState.
//
// Values are stored by key (upstream style: "PreFilter" + plugin name) and typed by T: a value
// written as T can only be read back as T, by any plugin of the same library. The host owns stored
// values and copies them with T's copy constructor when it clones the state (nominated pods,
// preemption); a T that cannot be copied is shared, read-only, by the clones.
#pragma once

#include <schedhost/abi.h>
#include <schedhost/detail/host_table.hpp>

#include <memory>
#include <new>
#include <string_view>
#include <type_traits>

namespace schedhost {
namespace detail {

template <class T>
struct StateOps {
  static void* clone(const void* value) noexcept {
    try {
      return new T(*static_cast<const T*>(value));
    } catch (...) {
      return nullptr;  // the host reports the failed clone as an Error
    }
  }
  static void destroy(void* value) noexcept { delete static_cast<T*>(value); }
  static constexpr schedhost_state_ops_t ops = {
      sizeof(schedhost_state_ops_t),
      std::is_copy_constructible_v<T> ? &StateOps::clone : nullptr,
      &StateOps::destroy,
  };
};

}  // namespace detail

class CycleState {
 public:
  CycleState(const schedhost_host_api_t* api, schedhost_cycle_state_t* state)
      : api_(api), state_(state) {}

  // Stores value under key, replacing any previous value. Only in [cycle] hooks (and AddPod /
  // RemovePod, which get their own copy of the state).
  template <class T>
  void write(std::string_view key, std::unique_ptr<T> value) {
    api_->state_write(state_, to_str(key), value.release(), &detail::StateOps<T>::ops);
  }
  template <class T, class... Args>
  T& emplace(std::string_view key, Args&&... args) {
    auto value = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *value;
    write(key, std::move(value));
    return ref;
  }

  // The value stored under key as T; nullptr when absent or stored as another type.
  template <class T>
  T* read(std::string_view key) const {
    return static_cast<T*>(api_->state_read(state_, to_str(key), &detail::StateOps<T>::ops));
  }

  schedhost_cycle_state_t* handle() const { return state_; }

 private:
  const schedhost_host_api_t* api_;
  schedhost_cycle_state_t* state_;
};

}  // namespace schedhost
