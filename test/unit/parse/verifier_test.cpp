// --verify-diagnostics: expectations in comments against produced diagnostics.
#include <catch2/catch.hpp>

#include "parse/diagnostic_engine.h"
#include "parse/diagnostic_verifier.h"

using namespace tirlower;

namespace {
struct Fixture {
  SourceManager sources;
  uint32_t id;
  DiagnosticCollector out;
  explicit Fixture(const std::string &text) : id(sources.addFile("in.tir", text)) {}
  SourceRange line(uint32_t n) const {
    std::string_view text = sources.text(id);
    uint32_t offset = 0;
    for (uint32_t k = 1; k < n; ++k)
      offset = static_cast<uint32_t>(text.find('\n', offset) + 1);
    return {id, offset, offset + 1};
  }
  bool verify(const std::vector<Diagnostic> &produced) {
    return verifyDiagnostics(sources, id, 0, UINT32_MAX, produced, out);
  }
};
} // namespace

TEST_CASE("expectations on the same line and by offset", "[parse][verifier]") {
  Fixture f("x = 1  # expected-error {{bad x}}\n"
            "# expected-warning@+1 {{odd}}\n"
            "y = 2\n"
            "z = 3\n"
            "# expected-note@-1 {{see z}}\n"
            "# expected-remark@-3 {{fyi}}\n");
  CHECK(f.verify({{Severity::Error, f.line(1), "very bad x here", {}},
                  {Severity::Warning, f.line(3), "odd", {}},
                  {Severity::Error, f.line(4), "z", {{Severity::Note, f.line(4), "see z", {}}}},
                  {Severity::Remark, f.line(3), "fyi", {}}}) == false);
  // The error on line 4 was not expected.
  REQUIRE(f.out.diagnostics.size() == 1);
  CHECK(f.out.diagnostics[0].message == "unexpected error: z");
}

TEST_CASE("all matched passes", "[parse][verifier]") {
  Fixture f("# expected-error@+1 {{undefined}}\nA[0] = x\n");
  CHECK(f.verify({{Severity::Error, f.line(2), "use of undefined name 'x'", {}}}));
  CHECK(f.out.diagnostics.empty());
}

TEST_CASE("unmet expectations are located at the comment", "[parse][verifier]") {
  Fixture f("# expected-error@+1 {{missing}}\nok\n");
  CHECK_FALSE(f.verify({}));
  REQUIRE(f.out.diagnostics.size() == 1);
  CHECK(f.out.diagnostics[0].message == "expected error \"missing\" was not produced");
  CHECK(f.sources.position(f.id, f.out.diagnostics[0].range.begin).line == 1);
}

TEST_CASE("wrong severity or line does not match", "[parse][verifier]") {
  Fixture f("# expected-warning@+1 {{m}}\nx\ny\n");
  CHECK_FALSE(f.verify({{Severity::Error, f.line(2), "m", {}}}));
  Fixture g("# expected-error@+1 {{m}}\nx\ny\n");
  CHECK_FALSE(g.verify({{Severity::Error, g.line(3), "m", {}}}));
}

TEST_CASE("malformed directives are errors", "[parse][verifier]") {
  Fixture f(
      "# expected-error missing braces\n# expected-error@x {{a}}\n# expected-error {{open\n# expected-bogus {{a}}\n");
  CHECK_FALSE(f.verify({}));
  CHECK(f.out.diagnostics.size() == 4);
}

TEST_CASE("only the given range is checked", "[parse][verifier]") {
  std::string first = "# expected-error@+1 {{one}}\nx\n";
  Fixture f(first + "// -----\n# expected-error@+1 {{two}}\ny\n");
  std::vector<Diagnostic> produced = {{Severity::Error, f.line(2), "one", {}}};
  CHECK(verifyDiagnostics(f.sources, f.id, 0, static_cast<uint32_t>(first.size()), produced, f.out));
  CHECK(f.out.diagnostics.empty());
  // A diagnostic outside the range is unexpected; so is one without a location.
  CHECK_FALSE(verifyDiagnostics(f.sources, f.id, 0, static_cast<uint32_t>(first.size()),
                                {{Severity::Error, f.line(2), "one", {}}, {Severity::Error, {}, "global", {}}}, f.out));
  CHECK(f.out.diagnostics.back().message == "unexpected error: global");
}
