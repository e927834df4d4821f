// Name-based UUIDs: layout, stability and text form.
#include "jitsym/plan/Uuid.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

using namespace jitsym;

TEST(Uuid, TextFormIsUpperCase8_4_4_4_12) {
  std::string text = uuidToString(uuidFromName("jitsym:4242:1234:0"));
  ASSERT_EQ(text.size(), 36u);
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      EXPECT_EQ(text[i], '-') << i;
    } else {
      EXPECT_TRUE(std::isxdigit(static_cast<unsigned char>(text[i]))) << i;
      EXPECT_FALSE(std::islower(static_cast<unsigned char>(text[i]))) << text;
    }
  }
}

TEST(Uuid, ToStringOfKnownBytes) {
  UuidBytes bytes = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                     0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  EXPECT_EQ(uuidToString(bytes), "00112233-4455-6677-8899-AABBCCDDEEFF");
}

TEST(Uuid, StableForSameName) {
  EXPECT_EQ(uuidFromName("process 1 window 7"), uuidFromName("process 1 window 7"));
  EXPECT_EQ(uuidToString(uuidFromName("")), uuidToString(uuidFromName(std::string())));
}

TEST(Uuid, DifferentNamesDiffer) {
  std::set<UuidBytes> seen;
  for (int i = 0; i < 1000; ++i)
    seen.insert(uuidFromName("jitsym:4242:" + std::to_string(i)));
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_NE(uuidFromName("a"), uuidFromName("b"));
  EXPECT_NE(uuidFromName("ab"), uuidFromName(std::string("ab\0", 3)));
}

TEST(Uuid, MatchesSha1OfName) {
  // SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d; with the
  // version (5) and variant (10xx) bits set.
  EXPECT_EQ(uuidToString(uuidFromName("abc")), "A9993E36-4706-516A-BA3E-25717850C26C");
}

TEST(Uuid, VersionAndVariantBits) {
  for (const char *name : {"", "a", "jitsym", "0123456789abcdef0123456789abcdef"}) {
    UuidBytes u = uuidFromName(name);
    EXPECT_EQ(u[6] >> 4, 5) << name;        // version 5
    EXPECT_EQ(u[8] & 0xc0, 0x80) << name;   // RFC 4122 variant
    std::string text = uuidToString(u);
    EXPECT_EQ(text[14], '5') << text;
    EXPECT_TRUE(std::string("89AB").find(text[19]) != std::string::npos) << text;
  }
}
