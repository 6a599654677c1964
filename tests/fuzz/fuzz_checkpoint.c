/*
 * fuzz_checkpoint.c - a libFuzzer target over ct_checkpoint_open_buffer and everything an opened
 * checkpoint offers (checkpoint_exercise.h). Build it with CTORCH_BUILD_FUZZERS=ON and clang
 * (docs/checkpoints.md, "Fuzzing"), then:
 *
 *   ./build-fuzz/tests/fuzz/fuzz_checkpoint tests/fuzz/corpus/checkpoint -max_total_time=600
 *
 * Built with CTORCH_FUZZ_REPLAY (any compiler), main() runs the same entry point once over each
 * file named on the command line: CTest replays the checked-in corpus that way (fuzz_main.h).
 */
#include "checkpoint_exercise.h"

#define FUZZ_NAME "fuzz_checkpoint"
#include "fuzz_main.h"

static const char* fuzz_exercise(const uint8_t* data, size_t size) { return exercise_checkpoint(data, size); }
