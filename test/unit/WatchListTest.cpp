// The list of what a debugger waits for, as the plugin writes it into a
// producer and the producer reads it (core formats/WatchList.h).
#include "jitsym/formats/WatchList.h"

#include <gtest/gtest.h>

#include <cstring>

using jitsym::encodeWatchList;
using jitsym::watchListWants;

TEST(WatchList, NoListWantsEverything) {
  const jitsym_watch_list none{}; // as the writer starts, before any debugger
  EXPECT_TRUE(watchListWants(none, "anything", 0x1000, 16));
}

TEST(WatchList, ANameIsWantedInEverySpellingOfTheRuntime) {
  // As typed: V8's, a JVM's, BEAM's; the runtimes' own names hold the last part.
  const jitsym_watch_list list = encodeWatchList({"outerLoop", "Leaf.leaf", "prog:leaf/1"}, {}, false);
  EXPECT_TRUE(watchListWants(list, "JS:*outerLoop /app/prog.js:12:20", 0x1000, 16));
  EXPECT_TRUE(watchListWants(list, "JSC-FTL: outerLoop#CLh8fG", 0x1000, 16));
  EXPECT_TRUE(watchListWants(list, "int Leaf.leaf(int)", 0x1000, 16));
  EXPECT_TRUE(watchListWants(list, "$prog:leaf/1", 0x1000, 16));
  EXPECT_FALSE(watchListWants(list, "JS:*middle /app/prog.js:8:16", 0x1000, 16));
  EXPECT_FALSE(watchListWants(list, "void java.lang.String.hashCode()", 0x1000, 16));
  EXPECT_FALSE(watchListWants(list, {}, 0x1000, 16)); // an unload elsewhere
}

TEST(WatchList, CodeOverALocationIsWantedWhateverItsName) {
  const jitsym_watch_list list = encodeWatchList({"leaf"}, {0x5000, 0x2000}, false);
  EXPECT_EQ(list.addresses[0], 0x2000u); // kept ascending
  EXPECT_TRUE(watchListWants(list, "other", 0x1ff0, 0x20));  // over 0x2000
  EXPECT_TRUE(watchListWants(list, {}, 0x5000, 1));          // an unload of it
  EXPECT_FALSE(watchListWants(list, "other", 0x2001, 0x100)); // after it
  EXPECT_FALSE(watchListWants(list, "other", 0x1000, 0x1000)); // ends where it starts
}

TEST(WatchList, PatternsAndTooMuchMeanEverything) {
  EXPECT_TRUE(watchListWants(encodeWatchList({}, {}, true), "x", 1, 1));
  std::vector<std::string> many(200, "a_rather_long_function_name");
  const jitsym_watch_list names = encodeWatchList(many, {}, false);
  EXPECT_TRUE(names.everything);
  EXPECT_TRUE(watchListWants(names, "x", 1, 1));
  const jitsym_watch_list addresses = encodeWatchList({}, std::vector<uint64_t>(65, 0x10), false);
  EXPECT_TRUE(addresses.everything);
}

TEST(WatchList, ADamagedListIsReadWithinItsArrays) {
  jitsym_watch_list list = encodeWatchList({"leaf"}, {0x2000}, false);
  list.nameBytes = 0xffffffff;
  list.addressCount = 0xffffffff;
  std::memset(list.names, 'a', sizeof list.names); // no NUL anywhere
  EXPECT_FALSE(watchListWants(list, "leaf", 0x9000, 1));
  EXPECT_TRUE(watchListWants(list, std::string(sizeof list.names, 'a'), 0x9000, 1));
  list.version = 7; // another version's layout: as without a list
  EXPECT_TRUE(watchListWants(list, "x", 1, 1));
}
