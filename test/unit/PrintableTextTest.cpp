// A runtime's names on a terminal: control characters escaped, the rest as is.
#include "jitsym/base/PrintableText.h"

#include <gtest/gtest.h>

using namespace jitsym;

TEST(PrintableText, ControlCharactersAreEscapedVisibly) {
  EXPECT_EQ(printableText("JS:*red\x1b[31mAlert"), "JS:*red\\x1b[31mAlert");
  EXPECT_EQ(printableText("ring\abell\ttab\nline\x7f"), "ring\\x07bell\\x09tab\\x0aline\\x7f");
  EXPECT_EQ(printableText(std::string_view("nul\0byte", 8)), "nul\\x00byte");
  EXPECT_EQ(printableText("c1\xc2\x9b" "csi"), "c1\\u009bcsi"); // U+009B, CSI
  EXPECT_EQ(printableText("c1\xc2\x80"), "c1\\u0080");
}

TEST(PrintableText, OtherTextStaysAsItIs) {
  EXPECT_EQ(printableText("JS:*größe /tmp/ü.js:1:1"), "JS:*größe /tmp/ü.js:1:1");
  EXPECT_EQ(printableText("RegExp:ab+c(\\d+)"), "RegExp:ab+c(\\d+)");
  EXPECT_EQ(printableText("\xc2\xa0nbsp"), "\xc2\xa0nbsp"); // U+00A0 is no control
  EXPECT_EQ(printableText("\xc2"), "\xc2");                 // a cut sequence, not C1
  EXPECT_FALSE(hasControlCharacters("void 日本.処理(java.lang.String[])"));
  EXPECT_TRUE(hasControlCharacters("a\x1b"));
}
