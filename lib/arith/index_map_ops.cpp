// IndexMap operations built on iter-map detection: applying a map, the shape it produces
// (with padding), the inverse with its padding predicate, and composition.
#include "arith/index_map_ops.h"

#include <map>

#include "arith/expr_util.h"
#include "arith/int_ops.h"
#include "arith/iter_map.h"
#include "ir/script_expr_printer.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

void checkRank(const IndexMap &map, size_t rank) {
  if (map->initialIndices.size() != rank)
    throw CompileError(map->loc, "index map has " + std::to_string(map->initialIndices.size()) + " input" +
                                     (map->initialIndices.size() == 1 ? "" : "s") + " but buffer has rank " +
                                     std::to_string(rank));
}

Expr castTo(const Expr &e, DataType t) {
  return e->type == t ? e : CastNode::make(t, e);
}

struct Detected {
  Analyzer analyzer;
  IterMap iter;
  MappedShape shape;
};

// Product of constant extents; nullopt when one is symbolic. Throws on overflow.
std::optional<int64_t> constantProduct(const std::vector<Expr> &shape, const IndexMap &map) {
  int64_t product = 1;
  for (const Expr &e : shape) {
    const int64_t *v = asConstInt(e);
    if (!v)
      return std::nullopt;
    auto p = checkedMul(product, *v);
    if (!p)
      throw CompileError(map->loc, "the number of elements of shape " + formatShape(shape) + " overflows int64");
    product = *p;
  }
  return product;
}

Expr symbolicProduct(const std::vector<Expr> &shape, DataType t) {
  Expr product = IntImmNode::make(t, 1);
  for (const Expr &e : shape)
    product = product * castTo(e, t);
  return product;
}

void detect(const IndexMap &map, const std::vector<Expr> &shape, Detected &out) {
  checkRank(map, shape.size());
  out.analyzer.assumeNoOverflow(); // indices within an existing buffer's extents
  for (size_t k = 0; k < shape.size(); ++k)
    out.analyzer.bindRange(map->initialIndices[k], IntImmNode::make(map->initialIndices[k]->type, 0),
                           castTo(shape[k], map->initialIndices[k]->type));
  out.iter = detectIterMap(*map, shape, out.analyzer);
  for (const IterSum &r : out.iter.results)
    out.shape.shape.push_back(r.extent);
  auto before = constantProduct(shape, map), after = constantProduct(out.shape.shape, map);
  if (before && after) {
    out.shape.padded = *after != *before;
    out.shape.paddingElements = *after - *before;
    return;
  }
  DataType t = shape.empty() ? DataType::int64() : shape[0]->type;
  Analyzer plain;
  plain.assumeNoOverflow(); // element counts of buffers that exist
  out.shape.padded = !plain.canProveEqual(plain.simplify(symbolicProduct(shape, t)),
                                          plain.simplify(symbolicProduct(out.shape.shape, t)));
  if (!out.shape.padded)
    out.shape.paddingElements = 0;
}

} // namespace

std::vector<Expr> mapIndices(const IndexMap &map, const std::vector<Expr> &indices, Analyzer &analyzer) {
  if (indices.size() != map->initialIndices.size())
    throw CompileError(map->loc, "index map has " + std::to_string(map->initialIndices.size()) +
                                     " inputs but is applied to " + std::to_string(indices.size()) + " indices");
  std::vector<std::pair<Var, Expr>> replacements;
  for (size_t k = 0; k < indices.size(); ++k)
    replacements.emplace_back(map->initialIndices[k], castTo(indices[k], map->initialIndices[k]->type));
  std::vector<Expr> result;
  for (const Expr &f : map->finalIndices)
    result.push_back(analyzer.simplify(substitute(f, replacements)));
  return result;
}

MappedShape mapShape(const IndexMap &map, const std::vector<Expr> &shape) {
  Detected d;
  detect(map, shape, d);
  return d.shape;
}

