/* The TVM FFI entry called from C with hand-built DLTensors, no Python and no tvm-ffi: linked
   with the C that `tirlower test/ffi/kernels.tir --target=c --abi=tvm-ffi` writes (run by
   c_entry_test.py). This file defines TVMFFIErrorSetRaisedFromCStr, which records the error; the
   ABI structs are declared in ffi_abi.h, as tvm/ffi/c_api.h and dlpack.h lay them out. Each case checks
   the entry's return value, the error's kind and a part of its message; the checks a Python
   caller cannot reach (device, byte_offset, NULL strides, a DLTensor* argument) are here. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ffi_abi.h"

static char raisedKind[64], raisedMessage[1024];
static int raisedCount;
void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message) {
  snprintf(raisedKind, sizeof raisedKind, "%s", kind);
  snprintf(raisedMessage, sizeof raisedMessage, "%s", message);
  ++raisedCount;
}

static int failures, cases;

static Any tensorArg(DLTensor *t) {
  Any a = {kDLTensorPtr, 0, {0}};
  a.v.v_ptr = t;
  return a;
}

/* Calls `entry` and checks it succeeds (kind NULL) or raises `kind` with `fragment`. */
static void expect(const char *name, Entry entry, const Any *args, int32_t count, const char *kind,
                   const char *fragment) {
  ++cases;
  Any result = {-1, 7, {7}};
  raisedKind[0] = raisedMessage[0] = 0;
  raisedCount = 0;
  int rc = entry(NULL, args, count, &result);
  int ok;
  if (!kind)
    ok = rc == 0 && raisedCount == 0 && result.type_index == kNone && result.zero_padding == 0;
  else
    ok = rc == -1 && raisedCount == 1 && strcmp(raisedKind, kind) == 0 && strstr(raisedMessage, fragment) != NULL;
  if (!ok) {
    ++failures;
    printf("FAIL: %s: returned %d, raised %d: %s: %s (expected %s%s%s)\n", name, rc, raisedCount, raisedKind,
           raisedMessage, kind ? kind : "success", kind ? ": " : "", kind ? fragment : "");
  } else {
    printf("ok: %s%s%s\n", name, kind ? " -> " : "", kind ? raisedMessage : "");
  }
}

