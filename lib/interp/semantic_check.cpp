#include "interp/semantic_check.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "arith/index_map_ops.h"
#include "ir/functor.h"

namespace tirlower {

namespace {

using Bindings = std::unordered_map<const VarNode *, int64_t>;

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Evaluates an integer index expression (shapes, strides, index maps) with concrete values;
// nullopt for what it cannot (an unbound variable, a division by zero, another kind of node).
class IndexEvaluator : public ExprFunctor<std::optional<int64_t>(const Expr &)> {
public:
  explicit IndexEvaluator(const Bindings &bindings) : bindings_(bindings) {}

  std::optional<int64_t> eval(const Expr &expr) { return expr ? visitExpr(expr) : 0; }

protected:
  std::optional<int64_t> visitExprDefault(const ExprNode *) override { return std::nullopt; }
  std::optional<int64_t> visitIntImm(const IntImmNode *op) override { return op->value; }
  std::optional<int64_t> visitVar(const VarNode *op) override {
    auto it = bindings_.find(op);
    if (it == bindings_.end())
      return std::nullopt;
    return it->second;
  }
  std::optional<int64_t> visitCast(const CastNode *op) override {
    return op->type.isIndex() ? eval(op->value) : std::nullopt;
  }
  std::optional<int64_t> visitBinary(const BinaryNode *op) override {
    std::optional<int64_t> a = eval(op->a), b = eval(op->b);
    if (!a || !b)
      return std::nullopt;
    switch (op->op) {
    case BinaryOp::Add: return *a + *b;
    case BinaryOp::Sub: return *a - *b;
    case BinaryOp::Mul: return *a * *b;
    case BinaryOp::Div: return *b == 0 ? std::nullopt : std::optional<int64_t>(*a / *b);
    case BinaryOp::Mod: return *b == 0 ? std::nullopt : std::optional<int64_t>(*a % *b);
    case BinaryOp::FloorDiv: return *b == 0 ? std::nullopt : std::optional<int64_t>(floorDiv(*a, *b));
    case BinaryOp::FloorMod: return *b == 0 ? std::nullopt : std::optional<int64_t>(*a - floorDiv(*a, *b) * *b);
    case BinaryOp::Min: return std::min(*a, *b);
    case BinaryOp::Max: return std::max(*a, *b);
    default: return std::nullopt;
    }
  }

private:
  const Bindings &bindings_;
};

std::optional<int64_t> evalIndex(const Expr &expr, const Bindings &bindings) {
  return IndexEvaluator(bindings).eval(expr);
}

int64_t evalOrThrow(const Expr &expr, const Bindings &bindings, const std::string &what) {
  std::optional<int64_t> value = evalIndex(expr, bindings);
  if (!value)
    throw CompileError(expr ? expr->loc : SourceRange{}, "cannot evaluate " + what);
  return *value;
}

std::string formatIndex(const std::vector<int64_t> &index) {
  std::string out = "[";
  for (size_t k = 0; k < index.size(); ++k)
    out += (k ? ", " : "") + std::to_string(index[k]);
  return out + "]";
}

std::vector<int64_t> unravel(size_t flat, const std::vector<int64_t> &shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = static_cast<int64_t>(flat % static_cast<size_t>(shape[k]));
    flat /= static_cast<size_t>(shape[k]);
  }
  return index;
}

std::string formatFloat(double value, bool single) {
  char text[64];
  std::to_chars_result r = single ? std::to_chars(text, text + sizeof text, static_cast<float>(value))
                                  : std::to_chars(text, text + sizeof text, value);
  return std::string(text, r.ptr);
}

// The scalar at `scalar` of `data`, as text.
std::string formatScalar(const BufferData &data, size_t scalar) {
  if (!data.isInitialized(scalar))
    return "<uninitialised>";
  DataType type = data.elementType();
  if (type.isFloat())
    return formatFloat(data.getFloat(scalar), type.bits() == 32);
  if (type.isUInt())
    return std::to_string(data.getUInt(scalar));
  return std::to_string(data.getInt(scalar));
}

bool sameScalar(const BufferData &a, size_t sa, const BufferData &b, size_t sb) {
  size_t bytes = static_cast<size_t>(a.elementType().laneBytes());
  bool initA = a.isInitialized(sa), initB = b.isInitialized(sb);
  if (initA != initB)
    return false;
  return !initA || std::memcmp(a.bytes() + sa * bytes, b.bytes() + sb * bytes, bytes) == 0;
}

// Both initialised floats within `tolerance` of each other (see reassociationTolerance).
bool closeScalar(const BufferData &expected, size_t se, const BufferData &actual, size_t sa, FloatTolerance tolerance) {
  if (!expected.elementType().isFloat() || !expected.isInitialized(se) || !actual.isInitialized(sa))
    return false;
  double e = expected.getFloat(se), a = actual.getFloat(sa);
  if (std::isnan(e) || std::isnan(a))
    return std::isnan(e) && std::isnan(a);
  if (std::isinf(e) || std::isinf(a))
    return e == a;
  return std::fabs(a - e) <= tolerance.relative * std::fabs(e) + tolerance.absolute;
}

void copyScalar(const BufferData &from, size_t sf, BufferData &to, size_t st) {
  size_t bytes = static_cast<size_t>(from.elementType().laneBytes());
  std::memcpy(to.bytes() + st * bytes, from.bytes() + sf * bytes, bytes);
  std::memcpy(to.initMap() + st * bytes, from.initMap() + sf * bytes, bytes);
}

void setConstant(BufferData &data, size_t scalar, const Expr &value) {
  if (!value)
    data.setInt(scalar, 0);
  else if (const auto *f = value.as<FloatImmNode>())
    data.setFloat(scalar, f->value);
  else if (const auto *i = value.as<IntImmNode>())
    data.setInt(scalar, i->value);
  else
    throw CompileError(value->loc, "pad_value must be a constant");
}

} // namespace

