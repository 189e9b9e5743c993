// The TVM conformance test: TVM's own unit tests of the passes tirlower names after TVM's
// (test/tvm/conformance, recorded by scripts/gen-tvm-conformance from apache/tvm's test files
// run under TVM 0.27): each case is a test's input (NAME.before.tir), the TVM passes it ran
// and their tirlower pipeline (cases.json), and TVM's expected output (NAME.expected.tir).
// For each case this runs the tirlower binary's pipeline on the input and grades the result:
//   unread      the input or the expected output does not parse
//   refused     the pipeline fails (tirlower rejects the input)
//   differs     the output computes something else than `expected` on random inputs
//   unchecked   the functions cannot be run on random inputs (so results are not compared)
//   results     the same results as `expected` (every buffer, bit for bit), but not equal
//   equal       also structurally equal to `expected` up to renaming (ir/alpha_equality.h)
// docs/tvm-compatibility.md lists every case whose grade is not `equal`, with the grade and
// the reason; a case graded otherwise than listed fails the test (one that improves too, so
// that the list stays true). Prints per-pass figures.
//   tvm_conformance --tirlower=BIN --workdir=DIR --list=docs/tvm-compatibility.md CASES.json
//   [--write-list]  print the table rows of the grades found instead of checking them
//   [--only=REGEX]  only the cases whose name matches
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "c_harness.h"
#include "interp/semantic_check.h"
#include "ir/alpha_equality.h"
#include "parse/parser.h"

namespace tirlower {
namespace {

const std::string kLowerBlocks = "lower-init-block,convert-blocks-to-opaque,lower-match-buffer,lower-opaque-block";
const std::string kLowerThreads = kLowerBlocks + ",lower-thread-binding";
const std::vector<std::string> kGrades = {"unread", "refused", "differs", "unchecked", "results", "equal"};

class FirstError : public DiagnosticSink {
public:
  void report(Diagnostic d) override {
    if (d.severity == Severity::Error && message.empty())
      message = d.message;
  }
  std::string message;
};

std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot open " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string oneLine(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '|')
      c = ' ';
  return text.size() > 160 ? text.substr(0, 157) + "..." : text;
}

struct Listed {
  std::string grade, reason;
};

// The rows of the table between the conformance markers of docs/tvm-compatibility.md:
// | `case` | grade | reason |
std::map<std::string, Listed> readList(const std::string &path) {
  std::map<std::string, Listed> list;
  std::istringstream lines(readFile(path));
  std::string line;
  bool inside = false;
  std::regex row(R"(^\| `([^`]+)` \| (\w+) \| (.*) \|$)");
  while (std::getline(lines, line)) {
    if (line.find("<!-- conformance list begin -->") != std::string::npos)
      inside = true;
    else if (line.find("<!-- conformance list end -->") != std::string::npos)
      inside = false;
    std::smatch m;
    if (inside && std::regex_match(line, m, row))
      list[m[1]] = {m[2], m[3]};
  }
  return list;
}

struct Result {
  std::string grade, detail;
};

class Conformance {
public:
  Conformance(std::string tirlower, std::filesystem::path workdir)
      : tirlower_(std::move(tirlower)), workdir_(std::move(workdir)) {
    std::filesystem::create_directories(workdir_);
  }

