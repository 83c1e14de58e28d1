// SHA-256 of plugin files, for --plugin-digests and the probe's cache: OpenSSL's implementation
// (already linked for the API client), which uses the CPU's SHA extensions where there are any.
// Plugin libraries built with debug info weigh megabytes each, so the hash is on the start-up
// path of every command.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace schedhost::loader {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, std::size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // Pads and returns the digest; the object must not be updated afterwards.
  Digest finish();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// Lower-case hex, as sha256sum prints it.
std::string to_hex(const Sha256::Digest& digest);

// The digest of bytes, as lower-case hex.
std::string sha256_hex(std::string_view bytes);

}  // namespace schedhost::loader