FloatTolerance reassociationTolerance(DataType type) {
  if (!type.isFloat())
    return {};
  if (type.bits() == 64)
    return {0x1p-40, 0x1p-44};
  if (type.bits() == 32)
    return {0x1p-12, 0x1p-16};
  return {0x1p-6, 0x1p-8};
}

// How one parameter's logical elements lie in storage, before and after its layout changes.
struct ParamLayout {
  Buffer buffer; // null for scalar parameters
  DataType element;
  size_t lanes = 1;
  std::vector<int64_t> shape;
  std::vector<size_t> offsets; // element offset in the original storage, per logical element
  bool mapped = false;         // the function's layout_transform_map names this buffer
  Expr padValue;
  std::vector<int64_t> physicalShape;
  std::vector<size_t> physicalOffsets; // element offset in the transformed storage
  std::vector<bool> covered;           // per transformed element: some logical element is there
  size_t physicalCount = 0;
  bool written = false; // the original run changed the buffer
};

struct SemanticChecker::Reference {
  PrimFunc func;
  Bindings bindings; // scalar parameters, for the shapes of layouts a pass adds later
  std::vector<ParamLayout> params;
  std::vector<ArgValue> inputs;
  std::vector<ArgValue> outputs;
  RunResult result;
};

namespace {

ParamLayout describeParam(const PrimFunc &func, const Buffer &buffer, const Bindings &bindings) {
  ParamLayout layout;
  layout.buffer = buffer;
  layout.element = buffer->dtype.withLanes(1);
  layout.lanes = static_cast<size_t>(buffer->dtype.lanes());
  const std::string name = "the shape of buffer '" + std::string(buffer->name.str()) + "'";
  size_t count = 1;
  for (const Expr &extent : buffer->shape) {
    layout.shape.push_back(evalOrThrow(extent, bindings, name));
    count *= static_cast<size_t>(std::max<int64_t>(layout.shape.back(), 0));
  }
  std::vector<int64_t> strides(buffer->rank());
  int64_t stride = 1;
  for (size_t k = buffer->rank(); k-- > 0;) {
    strides[k] = buffer->strides.empty() ? stride : evalOrThrow(buffer->strides[k], bindings, name);
    stride *= layout.shape[k];
  }
  const int64_t base = evalOrThrow(buffer->elemOffset, bindings, name);

  std::optional<IndexMap> map;
  for (const LayoutTransform &t : func->layoutTransforms) {
    if (t.buffer->data != buffer->data)
      continue;
    map = map ? composeMaps(*map, t.map) : t.map;
    if (t.padValue)
      layout.padValue = t.padValue;
  }
  std::vector<Expr> mappedShape;
  if (map) {
    layout.mapped = true;
    mappedShape = mapShape(*map, buffer->shape).shape;
    layout.physicalCount = 1;
    for (const Expr &extent : mappedShape) {
      layout.physicalShape.push_back(evalOrThrow(extent, bindings, name));
      layout.physicalCount *= static_cast<size_t>(std::max<int64_t>(layout.physicalShape.back(), 0));
    }
    layout.covered.assign(layout.physicalCount, false);
  }

  Bindings local = bindings;
  for (size_t flat = 0; flat < count; ++flat) {
    std::vector<int64_t> index = unravel(flat, layout.shape);
    int64_t offset = base;
    for (size_t k = 0; k < index.size(); ++k)
      offset += index[k] * strides[k];
    layout.offsets.push_back(static_cast<size_t>(offset));
    if (!map)
      continue;
    for (size_t k = 0; k < index.size(); ++k)
      local[(*map)->initialIndices[k].get()] = index[k];
    int64_t physical = 0;
    for (size_t k = 0; k < (*map)->finalIndices.size(); ++k) {
      int64_t value = evalOrThrow((*map)->finalIndices[k], local,
                                  "the layout transform of '" + std::string(buffer->name.str()) + "'");
      if (value < 0 || value >= layout.physicalShape[k])
        throw CompileError((*map)->loc, "the layout transform of '" + std::string(buffer->name.str()) + "' maps " +
                                            formatIndex(index) + " outside its new shape");
      physical = physical * layout.physicalShape[k] + value;
    }
    layout.physicalOffsets.push_back(static_cast<size_t>(physical));
    layout.covered[static_cast<size_t>(physical)] = true;
  }
  return layout;
}

Diagnostic skip(const PrimFunc &func, const std::string &why) {
  return {Severity::Warning,
          func->loc,
          "--verify-semantics: function '" + std::string(func->name.str()) + "' is not checked: " + why,
          {}};
}

// Whether the function still carries a layout transform of its k-th parameter (not yet applied).
bool transformsParam(const PrimFunc &func, size_t k) {
  for (const LayoutTransform &t : func->layoutTransforms)
    if (t.buffer->data == func->params[k])
      return true;
  return false;
}

// A layout transform that a pass added (legalize-layouts) counts as if the input had stated it:
// the parameter's data is converted through it once it is applied. The message says why one
// cannot be followed.
std::optional<std::string> followAddedLayouts(std::vector<ParamLayout> &params, const PrimFunc &func,
                                              const Bindings &bindings) {
  for (size_t k = 0; k < func->params.size(); ++k) {
    ParamLayout &layout = params[k];
    if (!layout.buffer || layout.mapped || !transformsParam(func, k))
      continue;
    try {
      bool written = layout.written;
      layout = describeParam(func, layout.buffer, bindings);
      layout.written = written;
    } catch (const CompileError &e) {
      return "the layout transform it added to '" + std::string(layout.buffer->name.str()) +
             "' cannot be followed: " + e.diagnostic().message;
    }
  }
  return std::nullopt;
}

// The inputs, converted to the layouts the transformed function declares (converted[k] says
// which were).
std::vector<ArgValue> convertInputs(const std::vector<ParamLayout> &params, const std::vector<ArgValue> &inputs,
                                    const PrimFunc &func, std::vector<bool> &converted) {
  std::vector<ArgValue> args;
  for (size_t k = 0; k < func->params.size(); ++k) {
    const ParamLayout &layout = params[k];
    const ArgValue &input = inputs[k];
    if (!input.isBuffer() || !layout.mapped || transformsParam(func, k)) {
      args.push_back(input.deepCopy());
      continue;
    }
    converted[k] = true;
    // The padding of an input holds pad_value; that of a buffer the function writes starts
    // uninitialised: the transformed function must fill it with pad_value itself.
    auto data = std::make_shared<BufferData>(layout.element, layout.physicalCount * layout.lanes);
    if (!layout.written)
      for (size_t s = 0; s < data->size(); ++s)
        setConstant(*data, s, layout.padValue);
    for (size_t e = 0; e < layout.offsets.size(); ++e)
      for (size_t l = 0; l < layout.lanes; ++l)
        copyScalar(*input.buffer, layout.offsets[e] * layout.lanes + l, *data,
                   layout.physicalOffsets[e] * layout.lanes + l);
    args.push_back(ArgValue::ofBuffer(std::move(data)));
  }
  return args;
}

// The first logical element where the transformed function's buffer differs from the
// reference's output (within the reassociation tolerance when `tolerant`).
std::optional<std::string> firstDifference(const ParamLayout &layout, const BufferData &expected,
                                           const BufferData &actual, bool converted, bool tolerant) {
  const FloatTolerance tolerance = reassociationTolerance(layout.element);
  for (size_t e = 0; e < layout.offsets.size(); ++e) {
    size_t actualOffset = converted ? layout.physicalOffsets[e] : layout.offsets[e];
    for (size_t l = 0; l < layout.lanes; ++l) {
      size_t se = layout.offsets[e] * layout.lanes + l, sa = actualOffset * layout.lanes + l;
      if (sameScalar(expected, se, actual, sa) || (tolerant && closeScalar(expected, se, actual, sa, tolerance)))
        continue;
      std::string lane = layout.lanes > 1 ? " lane " + std::to_string(l) : "";
      return "buffer '" + std::string(layout.buffer->name.str()) + "' differs at logical index " +
             formatIndex(unravel(e, layout.shape)) + lane + ": expected " + formatScalar(expected, se) + ", actual " +
             formatScalar(actual, sa);
    }
  }
  return std::nullopt;
}

// The first padding element of a converted buffer that does not hold pad_value.
std::optional<std::string> paddingDifference(const ParamLayout &layout, const BufferData &actual) {
  BufferData pad(layout.element, 1);
  setConstant(pad, 0, layout.padValue);
  for (size_t p = 0; p < layout.physicalCount; ++p) {
    if (layout.covered[p])
      continue;
    for (size_t l = 0; l < layout.lanes; ++l) {
      size_t sa = p * layout.lanes + l;
      if (sameScalar(pad, 0, actual, sa))
        continue;
      return "padding of buffer '" + std::string(layout.buffer->name.str()) + "' at physical index " +
             formatIndex(unravel(p, layout.physicalShape)) + " is " + formatScalar(actual, sa) +
             ", expected pad_value " + formatScalar(pad, 0);
    }
  }
  return std::nullopt;
}

} // namespace

