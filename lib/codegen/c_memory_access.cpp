// Buffer accesses and storage of the C emitter. A buffer is reached through the pointer of its
// data variable, cast where a view reinterprets the element type. Small constant allocations
// are arrays on the stack; others are malloc'd and freed where their scope ends and on every
// early return.
#include "codegen/c_ffi_entry.h"
#include "codegen/c_function_emitter.h"

#include <algorithm>

#include "codegen/source_names.h"
#include "ir/elem_offset.h"
#include "ir/storage_scope.h"

namespace tirlower {

const std::string &CFunctionEmitter::pointerOf(const Buffer &buffer, SourceRange where) {
  pointerCheck(buffer, where);
  auto it = pointer_.find(buffer.get());
  if (it != pointer_.end())
    return it->second;
  // A view over known data: reuse the data's pointer, or cast it when the element type differs
  // (the alias in the IR states the reinterpretation).
  const VarNode *data = buffer->data.get();
  auto dataType = dataType_.find(data);
  if (dataType == dataType_.end())
    fail(where, "buffer " + quotedBufferName(*buffer) + " views data that is not defined");
  std::string base = nameOf(data, where);
  DataType element = buffer->dtype.element();
  if (dataType->second != element) {
    std::string name = bind(buffer.get(), buffer->name.view());
    bool readOnly = !access_.written.count(data) && isParamData(data);
    std::string t = std::string(readOnly ? "const " : "") + support_.scalarTypeName(element);
    line(t + " *" + name + " = (" + t + " *)" + base + ";");
    base = name;
  }
  return pointer_.emplace(buffer.get(), base).first->second;
}

bool CFunctionEmitter::isParamData(const VarNode *data) const {
  for (const Var &p : func_.params)
    if (p.get() == data)
      return true;
  return false;
}

void CFunctionEmitter::pointerCheck(const Buffer &buffer, SourceRange where) {
  if (buffer->shape.size() == 1 && buffer->axisSeparators.empty())
    return;
  std::string rank = std::to_string(buffer->shape.size());
  if (!buffer->axisSeparators.empty() && buffer->axisSeparators.size() + 1 == buffer->shape.size())
    throw CompileError(where, "buffer " + quotedBufferName(*buffer) + " has physical rank " + rank +
                                  " (from its axis separators); the C emitter takes 1-d buffers only" +
                                  (buffer->scope.view().find("texture") != std::string_view::npos
                                       ? " (a texture buffer needs --emit=opencl)"
                                       : ""));
  throw CompileError(where, "buffer " + quotedBufferName(*buffer) + " has rank " + rank +
                                "; the C emitter takes 1-d buffers only (run the flatten pass first)");
}

void CFunctionEmitter::checkDeclaredBuffer(const Buffer &buffer, SourceRange where) {
  pointerCheck(buffer, buffer->loc.valid() ? buffer->loc : where);
}

void CFunctionEmitter::declareStorage(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol,
                                      SourceRange where) {
  const DataType element = type.element();
  const int lanes = type.lanes();
  if (element.isHandle() || element.isVoid())
    fail(where, "cannot allocate elements of type " + element.str());
  std::string name = bind(data, data->name.view());
  dataType_[data] = element;
  std::string t = support_.scalarTypeName(element);
  int64_t count = lanes;
  bool constant = true;
  std::string countText = std::to_string(lanes);
  for (const Expr &e : extents) {
    const int64_t *v = asConstInt(e);
    if (v && count <= (int64_t(1) << 40) / std::max<int64_t>(*v, 1))
      count *= *v;
    else
      constant = false;
    countText += " * (size_t)(" + exprText(e) + ")";
  }
  if (constant && count * element.laneBytes() <= kMaxStackAllocationBytes) {
    line(t + " " + name + "[" + std::to_string(std::max<int64_t>(count, 1)) + "] __attribute__((aligned(64)));");
    return;
  }
  // Larger or variable-size storage is the calling thread's, kept for its next call: a block
  // malloc'ed and freed on every call faulted its pages in again each time.
  const std::string workspace = "tl_ws_" + name;
  reserveName(workspace);
  line("static _Thread_local tl_workspace_t " + workspace + ";");
  line(t + " *" + name + " = (" + t + " *)" + support_.workspace() + "(&" + workspace + ", sizeof(" + t + ") * " +
       countText + ");");
  line("if (!" + name + ") {");
  ++indent_;
  if (options_.tvmFfi) {
    beginLine();
    appendCFfiRaise(out(), "MemoryError", ffiHeapMessage(func_.globalSymbol(), data->name.str()));
    endLine();
  }
  line("return 2;");
  --indent_;
  line("}");
}


void CFunctionEmitter::visitBufferStore(const BufferStoreNode *op) {
  const std::string &pointer = pointerOf(op->buffer, op->loc);
  const Expr &index = op->indices.front();
  DataType valueType = op->value->type;
  // The value is written before the index (a name it binds comes first).
  const std::string &value = statementValue(op->value, /*statementPosition=*/false);
  if (valueType.isScalar()) {
    beginLine();
    out() += pointer;
    out() += '[';
    expr(flatElemOffset(*op->buffer, index));
    out() += "] = ";
    out() += value;
    out() += ';';
    endLine();
    return;
  }
  int elementLanes = op->buffer->dtype.lanes();
  if (Expr start = contiguousElemOffset(*op->buffer, index)) {
    bool streamed = std::find(streaming_.begin(), streaming_.end(), op->buffer->data.get()) != streaming_.end();
    const std::string *store = streamed ? support_.streamStore(valueType) : nullptr;
    beginLine();
    out() += store ? *store : support_.vectorStore(valueType);
    out() += '(';
    out() += pointer;
    out() += " + ";
    expr(start);
    out() += ", ";
    out() += value;
    out() += ");";
    endLine();
    return;
  }
  // Scatter lane by lane: index lane k covers elementLanes value lanes.
  std::string it(support_.typeName(index->type));
  line("{");
  ++indent_;
  beginLine();
  out() += it;
  out() += " tl_index = ";
  expr(index);
  out() += ';';
  endLine();
  line(std::string(support_.typeName(valueType)) + " tl_value = " + value + ";");
  line("for (int k = 0; k < " + std::to_string(index->type.lanes()) + "; ++k)");
  line("  for (int m = 0; m < " + std::to_string(elementLanes) + "; ++m)");
  beginLine();
  out() += "    ";
  out() += pointer;
  out() += '[';
  offsetText(*op->buffer, "tl_index[k]");
  out() += " * " + std::to_string(elementLanes) + " + m] = tl_value[k * " + std::to_string(elementLanes) + " + m];";
  endLine();
  --indent_;
  line("}");
}

void CFunctionEmitter::offsetText(const BufferNode &buffer, std::string_view index) {
  const bool strided = !buffer.strides.empty(), offset = static_cast<bool>(buffer.elemOffset);
  out().append(1 + strided + offset, '(');
  out() += index;
  out() += ')';
  if (strided) {
    out() += " * ";
    expr(buffer.strides[0]);
    out() += ')';
  }
  if (offset) {
    out() += " + ";
    expr(buffer.elemOffset);
    out() += ')';
  }
}

void CFunctionEmitter::visitBufferLoad(const BufferLoadNode *op, int, bool) {
  const std::string &pointer = pointerOf(op->buffer, op->loc);
  const Expr &index = op->indices.front();
  if (op->type.isScalar()) {
    out() += pointer;
    out() += '[';
    expr(flatElemOffset(*op->buffer, index));
    out() += ']';
    return;
  }
  if (Expr start = contiguousElemOffset(*op->buffer, index)) {
    out() += support_.vectorLoad(op->type);
    out() += '(';
    out() += pointer;
    out() += " + ";
    expr(start);
    out() += ')';
    return;
  }
  // Gather lane by lane.
  int elementLanes = op->buffer->dtype.lanes();
  std::string vt(support_.typeName(op->type)), it(support_.typeName(index->type));
  const int lanes = op->type.lanes(), physical = cVectorLanes(lanes);
  std::string padding = physical == lanes
                            ? ""
                            : "for (int k = " + std::to_string(lanes) + "; k < " + std::to_string(physical) +
                                  "; ++k) tl_value[k] = tl_value[" + std::to_string(lanes - 1) + "]; ";
  out() += "({ " + it + " tl_index = ";
  expr(index);
  out() += "; " + vt + " tl_value; for (int k = 0; k < " + std::to_string(index->type.lanes()) +
           "; ++k) for (int m = 0; m < " + std::to_string(elementLanes) + "; ++m) tl_value[k * " +
           std::to_string(elementLanes) + " + m] = " + pointer + "[";
  offsetText(*op->buffer, "tl_index[k]");
  out() += " * " + std::to_string(elementLanes) + " + m]; " + padding + "tl_value; })";
}

} // namespace tirlower
