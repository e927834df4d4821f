# JITSYM_SANITIZE=ON: everything built with AddressSanitizer and
# UndefinedBehaviorSanitizer, and any finding is fatal (no recovery). The plugin
# and the agents are loaded into programs that are not instrumented (lldb,
# python3, java), so the sanitizer runtime is a shared library: linked by
# everything built here (and found through the rpath), and preloaded into those
# hosts. JITSYM_SANITIZER_PRELOAD names what to preload; the lit suite reads it.

set(_flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # clang links its runtime statically into executables by default; a plugin
  # built that way could not be loaded by lldb. Its shared ASan runtime
  # carries UBSan's handlers too.
  add_compile_options(${_flags})
  add_link_options(-fsanitize=address,undefined -shared-libasan)
  set(_runtimes libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC links libasan and libubsan as shared libraries already.
  add_compile_options(${_flags})
  add_link_options(-fsanitize=address,undefined)
  set(_runtimes libasan.so libubsan.so)
else()
  message(FATAL_ERROR "JITSYM_SANITIZE needs clang or GCC, not ${CMAKE_CXX_COMPILER_ID}")
endif()

set(JITSYM_SANITIZER_PRELOAD "")
foreach(runtime ${_runtimes})
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${runtime}
                  OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${path}" OR NOT EXISTS "${path}")
    message(FATAL_ERROR "JITSYM_SANITIZE: ${CMAKE_CXX_COMPILER} has no ${runtime} "
                        "(Debian: libclang-rt-14-dev for clang 14)")
  endif()
  get_filename_component(path "${path}" REALPATH)
  get_filename_component(dir "${path}" DIRECTORY)
  add_link_options(-Wl,-rpath,${dir})
  list(APPEND JITSYM_SANITIZER_PRELOAD ${path})
endforeach()
list(JOIN JITSYM_SANITIZER_PRELOAD ":" JITSYM_SANITIZER_PRELOAD)
message(STATUS "jitsym: sanitized build; hosts preload ${JITSYM_SANITIZER_PRELOAD}")
