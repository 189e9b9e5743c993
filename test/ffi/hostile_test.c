/* A fuzz test of the TVM FFI entry with random and hostile arguments: linked with the C (or
   object) that `tirlower test/ffi/kernels.tir --abi=tvm-ffi` writes, run by c_entry_test.py
   with AddressSanitizer and UndefinedBehaviorSanitizer where the compiler has them.

   Each round builds a valid call of one of the kernels over buffers allocated to their exact
   size, then damages it at random: the argument count, an argument's kind, a null object, a
   null or misaligned data pointer, ndim (0, 64, negative), a null shape, extents that are
   negative, zero, smaller, or whose size overflows (int64 or the kernel's int32), strides that
   overflow or are NULL, byte_offset, the device, the dtype, scalars out of their type's range.
   The entry must either raise exactly one error of a kind tvm-ffi knows and return -1, or
   succeed and compute what the arguments, as given, say (checked against a reference here).
   It must never crash, read or write outside the buffers, or exit 0 on a wrong call.

   Usage: hostile_test [ROUNDS [SEED]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi_abi.h"

static char raisedKind[64];
static char raisedMessage[1024];
static int raisedCount;
void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message) {
  snprintf(raisedKind, sizeof raisedKind, "%s", kind);
  snprintf(raisedMessage, sizeof raisedMessage, "%s", message);
  ++raisedCount;
}

/* splitmix64: the same rounds for the same seed on every machine. */
static uint64_t state;
static uint64_t next(void) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int below(int n) { return (int)(next() % (uint64_t)n); }

/* Extents, strides and scalars a hostile caller passes. */
static const int64_t hostile[] = {INT64_MIN, INT64_MIN + 1, -4294967296, -2147483649, -2147483648, -3, -1, 0,
                                  2147483648, 4294967297, (int64_t)1 << 61, (int64_t)1 << 62, INT64_MAX - 1,
                                  INT64_MAX};
static int64_t hostileValue(void) { return hostile[below((int)(sizeof hostile / sizeof hostile[0]))]; }

/* One tensor argument: its DLTensor (passed as a DLTensor* or inside a Tensor object), shape and
   strides arrays long enough for any ndim the fuzzer sets, and the buffer it was built over. */
typedef struct {
  TensorObject object;
  int64_t shape[64], strides[64];
  void *buffer;
  size_t bytes;
  int asObject;
} Tensor;

static void makeTensor(Tensor *t, DataType dtype, int ndim, const int64_t *shape, const int64_t *strides) {
  memset(t, 0, sizeof *t);
  int64_t elements = 1;
  for (int k = 0; k < ndim; ++k) {
    t->shape[k] = shape[k];
    t->strides[k] = strides ? strides[k] : 0;
  }
  if (strides) { /* the elements the strides reach */
    elements = 1;
    for (int k = 0; k < ndim; ++k)
      elements += (shape[k] - 1) * strides[k];
  } else {
    for (int k = 0; k < ndim; ++k)
      elements *= shape[k];
  }
  t->bytes = (size_t)elements * dtype.bits / 8;
  t->buffer = malloc(t->bytes ? t->bytes : 1);
  for (size_t k = 0; k < t->bytes; ++k)
    ((unsigned char *)t->buffer)[k] = (unsigned char)next();
  if (dtype.code == 2) /* finite floats: small integers */
    for (size_t k = 0; k < t->bytes / 4; ++k)
      ((float *)t->buffer)[k] = (float)(below(200) - 100);
  DLTensor d = {t->buffer, 1, 0, ndim, dtype, t->shape, strides ? t->strides : NULL, 0};
  t->object.combined_ref_count = 1;
  t->object.type_index = kTensor;
  t->object.tensor = d;
  t->asObject = below(2);
}
static DLTensor *dl(Tensor *t) { return &t->object.tensor; }
static Any tensorArg(Tensor *t) {
  Any a = {t->asObject ? kTensor : kDLTensorPtr, 0, {0}};
  a.v.v_ptr = t->asObject ? (void *)&t->object : (void *)dl(t);
  return a;
}

