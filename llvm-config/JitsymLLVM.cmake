# Finds the LLVM/LLDB SDK jitsym builds against: LLVM's CMake package (for the
# shared libLLVM that liblldb itself uses), liblldb, the lldb/API headers, and the
# lit and FileCheck tools. LLDB 22 is the pinned version; 19 or newer is accepted.

set(JITSYM_LLVM_VERSIONS 22 21 20 19)
set(_jitsym_llvm_hints "")
foreach(v ${JITSYM_LLVM_VERSIONS})
  list(APPEND _jitsym_llvm_hints /usr/lib/llvm-${v}/lib/cmake/llvm)
endforeach()

if(NOT LLVM_DIR)
  foreach(hint ${_jitsym_llvm_hints})
    if(EXISTS ${hint}/LLVMConfig.cmake)
      set(LLVM_DIR ${hint})
      break()
    endif()
  endforeach()
endif()
find_package(LLVM REQUIRED CONFIG)
if(LLVM_VERSION_MAJOR LESS 19)
  message(FATAL_ERROR "jitsym needs LLVM/LLDB 19 or newer (found ${LLVM_PACKAGE_VERSION}); install lldb-22 liblldb-22-dev llvm-22-dev")
endif()
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(WARNING "jitsym is tested with LLDB 22; building against ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "jitsym: LLVM ${LLVM_PACKAGE_VERSION} in ${LLVM_INSTALL_PREFIX}")
set(JITSYM_LLVM_PREFIX ${LLVM_INSTALL_PREFIX})

# LLVM's headers and definitions, for every target that includes LLVM.
add_library(jitsym_llvm_headers INTERFACE)
target_include_directories(jitsym_llvm_headers SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(jitsym_llvm_headers INTERFACE ${LLVM_DEFINITIONS})

# In LLDB's process, the shared libLLVM: liblldb links it too, and a second
# static copy of LLVMSupport inside the plugin would register its globals twice.
add_library(jitsym_llvm INTERFACE)
target_link_libraries(jitsym_llvm INTERFACE jitsym_llvm_headers)
if(TARGET LLVM)
  target_link_libraries(jitsym_llvm INTERFACE LLVM)
else()
  find_library(JITSYM_LIBLLVM NAMES LLVM LLVM-${LLVM_VERSION_MAJOR} PATHS ${LLVM_LIBRARY_DIRS} NO_DEFAULT_PATH REQUIRED)
  target_link_libraries(jitsym_llvm INTERFACE ${JITSYM_LIBLLVM})
endif()

# In programs of their own (the command-line tool), the LLVM components they
# use, linked statically: mapping and relocating the whole shared libLLVM
# (189k relocations) and running its static initialisers cost ~22 ms a run,
# for a `jitsym lookup` that uses a few of its functions. The shared library
# when the static components are not installed.
set(JITSYM_STANDALONE_LLVM_COMPONENTS support binaryformat demangle object
    debuginfodwarf mc mcdisassembler targetparser x86disassembler x86desc x86info
    aarch64disassembler aarch64desc aarch64info aarch64utils)
add_library(jitsym_llvm_standalone INTERFACE)
target_link_libraries(jitsym_llvm_standalone INTERFACE jitsym_llvm_headers)
# What LLVMSupport links (zlib, zstd: their -dev packages) must be there too.
set(_jitsym_llvm_static_missing "")
if(TARGET LLVMSupport AND TARGET LLVMX86Disassembler)
  get_target_property(_jitsym_support_deps LLVMSupport INTERFACE_LINK_LIBRARIES)
  foreach(dep ${_jitsym_support_deps})
    if((dep MATCHES "::" AND NOT TARGET ${dep}) OR (IS_ABSOLUTE "${dep}" AND NOT EXISTS "${dep}"))
      list(APPEND _jitsym_llvm_static_missing ${dep})
    endif()
  endforeach()
else()
  set(_jitsym_llvm_static_missing "LLVM's static component libraries")
endif()
if(NOT _jitsym_llvm_static_missing)
  llvm_map_components_to_libnames(_jitsym_llvm_static_libs ${JITSYM_STANDALONE_LLVM_COMPONENTS})
  target_link_libraries(jitsym_llvm_standalone INTERFACE ${_jitsym_llvm_static_libs})
else()
  message(STATUS "jitsym: the CLI links the shared libLLVM (not found: ${_jitsym_llvm_static_missing})")
  target_link_libraries(jitsym_llvm_standalone INTERFACE jitsym_llvm)
endif()

find_path(JITSYM_LLDB_INCLUDE_DIR lldb/API/LLDB.h PATHS ${LLVM_INCLUDE_DIRS} NO_DEFAULT_PATH)
find_library(JITSYM_LIBLLDB NAMES lldb lldb-${LLVM_VERSION_MAJOR} PATHS ${LLVM_LIBRARY_DIRS} NO_DEFAULT_PATH)
if(NOT JITSYM_LLDB_INCLUDE_DIR OR NOT JITSYM_LIBLLDB)
  message(FATAL_ERROR "liblldb or lldb/API headers not found next to LLVM ${LLVM_PACKAGE_VERSION}; install liblldb-${LLVM_VERSION_MAJOR}-dev")
endif()
add_library(jitsym_lldb INTERFACE)
target_include_directories(jitsym_lldb SYSTEM INTERFACE ${JITSYM_LLDB_INCLUDE_DIR})
target_link_libraries(jitsym_lldb INTERFACE ${JITSYM_LIBLLDB})

find_program(JITSYM_LLDB_EXE NAMES lldb PATHS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH REQUIRED)
find_program(JITSYM_LLDB_SERVER NAMES lldb-server PATHS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(JITSYM_FILECHECK NAMES FileCheck PATHS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(JITSYM_LIT NAMES lit llvm-lit PATHS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(JITSYM_NOT NAMES not PATHS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(JITSYM_SPLIT_FILE NAMES split-file PATHS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)

# LLDB's Python module, for tests that drive LLDB from /usr/bin/python3.
execute_process(COMMAND ${JITSYM_LLDB_EXE} -P OUTPUT_VARIABLE JITSYM_LLDB_PYTHONPATH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
