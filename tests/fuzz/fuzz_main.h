/*
 * fuzz_main.h - the two entry points every fuzz target in this folder shares, around its own
 *
 *   static const char* fuzz_exercise(const uint8_t* data, size_t size);
 *
 * which runs one input and returns NULL, or a description of the promise of ctorch.h it saw
 * broken. LLVMFuzzerTestOneInput aborts on a broken promise, so libFuzzer saves the input. Built
 * with CTORCH_FUZZ_REPLAY (any compiler), main() runs fuzz_exercise once over each file named on
 * the command line and prints one line "N passed, M failed": CTest replays the checked-in corpus
 * that way. Define FUZZ_NAME (the target's name, for messages) before including it.
 */
#ifndef CTORCH_FUZZ_MAIN_H
#define CTORCH_FUZZ_MAIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctorch.h"

static const char* fuzz_exercise(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* problem = fuzz_exercise(data, size);
  if (problem) {
    fprintf(stderr, "%s: %s [last error: %s]\n", FUZZ_NAME, problem, ct_last_error());
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
    const char* problem = fuzz_exercise(buf, size);
    free(buf);
    if (problem) printf("%s: %s [last error: %s]\n", argv[i], problem, ct_last_error());
    problem ? ++failed : ++passed;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0 || passed == 0;
}
#endif

#endif /* CTORCH_FUZZ_MAIN_H */
