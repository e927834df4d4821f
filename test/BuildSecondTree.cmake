# ctest's asan-build and lldb19-build (cmake -DDIR=TREE -DJOBS=N
# -DMUST_HAVE=REGEX -DMADE_BY=TEXT -P BuildSecondTree.cmake): checks that TREE's
# CMakeCache.txt has a line matching REGEX (JITSYM_SANITIZE=ON, or LLVM 19), so
# that the second tree's tests never pass on a tree that is not what they claim,
# and brings it up to date, so that they never test stale code.
if(NOT EXISTS ${DIR}/CMakeCache.txt)
  message(FATAL_ERROR "${DIR} is not a configured build tree (${MADE_BY} makes one)")
endif()
file(STRINGS ${DIR}/CMakeCache.txt found REGEX "${MUST_HAVE}")
if(NOT found)
  message(FATAL_ERROR "${DIR} is not configured as ${MADE_BY} does (no line matching ${MUST_HAVE})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${DIR} -j ${JOBS} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building ${DIR} failed")
endif()
