// Thread launches in the interpreter: every thread of every block runs, shared storage is one per
// block, barriers are honoured, races on shared storage and barrier divergence are located
// errors, and T.tvm_thread_allreduce combines the threads' values.
#include <catch2/catch.hpp>

#include "../parse/test_util.h"
#include "interp/interpreter.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"

using namespace tirlower;
using tirlower::test::parse;

namespace {

const char *kHeader = "from tvm.script import tir as T\n\n@T.prim_func\n";

// B[b * 16 + t] = A[b * 16 + 15 - t] through shared storage, over 4 blocks of 16 threads.
std::string reverseKernel(bool barrier, bool explicitBarriers) {
  std::string text = kHeader;
  text += "def rev(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n";
  if (explicitBarriers)
    text += "    T.func_attr({\"tirlower.explicit_barriers\": True})\n";
  text += "    bx = T.launch_thread(\"blockIdx.x\", 4)\n"
          "    S = T.alloc_buffer((16,), \"float32\", scope=\"shared\")\n"
          "    tx = T.launch_thread(\"threadIdx.x\", 16)\n"
          "    S[tx] = A[bx * 16 + tx]\n";
  if (barrier)
    text += "    T.tvm_storage_sync(\"shared\")\n";
  text += "    B[bx * 16 + tx] = S[15 - tx]\n";
  return text;
}

struct Ran {
  std::unique_ptr<test::Parsed> parsed;
  std::vector<ArgValue> args;
  RunResult result;
  std::string error() const {
    return result.error ? result.error->message : std::string();
  }
};

Ran runText(const std::string &text, uint64_t seed = 1) {
  Ran r;
  r.parsed = parse(text);
  INFO(r.parsed->rendered());
  REQUIRE(r.parsed->module);
  const PrimFunc &f = r.parsed->module->functions.at(0);
  r.args = makeRandomArgs(f, seed);
  r.result = run(f, r.args);
  return r;
}

std::optional<Module> lower(const Module &module, const std::string &pipeline, DiagnosticSink &sink) {
  PassManager passes;
  for (const PipelineEntry &entry : parsePipeline(pipeline, PassRegistry::builtin()))
    passes.add(entry);
  PassContext context{sink};
  return passes.run(module, context);
}

} // namespace

TEST_CASE("a kernel runs every thread of every block; shared storage is per block", "[interp][kernel]") {
  for (bool explicitBarriers : {false, true}) {
    Ran r = runText(reverseKernel(true, explicitBarriers));
    INFO(r.error());
    REQUIRE(r.result.ok());
    for (int b = 0; b < 4; ++b)
      for (int t = 0; t < 16; ++t)
        CHECK(r.args[1].buffer->getFloat(b * 16 + t) == r.args[0].buffer->getFloat(b * 16 + 15 - t));
  }
}

TEST_CASE("before thread-sync, barriers are implied around shared writes", "[interp][kernel]") {
  Ran r = runText(reverseKernel(false, false));
  INFO(r.error());
  REQUIRE(r.result.ok());
  for (int k = 0; k < 64; ++k)
    CHECK(r.args[1].buffer->getFloat(k) == r.args[0].buffer->getFloat(k / 16 * 16 + 15 - k % 16));
}

