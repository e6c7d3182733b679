# Installs headers, libraries and a CMake package so that an outside project can
# find_package(rwgraph) and link rw::rw.
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
