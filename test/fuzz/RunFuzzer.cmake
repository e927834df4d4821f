# Runs one libFuzzer binary for a bounded time over a scratch copy of its seed
# corpus (new inputs go to the copy, the stored corpus is never modified).
# Fails on any crash, leak, sanitizer report or invariant violation, and when
# the fuzzer did not actually execute inputs.
#   cmake -DFUZZER=bin -DSEEDS=dir -DSCRATCH=dir [-DDICT=file] [-DSECONDS=n] -P RunFuzzer.cmake
foreach(var FUZZER SEEDS SCRATCH)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunFuzzer.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT DEFINED SECONDS)
  set(SECONDS 20)
endif()
if(NOT EXISTS ${FUZZER})
  message(FATAL_ERROR "fuzz target ${FUZZER} was not built")
endif()

file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/corpus ${SCRATCH}/artifacts)
file(GLOB seeds ${SEEDS}/*)
if(NOT seeds)
  message(FATAL_ERROR "no seed files in ${SEEDS}")
endif()
file(COPY ${seeds} DESTINATION ${SCRATCH}/corpus)

set(args -max_total_time=${SECONDS} -rss_limit_mb=2048 -timeout=25 -max_len=4096
         -print_final_stats=1 -artifact_prefix=${SCRATCH}/artifacts/)
if(DEFINED DICT AND EXISTS ${DICT})
  list(APPEND args -dict=${DICT})
endif()
execute_process(COMMAND ${FUZZER} ${args} ${SCRATCH}/corpus
  WORKING_DIRECTORY ${SCRATCH}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
message("${out}")
file(GLOB artifacts ${SCRATCH}/artifacts/*)
if(NOT rc EQUAL 0 OR artifacts)
  message(FATAL_ERROR "fuzzer failed (exit ${rc}); reproducers: ${artifacts}")
endif()
if(NOT out MATCHES "Done ([0-9]+) runs")
  message(FATAL_ERROR "fuzzer output has no 'Done N runs' line")
endif()
if(CMAKE_MATCH_1 LESS 1000)
  message(FATAL_ERROR "fuzzer executed only ${CMAKE_MATCH_1} inputs")
endif()
message("fuzzer executed ${CMAKE_MATCH_1} inputs without a failure")
