// The program generator. A function has input and output buffer parameters (random ranks,
// extents and dtypes), an optional scratch buffer that one loop nest fills completely before
// the others read it, and one loop nest per written buffer. A nest's loops cover the written
// buffer exactly (plain, split with a guard when the factor does not divide, or fused), in a
// random order and of random kinds, with an optional reduction loop; its body has lets, ifs,
// a local scratch element and random value expressions over loads of the inputs.
#include "generator.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "expressions.h"
#include "transform/pass.h"

namespace tirlower::semfuzz {
namespace {

class Generator {
public:
  Generator(uint64_t seed, std::string name) : rng_(seed), name_(std::move(name)) {}

  GeneratedProgram generate() {
    dtype_ = rng_.pick<std::string>({"float32", "float32", "float32", "float64", "int32", "int32", "int8", "int64"});
    chooseBuffers();
    std::vector<std::string> body;
    emitTransforms();
    if (scratch_) {
      line("scratch = T.alloc_buffer(" + shapeText(scratch_->shape) + ", \"" + dtype_ + "\")");
      maybeTransform(*scratch_);
      writeNest(*scratch_, true);
      readable_.push_back(*scratch_);
    }
    for (size_t k = 0; k < outputs_.size(); ++k) {
      writeNest(outputs_[k], false);
      readable_.push_back(outputs_[k]); // initialised by the caller, now partly rewritten
    }
    GeneratedProgram program;
    program.function = name_;
    const std::string params = signature(); // may add axis separators
    program.pipeline = pipeline();
    program.compilable = flattened_ && !separators_;
    program.text = "from tvm.script import tir as T\n\n\n@T.prim_func\ndef " + name_ + "(" + params +
                   "):\n    T.func_attr({\"global_symbol\": \"" + name_ + "\", \"tir.noalias\": True})\n" + text_;
    return program;
  }

private:
  // ---- buffers and layouts ----

  std::vector<int64_t> randomShape(int64_t maxElements) {
    std::vector<int64_t> shape(static_cast<size_t>(rng_.range(1, 3)));
    int64_t product = 1;
    for (int64_t &extent : shape) {
      extent = std::min<int64_t>(rng_.range(1, 9), std::max<int64_t>(1, maxElements / product));
      product *= extent;
    }
    return shape;
  }

  void chooseBuffers() {
    int inputs = static_cast<int>(rng_.range(1, 3));
    for (int k = 0; k < inputs; ++k) {
      std::string dtype = k > 0 && rng_.chance(0.3) ? (dtype_ == "int32" ? "float32" : "int32") : dtype_;
      BufferInfo b("In" + str(k), dtype, randomShape(96),
                   dtype == "int32" || dtype == "int8" || dtype == "int64" ? 8.0 : 1.0);
      inputs_.push_back(b);
    }
    int outputs = static_cast<int>(rng_.range(1, 2));
    for (int k = 0; k < outputs; ++k)
      outputs_.emplace_back("Out" + str(k), dtype_, randomShape(96), isFloat(dtype_) ? 1.0 : 8.0);
    // A declared axis separator: the buffer stays 2-d after flatten.
    for (BufferInfo *b : {&inputs_.front(), &outputs_.front()})
      if (b->shape.size() >= 2 && rng_.chance(0.04)) {
        b->axisSeparator = static_cast<int>(rng_.range(1, static_cast<int64_t>(b->shape.size()) - 1));
        separators_ = true;
      }
    if (rng_.chance(0.4))
      scratch_ = BufferInfo("scratch", dtype_, randomShape(64), 0);
    bool symbolic = false;
    for (BufferInfo *b : params()) {
      if (b->axisSeparator)
        continue;
      int64_t inner = 1;
      for (size_t k = 1; k < b->shape.size(); ++k)
        inner *= b->shape[k];
      if (inner <= 12 && rng_.chance(0.1)) {
        b->symbolic = symbolic = true;
        b->shape[0] = 16; // n0 is in [1, 16]
      } else if (b->shape.size() >= 2 && rng_.chance(0.1)) {
        b->strides.assign(b->shape.size(), 1);
        for (size_t k = b->shape.size() - 1; k-- > 0;)
          b->strides[k] = b->strides[k + 1] * b->shape[k + 1] + rng_.range(0, 3);
        b->elemOffset = rng_.range(0, 5);
      }
    }
    if (symbolic || rng_.chance(0.25))
      scalars_.push_back({"n0", 1, 16});
    readable_ = inputs_;
    for (const BufferInfo *b : params())
      if (b->matched())
        line(b->name + " = T.match_buffer(" + handleName(*b) + ", " + shapeText(*b) + ", \"" + b->dtype + "\"" +
             (b->strides.empty() ? "" : ", strides=" + shapeText(b->strides) + ", elem_offset=" + str(b->elemOffset)) +
             ")");
  }

