# run_fuzzer.cmake - the fuzz.<name>.run tests: runs the libFuzzer binary FUZZER for SECONDS over a
# fresh copy (SCRATCH/corpus) of the seed corpus SEEDS, with crash files going to SCRATCH/, and
# fails when it reports anything. -print_final_stats=1 prints the number of executions. The
# malloc limit is above what the test's ASAN_OPTIONS lets one allocation have, so a huge request
# reaches the library as a failed allocation and the RSS limit bounds the rest.
#   cmake -DFUZZER=... -DSEEDS=... -DSCRATCH=... -DSECONDS=60 -DSEED=1 -P run_fuzzer.cmake
# SEED 0 draws a new seed for this run and prints it, so every CI run explores further and a
# finding can be replayed; a failure also prints the input that failed, in hex, so the CI log alone
# reproduces it (docs/reliability.md, "Fuzzing").
foreach(v FUZZER SEEDS SCRATCH SECONDS SEED)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_fuzzer.cmake: set -D${v}=...")
  endif()
endforeach()
if(SEED EQUAL 0)  # at most 9 digits: libFuzzer keeps a seed's low 32 bits, so the replay hint holds
  string(RANDOM LENGTH 8 ALPHABET 0123456789 SEED)
  string(REGEX REPLACE "^0+" "" SEED "${SEED}1")  # no leading zero, never 0
endif()
message(STATUS "${FUZZER}: seed ${SEED} (replay this run with -seed=${SEED}, or CTORCH_FUZZ_SEED=${SEED})")
file(REMOVE_RECURSE ${SCRATCH}/corpus)
file(MAKE_DIRECTORY ${SCRATCH})
file(COPY ${SEEDS}/ DESTINATION ${SCRATCH}/corpus)
# The log goes to a file, not to CTest: a CI excerpt of the output is short, and libFuzzer's
# progress lines would push out the report that matters. What is printed is the log's last lines:
# the final statistics, or the sanitizer's report and the promise of ctorch.h that was broken.
execute_process(
  COMMAND ${FUZZER} ${SCRATCH}/corpus -max_total_time=${SECONDS} -seed=${SEED} -timeout=10 -rss_limit_mb=2048
          -malloc_limit_mb=4096 -print_final_stats=1 -artifact_prefix=${SCRATCH}/
  OUTPUT_FILE ${SCRATCH}/fuzzer.log ERROR_FILE ${SCRATCH}/fuzzer.log
  RESULT_VARIABLE rc)
# (tail, not file(STRINGS): libFuzzer's lines hold unbalanced brackets, which CMake lists mangle)
execute_process(COMMAND tail -n 40 ${SCRATCH}/fuzzer.log OUTPUT_VARIABLE last)
message(STATUS "the last lines of ${SCRATCH}/fuzzer.log:\n${last}")
if(NOT rc EQUAL 0)
  # What went wrong, in a few lines: the broken promise, the sanitizer's or libFuzzer's verdict.
  execute_process(COMMAND grep -E "^(fuzz_[a-z_]+: |==[0-9]+==.*ERROR|SUMMARY: |ERROR: libFuzzer|.*Sanitizer)"
                          ${SCRATCH}/fuzzer.log OUTPUT_VARIABLE verdict)
  message(STATUS "verdict:\n${verdict}")
  file(GLOB findings ${SCRATCH}/crash-* ${SCRATCH}/leak-* ${SCRATCH}/timeout-* ${SCRATCH}/oom-* ${SCRATCH}/slow-unit-*)
  foreach(f ${findings})
    file(READ ${f} bytes HEX)
    message(STATUS "input ${f} (hex; xxd -r -p turns it back into the file): ${bytes}")
  endforeach()
  message(FATAL_ERROR "${FUZZER} found a problem (exit ${rc}) with seed ${SEED}; the input is in ${SCRATCH}/")
endif()
