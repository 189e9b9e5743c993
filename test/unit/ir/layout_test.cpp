#include <catch2/catch.hpp>

#include "ir/layout.h"

using namespace tirlower;

namespace {

Layout layout(const std::string &text) {
  LayoutParseError error;
  std::optional<Layout> parsed = Layout::parse(text, &error);
  INFO(text << ": " << error.message);
  REQUIRE(parsed);
  return *parsed;
}

LayoutParseError parseError(const std::string &text) {
  LayoutParseError error;
  CHECK_FALSE(Layout::parse(text, &error));
  return error;
}

using Strides = std::vector<std::optional<int64_t>>;

} // namespace

TEST_CASE("layout strings parse into dimension descriptions", "[layout]") {
  Layout nhwc = layout("NHWC");
  CHECK_FALSE(nhwc.isAnyRank());
  REQUIRE(nhwc.numDims() == 4);
  CHECK(nhwc.nthDimDescription(0).name == 'N');
  CHECK(nhwc.nthDimDescription(3).name == 'C');
  CHECK(nhwc.nthDimDescription(3).order == 3);
  CHECK(nhwc.nthDimDescription(2).alignment == 1);
  CHECK(nhwc.name() == "NHWC");

  Layout packed = layout("NCHW4c");
  REQUIRE(packed.numDims() == 5);
  CHECK(packed.nthDimDescription(4).name == 'c');
  CHECK(packed.nthDimDescription(4).factor == 4);
  CHECK(packed.nthDimDescription(4).isSplit());
  CHECK_FALSE(packed.nthDimDescription(1).isSplit());
  CHECK(packed.name() == "NCHW4c");
  CHECK(layout("OIHW16i4o").numDims() == 6);

  Layout aligned = layout("N[a=32]HWC");
  CHECK(aligned.nthDimDescription(0).alignment == 32);
  CHECK(aligned.nthDimDescription(1).alignment == 1);
  CHECK(aligned.name() == "N[a=32]HWC");
  CHECK(layout("NCHW4c[a=4]").nthDimDescription(4).alignment == 4);

  Layout wild = layout("N**C");
  CHECK(wild.nthDimDescription(1).isAny());
  CHECK(wild.numDims() == 4);
  CHECK(layout("*[a=8]*").nthDimDescription(0).alignment == 8);
}

TEST_CASE("the dimension named by a letter", "[layout]") {
  Layout packed = layout("NCHW8c");
  REQUIRE(packed.dimDescription('C'));
  CHECK(packed.dimDescription('C')->order == 1);
  REQUIRE(packed.dimDescription('c'));
  CHECK(packed.dimDescription('c')->factor == 8);
  CHECK(packed.dimDescription('X') == nullptr);
  CHECK(layout("N*").dimDescription('*') == nullptr);
}

TEST_CASE("any layouts", "[layout]") {
  Layout generic = layout("*");
  CHECK(generic.isAnyRank());
  CHECK(generic.isAnyLayout());
  CHECK(generic.numDims() == 0);
  CHECK(generic.name() == "*");
  CHECK(Layout().isAnyRank());
  Layout four = Layout::anyOfRank(4);
  CHECK_FALSE(four.isAnyRank());
  CHECK(four.isAnyLayout());
  CHECK(four.name() == "****");
  CHECK(layout("**").isAnyLayout());
  CHECK_FALSE(layout("*C").isAnyLayout());
  CHECK(Layout::anyOfRank(0).isAnyLayout());
}

TEST_CASE("isSameLayout compares names, factors and alignments", "[layout]") {
  CHECK(layout("NHWC").isSameLayout(layout("NHWC")));
  CHECK_FALSE(layout("NHWC").isSameLayout(layout("NCHW")));
  CHECK_FALSE(layout("NCHW4c").isSameLayout(layout("NCHW8c")));
  CHECK_FALSE(layout("NHWC").isSameLayout(layout("N[a=2]HWC")));
  CHECK_FALSE(layout("NHW").isSameLayout(layout("NHWC")));
  CHECK_FALSE(layout("*").isSameLayout(Layout::anyOfRank(1)));
  CHECK(layout("*").isSameLayout(Layout()));
  CHECK(layout("N[a=2]HWC") == layout("N[a=2]HWC"));
}

