# `cmake --install build --prefix P` and `make deb` (CPack). The layout is the one
# src/core/paths.cpp looks for, relative to the evokernel binary, so that P can be moved:
#   P/bin/evokernel
#   P/libexec/evokernel/   the runners (evk-runner, evk-runner-ascendc, evk-ascendc-replay,
#                          evk-ascendc-eager,
#                          evk-clbuild, evk-runner-cuda)
#   P/share/evokernel/     suites/, knowledge/, oracle/, prompts/
# `evk_tool` (make tool, make demo) builds exactly what is installed: the CLI and the runners.
add_custom_target(evk_tool)
add_dependencies(evk_tool evokernel)
install(TARGETS evokernel RUNTIME DESTINATION bin)
foreach(runner evk-runner evk-runner-ascendc evk-ascendc-replay evk-ascendc-eager evk-clbuild evk-runner-cuda)
  if(TARGET ${runner})
    install(TARGETS ${runner} RUNTIME DESTINATION libexec/evokernel)
    add_dependencies(evk_tool ${runner})
  endif()
endforeach()
install(DIRECTORY suites knowledge oracle prompts DESTINATION share/evokernel
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES README.md DESTINATION share/doc/evokernel)

# The Debian package. Depends holds what a run needs at run time: the oracle's Python, PyTorch
# and an optimized BLAS under it (issue 35: the reference BLAS inflates GEMM speed-ups 18-30x),
# the compiler the CPU and Ascend C backends call, and the shared libraries the binaries link
# (dpkg-shlibdeps finds those: they include the OpenCL ICD loader, which evk-clbuild links; the
# OpenCL platform itself, PoCL, is optional: Recommends). Slurm only for --executor slurm.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME evokernel)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "evokernel developers <evokernel@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "LLM kernel synthesis with a value-driven memory (EvoKernel): CPU, OpenCL, CUDA, Ascend C")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Debug info stays in the build tree: the package ships stripped binaries (60 MB -> a few).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "python3, python3-torch, python3-numpy, libopenblas0-pthread, g++, libgomp1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd, ocl-icd-libopencl1")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, nvidia-cuda-toolkit")
set(CPACK_PACKAGE_FILE_NAME evokernel_${PROJECT_VERSION}_amd64)
include(CPack)
