// The JVMTI agent's pure parts: its option string, Java names from JVM
// signatures (checked against names HotSpot's own perf map prints), and line
// entries from HotSpot's pc descriptions, and which replayed stubs are still
// being generated.
#include "AgentOptions.h"
#include "JavaNames.h"
#include "LineMapping.h"
#include "StubEvents.h"

#include <gtest/gtest.h>

using namespace jitsym::jvmti;

TEST(AgentOptions, EmptyMeansDefaults) {
  std::string error;
  std::optional<AgentOptions> options = parseAgentOptions("", error);
  ASSERT_TRUE(options) << error;
  EXPECT_FALSE(options->perfMap);
  EXPECT_EQ(options->names, NameStyle::HotSpot);
  EXPECT_TRUE(options->lines);
  EXPECT_TRUE(options->directory.empty());
}

TEST(AgentOptions, TokensAreMatchedExactly) {
  std::string error;
  std::optional<AgentOptions> options =
      parseAgentOptions("perfmap,dir=/tmp/x,names=jvm,tier,nolines,quiet", error);
  ASSERT_TRUE(options) << error;
  EXPECT_TRUE(options->perfMap);
  EXPECT_EQ(options->directory, "/tmp/x");
  EXPECT_EQ(options->names, NameStyle::Jvm);
  EXPECT_TRUE(options->tier);
  EXPECT_FALSE(options->lines);
  EXPECT_TRUE(options->quiet);
}

TEST(AgentOptions, BadTokensAreNamed) {
  std::string error;
  EXPECT_FALSE(parseAgentOptions("perfmaps", error));
  EXPECT_EQ(error, "unknown option 'perfmaps' in 'perfmaps'");
  EXPECT_FALSE(parseAgentOptions("perfmap,", error));
  EXPECT_EQ(error, "empty option in 'perfmap,'");
  EXPECT_FALSE(parseAgentOptions("names=java", error));
  EXPECT_EQ(error, "unknown name style 'java' (hotspot or jvm) in 'names=java'");
  EXPECT_FALSE(parseAgentOptions("dir=", error));
  EXPECT_EQ(error, "dir= needs a path in 'dir='");
  EXPECT_FALSE(parseAgentOptions("Perfmap", error)); // no case folding
}

TEST(AgentOptions, HelpIsAnOption) {
  std::string error;
  std::optional<AgentOptions> options = parseAgentOptions("help", error);
  ASSERT_TRUE(options);
  EXPECT_TRUE(options->help);
}

TEST(JavaNames, AsHotSpotPrintsThem) {
  // Names as `jcmd PID Compiler.perfmap` prints them (OpenJDK 17).
  EXPECT_EQ(javaMethodName("LHot;", "work", "(I)J", NameStyle::HotSpot), "long Hot.work(int)");
  EXPECT_EQ(javaMethodName("Ljava/lang/String;", "<init>", "([BB)V", NameStyle::HotSpot),
            "void java.lang.String.<init>(byte[], byte)");
  EXPECT_EQ(javaMethodName("Ljava/lang/invoke/MethodHandle;", "linkToStatic",
                           "(ILjava/lang/invoke/MemberName;)I", NameStyle::HotSpot),
            "int java.lang.invoke.MethodHandle.linkToStatic(int, java.lang.invoke.MemberName)");
  EXPECT_EQ(javaMethodName("LHot$$Lambda$1.0x00007ff7f8000a08;", "run", "()V",
                           NameStyle::HotSpot),
            "void Hot$$Lambda$1/0x00007ff7f8000a08.run()");
  EXPECT_EQ(javaMethodName("LHot;", "main", "([Ljava/lang/String;)V", NameStyle::HotSpot),
            "void Hot.main(java.lang.String[])");
  EXPECT_EQ(javaMethodName("LA;", "m", "([[DZCSF)[[Ljava/lang/Object;", NameStyle::HotSpot),
            "java.lang.Object[][] A.m(double[][], boolean, char, short, float)");
}