  std::vector<BufferInfo *> params() {
    std::vector<BufferInfo *> out;
    for (BufferInfo &b : inputs_)
      out.push_back(&b);
    for (BufferInfo &b : outputs_)
      out.push_back(&b);
    return out;
  }

  static std::string handleName(const BufferInfo &b) { return "h_" + b.name; }

  std::string shapeText(const BufferInfo &b) {
    std::string text = shapeText(b.shape);
    return b.symbolic ? "(n0" + text.substr(text.find_first_of(",)")) : text;
  }

  std::string shapeText(const std::vector<int64_t> &shape) {
    std::string out = "(";
    for (size_t k = 0; k < shape.size(); ++k)
      out += (k ? ", " : "") + str(shape[k]);
    return out + (shape.size() == 1 ? ",)" : ")");
  }

  std::string signature() {
    std::string out;
    auto add = [&](const BufferInfo &b) {
      if (b.matched()) {
        out += (out.empty() ? "" : ", ") + handleName(b) + ": T.handle";
        return;
      }
      out += (out.empty() ? "" : ", ") + b.name + ": T.Buffer(" + shapeText(b.shape) + ", \"" + b.dtype + "\"";
      if (b.axisSeparator)
        out += ", axis_separators=[" + str(b.axisSeparator) + "]";
      out += ")";
    };
    for (const BufferInfo &b : inputs_)
      add(b);
    for (const BufferInfo &b : outputs_)
      add(b);
    for (const IndexExpr &s : scalars_)
      out += ", " + s.text + ": T.int32";
    return out;
  }

  void emitTransforms() {
    for (BufferInfo *b : params())
      maybeTransform(*b);
    for (BufferInfo *b : params()) {
      if (b->matched() || b->axisSeparator || !rng_.chance(0.2))
        continue;
      b->view = b->name + "_view";
      b->flatView = !b->transformed && b->shape.size() >= 2 && rng_.chance(0.5);
      int64_t elements = 1;
      for (int64_t extent : b->shape)
        elements *= extent;
      line(b->view + " = T.decl_buffer(" + (b->flatView ? shapeText({elements}) : shapeText(b->shape)) + ", \"" +
           b->dtype + "\", data=" + b->name + ".data)");
    }
    for (const BufferInfo *b : params())
      for (BufferInfo &r : readable_)
        if (r.name == b->name)
          r = *b;
  }

