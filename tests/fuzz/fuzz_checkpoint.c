/*
 * fuzz_checkpoint.c - a libFuzzer target over ct_checkpoint_open_buffer and everything an opened
 * checkpoint offers (checkpoint_exercise.h). Build it with CTORCH_BUILD_FUZZERS=ON and clang
 * (docs/checkpoints.md, "Fuzzing"), then:
 *
 *   ./build-fuzz/tests/fuzz/fuzz_checkpoint tests/fuzz/corpus/checkpoint -max_total_time=600
 *
 * Built with CTORCH_FUZZ_REPLAY (any compiler), main() runs the same entry point once over each
 * file named on the command line: CTest replays the checked-in corpus that way.
 */
#include <stdio.h>

#include "checkpoint_exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* problem = exercise_checkpoint(data, size);
  if (problem) {
    fprintf(stderr, "fuzz_checkpoint: %s [last error: %s]\n", problem, ct_last_error());
    abort(); /* libFuzzer saves the input that broke a promise */
  }
  return 0;
}

#ifdef CTORCH_FUZZ_REPLAY
int main(int argc, char** argv) {
  int passed = 0, failed = 0;
  for (int i = 1; i < argc; ++i) {
    FILE* f = fopen(argv[i], "rb");
    if (!f) {
      printf("%s: cannot open\n", argv[i]);
      ++failed;
      continue;
    }
    uint8_t* buf = NULL;
    size_t size = 0, cap = 0, got;
    do {
      if (size == cap) buf = realloc(buf, cap = cap ? 2 * cap : 4096);
      got = fread(buf + size, 1, cap - size, f);
      size += got;
    } while (got > 0);
    fclose(f);
    const char* problem = exercise_checkpoint(buf, size);
    free(buf);
    if (problem) printf("%s: %s [last error: %s]\n", argv[i], problem, ct_last_error());
    problem ? ++failed : ++passed;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0 || passed == 0;
}
#endif
