// The TVMScript printer's blocks (ScriptPrinter, tir_script_printer.h): `with T.block(...)`
// with its iteration variables (T.axis.remap when every one is bound to an enclosing loop),
// predicate, read and write regions, annotations, allocations, match_buffers and init.
#include <algorithm>

#include "codegen/tir_script_printer.h"
#include "ir/equality.h"
#include "ir/script_literals.h"

namespace tirlower {

// `v_i, v_k = T.axis.remap("SR", [i, k])` when every iteration variable is bound to an
// enclosing loop variable over the same domain (as TVM prints it); else one
// `v = T.axis.spatial(extent, value)` (`(min, end)` for a domain not starting at 0) per variable.
void ScriptPrinter::printIterVars(const BlockNode &block) {
  if (block.iterVars.empty())
    return;
  bool remap = true;
  for (const BlockIterVar &iv : block.iterVars) {
    const auto *var = iv.value.as<VarNode>();
    auto loop = std::find_if(loops_.rbegin(), loops_.rend(), [&](const ForNode *f) { return f->loopVar.get() == var; });
    remap &= var && loop != loops_.rend() && isConstZero(iv.min) && isConstZero((*loop)->min) &&
             structurallyEqual((*loop)->extent, iv.extent) && iv.kind != IterKind::Opaque;
  }
  if (remap) {
    indent();
    for (size_t k = 0; k < block.iterVars.size(); ++k) {
      out_ += k ? ", " : "";
      out_ += bindVar(block.iterVars[k].var.get());
    }
    out_ += " = T.axis.remap(\"";
    for (const BlockIterVar &iv : block.iterVars)
      out_ += "SRCO"[static_cast<int>(iv.kind)];
    out_ += "\", [";
    for (size_t k = 0; k < block.iterVars.size(); ++k) {
      out_ += k ? ", " : "";
      printExpr(block.iterVars[k].value);
    }
    out_ += "])\n";
    return;
  }
  for (const BlockIterVar &iv : block.iterVars) {
    indent();
    out_ += bindVar(iv.var.get());
    out_ += " = T.axis.";
    out_ += iterKindName(iv.kind);
    out_ += '(';
    if (isConstZero(iv.min)) {
      printExpr(iv.extent);
    } else {
      out_ += '(';
      printExpr(iv.min);
      out_ += ", ";
      const int64_t *min = asConstInt(iv.min), *extent = asConstInt(iv.extent);
      if (min && extent)
        printIntLiteral(iv.min->type, *min + *extent);
      else
        printExpr(BinaryNode::make(BinaryOp::Add, iv.min, iv.extent));
      out_ += ')';
    }
    out_ += ", ";
    printExpr(iv.value);
    out_ += ")\n";
  }
}

// `A[v_i, 0:16]`: a range of extent 1 prints as its index.
void ScriptPrinter::printRegion(const BufferRegion &region) {
  out_ += bufferName(region.buffer.get());
  out_ += '[';
  for (size_t k = 0; k < region.region.size(); ++k) {
    const Range &r = region.region[k];
    out_ += k ? ", " : "";
    const int64_t *extent = asConstInt(r.extent);
    if (extent && *extent == 1) {
      printExpr(r.min);
      continue;
    }
    printExpr(r.min);
    out_ += ':';
    const int64_t *min = asConstInt(r.min);
    if (min && extent)
      printIntLiteral(r.min->type, *min + *extent);
    else if (isConstZero(r.min))
      printExpr(r.extent);
    else
      printExpr(BinaryNode::make(BinaryOp::Add, r.min, r.extent));
  }
  out_ += region.region.empty() ? "()]" : "]";
}

void ScriptPrinter::printBlock(const BlockNode &block) {
  indent();
  out_ += tirx_ ? "with T.sblock(" : "with T.block(";
  appendQuoted(out_, block.name.view());
  out_ += "):\n";
  ++indent_;
  printIterVars(block);
  if (block.predicate) {
    indent();
    out_ += "T.where(";
    printExpr(block.predicate);
    out_ += ")\n";
  }
  for (const auto &[keyword, regions] :
       {std::pair{"T.reads(", &block.reads}, std::pair{"T.writes(", &block.writes}}) {
    indent();
    out_ += keyword;
    for (size_t k = 0; k < regions->size(); ++k) {
      out_ += k ? ", " : "";
      printRegion((*regions)[k]);
    }
    out_ += ")\n";
  }
  if (!block.annotations.empty()) {
    indent();
    out_ += tirx_ ? "T.sblock_attr(" : "T.block_attr(";
    appendAttrValue(out_, block.annotations);
    out_ += ")\n";
  }
  for (const Buffer &buffer : block.allocBuffers) {
    std::string_view name = bindBuffer(buffer.get());
    defineDataVar(buffer.get(), name, true);
    indent();
    out_ += name;
    out_ += tirx_ ? " = T.sblock_alloc_buffer(" : " = T.alloc_buffer(";
    printBufferArgs(*buffer, std::nullopt);
    out_ += ")\n";
  }
  for (const MatchBufferRegion &match : block.matchBuffers) {
    std::string_view name = bindBuffer(match.buffer.get());
    defineDataVar(match.buffer.get(), name);
    indent();
    out_ += name;
    out_ += " = T.match_buffer(";
    printRegion(match.source);
    out_ += ", ";
    printBufferArgs(*match.buffer, std::nullopt);
    out_ += ")\n";
  }
  if (block.init) {
    indent();
    out_ += "with T.init():\n";
    printBody(block.init);
  }
  --indent_;
  printBody(block.body);
}

} // namespace tirlower