  Result grade(const std::filesystem::path &dir, const nlohmann::json &c) {
    std::string name = c["name"];
    std::filesystem::path before = dir / (name + ".before.tir"), expectedPath = dir / (name + ".expected.tir");
    SourceManager sources;
    std::optional<Module> input = parse(sources, before);
    if (!input)
      return {"unread", "before: " + error_};
    std::optional<Module> expected = parse(sources, expectedPath);
    if (!expected)
      return {"unread", "expected: " + error_};

    // tirlower applies layout transforms to lowered TIR, TVM's transform_layout to blocks: the
    // input is lowered first, and so is `expected`, by tirlower's block-lowering passes.
    std::string pipeline = c["pipeline"];
    if (pipeline.rfind("apply-layout-transforms", 0) == 0) {
      pipeline = kLowerBlocks + "," + pipeline;
      std::string error;
      expected = runTirlower(sources, expectedPath, name + ".expected-lowered", kLowerBlocks, {}, error);
      if (!expected)
        return {"refused", "lowering expected: " + error};
    }
    std::string error;
    std::optional<Module> result =
        runTirlower(sources, before, name, pipeline, c.value("transform_layout", nlohmann::json::array()), error);
    if (!result)
      return {error.rfind("output: ", 0) == 0 ? "differs" : "refused", error};

    for (const PrimFunc &f : expected->functions)
      if (!result->find(f->name.str()))
        return {"differs", "no function '" + f->name.str() + "' in the output"};
    std::optional<Result> compared = compareResults(*expected, *result, pipeline);
    if (compared && compared->grade == "unchecked") {
      // Thread-bound loops with cross-thread reductions run in the interpreter as launches:
      // both sides are lowered by tirlower's block and thread-binding passes and compared again.
      std::string errorA, errorB;
      std::optional<Module> e =
          runTirlower(sources, expectedPath, name + ".expected-launched", kLowerThreads, {}, errorA);
      std::optional<Module> r =
          runTirlower(sources, workdir_ / (name + ".out.tir"), name + ".out-launched", kLowerThreads, {}, errorB);
      if (e && r && !e->functions.empty() && !r->functions.empty())
        if (std::optional<Result> again = compareResults(*e, *r, pipeline); !again || again->grade != "unchecked")
          compared = again;
    }
    if (compared)
      return *compared;
    for (const PrimFunc &f : expected->functions) {
      std::string why;
      if (!alphaEqual(*result->find(f->name.str()), *f, &why))
        return {"results", why};
    }
    return {"equal", ""};
  }

private:
  // Runs the tirlower binary on `input` with `pipeline` (and layout transforms), writing
  // WORKDIR/STEM.out.tir, and parses the output. On failure `error` is tirlower's first error, or
  // "output: ..." when the output does not parse.
  std::optional<Module> runTirlower(SourceManager &sources, const std::filesystem::path &input, const std::string &stem,
                                    const std::string &pipeline, const nlohmann::json &layouts, std::string &error) {
    std::filesystem::path out = workdir_ / (stem + ".out.tir");
    std::string command = cdiff::quote(tirlower_) + " " + cdiff::quote(input.string()) +
                          " --pass-pipeline=" + cdiff::quote(pipeline) + " -o " + cdiff::quote(out.string());
    for (const nlohmann::json &t : layouts)
      command += " --transform-layout=" +
                 cdiff::quote(t["buffer"].get<std::string>() + "=" + t["map"].get<std::string>() +
                              (t.contains("pad_value") ? ", pad_value=" + t["pad_value"].get<std::string>() : ""));
    std::string output;
    std::filesystem::remove(out);
    if (cdiff::shell(command, output) != 0) {
      size_t at = output.find("error: ");
      std::string first = at == std::string::npos ? output : output.substr(at + 7);
      error = first.substr(0, first.find('\n'));
      return std::nullopt;
    }
    std::optional<Module> module = parse(sources, out);
    if (!module)
      error = "output: tirlower's output does not parse: " + error_;
    return module;
  }

  // Runs `expected` and `result` on the same random inputs: nullopt when every buffer agrees.
  std::optional<Result> compareResults(const Module &expected, const Module &result, const std::string &pipeline) {
    SemanticCheckOptions options;
    options.run.stepLimit = 40000000;
    // TVM's tests read allocations they never write; both sides read the same zeros.
    // Some index past the end of an axis but inside the buffer (TVM's padded tiles do): only
    // the storage bounds are checked, as in TVM's flat memory.
    options.run.checkUninitialized = false;
    options.run.checkLogicalBounds = false;
    SemanticChecker checker(expected, options);
    if (checker.checkedFunctions() == 0) {
      if (checker.skipped().empty())
        return Result{"unchecked", ""};
      const Diagnostic &d = checker.skipped()[0];
      return Result{"unchecked", d.notes.empty() ? d.message : d.notes[0].message};
    }
    if (std::optional<Diagnostic> d = checker.check(result, pipeline, false)) {
      std::string why = d->message;
      size_t at = why.find("': ");
      if (at != std::string::npos)
        why = why.substr(at + 3);
      if (!d->notes.empty())
        why += ": " + d->notes[0].message;
      return Result{"differs", why};
    }
    return std::nullopt;
  }

  std::optional<Module> parse(SourceManager &sources, const std::filesystem::path &path) {
    FirstError sink;
    uint32_t id = sources.addFile(path.string(), readFile(path));
    std::optional<Module> module = parseModule(sources, id, sink, {});
    error_ = sink.message;
    return module;
  }

