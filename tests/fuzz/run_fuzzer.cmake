# run_fuzzer.cmake - the fuzz.<name>.run tests: runs the libFuzzer binary FUZZER for SECONDS over a
# fresh copy (SCRATCH/corpus) of the seed corpus SEEDS, with crash files going to SCRATCH/, and
# fails when it reports anything. -print_final_stats=1 prints the number of executions.
#   cmake -DFUZZER=... -DSEEDS=... -DSCRATCH=... -DSECONDS=60 -P run_fuzzer.cmake
foreach(v FUZZER SEEDS SCRATCH SECONDS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_fuzzer.cmake: set -D${v}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${SCRATCH}/corpus)
file(MAKE_DIRECTORY ${SCRATCH})
file(COPY ${SEEDS}/ DESTINATION ${SCRATCH}/corpus)
execute_process(
  COMMAND ${FUZZER} ${SCRATCH}/corpus -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
          -print_final_stats=1 -artifact_prefix=${SCRATCH}/
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} found a problem (exit ${rc}); the input is in ${SCRATCH}/")
endif()
