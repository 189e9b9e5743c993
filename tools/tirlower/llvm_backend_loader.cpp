// Finding and opening tirlower-llvm.so: the tool itself does not link libLLVM (relocating it is
// most of a small --target=c run's CPU), so the LLVM emitter lives in a shared module opened
// with dlopen only when --target=llvm or an LLVM --emit is asked for. The module resolves the
// IR's symbols against the executable (linked with --export-dynamic, as for pass plugins).
#include "llvm_backend_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

#ifndef TIRLOWER_LLVM_BACKEND_RELPATH
#define TIRLOWER_LLVM_BACKEND_RELPATH "../lib/tirlower/tirlower-llvm.so"
#endif

namespace tirlower {

namespace {

std::string executableDirectory() {
  std::vector<char> buffer(4096);
  ssize_t length = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (length <= 0)
    return "";
  std::string path(buffer.data(), static_cast<size_t>(length));
  return path.substr(0, path.rfind('/'));
}

// Where the module may be, in the order tried.
std::vector<std::string> candidatePaths() {
  if (const char *explicitPath = std::getenv("TIRLOWER_LLVM_BACKEND"); explicitPath && *explicitPath)
    return {explicitPath};
  std::string directory = executableDirectory();
  if (directory.empty())
    return {};
  const std::string installed = TIRLOWER_LLVM_BACKEND_RELPATH; // absolute when bindir or libdir is
  return {directory + "/tirlower-llvm.so", installed[0] == '/' ? installed : directory + "/" + installed};
}

struct Loaded {
  const LLVMBackend *backend = nullptr;
  std::string error;
};

Loaded load() {
  std::vector<std::string> paths = candidatePaths();
  std::string tried;
  for (const std::string &path : paths) {
    if (::access(path.c_str(), F_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return {nullptr, "cannot load the LLVM backend " + path + ": " + ::dlerror()};
    using Entry = const LLVMBackend *(*)();
    auto entry = reinterpret_cast<Entry>(::dlsym(handle, kLLVMBackendEntry));
    const LLVMBackend *backend = entry ? entry() : nullptr;
    if (!backend)
      return {nullptr, "the LLVM backend " + path + " has no " + kLLVMBackendEntry};
    if (backend->interfaceVersion != kLLVMBackendInterface || backend->optionsSize != sizeof(LLVMEmitOptions))
      return {nullptr, "the LLVM backend " + path + " belongs to another build of tirlower; reinstall tirlower"};
    return {backend, ""};
  }
  return {nullptr, "the LLVM backend (tirlower-llvm.so) is not installed: looked for " +
                       (tried.empty() ? std::string("it beside the executable") : tried) +
                       "; reinstall tirlower, or set TIRLOWER_LLVM_BACKEND to its path"};
}

const Loaded &loaded() {
  static std::once_flag once;
  static Loaded result;
  std::call_once(once, [] { result = load(); });
  return result;
}

} // namespace

const LLVMBackend *loadLLVMBackend(std::string &error) {
  const Loaded &result = loaded();
  error = result.error;
  return result.backend;
}

const LLVMBackend &llvmBackend() {
  const Loaded &result = loaded();
  if (!result.backend)
    throw std::runtime_error(result.error);
  return *result.backend;
}

} // namespace tirlower
