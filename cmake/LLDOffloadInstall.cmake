# Install rules, the CMake package (find_package(LLDOffload)) and the Debian
# package (cpack -G DEB). Included last from the root CMakeLists.txt, once
# every target exists.
#
# Layout under the prefix:
#   bin/                          the tools
#   lib/                          libOffloadSupport.a, libOffloadFormat.a,
#                                 libOffloadWrapperIR.a
#   include/lld-offload/{format,support,wrapper-ir}/*.h
#                                 the libraries' headers; they include each
#                                 other as "format/X.h", so consumers get
#                                 include/lld-offload on their include path
#   lib/cmake/LLDOffload/         LLDOffloadConfig.cmake and friends:
#                                 LLDOffload::support, LLDOffload::format,
#                                 LLDOffload::wrapper-ir (static libraries
#                                 linking LLVM's libLLVM.so, as the build
#                                 does) and LLDOffload::<tool> executables
#   share/doc/lld-offload/        README.md and docs/*.md
#   share/man/man1/<tool>.1       the man pages, made from docs/<tool>.md
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LLD_OFFLOAD_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/lld-offload")
set(LLD_OFFLOAD_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/LLDOffload")

# The tools: every executable defined under tools/ (ld.lld-offload,
# offload-packager, offload-bundler, offload-wrapper, offload-inspect, ...).
set(LLD_OFFLOAD_INSTALL_TOOLS)
get_property(_tool_dirs DIRECTORY "${PROJECT_SOURCE_DIR}/tools"
             PROPERTY SUBDIRECTORIES)
foreach(_dir IN LISTS _tool_dirs)
  get_property(_targets DIRECTORY "${_dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(_target IN LISTS _targets)
    get_target_property(_type ${_target} TYPE)
    if(_type STREQUAL "EXECUTABLE")
      list(APPEND LLD_OFFLOAD_INSTALL_TOOLS ${_target})
    endif()
  endforeach()
endforeach()
# Installed tools find libLLVM.so.22 where the build's do: the LLVM library
# directory (Debian's /usr/lib/llvm-22/lib; the dynamic loader's default path
# also has it there, through libllvm22). Built with that run path, not one
# CMake pads for rewriting at install time: its padding, a trailing ':', is
# an empty entry, which the loader reads as the current directory, so every
# start of a tool in the build tree looked for its libraries in the
# directory it was run from (and would have loaded them from there).
set_target_properties(${LLD_OFFLOAD_INSTALL_TOOLS} PROPERTIES
  INSTALL_RPATH "${LLVM_LIBRARY_DIR}"
  BUILD_WITH_INSTALL_RPATH ON)

# The libraries, exported under short names.
set_target_properties(OffloadSupport PROPERTIES EXPORT_NAME support)
set_target_properties(OffloadFormat PROPERTIES EXPORT_NAME format)
set_target_properties(OffloadWrapperIR PROPERTIES EXPORT_NAME wrapper-ir)

install(TARGETS ${LLD_OFFLOAD_INSTALL_TOOLS}
  EXPORT LLDOffloadTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT tools)
install(TARGETS OffloadSupport OffloadFormat OffloadWrapperIR
  EXPORT LLDOffloadTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development
  INCLUDES DESTINATION "${LLD_OFFLOAD_INSTALL_INCLUDEDIR}")
foreach(dir support format wrapper-ir)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/${dir}/"
    DESTINATION "${LLD_OFFLOAD_INSTALL_INCLUDEDIR}/${dir}"
    COMPONENT development
    FILES_MATCHING PATTERN "*.h")
endforeach()

install(EXPORT LLDOffloadTargets
  NAMESPACE LLDOffload::
  DESTINATION "${LLD_OFFLOAD_INSTALL_CMAKEDIR}"
  COMPONENT development)
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/LLDOffloadConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/LLDOffloadConfig.cmake"
  INSTALL_DESTINATION "${LLD_OFFLOAD_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/LLDOffloadConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/cmake/LLDOffloadConfig.cmake"
  "${PROJECT_BINARY_DIR}/cmake/LLDOffloadConfigVersion.cmake"
  DESTINATION "${LLD_OFFLOAD_INSTALL_CMAKEDIR}"
  COMPONENT development)

# Documentation: the README and the reference pages, and the man pages made
# from the tools' pages (cmake/LLDOffloadManPages.cmake).
install(FILES "${PROJECT_SOURCE_DIR}/README.md"
  DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT tools)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/"
  DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT tools
  FILES_MATCHING PATTERN "*.md")
install(FILES ${LLD_OFFLOAD_MAN_PAGES}
  DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT tools)

# cpack -G DEB: one package, lld-offload, with everything above.
#
# Depends lists what the installed files load, as readelf -d and dpkg -S tell:
# libLLVM.so.22.1 (libllvm22; LLD itself is linked in statically from
# liblld-22-dev, so neither lld-22 nor liblld-22 is needed), libzstd.so.1,
# libz.so.1, liblz4.so.1, libstdc++, libgcc_s and libc. No tool runs a
# program from llvm-22.
# Linking an OpenMP offload program adds -lomptarget (and, for CPU device
# links, -lomp) from LLVM's library directory, and compiling one needs clang;
# those are the toolchain's and the program's needs, not the tools', so they
# are recommended, not required.
set(CPACK_PACKAGE_NAME "lld-offload")
set(CPACK_PACKAGE_VENDOR "lld-offload")
set(LLD_OFFLOAD_PACKAGE_CONTACT
    "lld-offload maintainers <maintainers@users.noreply.a-seed-88f2856a.example>"
    CACHE STRING "The Debian package's Maintainer field")
set(CPACK_PACKAGE_CONTACT "${LLD_OFFLOAD_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "LLD with an in-process offload extension, and offload binary tools")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"ld.lld-offload links heterogeneous programs (OpenMP offload, HIP, CUDA) in
one process: LLD plus the device links and registration code that
clang-linker-wrapper would otherwise add. Also offload-packager,
offload-bundler and offload-wrapper, compatible with LLVM 22's tools, and the
static libraries and CMake package (find_package(LLDOffload)) for the
formats they read and write.")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libllvm22 (>= 1:22.1), libc6, libstdc++6, libgcc-s1, libzstd1, zlib1g, liblz4-1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "clang-22, libomp-22-dev, liboffload-22-dev")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "llvm-22-dev")
include(CPack)