SemanticChecker::SemanticChecker(const Module &original, SemanticCheckOptions options) : options_(std::move(options)) {
  for (const PrimFunc &func : original.functions) {
    auto ref = std::make_unique<Reference>();
    ref->func = func;
    try {
      ref->inputs = makeRandomArgs(func, options_.seed, options_.random);
      Bindings bindings;
      for (size_t k = 0; k < func->params.size(); ++k)
        if (!ref->inputs[k].isBuffer() && ref->inputs[k].type.isIndex())
          bindings[func->params[k].get()] =
              ref->inputs[k].type.isUInt() ? static_cast<int64_t>(ref->inputs[k].uintValue) : ref->inputs[k].intValue;
      for (const Var &param : func->params) {
        Buffer buffer = func->bufferFor(param);
        ref->params.push_back(buffer ? describeParam(func, buffer, bindings) : ParamLayout{});
      }
      ref->bindings = std::move(bindings);
    } catch (const CompileError &e) {
      Diagnostic d = skip(func, e.diagnostic().message);
      d.notes = e.diagnostic().notes;
      skipped_.push_back(std::move(d));
      continue;
    }
    ref->outputs = deepCopyArgs(ref->inputs);
    ref->result = run(func, ref->outputs, options_.run);
    for (size_t k = 0; k < func->params.size(); ++k)
      if (ref->inputs[k].isBuffer()) {
        const BufferData &before = *ref->inputs[k].buffer, &after = *ref->outputs[k].buffer;
        ref->params[k].written = std::memcmp(before.bytes(), after.bytes(), before.byteSize()) != 0 ||
                                 std::memcmp(before.initMap(), after.initMap(), before.byteSize()) != 0;
      }
    if (ref->result.status == RunStatus::Error) {
      Diagnostic d = skip(func, "its run on the random inputs fails");
      if (ref->result.error)
        d.note(ref->result.error->range, ref->result.error->message);
      skipped_.push_back(std::move(d));
      continue;
    }
    functions_.push_back(std::move(ref));
  }
}

