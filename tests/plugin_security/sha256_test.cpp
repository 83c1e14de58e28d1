// SHA-256 against the test vectors of FIPS 180-4 (and NIST's CAVP examples), and the same digest
// however the input is split across update() calls, including at every block boundary.
#include <gtest/gtest.h>

#include <string>

#include "loader/sha256.hpp"

namespace schedhost::loader {
namespace {

TEST(Sha256, StandardTestVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjk"
                       "lmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, LengthsAroundThePaddingBoundary) {
  // 55 bytes still fit the length in the last block, 56 need one more block.
  EXPECT_EQ(sha256_hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256, SplittingTheInputDoesNotChangeTheDigest) {
  std::string input;
  for (int i = 0; i < 300; ++i)
    input += static_cast<char>(i * 7 + 3);
  const std::string whole = sha256_hex(input);
  for (std::size_t split = 0; split <= input.size(); ++split) {
    Sha256 hash;
    hash.update(input.substr(0, split));
    hash.update(input.substr(split));
    ASSERT_EQ(to_hex(hash.finish()), whole) << "split at " << split;
  }
}

}  // namespace
}  // namespace schedhost::loader