/* Damages tensor argument `arg` (built over `t`) one way. */
static void damageTensor(Any *arg, Tensor *t) {
  DLTensor *d = dl(t);
  switch (below(12)) {
  case 0:
    arg->v.v_ptr = NULL;
    break;
  case 1:
    d->data = NULL;
    break;
  case 2: /* misaligned (moving an int8 tensor's data would only lie about its buffer) */
    if (d->dtype.bits > 8 && d->data)
      d->data = (char *)t->buffer + 1 + below(d->dtype.bits / 8 - 1);
    break;
  case 3: {
    static const int32_t ndims[] = {-1, 0, 1, 2, 3, 64, INT32_MIN, INT32_MAX};
    d->ndim = ndims[below(8)];
    break;
  }
  case 4:
    d->shape = NULL;
    break;
  case 5:
  case 6: {
    /* an extent: hostile, or smaller than the buffer's (a correct call over less) */
    int axis = below(d->ndim > 0 && d->ndim <= 64 ? d->ndim : 1);
    if (below(2))
      t->shape[axis] = hostileValue();
    else if (t->shape[axis] > 0 && t->shape[axis] <= 64)
      t->shape[axis] = below((int)t->shape[axis]);
    break;
  }
  case 7:
    if (d->strides && below(2)) {
      d->strides = NULL;
    } else {
      d->strides = t->strides;
      for (int k = 0; k < d->ndim && k < 64; ++k)
        t->strides[k] = below(3) ? hostileValue() : t->strides[k];
    }
    break;
  case 8: {
    static const uint64_t offsets[] = {1, 4, 64, (uint64_t)1 << 63, UINT64_MAX};
    d->byte_offset = offsets[below(5)];
    break;
  }
  case 9:
    d->device_type = below(2) ? 2 : -1 - below(1000);
    d->device_id = (int32_t)next();
    break;
  case 10:
    d->dtype.code = (uint8_t)below(8);
    d->dtype.bits = (uint8_t)(8 << below(4));
    d->dtype.lanes = (uint16_t)(below(2) ? 1 : next());
    break;
  case 11: {
    static const int32_t kinds[] = {kNone, kInt, kBool, kFloat, kOpaque, 8, 64, 69, 71, 1000, -1};
    arg->type_index = kinds[below(11)];
    break;
  }
  }
}

static int failures, rounds, raisedRounds;

static void fail(int round, const char *kernel, const char *what) {
  ++failures;
  if (failures <= 20)
    printf("FAIL: round %d (%s): %s [%s: %s]\n", round, kernel, what, raisedKind, raisedMessage);
}

/* Calls the entry and checks the protocol: 0 with no error and a None result, or -1 with exactly
   one error of a known kind. Returns 1 when the call succeeded. */
static int verbose;
static void show(const char *kernel, int round, const Any *args, int32_t count, int n) {
  printf("round %d: %s, %d arguments\n", round, kernel, (int)count);
  for (int k = 0; k < n; ++k) {
    printf("  #%d: type %d", k, (int)args[k].type_index);
    const DLTensor *d = NULL;
    if (args[k].type_index == kDLTensorPtr && args[k].v.v_ptr)
      d = args[k].v.v_ptr;
    else if (args[k].type_index == kTensor && args[k].v.v_ptr)
      d = &((const TensorObject *)args[k].v.v_ptr)->tensor;
    else
      printf(" value %lld", (long long)args[k].v.v_int64);
    if (d) {
      printf(" data %p ndim %d dtype %d.%d.%d device %d shape", d->data, (int)d->ndim, d->dtype.code, d->dtype.bits,
             d->dtype.lanes, (int)d->device_type);
      for (int a = 0; d->shape && a < d->ndim && a < 4; ++a)
        printf(" %lld", (long long)d->shape[a]);
      printf(" strides");
      for (int a = 0; d->strides && a < d->ndim && a < 4; ++a)
        printf(" %lld", (long long)d->strides[a]);
      printf(" offset %llu", (unsigned long long)d->byte_offset);
    }
    printf("\n");
  }
  fflush(stdout);
}

static int call(int round, const char *kernel, Entry entry, Any *args, int32_t count, int n) {
  if (verbose)
    show(kernel, round, args, count, n);
  Any result = {-1, 7, {7}};
  raisedKind[0] = raisedMessage[0] = 0;
  raisedCount = 0;
  int rc = entry(NULL, args, count, &result);
  if (rc == 0) {
    if (raisedCount != 0 || result.type_index != kNone || result.zero_padding != 0)
      fail(round, kernel, "returned 0 but raised an error or set no None result");
    return 1;
  }
  ++raisedRounds;
  if (rc != -1 || raisedCount != 1)
    fail(round, kernel, "an error returned other than -1 or raised other than one error");
  else if (strcmp(raisedKind, "TypeError") && strcmp(raisedKind, "ValueError") && strcmp(raisedKind, "RuntimeError") &&
           strcmp(raisedKind, "MemoryError"))
    fail(round, kernel, "raised an error of an unknown kind");
  else if (!raisedMessage[0])
    fail(round, kernel, "raised an empty message");
  return 0;
}

