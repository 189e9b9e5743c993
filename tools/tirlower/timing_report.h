// --timing: wall time and peak resident memory per step (reading, parsing, each pass,
// emitting, writing), as a text table or one JSON document on stderr.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "transform/pass_manager.h"

namespace tirlower {

class TimingReport {
public:
  TimingReport() : start_(std::chrono::steady_clock::now()) {}

  // Adds `seconds` to the step (steps keep the order of their first use); records the peak
  // RSS now. Steps of kind "pass" come from the pass manager.
  void add(const std::string &step, double seconds, const char *kind = "tool");
  void addPasses(const std::vector<PassTiming> &passes);

  template <typename F> auto time(const std::string &step, F &&body) {
    auto begin = std::chrono::steady_clock::now();
    struct Record {
      TimingReport &report;
      const std::string &step;
      std::chrono::steady_clock::time_point begin;
      ~Record() { report.add(step, std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count()); }
    } record{*this, step, begin};
    return body();
  }

  size_t inputBytes = 0;
  size_t inputLines = 0;
  size_t functions = 0;
  // The streamed compile ran (streamed_compile.h): parsing, the passes and emitting ran piece by
  // piece at once, and their times are shares of that run's wall time.
  bool streamed = false;

  std::string text() const;
  std::string json() const;

private:
  struct Step {
    std::string name;
    std::string kind;
    double seconds = 0;
    long peakRssKiB = 0;
  };
  double totalSeconds() const;
  std::vector<Step> steps_;
  std::chrono::steady_clock::time_point start_;
};

} // namespace tirlower
