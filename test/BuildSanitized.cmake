# ctest's asan-build (cmake -DDIR=TREE -DJOBS=N -P BuildSanitized.cmake): checks
# that TREE is configured with JITSYM_SANITIZE=ON, so that asan-unit and
# asan-lit never pass on an unsanitized tree, and brings it up to date, so that
# they never test stale code.
if(NOT EXISTS ${DIR}/CMakeCache.txt)
  message(FATAL_ERROR "${DIR} is not a configured build tree (scripts/setup.sh --sanitized makes one)")
endif()
file(STRINGS ${DIR}/CMakeCache.txt sanitize REGEX "^JITSYM_SANITIZE:BOOL=ON$")
if(NOT sanitize)
  message(FATAL_ERROR "${DIR} is not configured with JITSYM_SANITIZE=ON")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${DIR} -j ${JOBS} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building ${DIR} failed")
endif()
