// Statements. Declaration statements (LetStmt, Allocate, DeclBuffer, AllocBuffer, AttrStmt)
// scope their body, as in TVM: in TVMScript the body is the rest of the enclosing block.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ir/attr_value.h"
#include "ir/buffer.h"
#include "ir/expr.h"

namespace tirlower {

enum class StmtKind : uint8_t {
  BufferStore,
  For,
  While,
  IfThenElse,
  LetStmt,
  Allocate,
  DeclBuffer,
  AllocBuffer,
  AttrStmt,
  AssertStmt,
  Evaluate,
  SeqStmt,
  Block,
};

class StmtNode : public Node {
public:
  StmtKind kind() const { return kind_; }

protected:
  explicit StmtNode(StmtKind kind) : kind_(kind) {}

private:
  StmtKind kind_;
};
using Stmt = Ref<StmtNode>;
const char *stmtKindName(StmtKind kind); // "buffer_store", "for", "seq", ... (JSON and messages)

class BufferStoreNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::BufferStore;
  Buffer buffer;
  Expr value;
  std::vector<Expr> indices;
  // The value's type must equal accessType(buffer, indices).
  static Stmt make(Buffer buffer, Expr value, std::vector<Expr> indices, SourceRange loc = {});

private:
  BufferStoreNode() : StmtNode(kNodeKind) {}
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
const char *forKindName(ForKind kind); // "serial", "parallel", "vectorized", "unroll", "thread_binding"

class ForNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::For;
  Var loopVar;
  Expr min, extent;
  ForKind forKind;
  Symbol threadTag;      // for ThreadBinding: "blockIdx.x", "threadIdx.x", ...
  AttrValue annotations; // a dict; empty when none
  Stmt body;
  static Stmt make(Var loopVar, Expr min, Expr extent, ForKind kind, Stmt body, Symbol threadTag = {},
                   AttrValue annotations = {}, SourceRange loc = {});

private:
  ForNode() : StmtNode(kNodeKind) {}
};

class WhileNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::While;
  Expr condition;
  Stmt body;
  static Stmt make(Expr condition, Stmt body, SourceRange loc = {});

private:
  WhileNode() : StmtNode(kNodeKind) {}
};

class IfThenElseNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::IfThenElse;
  Expr condition;
  Stmt thenCase;
  Stmt elseCase; // may be null
  static Stmt make(Expr condition, Stmt thenCase, Stmt elseCase, SourceRange loc = {});

private:
  IfThenElseNode() : StmtNode(kNodeKind) {}
};

class LetStmtNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::LetStmt;
  Var var;
  Expr value;
  Stmt body;
  static Stmt make(Var var, Expr value, Stmt body, SourceRange loc = {});

private:
  LetStmtNode() : StmtNode(kNodeKind) {}
};

// Allocates storage for a handle variable (`B_data = T.allocate([16], "float32", "global")`).
class AllocateNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::Allocate;
  Var bufferVar;
  DataType dtype;
  std::vector<Expr> extents;
  Symbol scope;
  Stmt body;
  static Stmt make(Var bufferVar, DataType dtype, std::vector<Expr> extents, Symbol scope, Stmt body,
                   SourceRange loc = {});

private:
  AllocateNode() : StmtNode(kNodeKind) {}
};

// Declares a buffer view over an existing data variable (`T.decl_buffer(..., data=A.data)`).
// When the data variable is not defined yet, the declaration also allocates it, as TVM's
// `T.decl_buffer` without `data=` does; `allocates` records which case this is.
class DeclBufferNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::DeclBuffer;
  Buffer buffer;
  bool allocates = false;
  Stmt body;
  static Stmt make(Buffer buffer, bool allocates, Stmt body, SourceRange loc = {});

private:
  DeclBufferNode() : StmtNode(kNodeKind) {}
};

// Creates a buffer with fresh storage (`T.alloc_buffer`): never an alias.
class AllocBufferNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::AllocBuffer;
  Buffer buffer;
  Stmt body;
  static Stmt make(Buffer buffer, Stmt body, SourceRange loc = {});

private:
  AllocBufferNode() : StmtNode(kNodeKind) {}
};

// The hardware (or virtual) index a thread launch names: blockIdx.x|y|z, threadIdx.x|y|z, or a
// virtual thread vthread.x|y|z (also plain "vthread", dimension 0).
struct ThreadTag {
  enum class Kind : uint8_t { Block, Thread, Virtual } kind = Kind::Block;
  int dim = 0;
};
std::optional<ThreadTag> parseThreadTag(std::string_view tag);

// The combining function of a cross-thread reduction, `T.comm_reducer(lambda x0, y0: x0 + y0,
// [T.float32(0)])`: a reduction of tuples of values, result[k] combining lhs[k] (the running
// value) with rhs[k]; identity[k] is the identity element of result k. The lambda's
// parameters are bound by the reducer only.
class CommReducerNode : public Node {
public:
  std::vector<Var> lhs, rhs;
  std::vector<Expr> result, identity;
  // Equally many lhs, rhs, result and identity entries (at least one); result[k] and
  // identity[k] have lhs[k]'s scalar type.
  static Ref<CommReducerNode> make(std::vector<Var> lhs, std::vector<Var> rhs, std::vector<Expr> result,
                                   std::vector<Expr> identity, SourceRange loc = {});

private:
  CommReducerNode() = default;
};
using CommReducer = Ref<CommReducerNode>;