TEST_CASE("with explicit barriers, a missing one is a located error", "[interp][kernel]") {
  SECTION("a write of what other threads read, in the statement that reads it") {
    // Threads run in order until a barrier: thread 7 reads S[8] (line 11), then thread 8
    // overwrites it (line 10) with no barrier in between.
    std::string text = kHeader;
    text += "def rev(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
            "    T.func_attr({\"tirlower.explicit_barriers\": True})\n"
            "    tx = T.launch_thread(\"threadIdx.x\", 16)\n"
            "    S = T.alloc_buffer((16,), \"float32\", scope=\"shared\")\n"
            "    S[tx] = A[tx]\n"
            "    T.tvm_storage_sync(\"shared\")\n"
            "    S[tx] = S[tx] * T.float32(2)\n"
            "    B[tx] = S[15 - tx]\n";
    Ran r = runText(text);
    REQUIRE(r.result.status == RunStatus::Error);
    CHECK_THAT(r.error(), Catch::Contains("data race on shared buffer 'S'"));
    CHECK_THAT(r.error(), Catch::Contains("(thread 8) writes an element that other threads read"));
    const SourceManager &sources = r.parsed->sources;
    CHECK(sources.position(r.result.error->range.fileId, r.result.error->range.begin).line == 10);
    REQUIRE(r.result.error->notes.size() == 1);
    CHECK(sources.position(r.result.error->notes[0].range.fileId, r.result.error->notes[0].range.begin).line == 11);
  }
  SECTION("a read of what another thread wrote") {
    std::string text = kHeader;
    text += "def raw(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
            "    T.func_attr({\"tirlower.explicit_barriers\": True})\n"
            "    tx = T.launch_thread(\"threadIdx.x\", 8)\n"
            "    S = T.alloc_buffer((8,), \"float32\", scope=\"shared\")\n"
            "    S[tx] = A[tx]\n"
            "    B[tx] = S[T.max(tx - 1, 0)]\n";
    Ran r = runText(text);
    REQUIRE(r.result.status == RunStatus::Error);
    CHECK_THAT(r.error(), Catch::Contains("(thread 1) reads an element that thread 0 wrote"));
  }
  SECTION("a read of storage no thread wrote yet") {
    Ran r = runText(reverseKernel(false, true));
    REQUIRE(r.result.status == RunStatus::Error);
    CHECK_THAT(r.error(), Catch::Contains("read of uninitialised memory: buffer 'S'"));
    CHECK_THAT(r.error(), Catch::Contains("needs a barrier"));
  }
  SECTION("a write of what another thread read") {
    std::string text = kHeader;
    text += "def war(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
            "    T.func_attr({\"tirlower.explicit_barriers\": True})\n"
            "    tx = T.launch_thread(\"threadIdx.x\", 8)\n"
            "    S = T.alloc_buffer((8,), \"float32\", scope=\"shared\")\n"
            "    S[tx] = A[tx]\n"
            "    T.tvm_storage_sync(\"shared\")\n"
            "    B[tx] = S[(tx + 1) % 8]\n"
            "    S[tx] = T.float32(0)\n";
    Ran r = runText(text);
    REQUIRE(r.result.status == RunStatus::Error);
    // Thread 0 reads S[1] after the barrier; thread 1 then overwrites it.
    CHECK_THAT(r.error(), Catch::Contains("(thread 1) writes an element that thread 0 read"));
  }
}

TEST_CASE("every thread of a block must reach the same barrier", "[interp][kernel]") {
  std::string text = kHeader;
  text += "def diverge(A: T.Buffer((16,), \"float32\")):\n"
          "    T.func_attr({\"tirlower.explicit_barriers\": True})\n"
          "    tx = T.launch_thread(\"threadIdx.x\", 16)\n"
          "    if tx < 8:\n"
          "        T.tvm_storage_sync(\"shared\")\n"
          "    A[tx] = T.float32(1)\n";
  Ran r = runText(text);
  REQUIRE(r.result.status == RunStatus::Error);
  CHECK_THAT(r.error(), Catch::Contains("barrier divergence"));
  CHECK_THAT(r.error(), Catch::Contains("ended without reaching this barrier"));
}

TEST_CASE("a launch shorter than its kernel's guards its body", "[interp][kernel]") {
  std::string text = kHeader;
  text += "def short(A: T.Buffer((32,), \"int32\")):\n"
          "    with T.launch_thread(\"threadIdx.x\", 32) as tx:\n"
          "        A[tx] = 1\n"
          "    with T.launch_thread(\"threadIdx.x\", 8) as t2:\n"
          "        A[t2 * 4] = 2\n";
  Ran r = runText(text);
  INFO(r.error());
  REQUIRE(r.result.ok());
  for (int k = 0; k < 32; ++k)
    CHECK(r.args[0].buffer->getInt(k) == (k % 4 == 0 ? 2 : 1));
}

