# Finds the non-LLVM dependencies: nlohmann/json (required), GoogleTest and Google
# Benchmark (tests and benchmarks), and the JDK (Java examples and tests).

find_package(nlohmann_json 3.10 REQUIRED)
find_package(GTest)
find_package(benchmark QUIET)
find_package(Threads REQUIRED)

if(NOT JAVA_HOME AND EXISTS /usr/lib/jvm/java-17-openjdk-amd64)
  set(JAVA_HOME /usr/lib/jvm/java-17-openjdk-amd64)
endif()
find_package(Java 17 COMPONENTS Development QUIET)
find_package(JNI QUIET)
find_program(JITSYM_NODE NAMES node nodejs)
find_program(JITSYM_JCMD NAMES jcmd HINTS ${JAVA_HOME}/bin)
find_program(JITSYM_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
