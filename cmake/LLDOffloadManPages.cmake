# Man pages: each tool's reference page, docs/<tool>.md, is also its man page
# (section 1), converted by scripts/md2man.py at build time into
# <build>/share/man/man1/<tool>.1, so that the two never differ. Installed by
# cmake/LLDOffloadInstall.cmake; test/docs/man-pages.test checks them.
find_package(Python3 REQUIRED COMPONENTS Interpreter)

set(LLD_OFFLOAD_MAN_PAGES)
foreach(tool ld.lld-offload offload-bundler offload-inspect offload-packager offload-prune
             offload-wrapper)
  set(page "${PROJECT_SOURCE_DIR}/docs/${tool}.md")
  set(man "${PROJECT_BINARY_DIR}/share/man/man1/${tool}.1")
  add_custom_command(OUTPUT "${man}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory
            "${PROJECT_BINARY_DIR}/share/man/man1"
    COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/scripts/md2man.py"
            --version "${PROJECT_VERSION}" "${page}" -o "${man}"
    DEPENDS "${page}" "${PROJECT_SOURCE_DIR}/scripts/md2man.py"
    COMMENT "Man page ${tool}.1 from docs/${tool}.md"
    VERBATIM)
  list(APPEND LLD_OFFLOAD_MAN_PAGES "${man}")
endforeach()
add_custom_target(man-pages ALL DEPENDS ${LLD_OFFLOAD_MAN_PAGES})