TEST(JavaNames, JvmStyleKeepsTheDescriptor) {
  EXPECT_EQ(javaMethodName("Lcom/foo/Hot;", "work", "(I)J", NameStyle::Jvm),
            "com/foo/Hot.work(I)J");
}

TEST(JavaNames, MalformedSignaturesGiveNothing) {
  for (const char *descriptor : {"", "(", "()", "(I", "(V)V", "(Q)V", "(L;)V", "(Ljava/lang/String)V",
                                 "()VV", "([V)V", "(I)[V"})
    EXPECT_FALSE(javaMethodName("LHot;", "m", descriptor, NameStyle::HotSpot)) << descriptor;
  for (const char *owner : {"", "L;", "Hot", "LHot", "L.Hot;", "LHot.;", "La//b;"})
    EXPECT_FALSE(javaMethodName(owner, "m", "()V", NameStyle::HotSpot)) << owner;
  EXPECT_FALSE(javaMethodName("LHot;", "", "()V", NameStyle::HotSpot));
}

TEST(JavaNames, SourcePathFollowsThePackage) {
  EXPECT_EQ(javaSourcePath("Lcom/foo/Hot$Inner;", "Hot.java"), "com/foo/Hot.java");
  EXPECT_EQ(javaSourcePath("LHot;", "Hot.java"), "Hot.java");
}

TEST(LineMapping, LineOfBciIsTheLastRowAtOrBelow) {
  const std::vector<BytecodeLine> table = {{10, 7}, {0, 5}, {4, 6}};
  EXPECT_EQ(lineOfBci(table, 0), 5u);
  EXPECT_EQ(lineOfBci(table, 5), 6u);
  EXPECT_EQ(lineOfBci(table, 99), 7u);
  EXPECT_FALSE(lineOfBci(table, -1));
  EXPECT_FALSE(lineOfBci({}, 3));
}

TEST(LineMapping, EachLineStartsWhereThePreviousPcEnded) {
  // Pcs where calls return: the call instructions come before them.
  std::vector<PcLine> pcs = {{0x1030, 9, 0, "Hot.java"}, {0x1010, 8, 0, "Hot.java"},
                             {0x1020, 8, 0, "Hot.java"}, {0x2000, 1, 0, "Hot.java"},
                             {0x1000, 2, 0, "Hot.java"}};
  std::vector<PcLine> lines = linesBeforePcs(0x1000, 0x1040, pcs);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].address, 0x1000u); // up to the call returning at 0x1020: line 8
  EXPECT_EQ(lines[0].line, 8u);
  EXPECT_EQ(lines[1].address, 0x1020u);
  EXPECT_EQ(lines[1].line, 9u);
  EXPECT_EQ(lines[2].address, 0x1030u); // after the last described pc: no line
  EXPECT_EQ(lines[2].line, 0u);
}

TEST(LineMapping, NoPcsNoLines) {
  EXPECT_TRUE(linesBeforePcs(0x1000, 0x1040, {}).empty());
}

// Seen from Temurin 25 (the replay at VM init while its C2 thread generated
// compiler stubs): "dilithiumAlmostNtt" at 0x7fffdf9a0000 with length
// 543555584, i.e. (jint)(nullptr - begin); live, once generated, 4049 bytes.
TEST(StubEvents, AStubWithoutAnEndIsUnfinished) {
  EXPECT_TRUE(replayedStubIsUnfinished(0x7fffdf9a0000, 543555584));
  EXPECT_TRUE(replayedStubIsUnfinished(0x7fffdf99ca80, 0x20663580));
  // bit 31 of the address clear: the null end gives a negative length
  const uint64_t low = 0x7f0812345678;
  EXPECT_TRUE(replayedStubIsUnfinished(low, static_cast<int32_t>(0 - low)));
  EXPECT_FALSE(replayedStubIsUnfinished(0x7fffdf9a0000, 4049));
  EXPECT_FALSE(replayedStubIsUnfinished(0x7f08fb9c7240, 172));
}
