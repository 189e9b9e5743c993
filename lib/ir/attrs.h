// The IR's attribute names, kept once (as TVM keeps them in tir::attr): the keys of statement
// attributes (T.attr), of function attributes (T.func_attr) and of allocation annotations, and
// the accessors that decode them. Every layer asks here; no other file spells these keys.
//
// TVM namespaces some function attributes: TVM before 0.25 writes "tir.noalias", TVM 0.25-0.27
// "tirx.noalias" (on every function it prints). Both spellings mean one attribute
// (NamespacedAttr): findFuncAttr reads either, and the TVMScript printer writes the key in the
// spelling it prints (respellNamespacedAttrs), so a function printed for TVM 0.27 carries the
// key TVM 0.27 reads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ir/attr_value.h"
#include "ir/function.h"

namespace tirlower {

namespace attr {

// ---- statement attributes: T.attr(node, KEY, value) ----------------------------------------------
inline constexpr std::string_view kThreadExtent = "thread_extent";   // a thread launch
inline constexpr std::string_view kVirtualThread = "virtual_thread"; // a virtual-thread launch
inline constexpr std::string_view kReduceScope = "reduce_scope";     // the reducer of allreduce calls
// Loop annotations "pragma_*" (pragma_auto_unroll_max_step) that a thread binding carries to
// the attributes around its launch.
inline constexpr std::string_view kPragmaPrefix = "pragma_";

// ---- block annotations: T.sblock_attr({KEY: value}) ----------------------------------------------
// [[write index, axis, factor, offset], ...]: the written buffer's stride of `axis` is padded to
// factor * k + offset (a schedule's storage_align; compact-buffer-allocation gives the strides).
inline constexpr std::string_view kBufferDimAlign = "buffer_dim_align";

// ---- function attributes: T.func_attr({KEY: value}) ----------------------------------------------
inline constexpr std::string_view kGlobalSymbol = "global_symbol";
inline constexpr std::string_view kLayoutRequirements = "layout_requirements";
// Set by thread-sync: the function's T.tvm_storage_sync barriers are all there are (without it a
// kernel means what its statements compute one after another for all threads, as TVM's TIR
// before ThreadSync does: the barriers are implied).
inline constexpr std::string_view kExplicitBarriers = "tirlower.explicit_barriers";

} // namespace attr

// Whether an attribute key is a thread launch (thread_extent or virtual_thread).
bool isThreadLaunchKey(std::string_view key);

// The function attributes TVM spells "tir.NAME" or "tirx.NAME".
enum class NamespacedAttr : uint8_t {
  NoAlias,            // the buffer parameters do not overlap: restrict / noalias
  IsEntryFunc,        // the module's entry point
  IsGlobalFunc,       // a device kernel callable from the host
  IsHostFunc,         // runs on the host
  IsScheduled,        // a schedule has been applied
  KernelLaunchParams, // the launch parameters of a device kernel
};

struct NamespacedAttrInfo {
  NamespacedAttr id;
  std::string_view name; // after the namespace: "noalias"
};

std::span<const NamespacedAttrInfo> namespacedAttrTable();
// The row of "tir.noalias" or "tirx.noalias" (any row's name in either namespace), else null.
const NamespacedAttrInfo *findNamespacedAttr(std::string_view key);
// The key in a spelling's namespace: "tir.noalias" or "tirx.noalias".
std::string namespacedKey(NamespacedAttr id, ScriptSpelling spelling);

// The value of a namespaced function attribute, in either spelling (the later entry when both
// are written), or null.
const AttrValue *findFuncAttr(const AttrValue &attrs, NamespacedAttr id);
// A flag's value: a bool, or an integer other than 0 (TVM prints T.bool(True) or 1).
bool attrTruthy(const AttrValue &value);
// T.func_attr({"tirx.noalias": True}) (or "tir.noalias"): the function's buffer parameters do
// not overlap, so C declares them restrict and LLVM marks them noalias.
bool noalias(const PrimFuncNode &func);

// The attributes with every namespaced key in `spelling`'s namespace; `attrs` itself (shared,
// not copied) when every key already is.
AttrValue respellNamespacedAttrs(const AttrValue &attrs, ScriptSpelling spelling);

} // namespace tirlower
