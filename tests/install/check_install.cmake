# Installs rwgraph into a scratch prefix and builds an outside project that
# uses find_package(rwgraph) and links rw::rw, then runs it.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer"
                -B "${WORK_DIR}/build" -G "${GENERATOR}"
                "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the outside project failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the outside project failed (${rc})")
endif()
execute_process(COMMAND "${WORK_DIR}/build/consumer" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
message(STATUS "consumer printed: ${out}")
if(rc)
  message(FATAL_ERROR "the outside project failed to run (${rc})")
endif()
if(NOT out MATCHES "rwgraph ok")
  message(FATAL_ERROR "the outside project printed the wrong thing: ${out}")
endif()