  // A random index map over `shape`: permuted axes, splits (padded when the factor does not
  // divide), fused neighbours, sometimes an axis separator.
  void maybeTransform(BufferInfo &b) {
    if (b.axisSeparator || b.matched() || !rng_.chance(0.4)) // a map must state the separators itself
      return;
    const size_t rank = b.shape.size();
    std::vector<std::string> axes;
    for (size_t k = 0; k < rank; ++k)
      axes.push_back("v" + str(static_cast<int64_t>(k)));
    std::vector<std::string> outer, inner;
    bool padded = false;
    for (size_t k = 0; k < rank; ++k) {
      int64_t extent = b.shape[k];
      if (k + 1 < rank && rng_.chance(0.15)) {
        outer.push_back(axes[k] + " * " + str(b.shape[k + 1]) + " + " + axes[k + 1]);
        ++k;
      } else if (extent >= 3 && rng_.chance(0.4)) {
        int64_t factor = rng_.range(2, std::min<int64_t>(4, extent - 1));
        padded |= extent % factor != 0;
        outer.push_back(axes[k] + " // " + str(factor));
        (rng_.chance(0.5) ? inner : outer).push_back(axes[k] + " % " + str(factor));
      } else {
        outer.push_back(axes[k]);
      }
    }
    if (rng_.chance(0.5))
      rng_.shuffle(outer);
    outer.insert(outer.end(), inner.begin(), inner.end());
    if (outer.size() >= 2 && rng_.chance(0.08)) {
      outer.insert(outer.begin() + rng_.range(1, static_cast<int64_t>(outer.size()) - 1), "T.AXIS_SEPARATOR");
      separators_ = true;
    }
    std::string lambda = "lambda ";
    for (size_t k = 0; k < rank; ++k)
      lambda += (k ? ", " : "") + axes[k];
    lambda += ": [";
    for (size_t k = 0; k < outer.size(); ++k)
      lambda += (k ? ", " : "") + outer[k];
    lambda += "]";
    std::string pad;
    if (padded || rng_.chance(0.15))
      pad = ", pad_value=" + constant(b.dtype, rng_.pick<double>({0, 1, -1, 1.5, 7}));
    line("T.transform_layout(" + b.name + ", " + lambda + pad + ")");
    b.transformed = true;
    transformed_ = true;
  }

  // ---- statements ----

  void line(const std::string &text) { text_ += std::string(static_cast<size_t>(4 * indent_ + 4), ' ') + text + "\n"; }

  struct Loop {
    std::string name;
    int64_t extent; // the bound of a symbolic extent
    bool reduction = false;
    bool symbolic = false; // extent n0: serial or parallel only
  };

  std::string loopHeader(const Loop &loop, int &unrolls) {
    int kind = static_cast<int>(rng_.range(0, 9));
    std::string e = loop.symbolic ? "n0" : str(loop.extent);
    if (loop.reduction)
      kind = kind < 6 ? 0 : 8;
    if (loop.symbolic)
      kind = kind < 6 ? kind : 0;
    if (kind <= 2)
      return "for " + loop.name + " in range(" + e + "):";
    if (kind == 3)
      return "for " + loop.name + " in T.serial(" + e + "):";
    if (kind <= 5)
      return "for " + loop.name + " in T.parallel(" + e + "):";
    if (kind <= 7 && loop.extent <= 16)
      return "for " + loop.name + " in T.vectorized(" + e + "):";
    if (loop.extent <= 6 && unrolls < 2) {
      ++unrolls;
      return "for " + loop.name + " in T.unroll(" + e + "):";
    }
    return "for " + loop.name + " in range(" + e + "):";
  }

