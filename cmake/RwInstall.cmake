# Installs headers, libraries, a CMake package (find_package(rwgraph), link
# rw::rw) and a pkg-config file, the rwcheck executable and the standard rule
# library's files (docs/install.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(components GLOBAL PROPERTY RW_COMPONENTS)
get_property(folders GLOBAL PROPERTY RW_COMPONENT_FOLDERS)
foreach(folder IN LISTS folders)
  get_filename_component(parent "${folder}" DIRECTORY)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/${folder}"
          DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/rwgraph/${parent}"
          FILES_MATCHING PATTERN "*.hpp")
endforeach()

install(TARGETS ${components} EXPORT rwgraphTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rwgraph)
install(EXPORT rwgraphTargets NAMESPACE rw::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rwgraph)

configure_package_config_file(cmake/rwgraphConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/rwgraphConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rwgraph)
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/rwgraphConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/rwgraphConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/rwgraphConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rwgraph)

# pkg-config: the libraries in a linker group, since the static archives
# refer to each other both ways (compile and grad).
list(TRANSFORM components PREPEND "-l" OUTPUT_VARIABLE rw_libs)
list(JOIN rw_libs " " rw_libs)
set(RW_PC_LIBS "-Wl,--start-group ${rw_libs} -Wl,--end-group")
# Configured at install time, so that `cmake --install --prefix P` writes P.
install(CODE "
  set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(CMAKE_INSTALL_DATADIR \"${CMAKE_INSTALL_DATADIR}\")
  set(PROJECT_DESCRIPTION \"${PROJECT_DESCRIPTION}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(RW_PC_LIBS \"${RW_PC_LIBS}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/rwgraph.pc.in\"
                 \"${CMAKE_CURRENT_BINARY_DIR}/rwgraph.pc\" @ONLY)
  file(INSTALL \"${CMAKE_CURRENT_BINARY_DIR}/rwgraph.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")
")

# The standard rule library's files: the library embeds them, so nothing
# reads them at run time; they are there to read, to lint and to start from
# (rw::standard_rules_dir() finds them).
file(GLOB rw_rule_files "${PROJECT_SOURCE_DIR}/rules/*.rules")
install(FILES ${rw_rule_files} DESTINATION ${CMAKE_INSTALL_DATADIR}/rwgraph/rules)

if(TARGET rwcheck)
  install(TARGETS rwcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
