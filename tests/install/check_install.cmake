# Installs rwgraph into a scratch prefix and checks the install tree from
# outside the checkout: the files it ships, the installed rwcheck (--version,
# a graph on standard input, the installed rule files), an outside CMake
# project that sets no C++ standard and builds with -Wall -Wextra -Werror, and
# a program compiled with the flags of the pkg-config file.
#
#   cmake -DSOURCE_DIR=… -DBINARY_DIR=… -DWORK_DIR=… -DGENERATOR=… -P check_install.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY "${WORK_DIR}")
  if(rc)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

function(expect what text pattern)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: expected `${pattern}` in:\n${text}")
  endif()
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${prefix}")

# lib, lib64 or lib/<multiarch>, as GNUInstallDirs chose for the build.
file(GLOB pc_files "${prefix}/lib*/pkgconfig/rwgraph.pc" "${prefix}/lib/*/pkgconfig/rwgraph.pc")
if(NOT pc_files)
  message(FATAL_ERROR "the install tree has no pkgconfig/rwgraph.pc")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(libdir "${pc_file}" DIRECTORY)
get_filename_component(libdir "${libdir}" DIRECTORY)
foreach(f bin/rwcheck share/rwgraph/rules/canonicalize.rules share/rwgraph/rules/stabilize.rules
          include/rwgraph/rw/rw.hpp include/rwgraph/rw/rewrite.hpp include/rwgraph/rw/rules.hpp
          include/rwgraph/rw/kanren.hpp)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "the install tree has no ${f}")
  endif()
endforeach()
foreach(f cmake/rwgraph/rwgraphConfig.cmake cmake/rwgraph/rwgraphTargets.cmake)
  if(NOT EXISTS "${libdir}/${f}")
    message(FATAL_ERROR "the install tree has no ${libdir}/${f}")
  endif()
endforeach()

# Only rwcheck is built with CLI11 and nlohmann-json: the package a consumer
# finds must not ask for them.
file(GLOB package_files "${libdir}/cmake/rwgraph/*.cmake")
foreach(f ${package_files} "${pc_file}")
  file(READ "${f}" text)
  if(text MATCHES "CLI11|nlohmann")
    message(FATAL_ERROR "${f} names a dependency of rwcheck only (CLI11 or nlohmann_json)")
  endif()
endforeach()

# The installed rwcheck, run outside the checkout.
run("rwcheck --version" "${prefix}/bin/rwcheck" --version)
expect("rwcheck --version" "${out}" "^rwcheck [0-9]+\\.[0-9]+\\.[0-9]+\n")
expect("rwcheck --version" "${out}" "standard rule files: ${prefix}/share/rwgraph/rules\n")
execute_process(COMMAND "${prefix}/bin/rwcheck" -
                INPUT_FILE "${SOURCE_DIR}/examples/softplus.graph"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                WORKING_DIRECTORY "${WORK_DIR}")
if(rc)
  message(FATAL_ERROR "rwcheck - failed (${rc}):\n${out}\n${err}")
endif()
expect("rwcheck -" "${out}" "^graph <stdin>: mode fast_run, [0-9]+ rules from <standard rule library>\n")
expect("rwcheck -" "${out}" "output 0: softplus\\(fill\\(w, x\\)\\)\n")
run("rwcheck --rules <installed rules>" "${prefix}/bin/rwcheck" --rules "${prefix}/share/rwgraph/rules"
    "${SOURCE_DIR}/examples/softplus.graph")
expect("rwcheck --rules <installed rules>" "${out}" "rules from ${prefix}/share/rwgraph/rules/")

# An outside CMake project.
run("configuring the outside project" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer"
    -B "${WORK_DIR}/build" -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}"
    -DCMAKE_BUILD_TYPE=Release)
run("building the outside project" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("the outside project" "${WORK_DIR}/build/consumer" "${SOURCE_DIR}/examples/softplus.graph"
    "${prefix}/share/rwgraph/rules")
message(STATUS "consumer printed: ${out}")
expect("the outside project" "${out}" "^rwgraph ok ")

# pkg-config: a program built with nothing but the flags it gives.
find_program(PKG_CONFIG pkg-config)
find_program(CXX NAMES c++ g++)
if(PKG_CONFIG AND CXX)
  set(ENV{PKG_CONFIG_PATH} "${libdir}/pkgconfig")
  run("pkg-config rwgraph" "${PKG_CONFIG}" --cflags --libs rwgraph)
  string(STRIP "${out}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  file(WRITE "${WORK_DIR}/pc.cpp"
       "#include <rw/standard_rules.hpp>\n#include <cstdio>\n"
       "int main() { return rw::standard_rules().size() > 100 ? 0 : 1; }\n")
  run("compiling with pkg-config's flags" "${CXX}" -Wall -Wextra -Werror "${WORK_DIR}/pc.cpp"
      -o "${WORK_DIR}/pc" ${flags} "-Wl,-rpath,${libdir}")
  run("the pkg-config program" "${WORK_DIR}/pc")
else()
  message(FATAL_ERROR "pkg-config or a C++ compiler is missing (scripts/deps.sh installs them)")
endif()