  // Loops that visit every element of `target` once, the store's indices, and the guards that
  // keep split loops inside the extents.
  void writeNest(BufferInfo &target, bool initialise) {
    std::vector<Loop> loops;
    std::vector<std::string> indices, guards;
    std::vector<IndexExpr> vars;
    const size_t rank = target.shape.size();
    auto fresh = [&](int64_t extent) {
      std::string name = "i" + str(nextVar_++);
      loops.push_back({name, extent});
      vars.push_back({name, 0, extent - 1});
      return name;
    };
    for (size_t d = 0; d < rank; ++d) {
      int64_t extent = target.shape[d];
      if (d == 0 && target.symbolic) {
        indices.push_back(fresh(extent));
        loops.back().symbolic = true;
      } else if (d + 1 < rank && rng_.chance(0.15)) {
        int64_t next = target.shape[d + 1];
        std::string f = fresh(extent * next);
        indices.push_back(f + " // " + str(next));
        indices.push_back(f + " % " + str(next));
        ++d;
      } else if (extent >= 3 && rng_.chance(0.25)) {
        int64_t factor = rng_.range(2, 4);
        std::string o = fresh((extent + factor - 1) / factor), i = fresh(factor);
        std::string idx = o + " * " + str(factor) + " + " + i;
        indices.push_back(idx);
        if (extent % factor)
          guards.push_back(idx + " < " + str(extent));
      } else {
        indices.push_back(fresh(extent));
      }
    }
    rng_.shuffle(loops);
    // A reduction loop: accumulate into the target (initialised first when it is scratch).
    bool reduce = rng_.chance(0.3);
    Loop reduction{"k" + str(nextVar_++), rng_.range(1, 4), true};
    if (reduce && !initialise)
      loops.insert(loops.begin() + rng_.range(0, static_cast<int64_t>(loops.size())), reduction);
    const std::string access = exprs_.access(target, indices);

    const int saved = indent_;
    const size_t savedScope = scope_.size();
    int unrolls = 0;
    for (const Loop &loop : loops) {
      line(loopHeader(loop, unrolls));
      ++indent_;
      scope_.push_back({loop.name, 0, loop.extent - 1});
    }
    for (const IndexExpr &s : scalars_)
      scope_.push_back(s);
    // A block around the body, as TVM's te.create_prim_func writes one: its iteration
    // variables shadow the loop variables they are bound to, a split's guard is its T.where,
    // and an accumulation may start from a T.init().
    const bool block = rng_.chance(0.3);
    std::string cond;
    for (const std::string &g : guards)
      cond += (cond.empty() ? "" : " and ") + g;
    if (block) {
      hasBlocks_ = true;
      line("with T.sblock(\"b" + str(nextVar_++) + "\"):");
      ++indent_;
      std::string names, kinds;
      for (const Loop &loop : loops) {
        names += (names.empty() ? "" : ", ") + loop.name;
        kinds += loop.reduction ? 'R' : 'S';
      }
      if (!loops.empty())
        line(names + " = T.axis.remap(\"" + kinds + "\", [" + names + "])");
      if (!cond.empty())
        line("T.where(" + cond + ")");
    } else if (!guards.empty()) {
      line("if " + cond + ":");
      ++indent_;
    }
    if (block && reduce && !initialise && rng_.chance(0.5)) {
      line("with T.init():");
      ++indent_;
      line(access + " = " + exprs_.valueLeaf(dtype_).text);
      --indent_;
    }
    for (int lets = static_cast<int>(rng_.range(0, 2)); lets > 0; --lets) {
      IndexExpr e = exprs_.index(2);
      std::string name = "x" + str(nextVar_++);
      line(name + ": T.int32 = " + e.text);
      scope_.push_back({name, e.lo, e.hi});
    }
    const double limit = magnitudeLimit(dtype_) / 8;
    auto rhs = [&](int depth) {
      ValueExpr v = exprs_.value(dtype_, depth);
      return v.magnitude > limit ? exprs_.valueLeaf(dtype_) : v;
    };
    double magnitude = 0;
    auto store = [&](bool accumulate) {
      ValueExpr v = rhs(3);
      magnitude = std::max(magnitude, v.magnitude);
      if (rng_.chance(0.12)) { // through a local scratch element
        std::string local = "acc" + str(nextVar_++);
        line(local + " = T.alloc_buffer((1,), \"" + dtype_ + "\", scope=\"local\")");
        line(local + "[0] = " + v.text);
        v.text = local + "[0]";
      }
      line(access + " = " + (accumulate ? access + " + (" + v.text + ")" : v.text));
    };
    if (initialise && reduce) {
      store(false);
      line("for " + reduction.name + " in " + (rng_.chance(0.3) ? "T.unroll(" : "range(") + str(reduction.extent) +
           "):");
      ++indent_;
      scope_.push_back({reduction.name, 0, reduction.extent - 1});
      store(true);
    } else if (!initialise && rng_.chance(0.25)) {
      line("if " + exprs_.condition(2) + ":");
      ++indent_;
      store(reduce);
      --indent_;
      if (rng_.chance(0.5)) {
        line("else:");
        ++indent_;
        store(reduce);
        --indent_;
      }
    } else {
      store(reduce);
    }
    indent_ = saved;
    scope_.resize(savedScope);
    // Accumulated values grow with the reduction extent; outputs start at the inputs' range.
    target.magnitude = std::max(target.magnitude, magnitude * static_cast<double>(reduction.extent + 1) + 8);
  }