// T.attr(node, "key", value) scoping its body. `node` is a Var or a StringImm, or null for
// "reduce_scope", whose node is the reducer.
//
// Thread launches are attributes as in TVM: key "thread_extent" (or "virtual_thread") with the
// thread variable as node, the launched extent as value, and the index it names in threadTag
// (`i = T.launch_thread("threadIdx.x", 8)`: the variable i is threadIdx.x for the body). A
// launch without a tag takes the variable's name when that is a tag (a variable named
// blockIdx.x). "reduce_scope" carries the comm_reducer of the T.tvm_thread_allreduce calls in
// its body.
class AttrStmtNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::AttrStmt;
  Expr node;
  Symbol key;
  Expr value;
  Stmt body;
  Symbol threadTag;    // thread_extent, virtual_thread
  CommReducer reducer; // reduce_scope
  static Stmt make(Expr node, Symbol key, Expr value, Stmt body, SourceRange loc = {}, Symbol threadTag = {},
                   CommReducer reducer = {});
  // The same attribute over another node, value and body.
  static Stmt like(const AttrStmtNode &other, Expr node, Expr value, Stmt body);
  bool isThreadLaunch() const; // key thread_extent or virtual_thread
  const VarNode *threadVar() const; // the launched variable of a thread launch, else null

private:
  AttrStmtNode() : StmtNode(kNodeKind) {}
};

// `assert cond, "message"`: the function returns non-zero when cond is false.
class AssertStmtNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::AssertStmt;
  Expr condition;
  std::string message;
  static Stmt make(Expr condition, std::string message, SourceRange loc = {});

private:
  AssertStmtNode() : StmtNode(kNodeKind) {}
};

class EvaluateNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::Evaluate;
  Expr value;
  static Stmt make(Expr value, SourceRange loc = {});

private:
  EvaluateNode() : StmtNode(kNodeKind) {}
};

class SeqStmtNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::SeqStmt;
  std::vector<Stmt> stmts;
  // Flattens nested sequences; a single statement is returned as is; an empty list becomes
  // an empty SeqStmt (a no-op).
  static Stmt make(std::vector<Stmt> stmts, SourceRange loc = {});

private:
  SeqStmtNode() : StmtNode(kNodeKind) {}
};

// ---- Blocks (schedulable TIR) ----------------------------------------------------------------

// The role of a block iteration variable (`T.axis.spatial/reduce/scan/opaque`, letters
// S/R/C/O in `T.axis.remap`).
enum class IterKind : uint8_t { Spatial, Reduce, Scan, Opaque };
const char *iterKindName(IterKind kind); // "spatial", "reduce", "scan", "opaque"

// A block iteration variable over [min, min + extent), bound to `value` (an expression of the
// enclosing loop variables) where the block is realized.
struct BlockIterVar {
  Var var;
  Expr min, extent;
  IterKind kind = IterKind::Spatial;
  Expr value;
};

// A half-open range [min, min + extent) of one buffer dimension.
struct Range {
  Expr min, extent;
};

// `A[v_i, 0:16]`: the part of a buffer a block reads or writes.
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region; // one range per dimension
};

// `B = T.match_buffer(A[v_i, 0:16], (16,))` inside a block: B views that region of A.
struct MatchBufferRegion {
  Buffer buffer;
  BufferRegion source;
};

// The buffer `match.buffer` stands for: a view over the source's data with the source's strides
// for the matched dimensions (the region's trailing ones; the leading ones must have extent 1)
// and the region's start as its element offset. Throws IRTypeError when the match cannot be
// expressed so (the matched buffer declares strides or an elem_offset of its own, or another
// dtype). Used by lower-match-buffer and by the interpreter, which runs blocks directly.
Ref<BufferNode> regionView(const MatchBufferRegion &match);

// A block as TVM's SBlockRealize + SBlock: `with T.sblock("name"):` with its iteration
// variables and their bindings, an optional predicate (`T.where`), the regions it reads and
// writes, its own allocations and matched buffers, annotations, an optional `T.init()` (run
// when every reduce variable is at its minimum) and its body. The lowering passes
// (lower-init-block, convert-blocks-to-opaque, lower-match-buffer, lower-opaque-block) remove
// blocks; the interpreter runs them directly.
class BlockNode : public StmtNode {
public:
  static constexpr StmtKind kNodeKind = StmtKind::Block;
  Symbol name;
  std::vector<BlockIterVar> iterVars;
  Expr predicate; // null: always
  std::vector<BufferRegion> reads, writes;
  std::vector<Buffer> allocBuffers;
  std::vector<MatchBufferRegion> matchBuffers;
  AttrValue annotations; // a dict; empty when none
  Stmt init;             // null: none
  Stmt body;
  struct Fields {
    Symbol name;
    std::vector<BlockIterVar> iterVars;
    Expr predicate;
    std::vector<BufferRegion> reads, writes;
    std::vector<Buffer> allocBuffers;
    std::vector<MatchBufferRegion> matchBuffers;
    AttrValue annotations;
    Stmt init, body;
  };
  // Iteration variables are scalar integers with bindings of their type; the predicate is a
  // scalar bool; every region has one range per dimension of its buffer; an init needs a
  // reduce variable.
  static Stmt make(Fields fields, SourceRange loc = {});
  Fields fields() const;

private:
  BlockNode() : StmtNode(kNodeKind) {}
};

// What an emitter says of a block it meets: blocks must be lowered first.
std::string blockMessage(const BlockNode &block);

bool isNoOp(const Stmt &stmt); // an empty SeqStmt or Evaluate of a constant

// The one body a statement scopes (For, While, LetStmt, Allocate, DeclBuffer, AllocBuffer,
// AttrStmt); null for statements with none or with several (SeqStmt, IfThenElse).
const StmtNode *scopedBody(const StmtNode &stmt);

} // namespace tirlower
