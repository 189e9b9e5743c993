// What a parsed command line means once every flag is read (options.cpp declares the flags):
// unknown flags and extra inputs, which emitter and target the output asks for, the flags that
// do not apply to it, the pipeline, `run`'s files, and the typed values of the flags' text.
// Each check prints its error and returns the exit code; nullopt when the flags are fine.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "options.h"

namespace tirlower {

constexpr int kUsageError = 2;
constexpr int kInputError = 1;

// The flags whose values are text until every flag is parsed (then applyFlagValues).
struct FlagValues {
  std::string input, runFile, emit, timing, diagnosticsFormat = "text", pipeline, layoutVerify = "error";
  std::string optLevel, seed, maxSteps, maxBufferBytes, vscale, warpSize, outputsFormat, threads, abi, target;
};

// Flags that do nothing in `run`: refused there rather than ignored.
inline constexpr const char *kNotForRun[] = {"--emit",
                                             "--split-input-file",
                                             "--verify-diagnostics",
                                             "--verify-roundtrip",
                                             "--verify-semantics",
                                             "--openmp",
                                             "--header-guard",
                                             "--abi",
                                             "--cc",
                                             "-O",
                                             "--target-triple",
                                             "--mcpu",
                                             "--mattr",
                                             "--fp-contract",
                                             "--tir-spelling",
                                             "--list-passes",
                                             "--print-pipeline"};

// A decimal count ("12"), with `suffixes` also "64K", "512M", "2G" (powers of 1024).
std::optional<uint64_t> parseCount(const std::string &text, bool suffixes);

// Unknown options (with the closest flag) and more than one input file.
std::optional<int> reportExtras(CLI::App &app, CLI::App *run, const ToolOptions &options, const FlagValues &values);
// The CLI11 exception of a parse error, said in tirlower's words.
std::string parseErrorMessage(const CLI::ParseError &error);
// The emitter: --emit, else the output's name, else the target's; refused when it does not
// serve --target.
std::optional<int> resolveEmitter(ToolOptions &options, const std::string &emitFlag);
// Flags of one emitter family given for another emitter are refused, not ignored.
std::optional<int> checkEmitterFlags(const CLI::App &app, ToolOptions &options, const FlagValues &values);
// --print-ir-after's pass names, resolved in the registry.
std::optional<int> resolvePrintAfter(ToolOptions &options);
// `run`: its input and output files, and the flags that do not apply to it.
std::optional<int> resolveRunMode(const CLI::App &app, ToolOptions &options, const FlagValues &values);
// The flags parsed as text (their checks already passed) into their typed options.
void applyFlagValues(const FlagValues &values, ToolOptions &options);
// The pipeline: --pass-pipeline, or the --pass flags, or the target's default pipeline when
// no pass is named. Both --pass and --pass-pipeline is command-line misuse.
std::optional<int> choosePipeline(CLI::App &app, ToolOptions &options, const FlagValues &values);

} // namespace tirlower
