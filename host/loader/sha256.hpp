// SHA-256 (FIPS 180-4), self-contained: --plugin-digests needs only this one hash, and a small
// implementation checked against the standard's test vectors avoids a crypto library dependency.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace schedhost::loader {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  void update(const void* data, std::size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // Pads and returns the digest; the object must not be updated afterwards.
  Digest finish();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Lower-case hex, as sha256sum prints it.
std::string to_hex(const Sha256::Digest& digest);

// The digest of bytes, as lower-case hex.
std::string sha256_hex(std::string_view bytes);

}  // namespace schedhost::loader
