// tile-copies: reorders a large copy between two buffers of different physical orders (a
// layout change such as NHWC -> NCHW4c) so that it writes its output in long contiguous runs
// while its reads stay in the L1 cache. A perfect nest of serial loops whose only statement is
// `B[out] = A[in]`, both indices affine in the loop variables (with `v // d` and `v % d`
// digits), becomes, when it writes at least `min-bytes`:
//   - the loops that are contiguous in both buffers (the inner run) innermost, vectorized when
//     the run is 16 or 32 bytes;
//   - around them, the output's next-fastest loop `f`, tiled by the largest divisor T of its
//     extent whose input footprint stays within `tile-bytes` (16 KiB), with the input's fastest loop `g` between
//     the tile and its elements: (..., f_o, g, f_i, inner run); when g continues the run in
//     the input (a transpose), the tile is widened to output runs of at least 128 bytes;
//   - the other loops outside, in the output's order.
// When the copy writes at least `nontemporal-bytes` in contiguous runs of 512 bytes or more,
// the nest is wrapped in `T.attr(B.data, "nontemporal_store", 1)`: the C and LLVM emitters
// then store B with non-temporal (streaming) stores, as glibc's memcpy does for copies larger
// than a share of the last-level cache, so that the output does not evict the input. The
// result computes the same values: each output element is written once (checked), from the
// same input element.
//
// Preconditions: flat buffers (run after flatten, before vectorize); the two buffers must have
// different data variables (parameters do not overlap: docs/abi.md). Anything else is left as
// it is: loops that are not serial or do not start at 0, other statements in the nest, an
// output element written twice, copies smaller than `min-bytes`.
//
//   for h, w, c in T.grid(224, 224, 64):          for h, w_o, c_o, w_i in T.grid(224, 4, 16, 56):
//       B[c // 4 * 200704 + h * 896    ->              for c_i in T.vectorized(4):
//         + w * 4 + c % 4] = A[h * 14336                   B[c_o * 200704 + h * 896 + (w_o * 56 + w_i) * 4
//         + w * 64 + c]                                      + c_i] = A[h * 14336 + ... + c_o * 4 + c_i]
#include "transform/body_pass.h"
#include "transform/passes.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ir/visitor.h"

