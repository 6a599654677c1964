# Installation: libraries, the headers, a CMake package and a pkg-config file.
#
#   find_package(ctorch CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE ctorch::ctorch)         # libctorch.so.1
#   target_link_libraries(app PRIVATE ctorch::ctorch_static)  # libctorch.a + OpenBLAS, threads, libstdc++, libm
#
#   cc app.c $(pkg-config --cflags --libs ctorch)
#
# Everything installed is relocatable: the package and ctorch.pc locate the prefix from their
# own path, so `cmake --install build --prefix DIR` works for any DIR.

include(CMakePackageConfigHelpers)

set(CTORCH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ctorch)

install(TARGETS ctorch ctorch_static
  EXPORT ctorchTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# ctorch_ops.h (the generated operator functions) and ctorch_dlpack.h (the DLPack structs) sit
# beside ctorch.h and include it as "ctorch.h".
install(FILES ${PROJECT_SOURCE_DIR}/include/ctorch.h ${PROJECT_SOURCE_DIR}/include/ctorch_ops.h
              ${PROJECT_SOURCE_DIR}/include/ctorch_dlpack.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# ctorch_static links ${OPENBLAS_LINK_LIBRARIES} (a path), not PkgConfig::OPENBLAS, so the
# exported targets reference nothing but Threads::Threads, which ctorchConfig.cmake finds.
install(EXPORT ctorchTargets
  NAMESPACE ctorch::
  FILE ctorchTargets.cmake
  DESTINATION ${CTORCH_CMAKE_DIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ctorchConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ctorchConfig.cmake
  INSTALL_DESTINATION ${CTORCH_CMAKE_DIR})
# 0.x releases: SameMajorVersion accepts any 0.y; CT_ABI_VERSION and the SONAME guard the binary.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ctorchConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/ctorchConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/ctorchConfigVersion.cmake
  DESTINATION ${CTORCH_CMAKE_DIR})

# pkg-config: the prefix is found relative to the .pc file (${pcfiledir}), so the file stays
# right whatever --prefix `cmake --install` is given.
set(CTORCH_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(CTORCH_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(CTORCH_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(CTORCH_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _ctorch_pc_up "/ctorch-prefix/${CTORCH_PC_DIR}" "/ctorch-prefix")
  string(REGEX REPLACE "/$" "" _ctorch_pc_up "${_ctorch_pc_up}")
  set(CTORCH_PC_PREFIX "\${pcfiledir}/${_ctorch_pc_up}")
  set(CTORCH_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(CTORCH_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/ctorch.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ctorch.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ctorch.pc DESTINATION ${CTORCH_PC_DIR})
