// run(): binds the arguments, compiles the body into code objects and executes it, turning
// every failure into a located diagnostic in the result.
#include <new>

#include "interp/buffer_layout.h"
#include "interp/compile_kernel.h"
#include "ir/attrs.h"
#include "ir/vscale.h"

namespace tirlower {

Cell scalarArgCell(const ArgValue &arg, const VarNode &param) {
  const DataType type = param.type;
  const std::string what = "argument '" + param.name.str() + "'";
  if (arg.type != type)
    throw CompileError(param.loc, what + " is " + arg.type.str() + " but the parameter is " + type.str());
  const NumKind kind = numKind(type);
  Cell c;
  if (kind == NumKind::Int || kind == NumKind::UInt || kind == NumKind::Bool) {
    c = normalizeInt(static_cast<uint64_t>(arg.intValue), kind, type.bits());
    if (c.i != arg.intValue)
      throw CompileError(param.loc, what + " value " + std::to_string(arg.intValue) + " does not fit " + type.str());
  } else {
    c.f = roundToKind(arg.floatValue, kind);
  }
  return c;
}

namespace {

struct BoundBuffer {
  size_t param;
  Buffer buffer;
  std::unique_ptr<BufferLayout> layout;
};

void checkStorage(Frame &frame, const BoundBuffer &b, const BufferData &storage) {
  const DataType want = b.buffer->dtype.element();
  if (storage.elementType() != want)
    throw CompileError(b.buffer->loc, "argument for buffer '" + b.buffer->name.str() + "' holds " +
                                          storage.elementType().str() + " elements but the buffer is " +
                                          b.buffer->dtype.str());
  const uint64_t needed = b.layout->requiredScalars(frame);
  if (storage.size() < needed)
    throw CompileError(b.buffer->loc, "argument for buffer '" + b.buffer->name.str() + "' has " +
                                          std::to_string(storage.size()) + " elements of " + want.str() +
                                          " but the buffer needs " + std::to_string(needed));
}

void execute(const PrimFunc &func, std::vector<ArgValue> &args, Frame &frame, const RunOptions &options) {
  if (args.size() != func->params.size())
    throw CompileError(func->loc, "function '" + func->name.str() + "' takes " + std::to_string(func->params.size()) +
                                      " arguments but was given " + std::to_string(args.size()));
  Compiler compiler;
  bool explicitBarriers = false;
  if (const AttrValue *a = func->attrs.find(attr::kExplicitBarriers))
    explicitBarriers = a->kind() == AttrValue::Kind::Bool ? a->asBool() : a->asInt() != 0;
  std::unique_ptr<KernelHooks> kernels = makeKernelHooks(compiler, explicitBarriers);
  compiler.setKernelHooks(kernels.get());
  std::vector<int> slots;
  for (const Var &param : func->params)
    slots.push_back(compiler.bind(param));
  std::vector<BoundBuffer> buffers;
  for (size_t i = 0; i < func->params.size(); ++i)
    if (Buffer buffer = func->bufferFor(func->params[i]))
      buffers.push_back({i, buffer, std::make_unique<BufferLayout>(compiler, *buffer, buffer->loc)});
  const StmtCodePtr body = compiler.stmt(usesVscale(func->body) ? fixVscale(func->body, options.vscale) : func->body);

  frame.env.assign(static_cast<size_t>(compiler.slotCount()), Cell{});
  for (size_t i = 0; i < func->params.size(); ++i) {
    const VarNode &param = *func->params[i];
    if (!param.type.isHandle()) {
      frame.env[slots[i]] = scalarArgCell(args[i], param);
      continue;
    }
    if (!args[i].buffer)
      throw CompileError(param.loc, "argument '" + param.name.str() + "' needs storage (ArgValue::ofBuffer)");
    frame.env[slots[i]].p = args[i].buffer.get();
  }
  for (const BoundBuffer &b : buffers)
    checkStorage(frame, b, *args[b.param].buffer);
  body->exec(frame);
}

} // namespace

RunResult run(const PrimFunc &func, std::vector<ArgValue> &args, const RunOptions &options) {
  RunResult result;
  Frame frame(options);
  auto fail = [&](RunStatus status, Diagnostic diagnostic) {
    result.status = status;
    result.returnCode = status == RunStatus::AssertFailed ? 1 : -1; // the C ABI's 1 (docs/abi.md)
    result.error = std::move(diagnostic);
  };
  try {
    execute(func, args, frame, options);
  } catch (const InterpreterLimit &e) {
    fail(RunStatus::Error, e.diagnostic());
    result.unsupported = true;
  } catch (const CompileError &e) {
    fail(RunStatus::Error, e.diagnostic());
  } catch (const AssertFailure &a) {
    fail(RunStatus::AssertFailed, {Severity::Error, a.loc, "assertion failed: " + a.message, {}});
  } catch (const IRTypeError &e) {
    fail(RunStatus::Error, {Severity::Error, func->loc, e.what(), {}});
  } catch (const std::bad_alloc &) {
    fail(RunStatus::Error, {Severity::Error, func->loc, "the interpreter ran out of memory", {}});
  }
  result.steps = frame.steps;
  return result;
}

} // namespace tirlower