namespace tirlower {

namespace {

constexpr int64_t kRunBytes = 512;        // the shortest output run streamed stores pay off for
constexpr int64_t kMinTileRunBytes = 128; // the shortest output run of a tile: two cache lines

// One term of an affine index: coeff * v, coeff * (v // div) or coeff * (v % div).
struct Term {
  const VarNode *var;
  int64_t div; // 0: the variable itself
  bool mod;
  int64_t coeff;
};

struct Affine {
  std::vector<Term> terms;
  int64_t constant = 0;
};

bool mulFits(int64_t a, int64_t b, int64_t &out) {
  return !__builtin_mul_overflow(a, b, &out);
}

// Writes `scale * e` into `out`; false when `e` is not an affine function of `vars` (loops that
// start at 0, so `//` and `%` on them are digits).
bool decompose(const Expr &e, int64_t scale, const std::vector<const VarNode *> &vars, Affine &out) {
  if (const int64_t *c = asConstInt(e)) {
    int64_t v;
    return mulFits(*c, scale, v) && !__builtin_add_overflow(out.constant, v, &out.constant);
  }
  if (const auto *var = e.as<VarNode>()) {
    if (std::find(vars.begin(), vars.end(), var) == vars.end())
      return false;
    out.terms.push_back({var, 0, false, scale});
    return true;
  }
  const auto *bin = e.as<BinaryNode>();
  if (!bin)
    return false;
  int64_t scaled;
  switch (bin->op) {
  case BinaryOp::Add: return decompose(bin->a, scale, vars, out) && decompose(bin->b, scale, vars, out);
  case BinaryOp::Sub: return decompose(bin->a, scale, vars, out) && decompose(bin->b, -scale, vars, out);
  case BinaryOp::Mul:
    if (const int64_t *c = asConstInt(bin->b))
      return mulFits(scale, *c, scaled) && decompose(bin->a, scaled, vars, out);
    if (const int64_t *c = asConstInt(bin->a))
      return mulFits(scale, *c, scaled) && decompose(bin->b, scaled, vars, out);
    return false;
  case BinaryOp::FloorDiv:
  case BinaryOp::Div:
  case BinaryOp::FloorMod:
  case BinaryOp::Mod: {
    // Loop variables are non-negative, so truncating and floor division agree.
    const auto *var = bin->a.as<VarNode>();
    const int64_t *d = asConstInt(bin->b);
    if (!var || !d || *d <= 0 || std::find(vars.begin(), vars.end(), var) == vars.end())
      return false;
    bool mod = bin->op == BinaryOp::FloorMod || bin->op == BinaryOp::Mod;
    out.terms.push_back({var, *d, mod, scale});
    return true;
  }
  default: return false;
  }
}

// One loop of the rewritten nest: a whole original loop, or a digit of one (`v // d`, `v % d`,
// or a tile of a loop).
struct Dim {
  std::string name;
  DataType type;
  int64_t extent;
  int64_t outStride, inStride;
  Var var;
};

struct Nest {
  std::vector<const ForNode *> loops; // outermost first
  const BufferStoreNode *store = nullptr;
  const BufferLoadNode *load = nullptr;
};

// The perfect nest of serial loops from `top` down to a single copy `B[out] = A[in]` between two
// flat buffers of the same scalar type, or nothing.
std::optional<Nest> matchNest(const ForNode *top) {
  Nest nest;
  const ForNode *loop = top;
  const Stmt *body = nullptr;
  while (loop) {
    const int64_t *min = asConstInt(loop->min);
    const int64_t *extent = asConstInt(loop->extent);
    if (loop->forKind != ForKind::Serial || !min || *min != 0 || !extent || *extent < 1 ||
        !loop->annotations.empty())
      return std::nullopt;
    nest.loops.push_back(loop);
    body = &loop->body;
    loop = body->as<ForNode>();
  }
  nest.store = body->as<BufferStoreNode>();
  if (!nest.store || !nest.store->value->type.isScalar())
    return std::nullopt;
  nest.load = nest.store->value.as<BufferLoadNode>();
  if (!nest.load)
    return std::nullopt;
  for (const BufferNode *b : {nest.store->buffer.get(), nest.load->buffer.get()})
    if (b->shape.size() != 1 || !b->strides.empty() || b->elemOffset || !b->dtype.isScalar())
      return std::nullopt;
  if (nest.store->buffer->data.get() == nest.load->buffer->data.get() ||
      nest.store->buffer->dtype != nest.load->buffer->dtype)
    return std::nullopt;
  return nest;
}

// The loops of the copy as dims, outermost first: one per loop, or two digits when an index
// takes `v // d` or `v % d` of it; nothing when the digits of one loop differ or do not divide.
std::optional<std::vector<Dim>> dimsOf(const Nest &nest, const Affine &out, const Affine &in) {
  std::vector<Dim> dims;
  for (const ForNode *loop : nest.loops) {
    const VarNode *v = loop->loopVar.get();
    const int64_t extent = *asConstInt(loop->extent);
    int64_t div = 0;
    for (const Affine *a : {&out, &in})
      for (const Term &t : a->terms)
        if (t.var == v && t.div) {
          if (div && div != t.div)
            return std::nullopt;
          div = t.div;
        }
    if (div >= extent)
      div = 0; // v // d is 0 and v % d is v
    if (div && extent % div != 0)
      return std::nullopt;
    // The coefficient of the whole loop (div 0), or of its outer or inner digit; false when it
    // does not fit in 64 bits.
    bool fits = true;
    auto stride = [&](const Affine &a, bool outer) {
      int64_t sum = 0, c = 0;
      for (const Term &t : a.terms) {
        if (t.var != v)
          continue;
        if (!div)
          c = t.div && !t.mod ? 0 : t.coeff; // v // d with d >= extent is 0
        else if (outer && t.div)
          c = t.mod ? 0 : t.coeff;
        else if (outer)
          fits &= mulFits(t.coeff, div, c);
        else
          c = t.div ? (t.mod ? t.coeff : 0) : t.coeff;
        fits &= !__builtin_add_overflow(sum, c, &sum);
      }
      return sum;
    };
    std::string name = v->name.str();
    if (!div) {
      dims.push_back({name, v->type, extent, stride(out, true), stride(in, true), loop->loopVar});
    } else {
      dims.push_back({name + "_o", v->type, extent / div, stride(out, true), stride(in, true), {}});
      dims.push_back({name + "_i", v->type, div, stride(out, false), stride(in, false), {}});
    }
    if (!fits)
      return std::nullopt;
  }
  return dims;
}

// Drops loops of one iteration and sorts the dims by output stride; false unless every output
// element is written once (positive strides, each larger than the span of the smaller ones) and
// the input strides are non-negative (the input may be read more than once).
bool sortedWrittenOnce(std::vector<Dim> &dims) {
  dims.erase(std::remove_if(dims.begin(), dims.end(), [](const Dim &d) { return d.extent == 1; }), dims.end());
  std::sort(dims.begin(), dims.end(), [](const Dim &a, const Dim &b) { return a.outStride < b.outStride; });
  int64_t span = 0;
  for (const Dim &d : dims) {
    int64_t reach;
    if (d.outStride <= span || d.inStride < 0 || !mulFits(d.outStride, d.extent - 1, reach) ||
        __builtin_add_overflow(span, reach, &span))
      return false;
  }
  return true;
}

// The new loop order of dims sorted by output stride, outermost first.
struct Plan {
  std::vector<Dim> order;
  int64_t tile = 0;        // iterations of the output's next-fastest loop per tile
  bool tiled = false;      // that loop is split in tiles (of fewer iterations than it has)
  int64_t runElements = 1; // elements of the inner run, contiguous in both buffers
  bool contiguousOut = false;
};

std::optional<Plan> planOrder(const std::vector<Dim> &dims, int64_t elementBytes, int64_t tileBytes) {
  Plan plan;
  // The inner run: the fastest output loops that are contiguous, with the same strides, in
  // the input too.
  size_t run = 0;
  while (run < dims.size() && dims[run].outStride == plan.runElements && dims[run].inStride == plan.runElements) {
    plan.runElements *= dims[run].extent;
    ++run;
  }
  if (run == dims.size())
    return std::nullopt; // one contiguous copy already
  // f: the output's fastest loop after the run; g: the input's fastest.
  size_t f = run, g = run;
  for (size_t k = run; k < dims.size(); ++k)
    if (dims[k].inStride > 0 && (dims[g].inStride == 0 || dims[k].inStride < dims[g].inStride))
      g = k;
  plan.contiguousOut = dims[f].outStride == plan.runElements;
  plan.tile = dims[f].extent;
  for (size_t k = dims.size(); k-- > run;)
    if (k != f && k != g)
      plan.order.push_back(dims[k]);
  if (g == f) {
    plan.order.push_back(dims[f]); // the output's order reads the input in order too
  } else {
    // Per value of f the inner loops read g's extent times the run: contiguously when g
    // continues the run in the input, else a cache line at least each.
    int64_t runBytes = plan.runElements * elementBytes;
    int64_t perG = dims[g].inStride == plan.runElements ? runBytes : std::max<int64_t>(runBytes, 64);
    int64_t footprint;
    int64_t cap = mulFits(dims[g].extent, perG, footprint) ? std::max<int64_t>(tileBytes / footprint, 1) : 1;
    plan.tile = 1;
    for (int64_t t = std::min(cap, dims[f].extent); t > 1; --t)
      if (dims[f].extent % t == 0) {
        plan.tile = t;
        break;
      }
    // When the input continues the run along g, a tile holds only one input cache line per
    // value of f at a time (each line serves the next values of g), whatever g's extent: the
    // footprint above overstates it. There the tile also writes the output in runs of at least
    // kMinTileRunBytes (a 512x1376 transpose: tile 2, 8-byte runs, 2.6x the time of the
    // untiled loop; tile 32: 0.4x).
    if (dims[g].inStride == plan.runElements && plan.tile * runBytes < kMinTileRunBytes)
      for (int64_t t = plan.tile + 1; t <= dims[f].extent && t * 64 <= tileBytes; ++t)
        if (dims[f].extent % t == 0 && t * runBytes >= kMinTileRunBytes) {
          plan.tile = t;
          break;
        }
    if (plan.tile == 1)
      return std::nullopt;
    Dim inner = dims[f];
    inner.var = {};
    inner.extent = plan.tile;
    if (plan.tile < dims[f].extent) {
      plan.tiled = true;
      Dim outer = dims[f];
      outer.var = {};
      outer.name += "_o";
      outer.extent = dims[f].extent / plan.tile;
      outer.outStride *= plan.tile;
      outer.inStride *= plan.tile;
      inner.name += "_i";
      plan.order.push_back(outer);
    }
    plan.order.push_back(dims[g]);
    plan.order.push_back(inner);
  }
  for (size_t k = run; k-- > 0;)
    plan.order.push_back(dims[k]);
  return plan;
}

// sum of stride * loop variable over `order` (terms by decreasing stride, as an address is
// read) plus `constant`.
Expr affineIndex(const std::vector<Dim> &order, bool output, int64_t constant, DataType type) {
  std::vector<const Dim *> terms;
  for (const Dim &d : order)
    terms.push_back(&d);
  auto stride = [output](const Dim *d) { return output ? d->outStride : d->inStride; };
  std::stable_sort(terms.begin(), terms.end(), [&](const Dim *a, const Dim *b) { return stride(a) > stride(b); });
  Expr sum;
  for (const Dim *d : terms) {
    if (stride(d) == 0)
      continue;
    Expr term = stride(d) == 1 ? Expr(d->var) : d->var * intImm(stride(d), type);
    sum = sum ? sum + term : term;
  }
  if (!sum)
    return intImm(constant, type);
  return constant ? sum + intImm(constant, type) : sum;
}

class CopyTiler : public IRMutator {
public:
  CopyTiler(int64_t minBytes, int64_t nontemporalBytes, int64_t tileBytes, PassContext &ctx)
      : minBytes_(minBytes), nontemporalBytes_(nontemporalBytes), tileBytes_(tileBytes), ctx_(ctx) {}

protected:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    if (std::optional<Nest> nest = matchNest(op))
      if (Stmt tiled = tile(*op, *nest))
        return tiled;
    return IRMutator::visit(op);
  }
  // Copies are loop nests: a store outside one stays, and its expressions are not walked.
  Stmt visit(const BufferStoreNode *op) override { return Stmt(op); }

private:
  Stmt tile(const ForNode &top, const Nest &nest) {
    const Expr &outIndex = nest.store->indices.front();
    const Expr &inIndex = nest.load->indices.front();
    DataType indexType = outIndex->type;
    std::vector<const VarNode *> vars;
    int64_t elements = 1;
    for (const ForNode *loop : nest.loops) {
      if (loop->loopVar->type != indexType || !mulFits(elements, *asConstInt(loop->extent), elements))
        return {};
      vars.push_back(loop->loopVar.get());
    }
    const int64_t elementBytes = nest.store->buffer->dtype.laneBytes();
    int64_t bytes;
    Affine out, in;
    if (inIndex->type != indexType || !mulFits(elements, elementBytes, bytes) || bytes < minBytes_ ||
        !decompose(outIndex, 1, vars, out) || !decompose(inIndex, 1, vars, in))
      return {};
    std::optional<std::vector<Dim>> dims = dimsOf(nest, out, in);
    if (!dims || !sortedWrittenOnce(*dims))
      return {};
    std::optional<Plan> plan = planOrder(*dims, elementBytes, tileBytes_);
    if (!plan)
      return {};
    // The innermost loop is vectorized when it moves 16 or 32 contiguous bytes of both buffers;
    // its stores stream when the copy is huge and its output runs long.
    const Dim &last = plan->order.back();
    bool vector = plan->runElements > 1 && last.outStride == 1 &&
                  (last.extent * elementBytes == 16 || last.extent * elementBytes == 32);
    bool streaming = vector && plan->contiguousOut && bytes >= nontemporalBytes_ &&
                     plan->tile * plan->runElements * elementBytes >= kRunBytes;
    for (Dim &d : plan->order)
      if (!d.var)
        d.var = VarNode::make(Symbol(d.name), d.type, top.loc);
    Expr load = BufferLoadNode::make(nest.load->buffer, {affineIndex(plan->order, false, in.constant, indexType)},
                                     nest.load->loc);
    Stmt body = BufferStoreNode::make(nest.store->buffer, load,
                                      {affineIndex(plan->order, true, out.constant, indexType)}, nest.store->loc);
    for (size_t k = plan->order.size(); k-- > 0;) {
      const Dim &d = plan->order[k];
      ForKind kind = vector && k + 1 == plan->order.size() ? ForKind::Vectorized : ForKind::Serial;
      body = ForNode::make(d.var, intImm(0, d.type), intImm(d.extent, d.type), kind, body, {}, {}, top.loc);
    }
    if (streaming)
      body = AttrStmtNode::make(nest.store->buffer->data, Symbol("nontemporal_store"), intImm(1), body, top.loc);
    if (ctx_.remarks) {
      std::string names;
      for (const Dim &d : plan->order)
        names += (names.empty() ? "" : ", ") + d.name;
      ctx_.diagnostics.remark(top.loc, "tile-copies: the copy into '" + nest.store->buffer->name.str() +
                                           "' runs as (" + names + ")" +
                                           (plan->tiled ? ", tile " + std::to_string(plan->tile) : std::string()) +
                                           (vector ? ", innermost vectorized" : "") +
                                           (streaming ? ", non-temporal stores" : ""));
    }
    return body;
  }

