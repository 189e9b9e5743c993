// Every file in test/parse-errors must be rejected with exactly the diagnostics its
// `# expected-...` comments state; every file in ir-samples must parse cleanly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "parse/diagnostic_verifier.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace tirlower;

namespace {
std::vector<fs::path> tirFiles(const fs::path &dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir))
    return files;
  for (const auto &entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".tir")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
} // namespace

TEST_CASE("every parse-errors file fails with exactly its expected diagnostics", "[parse][corpus]") {
  std::vector<fs::path> files = tirFiles(TIRLOWER_PARSE_ERRORS_DIR);
  REQUIRE(files.size() >= 45);
  for (const fs::path &path : files) {
    INFO(path.filename().string());
    SourceManager sources;
    uint32_t fileId = sources.addFile(path.filename().string(), readFile(path));
    DiagnosticCollector produced;
    std::optional<Module> module = parseModule(sources, fileId, produced);
    CHECK_FALSE(module.has_value());
    DiagnosticCollector mismatches;
    bool ok = verifyDiagnostics(sources, fileId, 0, UINT32_MAX, produced.diagnostics, mismatches);
    std::string report;
    for (const Diagnostic &d : mismatches.diagnostics)
      report += renderDiagnostic(sources, d);
    INFO(report);
    CHECK(ok);
  }
}

TEST_CASE("every ir-samples file parses without diagnostics", "[parse][corpus]") {
  std::vector<fs::path> files = tirFiles(TIRLOWER_IR_SAMPLES_DIR);
  if (files.empty())
    SUCCEED("no samples yet");
  for (const fs::path &path : files) {
    INFO(path.filename().string());
    auto parsed = test::parse(readFile(path));
    INFO(parsed->rendered());
    CHECK(parsed->module.has_value());
    CHECK(parsed->diagnostics.diagnostics.empty());
  }
}
