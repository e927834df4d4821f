// What the plugin remembers of a target's stops: which one was synced, what
// was said there (plugin/Stop.h).
#include "Stop.h"

#include <gtest/gtest.h>

using jitsym::plugin::Stop;
using jitsym::plugin::StopHistory;

TEST(StopHistory, RemembersTheLastSyncedStopOfAnyKind) {
  StopHistory history;
  EXPECT_FALSE(history.lastSynced());
  EXPECT_FALSE(history.syncedAt(3));
  history.syncing(Stop(Stop::Kind::Compile, 3));
  EXPECT_TRUE(history.syncedAt(3)); // the interrupt listener leaves it alone
  EXPECT_FALSE(history.syncedAt(4));
  history.syncing(Stop(Stop::Kind::User, 4));
  EXPECT_EQ(history.lastSynced(), 4u);
}

TEST(StopHistory, ExplainsAShownCompileStopOncePerStop) {
  StopHistory history;
  EXPECT_TRUE(history.explainWatchStopAt(7));
  EXPECT_FALSE(history.explainWatchStopAt(7)); // the stop hook runs once per thread
  EXPECT_TRUE(history.explainWatchStopAt(8));
}

TEST(StopHistory, SaysARepeatedErrorOnceUntilASyncSucceeds) {
  StopHistory history;
  EXPECT_TRUE(history.errorIsNew("jit-sync: x"));
  EXPECT_FALSE(history.errorIsNew("jit-sync: x"));
  EXPECT_TRUE(history.errorIsNew("jit-sync: y"));
  history.syncSucceeded();
  EXPECT_TRUE(history.errorIsNew("jit-sync: y"));
}

TEST(StopHistory, StatusNamesTheStopAndItsKind) {
  StopHistory history;
  EXPECT_EQ(history.status(2), "stop: 2, no sync yet\n");
  history.syncing(Stop(Stop::Kind::Interrupt, 2));
  EXPECT_EQ(history.status(2), "stop: 2, synced (interrupt)\n");
  EXPECT_EQ(history.status(5), "stop: 5, last synced at stop 2 (interrupt)\n");
}

TEST(Stop, OnlyACompileStopHasBreakpointsAndReadsAhead) {
  const Stop user(Stop::Kind::User, 1);
  EXPECT_FALSE(user.isCompile());
  EXPECT_TRUE(user.pending().empty());
  EXPECT_TRUE(user.readsJitdump());
  EXPECT_TRUE(user.ahead().map.empty());
  EXPECT_FALSE(user.ahead().dump);
}
