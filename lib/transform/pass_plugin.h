// Pass plugins: a shared library that `tirlower --load-pass-plugin=lib.so` loads to add passes
// of its own to the tool's registry, beside the product's passes (docs/cli.md, "Pass plugins").
// A plugin defines both symbols below with C linkage:
//
//   #include "transform/pass_plugin.h"
//   extern "C" const int tirlower_plugin_api_version = TIRLOWER_PLUGIN_API_VERSION;
//   extern "C" void tirlower_register_passes(tirlower::PassRegistry *registry) {
//     registry->add(myPassInfo()); // a PassInfo as in lib/transform/registry.cpp
//   }
//
// Build it against the installed headers without linking libtirlower (the tool exports its
// symbols to the plugin, so both share one copy of the IR's global state):
//   c++ -std=c++20 -shared -fPIC my_pass.cpp $(pkg-config --cflags tirlower) -o my_pass.so
#pragma once

#include "transform/pass.h"

// Raised when the PassInfo, Pass or IR classes change incompatibly; the tool refuses a plugin
// built for another version. 2: options are typed (PassOptionInfo, transform/pass_options.h).
// 3: a text option's check returns what is wrong instead of throwing; PassRegistry::add
// records a taken name in conflicts() instead of throwing. 4: Pass::runOnFunction and
// PassInfo::functionLocal (--threads); IR nodes' reference counts are atomic. 5: PassContext
// holds the sink and remarks only; an option may be given by a tool flag (PassOptionInfo::flag).
// 6: a pass is function-local by being a FunctionPass (PassInfo::functionLocal is gone).
#define TIRLOWER_PLUGIN_API_VERSION 6

extern "C" {
// TIRLOWER_PLUGIN_API_VERSION as the plugin saw it when it was built.
extern const int tirlower_plugin_api_version;
// Adds the plugin's passes. A name (or alias) that is already registered is an error.
void tirlower_register_passes(tirlower::PassRegistry *registry);
}