  int64_t minBytes_, nontemporalBytes_, tileBytes_;
  PassContext &ctx_;
};

} // namespace

PassInfo tileCopiesPassInfo() {
  PassInfo info;
  info.name = "tile-copies";
  info.summary = "reorder and tile large copies between physical layouts for contiguous writes; stream huge outputs";
  static const PassOption<int64_t> minBytesOption{
      integerOption("min-bytes", "1048576", "smallest copy (bytes written) that is reordered", 0)};
  static const PassOption<int64_t> nontemporalBytesOption{integerOption(
      "nontemporal-bytes", "4194304", "smallest copy (bytes written) whose stores are non-temporal (streaming)", 0)};
  static const PassOption<int64_t> tileBytesOption{
      integerOption("tile-bytes", "16384", "most input bytes one tile reads (half of a 32 KiB L1 data cache)", 1)};
  info.options = {minBytesOption, nontemporalBytesOption, tileBytesOption};
  info.requirements = {IRProperty::Flat};
  info.create = [](const PassOptions &options) -> std::unique_ptr<Pass> {
    int64_t minBytes = minBytesOption.of(options);
    int64_t nontemporalBytes = nontemporalBytesOption.of(options);
    int64_t tileBytes = tileBytesOption.of(options);
    return std::make_unique<BodyPass>([=](const PrimFunc &func, PassContext &ctx) {
      return CopyTiler(minBytes, nontemporalBytes, tileBytes, ctx).mutate(func->body);
    });
  };
  return info;
}

} // namespace tirlower
