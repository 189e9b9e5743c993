/* The TVM FFI ABI as test/ffi's C programs call it, declared here (no tvm-ffi or DLPack
   headers): tvm/ffi/c_api.h's TVMFFIAny and Tensor object, dlpack.h's DLTensor, the type
   indices the entries take, and the entries of test/ffi/kernels.tir. */
#ifndef TIRLOWER_TEST_FFI_ABI_H
#define TIRLOWER_TEST_FFI_ABI_H

#include <stdint.h>

typedef struct {
  int32_t type_index;
  uint32_t zero_padding;
  union {
    int64_t v_int64;
    double v_float64;
    void *v_ptr;
  } v;
} Any;
typedef struct {
  uint8_t code, bits;
  uint16_t lanes;
} DataType;
typedef struct {
  void *data;
  int32_t device_type, device_id;
  int32_t ndim;
  DataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;
/* A tvm-ffi Tensor object: the 24-byte object header, then the DLTensor. */
typedef struct {
  uint64_t combined_ref_count;
  int32_t type_index;
  uint32_t padding;
  void *deleter;
  DLTensor tensor;
} TensorObject;

enum { kNone = 0, kInt = 1, kBool = 2, kFloat = 3, kOpaque = 4, kDLTensorPtr = 7, kTensor = 70 };

typedef int (*Entry)(void *, const Any *, int32_t, Any *);
int __tvm_ffi_add_f32(void *, const Any *, int32_t, Any *);
int __tvm_ffi_pair_sum(void *, const Any *, int32_t, Any *);
int __tvm_ffi_dot_i8(void *, const Any *, int32_t, Any *);
int __tvm_ffi_rows_of_wide(void *, const Any *, int32_t, Any *);
int __tvm_ffi_checked_scale(void *, const Any *, int32_t, Any *);

/* tvm-ffi's, defined by each test program: records the error the entry raises. */
void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message);

#endif