/* The arguments count: mostly right, sometimes not. */
static int32_t damagedCount(int32_t count) {
  if (below(16))
    return count;
  static const int32_t counts[] = {-1, 0, 1, 2, 3, 4, INT32_MIN};
  return counts[below(7)];
}

/* Damages 0-3 of the `n` arguments (the scalars by `scalar`). */
static void damage(Any *args, Tensor **tensors, int n, void (*scalar)(Any *)) {
  int times = below(4);
  for (int k = 0; k < times; ++k) {
    int which = below(n);
    if (tensors[which])
      damageTensor(&args[which], tensors[which]);
    else
      scalar(&args[which]);
  }
}

static void damageInt(Any *arg) {
  if (below(3) == 0)
    arg->type_index = below(2) ? kFloat : kNone;
  else
    arg->v.v_int64 = hostileValue();
}

static void freeTensors(Tensor *t, int n) {
  for (int k = 0; k < n; ++k)
    free(t[k].buffer);
}

/* add_f32(A, B, C: (4, 8) float32): C = A + B. */
static void roundAdd(int round) {
  static const DataType f32 = {2, 32, 1};
  const int64_t shape[2] = {4, 8}, strides[2] = {8, 1};
  Tensor t[3];
  for (int k = 0; k < 3; ++k)
    makeTensor(&t[k], f32, 2, shape, below(2) ? strides : NULL);
  Any args[3] = {tensorArg(&t[0]), tensorArg(&t[1]), tensorArg(&t[2])};
  Tensor *tensors[3] = {&t[0], &t[1], &t[2]};
  damage(args, tensors, 3, damageInt);
  if (call(round, "add_f32", __tvm_ffi_add_f32, args, damagedCount(3), 3)) {
    const float *a = t[0].buffer, *b = t[1].buffer, *c = t[2].buffer;
    for (int k = 0; k < 32; ++k)
      if (c[k] != a[k] + b[k]) {
        fail(round, "add_f32", "succeeded with a wrong sum");
        break;
      }
  }
  freeTensors(t, 3);
}

/* pair_sum(A: (n, 2), B: (n,) float32): B[i] = A[i, 0] + A[i, 1], n bound from A. */
static void roundPairSum(int round) {
  static const DataType f32 = {2, 32, 1};
  int64_t n = 1 + below(9);
  const int64_t shapeA[2] = {n, 2}, shapeB[1] = {n};
  Tensor t[2];
  makeTensor(&t[0], f32, 2, shapeA, NULL);
  makeTensor(&t[1], f32, 1, shapeB, NULL);
  float before[16];
  memcpy(before, t[1].buffer, (size_t)n * 4);
  Any args[2] = {tensorArg(&t[0]), tensorArg(&t[1])};
  Tensor *tensors[2] = {&t[0], &t[1]};
  damage(args, tensors, 2, damageInt);
  if (call(round, "pair_sum", __tvm_ffi_pair_sum, args, damagedCount(2), 2)) {
    const float *a = t[0].buffer, *b = t[1].buffer;
    int64_t m = t[0].shape[0];
    for (int64_t i = 0; i < n; ++i)
      if (b[i] != (i < m ? a[2 * i] + a[2 * i + 1] : before[i])) {
        fail(round, "pair_sum", "succeeded with wrong sums");
        break;
      }
  }
  freeTensors(t, 2);
}

