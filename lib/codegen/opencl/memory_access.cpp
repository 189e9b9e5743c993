// Buffer and image accesses. A buffer is reached through the pointer of its data variable, typed
// as the IR declares the data (a float4* only where the parameter or allocation says float32x4).
// Contiguous vector accesses of scalar pointers use vloadN/vstoreN; others go lane by lane.
// Textures are float4 images: physical index [row, col] is texel (col / 4, row), lane col % 4.
#include "codegen/opencl/kernel_emitter.h"

#include "codegen/source_names.h"
#include "ir/storage_scope.h"

namespace tirlower {

namespace {

bool isConst(const Expr &e, int64_t value) {
  return asConstInt(e) && *asConstInt(e) == value;
}

Expr as(const Expr &e, DataType type) {
  return e->type == type ? e : CastNode::make(type, e);
}

// a * b and a + b, folded when both are constants or one is the identity.
Expr mul(const Expr &a, const Expr &b) {
  if (asConstInt(a) && asConstInt(b) && a->type.isScalar())
    return IntImmNode::make(a->type, *asConstInt(a) * *asConstInt(b));
  return isConst(b, 1) ? a : BinaryNode::make(BinaryOp::Mul, a, b);
}
Expr add(const Expr &a, const Expr &b) {
  if (asConstInt(a) && asConstInt(b) && a->type.isScalar())
    return IntImmNode::make(a->type, *asConstInt(a) + *asConstInt(b));
  return isConst(a, 0) ? b : BinaryNode::make(BinaryOp::Add, a, b);
}

// ".s4567": lanes [first, first + count) of a vector value.
std::string swizzle(int first, int count) {
  static const char digits[] = "0123456789abcdef";
  std::string out = ".s";
  for (int k = first; k < first + count; ++k)
    out += digits[k];
  return out;
}

const RampNode *unitRamp(const Expr &index) {
  const auto *ramp = index.as<RampNode>();
  return ramp && isConst(ramp->stride, 1) ? ramp : nullptr;
}

} // namespace

void KernelEmitter::checkRank(const BufferNode &buffer, SourceRange where) {
  if (buffer.shape.size() == 1 && buffer.axisSeparators.empty())
    return;
  if (isTextureBuffer(buffer))
    return;
  std::string rank = std::to_string(buffer.axisSeparators.size() + 1);
  std::string why = hasTextureScope(buffer)
                        ? "; a texture must be flattened to 2-d (axis_separators [1]) with float32 elements and an "
                          "innermost extent that is a multiple of 4"
                        : "; the OpenCL emitter takes 1-d buffers, and 2-d ones only in scope \"global.texture\" "
                          "(run the flatten pass first)";
  fail(where, "buffer " + quotedBufferName(buffer) + " has physical rank " + rank + " and logical rank " +
                  std::to_string(buffer.shape.size()) + why);
}

const KernelEmitter::Pointer &KernelEmitter::pointerOf(const Buffer &buffer, SourceRange where) {
  checkRank(*buffer, where);
  if (auto it = buffers_.find(buffer.get()); it != buffers_.end())
    return it->second;
  auto data = data_.find(buffer->data.get());
  if (data == data_.end())
    fail(where, "buffer " + quotedBufferName(*buffer) + " views data that is not defined");
  const Pointer &base = data->second;
  if (base.image != isTextureBuffer(*buffer))
    fail(where, base.image ? "buffer " + quotedBufferName(*buffer) + " views image data but is not a 2-d texture buffer"
                           : "texture buffer " + quotedBufferName(*buffer) + " must be a kernel parameter (an image)");
  if (base.image) {
    if (!buffer->strides.empty() || (buffer->elemOffset && !isConst(buffer->elemOffset, 0)))
      fail(where, "texture buffer " + quotedBufferName(*buffer) + " cannot have strides or an element offset");
    return buffers_.emplace(buffer.get(), base).first->second;
  }
  DataType element = buffer->dtype;
  if (base.type == element || (base.type.isScalar() && base.type == element.element()))
    return buffers_.emplace(buffer.get(), base).first->second;
  // The alias reinterprets the data as another element type: the IR states this cast. Pointers
  // over parameters and __local arrays (both kernel-wide) are declared at kernel scope; a view of
  // a private array is declared where it is used and not reused, as the array may go out of scope.
  std::string name = bind(buffer.get(), buffer->name.view());
  std::string t = base.space + (base.readOnly ? "const " : "") + openclStorageTypeName(element.element(), where) + "*";
  std::string declaration = t + " " + name + " = (" + t + ")" + base.name + ";";
  Pointer view{name, element.element(), base.space, base.readOnly, false};
  if (base.space.empty()) {
    line(declaration);
    scratch_ = view;
    return scratch_;
  }
  prologue_ += "  " + declaration + "\n";
  return buffers_.emplace(buffer.get(), view).first->second;
}

// The index in units of the buffer's elements from the start of its data, honouring the
// stride and element offset of a flattened view.
Expr KernelEmitter::physicalIndex(const BufferNode &buffer, const Expr &index) {
  bool unitStride = buffer.strides.empty() || isConst(buffer.strides[0], 1);
  bool zeroOffset = !buffer.elemOffset || isConst(buffer.elemOffset, 0);
  if (unitStride && zeroOffset)
    return index;
  auto scale = [&](Expr e, bool offset) {
    DataType t = e->type.element();
    if (!unitStride)
      e = mul(e, e->type.isVector() ? BroadcastNode::make(as(buffer.strides[0], t), e->type.lanes())
                                    : as(buffer.strides[0], t));
    if (offset && !zeroOffset)
      e = add(e, e->type.isVector() ? BroadcastNode::make(as(buffer.elemOffset, t), e->type.lanes())
                                    : as(buffer.elemOffset, t));
    return e;
  };
  if (const auto *ramp = index.as<RampNode>())
    return RampNode::make(scale(ramp->base, true), scale(ramp->stride, false), ramp->lanes);
  return scale(index, true);
}

// One index text per lane of a vector index; the index (or a ramp's base) is evaluated once.
std::vector<std::string> KernelEmitter::laneIndices(const Expr &index) {
  std::vector<std::string> lanes;
  if (const auto *ramp = index.as<RampNode>()) {
    bool simple = ramp->base->kind() == ExprKind::Var || ramp->base->kind() == ExprKind::IntImm;
    std::string base = simple ? exprText(ramp->base) : temp(ramp->base->type, exprText(ramp->base), ramp->loc);
    const int64_t *stride = asConstInt(ramp->stride);
    std::string step = stride ? "" : temp(ramp->stride->type, exprText(ramp->stride), ramp->loc);
    for (int k = 0; k < ramp->lanes; ++k)
      lanes.push_back(k == 0   ? base
                      : stride ? "(" + base + " + " + openclIntLiteral(ramp->base->type, k * *stride) + ")"
                               : "(" + base + " + " + std::to_string(k) + " * " + step + ")");
    return lanes;
  }
  std::string all = temp(index->type, exprText(index), index->loc);
  for (int k = 0; k < index->type.lanes(); ++k)
    lanes.push_back(all + swizzle(k, 1));
  return lanes;
}

void KernelEmitter::visitBufferLoad(const BufferLoadNode *op, int, bool) {
  const Pointer pointer = pointerOf(op->buffer, op->loc);
  if (pointer.image)
    return put(imageLoad(op, pointer));
  DataType element = op->buffer->dtype, result = op->type;
  Expr index = physicalIndex(*op->buffer, op->indices.back());
  std::string t = typeName(result, op->loc), p = pointer.name;
  int m = element.lanes(); // scalars per element when the pointer is scalar, else 1
  bool scalarPointer = pointer.type.isScalar() && element.isVector();
  if (!scalarPointer)
    m = 1;
  if (index->type.isScalar()) {
    if (scalarPointer)
      return put("vload" + std::to_string(element.lanes()) + "(" + exprText(index) + ", " + p + ")");
    std::string text = p + "[" + bare(index) + "]";
    return put(element.isBool() ? "(" + text + " != 0)" : text);
  }
  const RampNode *ramp = unitRamp(index);
  int lanes = result.lanes();
  if (ramp && pointer.type.isScalar() && isOpenCLVectorWidth(lanes)) {
    std::string base = exprText(ramp->base);
    if (m > 1)
      base = "(" + base + ") * " + std::to_string(m);
    std::string text = "vload" + std::to_string(lanes) + "(0, " + p + " + " + base + ")";
    if (!element.isBool())
      return put(text);
    return put("convert_int" + std::to_string(lanes) + "(" + text + " != (uchar" + std::to_string(lanes) + ")(0))");
  }
  if (element.isBool())
    fail(op->loc, "a non-contiguous vector access of bool buffer " + quotedBufferName(*op->buffer));
  std::string parts;
  for (const std::string &lane : laneIndices(index))
    parts += (parts.empty() ? "" : ", ") +
             (scalarPointer ? "vload" + std::to_string(element.lanes()) + "(" + lane + ", " + p + ")"
                            : p + "[" + lane + "]");
  return put("((" + t + ")(" + parts + "))");
}

void KernelEmitter::visitBufferStore(const BufferStoreNode *op) {
  const Pointer pointer = pointerOf(op->buffer, op->loc);
  if (pointer.image)
    return imageStore(op, pointer);
  DataType element = op->buffer->dtype, valueType = op->value->type;
  Expr index = physicalIndex(*op->buffer, op->indices.back());
  std::string p = pointer.name, value = bare(op->value);
  bool scalarPointer = pointer.type.isScalar() && element.isVector();
  int m = scalarPointer ? element.lanes() : 1;
  std::string n = std::to_string(element.lanes());
  if (index->type.isScalar()) {
    if (scalarPointer)
      return line("vstore" + n + "(" + value + ", " + exprText(index) + ", " + p + ");");
    return line(p + "[" + bare(index) + "] = " + (element.isBool() ? "(uchar)(" + value + ")" : value) + ";");
  }
  const RampNode *ramp = unitRamp(index);
  int lanes = valueType.lanes();
  if (ramp && pointer.type.isScalar() && isOpenCLVectorWidth(lanes)) {
    std::string base = exprText(ramp->base);
    if (m > 1)
      base = "(" + base + ") * " + std::to_string(m);
    if (element.isBool())
      value = "convert_uchar" + std::to_string(lanes) + "(-(" + value + "))";
    return line("vstore" + std::to_string(lanes) + "(" + value + ", 0, " + p + " + " + base + ");");
  }
  if (element.isBool())
    fail(op->loc, "a non-contiguous vector access of bool buffer " + quotedBufferName(*op->buffer));
  std::string v = temp(valueType, value, op->loc);
  std::vector<std::string> lanesText = laneIndices(index);
  int group = element.lanes();
  for (size_t k = 0; k < lanesText.size(); ++k) {
    std::string part = v + swizzle(static_cast<int>(k) * group, group);
    if (scalarPointer)
      line("vstore" + n + "(" + part + ", " + lanesText[k] + ", " + p + ");");
    else
      line(p + "[" + lanesText[k] + "] = " + part + ";");
  }
}

// ---- images -------------------------------------------------------------------------------------

std::string KernelEmitter::texel(const Pointer &image, const std::string &x, const Expr &row) {
  std::string y = exprText(row);
  if (row->type != DataType::int32())
    y = "(int)(" + y + ")";
  return "read_imagef(" + image.name + ", " + support_.sampler() + ", (int2)(" + x + ", " + y + "))";
}

std::string KernelEmitter::imageLoad(const BufferLoadNode *op, const Pointer &image) {
  const Expr &row = op->indices[0], &col = op->indices[1];
  bool texelElements = op->buffer->dtype.isVector();
  auto x = [&](const std::string &c) { return texelElements ? "(int)(" + c + ")" : "(int)(" + c + ") / 4"; };
  std::string t = typeName(op->type, op->loc);
  if (col->type.isScalar()) {
    if (texelElements)
      return texel(image, x(exprText(col)), row);
    std::string c = col->kind() == ExprKind::Var || col->kind() == ExprKind::IntImm
                        ? exprText(col)
                        : temp(col->type, exprText(col), op->loc);
    return support_.texelLane() + "(" + texel(image, x(c), row) + ", (int)(" + c + ") % 4)";
  }
  const RampNode *ramp = unitRamp(col);
  std::string parts;
  if (!texelElements && ramp && isMultipleOf4(ramp->base) && ramp->lanes % 4 == 0) {
    // Whole texels: lanes [base, base + 4k) are texels base / 4 + j.
    std::string first = temp(DataType::int32(), x(exprText(ramp->base)), op->loc);
    for (int j = 0; j < ramp->lanes / 4; ++j)
      parts += (j ? ", " : "") + texel(image, j ? "(" + first + " + " + std::to_string(j) + ")" : first, row);
    return ramp->lanes == 4 ? parts : "((" + t + ")(" + parts + "))";
  }
  for (const std::string &lane : laneIndices(col))
    parts += (parts.empty() ? "" : ", ") +
             (texelElements ? texel(image, x(lane), row)
                            : support_.texelLane() + "(" + texel(image, x(lane), row) + ", (int)(" + lane + ") % 4)");
  return "((" + t + ")(" + parts + "))";
}

void KernelEmitter::imageStore(const BufferStoreNode *op, const Pointer &image) {
  const Expr &row = op->indices[0], &col = op->indices[1];
  bool texelElements = op->buffer->dtype.isVector();
  std::string y = exprText(row);
  if (row->type != DataType::int32())
    y = "(int)(" + y + ")";
  auto write = [&](const std::string &x, const std::string &v) {
    line("write_imagef(" + image.name + ", (int2)(" + x + ", " + y + "), " + v + ");");
  };
  if (texelElements && col->type.isScalar())
    return write("(int)(" + bare(col) + ")", bare(op->value));
  const RampNode *ramp = unitRamp(col);
  if (!texelElements && ramp && isMultipleOf4(ramp->base) && ramp->lanes % 4 == 0) {
    std::string value = bare(op->value);
    if (ramp->lanes == 4)
      return write("(int)(" + bare(ramp->base) + ") / 4", value);
    std::string v = temp(op->value->type, value, op->loc);
    std::string first = temp(DataType::int32(), "(int)(" + exprText(ramp->base) + ") / 4", op->loc);
    for (int j = 0; j < ramp->lanes / 4; ++j)
      write(j ? "(" + first + " + " + std::to_string(j) + ")" : first, v + swizzle(4 * j, 4));
    return;
  }
  if (texelElements) {
    std::string v = temp(op->value->type, exprText(op->value), op->loc);
    std::vector<std::string> lanes = laneIndices(col);
    for (size_t k = 0; k < lanes.size(); ++k)
      write("(int)(" + lanes[k] + ")", v + swizzle(static_cast<int>(k) * 4, 4));
    return;
  }
  fail(op->loc, "store into texture buffer " + quotedBufferName(*op->buffer) +
                    " writes part of a texel; an image is written a whole texel at a time (a float32x4 "
                    "Ramp(base, 1, 4) index with base a multiple of 4)");
}

} // namespace tirlower
