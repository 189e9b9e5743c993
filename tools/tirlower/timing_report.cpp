#include "timing_report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace tirlower {

void TimingReport::add(const std::string &step, double seconds, const char *kind) {
  auto it = std::find_if(steps_.begin(), steps_.end(), [&](const Step &s) { return s.name == step && s.kind == kind; });
  if (it == steps_.end()) {
    steps_.push_back({step, kind, 0, 0});
    it = steps_.end() - 1;
  }
  it->seconds += seconds;
  it->peakRssKiB = std::max(it->peakRssKiB, peakRssKiB());
}

// Pass timings are accumulated by the manager over every input chunk; they go after the
// steps that ran before the first pass (reading, parsing) and before the others.
void TimingReport::addPasses(const std::vector<PassTiming> &passes) {
  auto firstLate = std::find_if(steps_.begin(), steps_.end(), [](const Step &s) {
    return s.name != "read input" && s.name != "parse" && s.name != "layout flags";
  });
  std::vector<Step> passSteps;
  for (const PassTiming &timing : passes)
    passSteps.push_back({timing.pass, "pass", timing.wallSeconds, timing.peakRssKiB});
  steps_.insert(firstLate, passSteps.begin(), passSteps.end());
}

double TimingReport::totalSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string TimingReport::text() const {
  double total = totalSeconds();
  std::string out = "===-- tirlower timing: wall time, peak RSS at the end of the step --===\n";
  char line[512];
  std::snprintf(line, sizeof line, "%12s %7s %10s  %s\n", "wall (ms)", "%", "peak (MiB)", "step");
  out += line;
  for (const Step &step : steps_) {
    std::string label = step.kind == std::string("pass") ? "pass " + step.name : step.name;
    std::snprintf(line, sizeof line, "%12.3f %7.1f %10.1f  %s\n", step.seconds * 1e3,
                  total > 0 ? 100.0 * step.seconds / total : 0.0, step.peakRssKiB / 1024.0, label.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "%12.3f %7.1f %10.1f  %s\n", total * 1e3, 100.0, peakRssKiB() / 1024.0, "total");
  out += line;
  if (streamed)
    out += "(streamed: parse, passes and emit ran piece by piece at once; each shows its share of that time)\n";
  return out;
}

std::string TimingReport::json() const {
  nlohmann::json steps = nlohmann::json::array();
  for (const Step &step : steps_)
    steps.push_back(
        {{"name", step.name}, {"kind", step.kind}, {"wall_ms", step.seconds * 1e3}, {"peak_rss_kib", step.peakRssKiB}});
  nlohmann::json report = {{"steps", steps},
                           {"total_ms", totalSeconds() * 1e3},
                           {"peak_rss_kib", peakRssKiB()},
                           {"input_bytes", inputBytes},
                           {"input_lines", inputLines},
                           {"functions", functions},
                           {"streamed", streamed}};
  return report.dump() + "\n";
}

} // namespace tirlower