/* dot_i8(A: (n, 8) int8, W: (8,) int8, C: (n,) int32): C[i] = sum_k A[i, k] * W[k]. */
static void roundDot(int round) {
  static const DataType i8 = {0, 8, 1}, i32 = {0, 32, 1};
  int64_t n = 1 + below(9);
  const int64_t shapeA[2] = {n, 8}, shapeW[1] = {8}, shapeC[1] = {n};
  Tensor t[3];
  makeTensor(&t[0], i8, 2, shapeA, NULL);
  makeTensor(&t[1], i8, 1, shapeW, NULL);
  makeTensor(&t[2], i32, 1, shapeC, NULL);
  int32_t before[16];
  memcpy(before, t[2].buffer, (size_t)n * 4);
  Any args[3] = {tensorArg(&t[0]), tensorArg(&t[1]), tensorArg(&t[2])};
  Tensor *tensors[3] = {&t[0], &t[1], &t[2]};
  damage(args, tensors, 3, damageInt);
  if (call(round, "dot_i8", __tvm_ffi_dot_i8, args, damagedCount(3), 3)) {
    const int8_t *a = t[0].buffer, *w = t[1].buffer;
    const int32_t *c = t[2].buffer;
    int64_t m = t[0].shape[0];
    for (int64_t i = 0; i < n; ++i) {
      int32_t sum = 0;
      for (int k = 0; k < 8; ++k)
        sum += (int32_t)a[8 * i + k] * (int32_t)w[k];
      if (c[i] != (i < m ? sum : before[i])) {
        fail(round, "dot_i8", "succeeded with wrong sums");
        break;
      }
    }
  }
  freeTensors(t, 3);
}

/* rows_of_wide(a: (3, 16) strides (20, 1), b: (3, 16) float32): b = 2 a. */
static void roundRows(int round) {
  static const DataType f32 = {2, 32, 1};
  const int64_t shape[2] = {3, 16}, wide[2] = {20, 1};
  Tensor t[2];
  makeTensor(&t[0], f32, 2, shape, wide);
  makeTensor(&t[1], f32, 2, shape, NULL);
  Any args[2] = {tensorArg(&t[0]), tensorArg(&t[1])};
  Tensor *tensors[2] = {&t[0], &t[1]};
  damage(args, tensors, 2, damageInt);
  if (call(round, "rows_of_wide", __tvm_ffi_rows_of_wide, args, damagedCount(2), 2)) {
    const float *a = t[0].buffer, *b = t[1].buffer;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 16; ++j)
        if (b[16 * i + j] != 2 * a[20 * i + j]) {
          fail(round, "rows_of_wide", "succeeded with wrong rows");
          i = 3;
          break;
        }
  }
  freeTensors(t, 2);
}

/* checked_scale(A: (4,) float32, k: int32): asserts k > 0, then A *= k. */
static void roundScale(int round) {
  static const DataType f32 = {2, 32, 1};
  const int64_t shape[1] = {4};
  Tensor t[1];
  makeTensor(&t[0], f32, 1, shape, NULL);
  float before[4];
  memcpy(before, t[0].buffer, 16);
  Any args[2] = {tensorArg(&t[0]), {kInt, 0, {0}}};
  args[1].v.v_int64 = 1 + below(5);
  Tensor *tensors[2] = {&t[0], NULL};
  damage(args, tensors, 2, damageInt);
  if (call(round, "checked_scale", __tvm_ffi_checked_scale, args, damagedCount(2), 2)) {
    const float *a = t[0].buffer;
    int64_t k = args[1].v.v_int64;
    if (k <= 0 || k > INT32_MAX) {
      fail(round, "checked_scale", "succeeded with k out of int32 or not positive");
    } else {
      for (int i = 0; i < 4; ++i)
        if (a[i] != before[i] * (float)(int32_t)k) {
          fail(round, "checked_scale", "succeeded with wrong products");
          break;
        }
    }
  }
  freeTensors(t, 1);
}

int main(int argc, char **argv) {
  int count = argc > 1 ? atoi(argv[1]) : 20000;
  state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  verbose = getenv("HOSTILE_VERBOSE") != NULL;
  void (*kinds[])(int) = {roundAdd, roundPairSum, roundDot, roundRows, roundScale};
  for (rounds = 0; rounds < count; ++rounds)
    kinds[below(5)](rounds);
  printf("%d rounds (seed %s): %d raised an error, %d succeeded; %d failed\n", rounds, argc > 2 ? argv[2] : "1",
         raisedRounds, rounds - raisedRounds, failures);
  /* A fuzzer that never gets through, or never gets rejected, tests nothing. */
  if (raisedRounds < rounds / 4 || rounds - raisedRounds < rounds / 10) {
    printf("FAIL: the rounds are not a mix of rejected and accepted calls\n");
    return 1;
  }
  return failures ? 1 : 0;
}
