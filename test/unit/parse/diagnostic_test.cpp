// Rendering of diagnostics: the text format with its caret line, JSON, unlocated messages,
// and the source manager's line table.
#include <catch2/catch.hpp>

#include <sstream>

#include "parse/diagnostic_engine.h"

using namespace tirlower;

TEST_CASE("source manager maps offsets to 1-based lines and columns", "[parse][diagnostics]") {
  SourceManager sources;
  uint32_t id = sources.addFile("in.tir", "ab\ncde\n\nf");
  CHECK(id == 1);
  CHECK(sources.name(id) == "in.tir");
  auto at = [&](uint32_t offset) {
    SourcePosition p = sources.position(id, offset);
    return std::to_string(p.line) + ":" + std::to_string(p.column);
  };
  CHECK(at(0) == "1:1");
  CHECK(at(2) == "1:3");
  CHECK(at(3) == "2:1");
  CHECK(at(5) == "2:3");
  CHECK(at(7) == "3:1");
  CHECK(at(8) == "4:1");
  CHECK(at(100) == "4:2"); // clamped to the end
  CHECK(sources.lineText(id, 2) == "cde");
  CHECK(sources.lineText(id, 3).empty());
  CHECK(sources.lineText(id, 4) == "f");
  CHECK(sources.lineText(id, 5).empty());
  CHECK(sources.position(0, 3).line == 0);
  uint32_t second = sources.addFile("<stdin>", "x\r\ny");
  CHECK(second == 2);
  CHECK(sources.lineText(second, 1) == "x");
}

TEST_CASE("text diagnostics show the line and a caret under the range", "[parse][diagnostics]") {
  SourceManager sources;
  uint32_t id = sources.addFile("in.tir", "def f():\n    B[i] = Aa[i, j]\n");
  Diagnostic d{Severity::Error, {id, 20, 22}, "use of undefined name 'Aa'", {}};
  d.note({id, 20, 22}, "did you mean 'A'?");
  CHECK(renderDiagnostic(sources, d) == "in.tir:2:12: error: use of undefined name 'Aa'\n"
                                        "    B[i] = Aa[i, j]\n"
                                        "           ^~\n"
                                        "in.tir:2:12: note: did you mean 'A'?\n"
                                        "    B[i] = Aa[i, j]\n"
                                        "           ^~\n");
}

TEST_CASE("empty and multi-line ranges render one caret line", "[parse][diagnostics]") {
  SourceManager sources;
  uint32_t id = sources.addFile("in.tir", "abc\ndef\n");
  CHECK(renderDiagnostic(sources, {Severity::Warning, {id, 1, 1}, "w", {}}) == "in.tir:1:2: warning: w\nabc\n ^\n");
  CHECK(renderDiagnostic(sources, {Severity::Remark, {id, 1, 6}, "r", {}}) == "in.tir:1:2: remark: r\nabc\n ^~\n");
}

TEST_CASE("tabs before the caret are kept so the caret lines up", "[parse][diagnostics]") {
  SourceManager sources;
  uint32_t id = sources.addFile("in.tir", "\tx = 1\n");
  CHECK(renderDiagnostic(sources, {Severity::Error, {id, 1, 2}, "m", {}}) == "in.tir:1:2: error: m\n\tx = 1\n\t^\n");
}

TEST_CASE("unlocated diagnostics name the tool", "[parse][diagnostics]") {
  SourceManager sources;
  CHECK(renderDiagnostic(sources, {Severity::Error, {}, "no input files", {}}) == "tirlower: error: no input files\n");
}

TEST_CASE("JSON diagnostics are one object per line", "[parse][diagnostics]") {
  SourceManager sources;
  uint32_t id = sources.addFile("in.tir", "a\nb\n  xyzw\n");
  Diagnostic d{Severity::Error, {id, 6, 10}, "bad \"x\"", {}};
  d.note({id, 0, 1}, "here");
  CHECK(renderDiagnosticJson(sources, d) ==
        R"({"severity":"error","file":"in.tir","line":3,"column":3,"end_line":3,"end_column":7,"message":"bad \"x\"",)"
        R"("notes":[{"severity":"note","file":"in.tir","line":1,"column":1,"end_line":1,"end_column":2,)"
        R"("message":"here","notes":[]}]})"
        "\n");
  CHECK(renderDiagnosticJson(sources, {Severity::Warning, {}, "w", {}}) ==
        "{\"severity\":\"warning\",\"message\":\"w\",\"notes\":[]}\n");
}

TEST_CASE("the engine counts errors and warnings and prints in its format", "[parse][diagnostics]") {
  SourceManager sources;
  uint32_t id = sources.addFile("in.tir", "x\n");
  std::ostringstream text, json;
  DiagnosticEngine textEngine(sources, text, DiagnosticFormat::Text);
  textEngine.error({id, 0, 1}, "e");
  textEngine.warning({id, 0, 1}, "w");
  textEngine.remark({id, 0, 1}, "r");
  CHECK(textEngine.errorCount() == 1);
  CHECK(textEngine.warningCount() == 1);
  CHECK(text.str() == "in.tir:1:1: error: e\nx\n^\nin.tir:1:1: warning: w\nx\n^\nin.tir:1:1: remark: r\nx\n^\n");
  DiagnosticEngine jsonEngine(sources, json, DiagnosticFormat::Json);
  jsonEngine.error({id, 0, 1}, "e");
  CHECK(json.str() ==
        "{\"severity\":\"error\",\"file\":\"in.tir\",\"line\":1,\"column\":1,\"end_line\":1,\"end_column\":2,"
        "\"message\":\"e\",\"notes\":[]}\n");
  DiagnosticCollector collector;
  collector.error({id, 0, 1}, "e");
  collector.warning({id, 0, 1}, "w");
  CHECK(collector.errorCount() == 1);
}