  // ---- pipeline ----

  // The order of the lowering passes comes from the registry's pass contracts (PassInfo
  // requirements and establishes): the passes lowering blocks, then the one applying layouts,
  // then the one flattening, each after what it requires. The random passes between them are
  // the generator's choice; its two rules about them (no vectorize while layout transforms are
  // pending, the vector-access rewrites only on flat buffers) are about the programs it makes,
  // not pass contracts.
  std::string pipeline() {
    static const std::vector<std::string> anywhere = {"simplify", "remove-no-op", "convert-ssa", "unroll", "vectorize"};
    const PassRegistry &registry = PassRegistry::builtin();
    std::vector<std::string> passes;
    auto lowerTo = [&](IRProperty property) {
      for (const PassInfo *info : registry.pipelineEstablishing(property))
        if (std::find(passes.begin(), passes.end(), info->name) == passes.end())
          passes.push_back(info->name);
    };
    bool layoutsApplied = !transformed_;
    auto some = [&](int most, bool flat) {
      for (int n = static_cast<int>(rng_.range(0, most)); n > 0; --n) {
        std::string pass = rng_.pick(anywhere);
        if (flat && rng_.chance(0.12))
          pass = rng_.chance(0.5) ? "vector-type-rewrite" : "lower-vector-access";
        if (pass == "vectorize" && !layoutsApplied) // vector accesses cannot be transformed
          pass = "simplify";
        if (pass == "unroll") // nested unrolled loops may exceed the default limit of 1024 statements
          pass = "unroll{limit=65536}";
        passes.push_back(pass);
      }
    };
    if (hasBlocks_) { // blocks first, as every target's pipeline lowers them
      if (rng_.chance(0.3))
        passes.push_back(rng_.chance(0.5) ? "simplify" : "remove-no-op");
      lowerTo(IRProperty::BlocksLowered);
    }
    some(2, false);
    flattened_ = rng_.chance(0.92);
    if (transformed_ || flattened_ || rng_.chance(0.5))
      lowerTo(IRProperty::LayoutsApplied);
    layoutsApplied = true;
    some(2, false);
    if (flattened_) {
      lowerTo(IRProperty::Flat);
      some(3, true);
    }
    std::string out;
    for (const std::string &p : passes)
      out += (out.empty() ? "" : ",") + p;
    return out.empty() ? "simplify" : out;
  }

  Rng rng_;
  std::string name_;
  std::string dtype_;
  std::vector<BufferInfo> inputs_, outputs_, readable_;
  std::optional<BufferInfo> scratch_;
  std::vector<IndexExpr> scalars_, scope_;
  std::string text_;
  int indent_ = 0;
  int nextVar_ = 0;
  bool transformed_ = false, separators_ = false, flattened_ = false, hasBlocks_ = false;
  Expressions exprs_{rng_, scope_, readable_};
};

} // namespace

uint64_t programSeed(uint64_t runSeed, uint64_t index) {
  uint64_t z = runSeed * 0x9e3779b97f4a7c15ULL + index + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

GeneratedProgram generateProgram(uint64_t seed, const std::string &functionName) {
  return Generator(seed, functionName).generate();
}

} // namespace tirlower::semfuzz
