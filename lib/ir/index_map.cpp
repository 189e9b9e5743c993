#include "ir/index_map.h"

#include <cstring>

#include "ir/functor.h"

namespace tirlower {

namespace {

// Appends one expression of an index map to a key; false on what alphaKey does not cover.
class AlphaKeyWriter : private ExprFunctor<bool(const Expr &)> {
public:
  explicit AlphaKeyWriter(const std::vector<Var> &indices, std::string &key) : indices_(indices), key_(key) {}

  bool write(const Expr &e) {
    // The kind as a letter, the type as bytes (appendTypeKey).
    key_ += static_cast<char>('A' + static_cast<int>(e->kind()));
    appendTypeKey(key_, e->type);
    return visitExpr(e);
  }

private:
  bool visitVar(const VarNode *op) override {
    for (size_t k = 0; k < indices_.size(); ++k)
      if (indices_[k].get() == op) {
        key_ += '#' + std::to_string(k);
        return true;
      }
    return false;
  }
  bool visitIntImm(const IntImmNode *op) override {
    key_ += '=' + std::to_string(op->value);
    return true;
  }
  bool visitFloatImm(const FloatImmNode *op) override {
    double v = op->value;
    char bits[sizeof v];
    std::memcpy(bits, &v, sizeof v);
    key_ += '=';
    key_.append(bits, sizeof v);
    return true;
  }
  bool visitBinary(const BinaryNode *op) override {
    key_ += static_cast<char>('a' + static_cast<int>(op->op));
    return write(op->a) && write(op->b);
  }
  bool visitNot(const NotNode *op) override { return write(op->a); }
  bool visitSelect(const SelectNode *op) override {
    return write(op->condition) && write(op->trueValue) && write(op->falseValue);
  }
  bool visitCast(const CastNode *op) override { return write(op->value); }
  bool visitCall(const CallNode *op) override {
    key_ += op->op.str();
    key_ += '(' + std::to_string(op->args.size());
    for (const Expr &arg : op->args)
      if (!write(arg))
        return false;
    key_ += ')';
    return true;
  }
  bool visitExprDefault(const ExprNode *) override { return false; }

  const std::vector<Var> &indices_;
  std::string &key_;
};

} // namespace

void appendTypeKey(std::string &key, DataType type) {
  const char bytes[] = {static_cast<char>(type.code()), static_cast<char>(type.bits()),
                        static_cast<char>(type.lanes() & 0xff), static_cast<char>(type.lanes() >> 8)};
  key.append(bytes, sizeof bytes);
}

std::optional<std::string> alphaKey(const IndexMapNode &map) {
  std::string key = std::to_string(map.initialIndices.size()) + ":";
  for (const Var &index : map.initialIndices)
    appendTypeKey(key, index->type);
  AlphaKeyWriter writer(map.initialIndices, key);
  for (const Expr &e : map.finalIndices) {
    key += ';';
    if (!writer.write(e))
      return std::nullopt;
  }
  key += '|';
  for (int sep : map.axisSeparators)
    key += std::to_string(sep) + ",";
  return key;
}

IndexMap IndexMapNode::make(std::vector<Var> initial, std::vector<Expr> final_, std::vector<int> separators,
                            SourceRange loc) {
  int previous = 0;
  for (int sep : separators) {
    if (sep < previous || sep > static_cast<int>(final_.size()))
      throw IRTypeError("axis separators of an index map must be non-decreasing and within the result");
    previous = sep;
  }
  for (const Expr &e : final_)
    if (!e->type.isIndex())
      throw IRTypeError("index map results must be scalar integers, not " + e->type.str());
  auto *node = new IndexMapNode();
  node->initialIndices = std::move(initial);
  node->finalIndices = std::move(final_);
  node->axisSeparators = std::move(separators);
  node->loc = loc;
  return IndexMap(node);
}

} // namespace tirlower
