#include "loader/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace schedhost::loader {

struct Sha256::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  if (context_->md == nullptr || EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256: OpenSSL cannot set up a digest context");
  }
}

Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t size) {
  EVP_DigestUpdate(context_->md, data, size);
}

Sha256::Digest Sha256::finish() {
  Digest digest{};
  unsigned int size = 0;
  EVP_DigestFinal_ex(context_->md, digest.data(), &size);
  return digest;
}

std::string to_hex(const Sha256::Digest& digest) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (std::uint8_t byte : digest) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xf]);
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return to_hex(hash.finish());
}

}  // namespace schedhost::loader
