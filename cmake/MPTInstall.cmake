# Installs headers, libraries, tools and MPTConfig.cmake so that another CMake
# project can `find_package(MPT)` and link MPT::MPTDialect and friends.
include(CMakePackageConfigHelpers)

get_property(mpt_libs GLOBAL PROPERTY MPT_EXPORTED_LIBRARIES)
install(TARGETS ${mpt_libs} EXPORT MPTTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mpt-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY include/mpt include/mpt-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/mpt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc")

set(MPT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mpt)
install(EXPORT MPTTargets NAMESPACE MPT:: DESTINATION ${MPT_CMAKE_DIR})
configure_package_config_file(cmake/MPTConfig.cmake.in
  ${PROJECT_BINARY_DIR}/MPTConfig.cmake
  INSTALL_DESTINATION ${MPT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/MPTConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/MPTConfig.cmake
  ${PROJECT_BINARY_DIR}/MPTConfigVersion.cmake
  DESTINATION ${MPT_CMAKE_DIR})
