// The built-in passes, one per file; registry.cpp lists them in one place.
#pragma once

#include "transform/pass.h"

namespace tirlower {

PassInfo verifyPassInfo();                // verify.cpp
PassInfo applyLayoutTransformsPassInfo(); // apply_layout_transforms.cpp
PassInfo flattenPassInfo();               // flatten.cpp
PassInfo simplifyPassInfo();              // simplify.cpp
PassInfo removeNoOpPassInfo();            // remove_no_op.cpp
PassInfo convertSSAPassInfo();            // convert_ssa.cpp
PassInfo vectorizePassInfo();             // vectorize.cpp
PassInfo tileCopiesPassInfo();            // tile_copies.cpp
PassInfo collapseLoopsPassInfo();         // collapse_loops.cpp
PassInfo partitionLoopsPassInfo();        // partition_loops.cpp
PassInfo unrollPassInfo();                // unroll.cpp
PassInfo vectorTypeRewritePassInfo();     // vector_type_rewrite.cpp
PassInfo lowerVectorAccessPassInfo();     // lower_vector_access.cpp
PassInfo verifyLayoutsPassInfo();         // verify_layouts.cpp
PassInfo legalizeLayoutsPassInfo();       // legalize_layouts.cpp
PassInfo lowerInitBlockPassInfo();        // lower_init_block.cpp
PassInfo hoistReductionInitPassInfo();    // hoist_reduction_init.cpp
PassInfo outerLoopVectorizePassInfo();    // outer_loop_vectorize.cpp
PassInfo convertBlocksToOpaquePassInfo(); // convert_blocks_to_opaque.cpp
PassInfo lowerMatchBufferPassInfo();      // lower_match_buffer.cpp
PassInfo lowerOpaqueBlockPassInfo();      // lower_opaque_block.cpp
PassInfo compactBufferAllocationPassInfo(); // compact_buffer_allocation.cpp
PassInfo lowerCrossThreadReductionPassInfo(); // lower_cross_thread_reduction.cpp
PassInfo lowerThreadBindingPassInfo();    // lower_thread_binding.cpp
PassInfo lowerThreadAllreducePassInfo();  // lower_thread_allreduce.cpp
PassInfo threadSyncPassInfo();            // thread_sync.cpp

} // namespace tirlower