SemanticChecker::~SemanticChecker() = default;

std::optional<Diagnostic> SemanticChecker::check(const Module &after, const std::string &passName,
                                                 bool reassociated) const {
  for (const auto &refPtr : functions_) {
    Reference &ref = *refPtr;
    const std::string funcName(ref.func->name.str());
    PrimFunc func = after.find(funcName);
    if (!func || func == ref.func)
      continue;
    const std::string prefix =
        "--verify-semantics: pass '" + passName + "' changed the behaviour of function '" + funcName + "': ";
    auto fail = [&](std::string message) {
      return Diagnostic{Severity::Error, ref.func->loc, prefix + std::move(message), {}};
    };
    if (func->params.size() != ref.func->params.size())
      return fail("it now takes " + std::to_string(func->params.size()) + " parameters instead of " +
                  std::to_string(ref.func->params.size()));
    if (std::optional<std::string> problem = followAddedLayouts(ref.params, func, ref.bindings))
      return fail(*problem);

    std::vector<bool> converted(func->params.size(), false);
    std::vector<ArgValue> args = convertInputs(ref.params, ref.inputs, func, converted);
    RunResult result = run(func, args, options_.run);
    // A stage the interpreter cannot run (a cross-thread reduction before its threads are
    // launches): a later pass's output is compared instead.
    if (result.unsupported)
      continue;
    if (result.status == RunStatus::Error) {
      Diagnostic d = fail("its run now fails");
      if (result.error)
        d.note(result.error->range, result.error->message);
      return d;
    }
    if (result.status != ref.result.status || result.returnCode != ref.result.returnCode)
      return fail("it now returns " + std::to_string(result.returnCode) + " instead of " +
                  std::to_string(ref.result.returnCode));

    for (size_t k = 0; k < func->params.size(); ++k) {
      const ParamLayout &layout = ref.params[k];
      if (!layout.buffer)
        continue;
      const BufferData &expected = *ref.outputs[k].buffer, &actual = *args[k].buffer;
      const bool tolerant = reassociated && layout.element.isFloat();
      if (std::optional<std::string> problem = firstDifference(layout, expected, actual, converted[k], tolerant))
        return fail(*problem);
      if (!converted[k] || !layout.padValue)
        continue;
      if (std::optional<std::string> problem = paddingDifference(layout, actual))
        return fail(*problem);
    }
  }
  return std::nullopt;
}

} // namespace tirlower
