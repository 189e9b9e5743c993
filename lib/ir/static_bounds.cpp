// Out-of-bounds accesses provable from constants alone (static_bounds.h). Reachability is not
// considered: an access in a branch that never runs is still an error, as a constant index
// outside its array is in C compilers' -Warray-bounds, and no pass has to prove a branch dead.
#include "ir/static_bounds.h"

#include <optional>
#include <unordered_set>

#include "ir/visitor.h"

namespace tirlower {

namespace {

std::optional<int64_t> constantOf(const Expr &e) {
  if (!e)
    return std::nullopt;
  if (const int64_t *v = asConstInt(e))
    return *v;
  return std::nullopt;
}

// The smallest and largest lane of a constant index (a scalar, a ramp or a broadcast of one).
std::optional<std::pair<int64_t, int64_t>> constantLanes(const Expr &index) {
  if (std::optional<int64_t> v = constantOf(index))
    return std::make_pair(*v, *v);
  if (const auto *b = index.as<BroadcastNode>())
    return constantLanes(b->value);
  if (const auto *r = index.as<RampNode>()) {
    std::optional<int64_t> base = constantOf(r->base), stride = constantOf(r->stride);
    if (!base || !stride)
      return std::nullopt;
    // Lanes are few and constants fit int64 with room: |stride| * lanes cannot overflow here
    // for any index type the IR allows (at most 64-bit values, at most 2^16 lanes).
    __int128 last = static_cast<__int128>(*base) + static_cast<__int128>(*stride) * (r->lanes - 1);
    if (last < INT64_MIN || last > INT64_MAX)
      return std::nullopt;
    return std::make_pair(std::min<int64_t>(*base, static_cast<int64_t>(last)),
                          std::max<int64_t>(*base, static_cast<int64_t>(last)));
  }
  return std::nullopt;
}

class StaticBoundsChecker : public IRVisitor {
public:
  std::vector<Diagnostic> errors;
  using IRVisitor::visit;

  void checkDeclaration(const Buffer &buffer) {
    if (!declared_.insert(buffer.get()).second)
      return;
    std::optional<int64_t> offset = constantOf(buffer->elemOffset);
    if (offset && *offset < 0)
      errors.push_back({Severity::Error, buffer->loc,
                        "buffer '" + buffer->name.str() + "' has elem_offset " + std::to_string(*offset) +
                            "; an element offset must not be negative (its first element would lie before its data)",
                        {}});
  }

protected:
  void visitBuffer(const Buffer &buffer) override { checkDeclaration(buffer); }

  void visit(const BufferLoadNode *op) override {
    checkAccess(op->buffer, op->indices, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    checkAccess(op->buffer, op->indices, op->loc);
    IRVisitor::visit(op);
  }

private:
  void checkAccess(const Buffer &buffer, const std::vector<Expr> &indices, SourceRange where) {
    for (size_t k = 0; k < buffer->shape.size(); ++k) {
      std::optional<int64_t> extent = constantOf(buffer->shape[k]);
      if (extent && *extent == 0) {
        errors.push_back({Severity::Error, where,
                          "buffer '" + buffer->name.str() + "' has no elements (extent 0 on axis " + std::to_string(k) +
                              "): every access to it is out of bounds",
                          {}});
        return;
      }
    }
    if (indices.size() != buffer->shape.size())
      return; // the verifier's to report
    for (size_t k = 0; k < indices.size(); ++k) {
      std::optional<std::pair<int64_t, int64_t>> lanes = constantLanes(indices[k]);
      if (!lanes)
        continue;
      std::optional<int64_t> extent = constantOf(buffer->shape[k]);
      int64_t bad = lanes->first < 0 ? lanes->first : lanes->second;
      if (bad >= 0 && (!extent || bad < *extent))
        continue;
      SourceRange at = indices[k]->loc.valid() ? indices[k]->loc : where;
      std::string axis = indices.size() > 1 ? " on axis " + std::to_string(k) : "";
      errors.push_back({Severity::Error, at,
                        "index " + std::to_string(bad) + " is out of bounds of buffer '" + buffer->name.str() + "'" +
                            axis + (extent ? " (extent " + std::to_string(*extent) + ")" : " (negative)"),
                        {}});
    }
  }

  std::unordered_set<const BufferNode *> declared_;
};

} // namespace

std::vector<Diagnostic> staticBoundsErrors(const PrimFuncNode &function) {
  StaticBoundsChecker checker;
  for (const BufferBinding &binding : function.bufferMap)
    checker.checkDeclaration(binding.buffer);
  checker.visit(function.body);
  return std::move(checker.errors);
}

} // namespace tirlower