InverseMap inverseMap(const IndexMap &map, const std::vector<Expr> &shape) {
  Detected d;
  detect(map, shape, d);
  const IterMap &iter = d.iter;
  Analyzer &an = d.analyzer;
  std::vector<Var> outputs;
  for (size_t k = 0; k < map->finalIndices.size(); ++k) {
    outputs.push_back(VarNode::make(Symbol("axis" + std::to_string(k)), map->finalIndices[k]->type, map->loc));
    an.bindRange(outputs.back(), IntImmNode::make(outputs.back()->type, 0), d.shape.shape[k]);
  }
  // The value of every digit, keyed by (mark, lower).
  std::map<std::pair<int, int64_t>, Expr> digits;
  auto extract = [&](const Expr &value, const std::vector<IterSplit> &splits) {
    for (size_t k = 0; k < splits.size(); ++k) {
      const IterSplit &s = splits[k];
      DataType t = value->type;
      // Below the next digit's scale only this digit and lower ones contribute (the scales
      // may leave gaps, as in i * 32 + j with j < 16).
      Expr below = value;
      if (k + 1 < splits.size())
        below = BinaryNode::make(BinaryOp::FloorMod, value, IntImmNode::make(t, splits[k + 1].scale));
      Expr digit = BinaryNode::make(BinaryOp::FloorDiv, below, IntImmNode::make(t, s.scale));
      digits[{s.mark, s.lower}] = digit;
    }
  };
  for (size_t k = 0; k < iter.results.size(); ++k) {
    const IterSum &r = iter.results[k];
    extract(outputs[k] - IntImmNode::make(outputs[k]->type, r.base), r.splits);
    for (const IterSplit &z : r.zeros)
      digits[{z.mark, z.lower}] = IntImmNode::make(outputs[k]->type, 0);
  }
  std::vector<Expr> inputs(map->initialIndices.size());
  // Users of a mark are results or marks created after it: walk the marks backwards.
  for (size_t m = iter.marks.size(); m-- > 0;) {
    const IterMark &mark = iter.marks[m];
    DataType t = mark.extent->type;
    Expr value;
    for (auto it = mark.uses.rbegin(); it != mark.uses.rend(); ++it) {
      const IterSplit &u = *it;
      Expr digit = castTo(digits.at({static_cast<int>(m), u.lower}), t);
      Expr term = u.lower == 1 ? digit : digit * IntImmNode::make(t, u.lower);
      value = value ? value + term : term;
    }
    if (!value)
      value = IntImmNode::make(t, 0);
    if (mark.var >= 0)
      inputs[mark.var] = an.simplify(castTo(value, map->initialIndices[mark.var]->type));
    else
      extract(value - IntImmNode::make(t, mark.offset), mark.parts);
    for (const IterSplit &z : mark.zeros)
      digits[{z.mark, z.lower}] = IntImmNode::make(t, 0);
  }
  Expr predicate = IntImmNode::make(DataType::boolean(), 0);
  if (d.shape.padded) {
    std::vector<Expr> conditions;
    for (size_t k = 0; k < inputs.size(); ++k) {
      DataType t = inputs[k]->type;
      conditions.push_back(BinaryNode::make(BinaryOp::LT, inputs[k], IntImmNode::make(t, 0)));
      conditions.push_back(BinaryNode::make(BinaryOp::GE, inputs[k], castTo(shape[k], t)));
    }
    std::vector<Expr> forward = mapIndices(map, inputs, an);
    for (size_t k = 0; k < forward.size(); ++k)
      conditions.push_back(BinaryNode::make(BinaryOp::NE, forward[k], outputs[k]));
    Expr any;
    for (const Expr &c : conditions) {
      Expr s = an.simplify(c);
      if (const int64_t *v = asConstInt(s); v && *v == 0)
        continue;
      any = any ? BinaryNode::make(BinaryOp::Or, any, s) : s;
    }
    if (any)
      predicate = an.simplify(any);
  }
  return {IndexMapNode::make(outputs, inputs, {}, map->loc), predicate};
}

IndexMap composeMaps(const IndexMap &first, const IndexMap &second) {
  if (first->finalIndices.size() != second->initialIndices.size())
    throw CompileError(second->loc, "cannot compose index maps: " + formatIndexMap(*first) + " has " +
                                        std::to_string(first->finalIndices.size()) + " results but " +
                                        formatIndexMap(*second) + " has " +
                                        std::to_string(second->initialIndices.size()) + " inputs");
  Analyzer analyzer;
  std::vector<Expr> composed = mapIndices(second, first->finalIndices, analyzer);
  return IndexMapNode::make(first->initialIndices, composed, second->axisSeparators,
                            SourceRange::cover(first->loc, second->loc));
}

} // namespace tirlower
