// Deterministic random arguments and storage sizing for parameter buffers.
#include "interp/buffer_layout.h"

#include <algorithm>
#include <limits>

namespace tirlower {
namespace {

// splitmix64: tiny, fast and good enough to fill test inputs; the same seed gives the same
// values on every platform.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1) on a 2^-23 grid, so every value is exact in float32 and wider.
  double unitFloat() {
    return static_cast<double>(static_cast<int64_t>(next() >> 40) - (int64_t(1) << 23)) / 8388608.0;
  }
  int64_t inRange(int64_t low, int64_t high) {
    const uint64_t span = static_cast<uint64_t>(high - low) + 1;
    return low + static_cast<int64_t>(next() % span);
  }

private:
  uint64_t state_;
};

ArgValue randomScalar(DataType type, SplitMix64 &rng) {
  if (type.isFloat())
    return ArgValue::ofFloat(rng.unitFloat(), type);
  if (type.isBool())
    return ArgValue::ofBool(rng.next() & 1);
  if (type.isUInt())
    return ArgValue::ofUInt(static_cast<uint64_t>(rng.inRange(1, 16)), type);
  return ArgValue::ofInt(rng.inRange(1, 16), type);
}

void fillRandom(BufferData &data, const RandomArgOptions &options, SplitMix64 &rng) {
  const DataType type = data.elementType();
  for (size_t i = 0; i < data.size(); ++i) {
    if (type.isFloat())
      data.setFloat(i, rng.unitFloat());
    else if (type.isBool())
      data.setInt(i, static_cast<int64_t>(rng.next() & 1));
    else if (type.isUInt())
      data.setInt(i, rng.inRange(0, options.intHigh > 0 ? options.intHigh : 0));
    else
      data.setInt(i, rng.inRange(options.intLow, options.intHigh));
  }
}

// Frame with `scalars` bound, for evaluating layouts outside a run.
struct ScalarScope {
  Compiler compiler;
  RunOptions options;
  Frame frame{options};
  std::vector<std::pair<Var, Cell>> values;

  explicit ScalarScope(const std::vector<std::pair<Var, ArgValue>> &scalars) {
    for (const auto &[var, value] : scalars)
      values.emplace_back(var, scalarArgCell(value, *var));
    for (const auto &[var, cell] : values)
      compiler.bind(var);
  }
  uint64_t requiredScalars(const Buffer &buffer) {
    BufferLayout layout(compiler, *buffer, buffer->loc);
    frame.env.assign(static_cast<size_t>(compiler.slotCount()), Cell{});
    for (const auto &[var, cell] : values)
      frame.env[static_cast<size_t>(compiler.slotOf(var.get(), var->loc))] = cell;
    return layout.requiredScalars(frame);
  }
};

// A parameter's storage beyond options.maxBufferBytes is refused before anything is allocated
// (a typo in a shape would otherwise end in the OOM killer or std::bad_alloc).
void checkBufferSize(const BufferNode &buffer, uint64_t scalarCount, const RandomArgOptions &options) {
  const uint64_t elementBytes = std::max<uint64_t>(1, (buffer.dtype.element().bits() + 7) / 8);
  const unsigned __int128 bytes = static_cast<unsigned __int128>(scalarCount) * elementBytes;
  if (bytes <= options.maxBufferBytes)
    return;
  const std::string size =
      bytes > std::numeric_limits<uint64_t>::max() ? "more than 2^64" : std::to_string(static_cast<uint64_t>(bytes));
  std::string message = "buffer '" + buffer.name.str() + "' needs " + size +
                        " bytes of storage, more than the limit of " + std::to_string(options.maxBufferBytes) +
                        " bytes";
  if (!options.maxBufferBytesHint.empty())
    message += "; raise it with " + options.maxBufferBytesHint;
  throw CompileError(buffer.loc, message);
}

} // namespace

size_t physicalElementCount(const Buffer &buffer, const std::vector<std::pair<Var, ArgValue>> &scalars) {
  ScalarScope scope(scalars);
  return static_cast<size_t>(scope.requiredScalars(buffer));
}

std::vector<ArgValue> makeRandomArgs(const PrimFunc &func, uint64_t seed, const RandomArgOptions &options) {
  SplitMix64 rng(seed);
  std::vector<ArgValue> args(func->params.size());
  std::vector<std::pair<Var, ArgValue>> scalars;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Var &param = func->params[i];
    if (param->type.isHandle())
      continue;
    auto given = options.scalars.find(param->name.str());
    args[i] = given != options.scalars.end() ? given->second : randomScalar(param->type, rng);
    scalars.emplace_back(param, args[i]);
  }
  ScalarScope scope(scalars);
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Var &param = func->params[i];
    if (!param->type.isHandle())
      continue;
    const Buffer buffer = func->bufferFor(param);
    if (!buffer)
      throw CompileError(param->loc, "parameter '" + param->name.str() +
                                         "' has no buffer, so its storage size is unknown; pass it explicitly");
    const uint64_t scalarCount = scope.requiredScalars(buffer);
    checkBufferSize(*buffer, scalarCount, options);
    auto data = std::make_shared<BufferData>(buffer->dtype.element(), static_cast<size_t>(scalarCount));
    if (options.initialize)
      fillRandom(*data, options, rng);
    args[i] = ArgValue::ofBuffer(std::move(data));
  }
  return args;
}

} // namespace tirlower
