#include "pass_plugins.h"

#include <dlfcn.h>

#include <stdexcept>

#include "transform/pass_plugin.h"

namespace tirlower {

namespace {
PassRegistry &registry() {
  static PassRegistry tool = PassRegistry::builtin();
  return tool;
}
} // namespace

const PassRegistry &toolPassRegistry() {
  return registry();
}

std::string loadPassPlugins(const std::vector<std::string> &paths) {
  for (const std::string &path : paths) {
    std::string where = "--load-pass-plugin=" + path + ": ";
    // dlopen searches the library path for a bare name; a plugin is named by its file.
    std::string file = path.find('/') == std::string::npos ? "./" + path : path;
    // The handle stays open: the passes' code lives in the library until the process exits.
    void *handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return where + "cannot load the plugin: " + ::dlerror();
    const auto *version = static_cast<const int *>(::dlsym(handle, "tirlower_plugin_api_version"));
    auto *registerPasses = reinterpret_cast<void (*)(PassRegistry *)>(::dlsym(handle, "tirlower_register_passes"));
    if (!version || !registerPasses)
      return where + "not a tirlower pass plugin: it does not define '" +
             (version ? "tirlower_register_passes" : "tirlower_plugin_api_version") + "' (see transform/pass_plugin.h)";
    if (*version != TIRLOWER_PLUGIN_API_VERSION)
      return where + "the plugin was built for plugin API version " + std::to_string(*version) +
             ", this tirlower has version " + std::to_string(TIRLOWER_PLUGIN_API_VERSION) + "; rebuild it";
    size_t conflicts = registry().conflicts().size();
    // The plugin's own code: an exception it throws is its failure, reported here.
    try {
      registerPasses(&registry());
    } catch (const std::exception &e) {
      return where + "registering its passes failed: " + e.what();
    }
    if (registry().conflicts().size() > conflicts)
      return where + "registering its passes failed: " + registry().conflicts()[conflicts];
  }
  return "";
}

} // namespace tirlower
