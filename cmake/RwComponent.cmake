# rw_add_component(<target> FOLDER <folder> SOURCES <src...> [DEPS <our targets...>]
#                  [PUBLIC_LIBS <external...>] [PRIVATE_LIBS <external...>])
#
# Makes one library target for one folder of the layout. Its headers are reached
# as "<folder>/<file>.hpp" through a staged include root that holds only this
# folder, so a target can include its own headers and those of the targets it
# links, and an include that points the wrong way fails to compile.
function(rw_add_component target)
  cmake_parse_arguments(A "" "FOLDER" "SOURCES;DEPS;PUBLIC_LIBS;PRIVATE_LIBS" ${ARGN})
  set(stage "${CMAKE_BINARY_DIR}/include-stage/${target}")
  get_filename_component(parent "${A_FOLDER}" DIRECTORY)
  file(MAKE_DIRECTORY "${stage}/${parent}")
  if(NOT EXISTS "${stage}/${A_FOLDER}")
    file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${A_FOLDER}" "${stage}/${A_FOLDER}" SYMBOLIC)
  endif()
  add_library(${target} ${A_SOURCES})
  add_library(rw::${target} ALIAS ${target})
  # The headers need C++20: a consumer that sets no standard gets it from
  # the exported target.
  target_compile_features(${target} PUBLIC cxx_std_20)
  # No <target>_EXPORTS define in a shared build (nothing reads it), so the
  # objects of BUILD_SHARED_LIBS=ON are those of the static build: ccache
  # serves CI's shared build from the first one.
  set_target_properties(${target} PROPERTIES DEFINE_SYMBOL "")
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${stage}>
    $<INSTALL_INTERFACE:include/rwgraph>)
  target_link_libraries(${target} PUBLIC ${A_DEPS} ${A_PUBLIC_LIBS}
                        PRIVATE $<BUILD_INTERFACE:rw_warnings> ${A_PRIVATE_LIBS})
  set_property(GLOBAL APPEND PROPERTY RW_COMPONENTS ${target})
  set_property(GLOBAL APPEND PROPERTY RW_COMPONENT_FOLDERS ${A_FOLDER})
endfunction()