TEST_CASE("isSatisfiedBy checks rank, names and alignment", "[layout]") {
  Strides unknown(4);
  // Rank.
  CHECK(layout("NHWC").isSatisfiedBy(4, unknown));
  CHECK_FALSE(layout("NHWC").isSatisfiedBy(3, Strides(3)));
  CHECK(layout("NHWC").unsatisfiedReason(3, Strides(3)) == "the buffer has 3 dimensions but \"NHWC\" has 4 dimensions");
  CHECK(layout("*").isSatisfiedBy(7, Strides(7)));
  CHECK(Layout::anyOfRank(2).isSatisfiedBy(2, Strides(2)));
  CHECK_FALSE(Layout::anyOfRank(2).isSatisfiedBy(3, Strides(3)));

  // Names, with the tensor's own layout.
  Layout nhwc = layout("NHWC"), nchw = layout("NCHW"), any4 = Layout::anyOfRank(4);
  CHECK(nhwc.isSatisfiedBy(4, unknown, &nhwc));
  CHECK_FALSE(nchw.isSatisfiedBy(4, unknown, &nhwc));
  CHECK(nchw.unsatisfiedReason(4, unknown, &nhwc) == "dimension 1 is 'H' instead of 'C'");
  CHECK(layout("N**C").isSatisfiedBy(4, unknown, &nhwc));
  CHECK(nhwc.isSatisfiedBy(4, unknown, &any4));
  Layout packed = layout("NCHW4c"), packed8 = layout("NCHW8c");
  CHECK(packed8.unsatisfiedReason(5, Strides(5), &packed) == "dimension 4 is '4c' instead of '8c'");
  CHECK(nhwc.unsatisfiedReason(4, unknown, &packed) ==
        "layout \"NCHW4c\" has 5 dimensions but \"NHWC\" has 4 dimensions");
  Layout generic;
  CHECK(nhwc.isSatisfiedBy(4, unknown, &generic));

  // Alignment: the stride of the dimension, or the tensor's declared alignment.
  Layout aligned = layout("N[a=32]HWC");
  CHECK(aligned.isSatisfiedBy(4, {8 * 8 * 16, 8 * 16, 16, 1}));
  CHECK_FALSE(aligned.isSatisfiedBy(4, {3 * 3 * 3, 3 * 3, 3, 1}));
  CHECK(aligned.unsatisfiedReason(4, {27, 9, 3, 1}) ==
        "dimension 0 must be aligned to 32 elements but its stride is 27");
  CHECK(aligned.unsatisfiedReason(4, unknown) ==
        "dimension 0 must be aligned to 32 elements but its stride is not known");
  Layout declared64 = layout("N[a=64]HWC"), declared16 = layout("N[a=16]HWC");
  CHECK(aligned.isSatisfiedBy(4, unknown, &declared64));
  CHECK_FALSE(aligned.isSatisfiedBy(4, unknown, &declared16));
  CHECK(layout("NHWC").isSatisfiedBy(4, {27, 9, 3, 1}));
}

TEST_CASE("namesMismatch compares rank and names, not alignment", "[layout]") {
  Layout nhwc = layout("NHWC"), nchw = layout("NCHW");
  CHECK(nhwc.namesMismatch(nhwc).empty());
  CHECK(nchw.namesMismatch(nhwc) == "dimension 1 is 'H' instead of 'C'");
  CHECK(layout("N[a=32]HWC").namesMismatch(nhwc).empty());
  CHECK(layout("N*W*").namesMismatch(nhwc).empty());
  CHECK(nhwc.namesMismatch(layout("**WC")).empty());
  CHECK(nhwc.namesMismatch(Layout()).empty());
  CHECK(Layout().namesMismatch(nhwc).empty());
  CHECK(nhwc.namesMismatch(layout("NCHW4c")) == "layout \"NCHW4c\" has 5 dimensions but \"NHWC\" has 4 dimensions");
  CHECK(layout("NCHW8c").namesMismatch(layout("NCHW4c")) == "dimension 4 is '4c' instead of '8c'");
}

TEST_CASE("malformed layout strings are located", "[layout]") {
  LayoutParseError e = parseError("");
  CHECK(e.message == "empty layout");

  e = parseError("NCHWc");
  CHECK(e.message == "split axis 'c' needs a factor (e.g. 4c)");
  CHECK(e.offset == 4);

  e = parseError("NCHW4");
  CHECK(e.message == "number 4 must be followed by a lowercase axis (e.g. 4c)");
  CHECK(e.offset == 4);
  CHECK(e.length == 1);
  CHECK(parseError("NCHW4C").message == "number 4 must be followed by a lowercase axis (e.g. 4c)");

  e = parseError("NCHW0c");
  CHECK(e.message == "split factor must be positive");
  CHECK(e.offset == 4);

  e = parseError("NCHW99999999999c");
  CHECK(e.message == "split factor '99999999999' is too large");
  CHECK(e.offset == 4);
  CHECK(e.length == 11);

  e = parseError("NC-W");
  CHECK(e.message == "unknown axis '-'");
  CHECK(e.offset == 2);

  // A non-ASCII character is named whole (two bytes of UTF-8 here), not by half a character.
  e = parseError("NH\xc3\xa9"
                 "C");
  CHECK(e.message == "unknown axis '\xc3\xa9'");
  CHECK(e.offset == 2);
  CHECK(e.length == 2);

  e = parseError("NCHWN");
  CHECK(e.message == "axis 'N' is repeated");
  CHECK(e.offset == 4);

  e = parseError("N[a=2]CHW4c4c");
  CHECK(e.message == "axis 'c' is repeated");
  CHECK(e.offset == 11);
  CHECK(e.length == 2);

  e = parseError("NCHW4k");
  CHECK(e.message == "split axis 'k' has no primal axis 'K'");
  CHECK(e.offset == 4);

  e = parseError("N[b=2]HWC");
  CHECK(e.message == "malformed alignment: expected [a=N]");
  CHECK(e.offset == 1);
  CHECK(parseError("N[a=]HWC").offset == 4);
  CHECK(parseError("N[a=0]HWC").message == "alignment must be positive");
  e = parseError("N[a=4HWC");
  CHECK(e.message == "malformed alignment: expected ']'");
  CHECK(e.offset == 5);
  CHECK(parseError("N[a=4").offset == 1);
  CHECK(parseError("**[a=3").message == "malformed alignment: expected ']'");
  // Wildcards may repeat; "*" alone is the rank-generic layout, not an error.
  CHECK(Layout::parse("***"));
  CHECK(Layout::parse("*"));
  CHECK_FALSE(Layout::parse("NHWC "));
}