  std::string tirlower_;
  std::filesystem::path workdir_;
  std::string error_;
};

// The pass a case is about: the first of its pipeline, as TVM's tests apply the pass under test
// first and then, in some files, simplify and remove-no-op.
std::string passOf(const nlohmann::json &c) {
  std::string pipeline = c["pipeline"];
  std::string first = pipeline.substr(0, pipeline.find(','));
  return first.substr(0, first.find('{')); // without its options
}

int conformanceMain(int argc, char **argv) {
  std::string tirlower, workdir = "conformance-work", listPath, casesPath, only;
  bool writeList = false;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    auto value = [&](const char *flag) { return arg.rfind(flag, 0) == 0 ? arg.substr(strlen(flag)) : ""; };
    if (arg.rfind("--tirlower=", 0) == 0)
      tirlower = value("--tirlower=");
    else if (arg.rfind("--workdir=", 0) == 0)
      workdir = value("--workdir=");
    else if (arg.rfind("--list=", 0) == 0)
      listPath = value("--list=");
    else if (arg.rfind("--only=", 0) == 0)
      only = value("--only=");
    else if (arg == "--write-list")
      writeList = true;
    else
      casesPath = arg;
  }
  if (tirlower.empty() || casesPath.empty() || listPath.empty()) {
    std::cerr << "usage: tvm_conformance --tirlower=BIN --list=docs/tvm-compatibility.md [--workdir=DIR] "
                 "[--write-list] [--only=REGEX] CASES.json\n";
    return 2;
  }
  nlohmann::json cases = nlohmann::json::parse(readFile(casesPath));
  std::filesystem::path dir = std::filesystem::path(casesPath).parent_path();
  std::map<std::string, Listed> list = readList(listPath);
  Conformance conformance(tirlower, workdir);

  struct Figures {
    int cases = 0, read = 0, results = 0, equal = 0;
  };
  std::map<std::string, Figures> figures;
  Figures total;
  int mismatches = 0;
  std::set<std::string> seen;
  std::regex filter(only.empty() ? ".*" : only);
  for (const nlohmann::json &c : cases["cases"]) {
    std::string name = c["name"];
    seen.insert(name);
    if (!std::regex_search(name, filter))
      continue;
    Result r;
    try {
      r = conformance.grade(dir, c);
    } catch (const std::exception &error) {
      r = {"differs", std::string("exception: ") + error.what()};
    }
    size_t level = std::find(kGrades.begin(), kGrades.end(), r.grade) - kGrades.begin();
    for (Figures *f : {&figures[passOf(c)], &total}) {
      ++f->cases;
      f->read += level >= 1;
      f->results += level >= 4;
      f->equal += level >= 5;
    }
    if (writeList) {
      if (r.grade != "equal")
        std::cout << "| `" << name << "` | " << r.grade << " | " << oneLine(r.detail) << " |\n";
      continue;
    }
    auto listed = list.find(name);
    std::string want = listed == list.end() ? "equal" : listed->second.grade;
    if (r.grade != want) {
      ++mismatches;
      std::cout << "FAIL " << name << ": " << r.grade << (r.detail.empty() ? "" : " (" + oneLine(r.detail) + ")")
                << ", listed as " << want << "\n    TVM test: " << c["test"].get<std::string>()
                << "\n    pipeline: " << c["pipeline"].get<std::string>() << "\n";
    } else {
      std::cout << "PASS " << name << ": " << r.grade << "\n";
    }
  }
  if (!writeList && only.empty())
    for (const auto &[name, listed] : list)
      if (!seen.count(name)) {
        ++mismatches;
        std::cout << "FAIL " << name << ": listed in " << listPath << " but no such case\n";
      }
  std::ostream &summary = writeList ? std::cerr : std::cout;
  summary << "\n| pass | cases | read | same results | structurally equal |\n|---|---|---|---|---|\n";
  for (const auto &[pass, f] : figures)
    summary << "| " << pass << " | " << f.cases << " | " << f.read << " | " << f.results << " | " << f.equal << " |\n";
  summary << "| all | " << total.cases << " | " << total.read << " | " << total.results << " | " << total.equal
          << " |\n";
  if (!writeList)
    std::cout << mismatches << " cases graded otherwise than " << listPath << " lists\n";
  return mismatches ? 1 : 0;
}

} // namespace
} // namespace tirlower

int main(int argc, char **argv) {
  return tirlower::conformanceMain(argc, argv);
}