TEST_CASE("T.tvm_thread_allreduce combines the values of the threads of a group", "[interp][kernel]") {
  // Rows of 8 values are summed by the 8 threadIdx.x of each threadIdx.y (4 rows per block), and
  // their maximum taken with odd columns left out (condition false: the identity).
  std::string text = kHeader;
  text += "def rows(A: T.Buffer((2, 4, 8), \"float32\"), S: T.Buffer((2, 4), \"float32\"), "
          "M: T.Buffer((2, 4), \"float32\")):\n"
          "    bx = T.launch_thread(\"blockIdx.x\", 2)\n"
          "    ty = T.launch_thread(\"threadIdx.y\", 4)\n"
          "    tx = T.launch_thread(\"threadIdx.x\", 8)\n"
          "    s = T.alloc_buffer((1,), \"float32\", scope=\"local\")\n"
          "    m = T.alloc_buffer((1,), \"float32\", scope=\"local\")\n"
          "    with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), \"reduce_scope\", 0):\n"
          "        T.tvm_thread_allreduce(T.uint32(1), A[bx, ty, tx], T.bool(True), s[0], tx)\n"
          "    with T.attr(T.comm_reducer(lambda x, y: T.max(x, y), [T.float32(-1000)]), \"reduce_scope\", 0):\n"
          "        T.tvm_thread_allreduce(T.uint32(1), A[bx, ty, tx], tx % 2 == 0, m[0], tx)\n"
          "    if tx == 0:\n"
          "        S[bx, ty] = s[0]\n"
          "        M[bx, ty] = m[0]\n";
  Ran r = runText(text);
  INFO(r.error());
  REQUIRE(r.result.ok());
  const BufferData &a = *r.args[0].buffer;
  for (int b = 0; b < 2; ++b)
    for (int y = 0; y < 4; ++y) {
      std::vector<float> v(8);
      for (int x = 0; x < 8; ++x)
        v[x] = static_cast<float>(a.getFloat((b * 4 + y) * 8 + x));
      // The tree: 4 pairs (i, i + 4), then (i, i + 2), then (0, 1).
      for (int step = 4; step >= 1; step /= 2)
        for (int i = 0; i < step; ++i)
          v[i] = v[i] + v[i + step];
      CHECK(r.args[1].buffer->getFloat(b * 4 + y) == v[0]);
      float m = -1000;
      for (int x = 0; x < 8; x += 2)
        m = std::max(m, static_cast<float>(a.getFloat((b * 4 + y) * 8 + x)));
      CHECK(r.args[2].buffer->getFloat(b * 4 + y) == m);
    }
}

TEST_CASE("thread-sync places the barriers a kernel implies; the interpreter then checks them", "[interp][kernel]") {
  auto p = parse(reverseKernel(false, false));
  REQUIRE(p->module);
  DiagnosticCollector sink;
  std::optional<Module> synced = lower(*p->module, "thread-sync", sink);
  REQUIRE(synced);
  const PrimFunc &f = synced->functions.at(0);
  REQUIRE(f->attrs.find("tirlower.explicit_barriers"));
  std::vector<ArgValue> args = makeRandomArgs(f, 3);
  RunResult result = run(f, args);
  INFO((result.error ? result.error->message : std::string()));
  REQUIRE(result.ok());
  for (int k = 0; k < 64; ++k)
    CHECK(args[1].buffer->getFloat(k) == args[0].buffer->getFloat(k / 16 * 16 + 15 - k % 16));
}

TEST_CASE("what the interpreter cannot run in a kernel is a located error", "[interp][kernel]") {
  SECTION("a virtual thread of more than one") {
    std::string text = kHeader;
    text += "def vt(A: T.Buffer((4,), \"float32\")):\n"
            "    v = T.launch_thread(\"vthread.x\", 4)\n"
            "    A[v] = T.float32(0)\n";
    Ran r = runText(text);
    REQUIRE(r.result.status == RunStatus::Error);
    CHECK(r.error() == "virtual thread vthread.x has extent 4; only virtual threads of extent 1 are supported");
  }
  SECTION("a cross-thread reduction in a thread-bound loop, which runs as a loop") {
    std::string text = kHeader;
    text += "def loop(A: T.Buffer((8,), \"float32\"), S: T.Buffer((1,), \"float32\")):\n"
            "    for tx in T.thread_binding(8, thread=\"threadIdx.x\"):\n"
            "        with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), \"reduce_scope\", 0):\n"
            "            T.tvm_thread_allreduce(T.uint32(1), A[tx], T.bool(True), S[0], tx)\n";
    Ran r = runText(text);
    REQUIRE(r.result.status == RunStatus::Error);
    CHECK_THAT(r.error(), Catch::StartsWith("T.tvm_thread_allreduce outside a thread launch"));
  }
  SECTION("a thread extent computed inside the kernel") {
    std::string text = kHeader;
    text += "def inner(A: T.Buffer((8,), \"int32\")):\n"
            "    tx = T.launch_thread(\"threadIdx.x\", 8)\n"
            "    with T.launch_thread(\"threadIdx.y\", A[tx]) as ty:\n"
            "        A[tx] = ty\n";
    Ran r = runText(text);
    REQUIRE(r.result.status == RunStatus::Error);
    CHECK_THAT(r.error(), Catch::StartsWith("the extent of the launch of threadIdx.y must be known when its kernel starts"));
  }
}