int main(void) {
  float a[32], b[32], c[32];
  for (int k = 0; k < 32; ++k) {
    a[k] = (float)k;
    b[k] = (float)(100 * k);
    c[k] = -1;
  }
  int64_t shape48[2] = {4, 8}, strides48[2] = {8, 1};
  DLTensor A = {a, 1, 0, 2, {2, 32, 1}, shape48, NULL, 0};
  DLTensor B = {b, 1, 0, 2, {2, 32, 1}, shape48, strides48, 0};
  TensorObject C = {1, kTensor, 0, NULL, {c, 1, 0, 2, {2, 32, 1}, shape48, NULL, 0}};
  Any args[3] = {tensorArg(&A), tensorArg(&B), {kTensor, 0, {0}}};
  args[2].v.v_ptr = &C;

  expect("add_f32 with a DLTensor*, NULL strides and an ffi.Tensor", __tvm_ffi_add_f32, args, 3, NULL, NULL);
  int right = 1;
  for (int k = 0; k < 32; ++k)
    right &= c[k] == a[k] + b[k];
  ++cases;
  if (!right) {
    ++failures;
    printf("FAIL: add_f32 computed the wrong sum\n");
  } else {
    printf("ok: add_f32 computed a + b\n");
  }

  expect("too few arguments", __tvm_ffi_add_f32, args, 2, "TypeError", "expected 3 arguments, got 2");
  expect("too many arguments", __tvm_ffi_add_f32, args, 4, "TypeError", "expected 3 arguments, got 4");

  Any wrongKind[3] = {args[0], {kFloat, 0, {0}}, args[2]};
  expect("a float for a tensor", __tvm_ffi_add_f32, wrongKind, 3, "TypeError",
         "argument #1 'B' must be a tensor (DLTensor* or ffi.Tensor), got float");

  DLTensor gpu = A;
  gpu.device_type = 2;
  Any onGpu[3] = {args[0], tensorArg(&gpu), args[2]};
  expect("a tensor on another device", __tvm_ffi_add_f32, onGpu, 3, "ValueError",
         "argument #1 'B' is on device type 2 (device id 0), expected a CPU tensor (device type 1)");

  DLTensor offset = A;
  offset.byte_offset = 16;
  Any withOffset[3] = {tensorArg(&offset), args[1], args[2]};
  expect("a byte offset", __tvm_ffi_add_f32, withOffset, 3, "ValueError",
         "argument #0 'A' has byte_offset 16, expected 0");

  DLTensor lanes = A;
  lanes.dtype.lanes = 4;
  Any withLanes[3] = {tensorArg(&lanes), args[1], args[2]};
  expect("a vector dtype", __tvm_ffi_add_f32, withLanes, 3, "TypeError",
         "argument #0 'A' has dtype float32x4, expected float32");

  DLTensor integers = A;
  integers.dtype.code = 0;
  Any withIntegers[3] = {args[0], args[1], tensorArg(&integers)};
  expect("an int32 tensor for a float32 one", __tvm_ffi_add_f32, withIntegers, 3, "TypeError",
         "argument #2 'C' has dtype int32, expected float32");

  DLTensor flat = A;
  int64_t shape32[1] = {32};
  flat.ndim = 1;
  flat.shape = shape32;
  Any withFlat[3] = {args[0], args[1], tensorArg(&flat)};
  expect("wrong ndim", __tvm_ffi_add_f32, withFlat, 3, "ValueError", "argument #2 'C' has ndim 1, expected 2");

  DLTensor unaligned = A;
  unaligned.data = (char *)a + 2;
  Any withUnaligned[3] = {tensorArg(&unaligned), args[1], args[2]};
  expect("unaligned data", __tvm_ffi_add_f32, withUnaligned, 3, "ValueError", "not a multiple of 4 bytes");

  int64_t transposed[2] = {1, 4};
  DLTensor columns = A;
  columns.strides = transposed;
  Any withColumns[3] = {args[0], tensorArg(&columns), args[2]};
  expect("strides that are not compact", __tvm_ffi_add_f32, withColumns, 3, "ValueError",
         "argument #1 'B' has strides[0] 1, expected 8 (a compact tensor)");

  /* pair_sum(A: (n, 2), B: (n,)): n bound from A, checked against B. */
  float pairs[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, sums[5] = {0};
  int64_t shape52[2] = {5, 2}, shape5[1] = {5}, shape4[1] = {4};
  DLTensor P = {pairs, 1, 0, 2, {2, 32, 1}, shape52, NULL, 0};
  DLTensor S = {sums, 1, 0, 1, {2, 32, 1}, shape5, NULL, 0};
  Any pairArgs[2] = {tensorArg(&P), tensorArg(&S)};
  expect("pair_sum binds n from A", __tvm_ffi_pair_sum, pairArgs, 2, NULL, NULL);
  ++cases;
  if (sums[0] != 3 || sums[4] != 19) {
    ++failures;
    printf("FAIL: pair_sum computed %g .. %g\n", sums[0], sums[4]);
  } else {
    printf("ok: pair_sum computed the sums\n");
  }
  S.shape = shape4;
  expect("pair_sum with a disagreeing n", __tvm_ffi_pair_sum, pairArgs, 2, "ValueError",
         "argument #1 'B' has shape[0] 4, expected 5 (n, from A.shape[0])");

  /* rows_of_wide: a declared stride (20, 1); NULL strides mean compact, which is not. */
  float wide[60], out[48];
  int64_t shape316[2] = {3, 16}, strides201[2] = {20, 1};
  DLTensor W = {wide, 1, 0, 2, {2, 32, 1}, shape316, strides201, 0};
  DLTensor O = {out, 1, 0, 2, {2, 32, 1}, shape316, NULL, 0};
  for (int k = 0; k < 60; ++k)
    wide[k] = (float)k;
  Any wideArgs[2] = {tensorArg(&W), tensorArg(&O)};
  expect("rows_of_wide with its declared strides", __tvm_ffi_rows_of_wide, wideArgs, 2, NULL, NULL);
  ++cases;
  if (out[16] != 40 || out[47] != 2 * 55) {
    ++failures;
    printf("FAIL: rows_of_wide computed %g, %g\n", out[16], out[47]);
  } else {
    printf("ok: rows_of_wide read the strided rows\n");
  }
  W.strides = NULL;
  expect("rows_of_wide with NULL strides", __tvm_ffi_rows_of_wide, wideArgs, 2, "ValueError",
         "argument #0 'a' has strides[0] 16, expected 20");

  /* checked_scale(A, k: int32): a bool passes as an int; a failed assert is a RuntimeError. */
  float four[4] = {1, 2, 3, 4};
  int64_t shape4b[1] = {4};
  DLTensor F = {four, 1, 0, 1, {2, 32, 1}, shape4b, NULL, 0};
  Any scaleArgs[2] = {tensorArg(&F), {kInt, 0, {0}}};
  scaleArgs[1].v.v_int64 = 2;
  expect("checked_scale with k = 2", __tvm_ffi_checked_scale, scaleArgs, 2, NULL, NULL);
  scaleArgs[1].type_index = kBool;
  scaleArgs[1].v.v_int64 = 1;
  expect("checked_scale with k = True", __tvm_ffi_checked_scale, scaleArgs, 2, NULL, NULL);
  ++cases;
  if (four[3] != 8) {
    ++failures;
    printf("FAIL: checked_scale computed %g\n", four[3]);
  } else {
    printf("ok: checked_scale scaled\n");
  }
  scaleArgs[1].type_index = kInt;
  scaleArgs[1].v.v_int64 = -3;
  expect("checked_scale with k = -3", __tvm_ffi_checked_scale, scaleArgs, 2, "RuntimeError", "k must be positive");
  scaleArgs[1].type_index = kNone;
  expect("checked_scale with k = None", __tvm_ffi_checked_scale, scaleArgs, 2, "TypeError",
         "argument #1 'k' must be an int (int32), got None");

  printf("%d passed, %d failed\n", cases - failures, failures);
  return failures ? 1 : 0;
}
