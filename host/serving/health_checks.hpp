// /healthz, /livez and /readyz as the API server's healthz package writes them, which
// kube-scheduler serves: each endpoint runs named checks; "ok" (200) when all pass, or, with
// ?verbose or on failure, one line per check ("[+]ping ok", "[-]shutdown failed: reason
// withheld") and a verdict line; ?exclude=<name> skips a check; /<endpoint>/<name> runs one.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace schedhost::serving {

struct HealthCheck {
  std::string name;
  // nullopt when healthy; otherwise the reason, which is logged, never shown.
  std::function<std::optional<std::string>()> run;
};

struct HealthAnswer {
  int code = 200;
  std::string body;
};

// endpoint: "healthz", "livez" or "readyz". query: the parsed query (verbose present or not, and
// the exclude values). check: "" for the whole endpoint, a name for /endpoint/<name>.
HealthAnswer answer_health(const std::string& endpoint, const std::vector<HealthCheck>& checks,
                           bool verbose, const std::vector<std::string>& exclude,
                           const std::string& check = {});

}  // namespace schedhost::serving
