// A host's use of symbolic_launch.tir's --emit=launch-h header (included with -include): the
// launch sizes for several n.
#include <stdio.h>

int main(void) {
  long long ns[] = {0, 1, 7, 33};
  for (int k = 0; k < 4; ++k) {
    size_t global[3] = {0, 0, 0}, local[3] = {0, 0, 0};
    int rc = tl_launch_rows(2.5f, ns[k], global, local);
    printf("n=%lld rc=%d global %zu %zu %zu local %zu %zu %zu\n", ns[k], rc, global[0], global[1], global[2], local[0],
           local[1], local[2]);
  }
  size_t global[3], local[3];
  int rc = tl_launch_grid(5, 40, global, local);
  printf("grid rc=%d global %zu %zu %zu\n", rc, global[0], global[1], global[2]);
  return 0;
}
