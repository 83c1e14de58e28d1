#include "common/thread_name.hpp"

#include <pthread.h>

#include <algorithm>
#include <string>

namespace schedhost {

void name_this_thread(std::string_view part) {
  std::string name = "sh-" + std::string(part);
  name.resize(std::min<std::size_t>(name.size(), 15));
  pthread_setname_np(pthread_self(), name.c_str());
}

}  // namespace schedhost
