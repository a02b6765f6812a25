# The knowledge bundles' copies of the abi/ headers equal their one source (issue 29): run by
# the test abi_copies as
#   cmake -DABI=<abi dir> -DKNOWLEDGE=<knowledge dir> -DCOPIES="<bundle/path;...>" -P this
# A copy that differs (edited in place) or is missing fails, and so does a file in a bundle
# that has the name of an abi/ header but is no listed copy (a stale duplicate).
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE headers RELATIVE ${ABI} ${ABI}/evokernel/*.h)
set(bad "")
foreach(copy IN LISTS COPIES)
  string(FIND ${copy} "/" slash)
  math(EXPR slash "${slash} + 1")
  string(SUBSTRING ${copy} ${slash} -1 header)
  if(NOT EXISTS ${KNOWLEDGE}/${copy})
    string(APPEND bad "  knowledge/${copy} is missing: re-run cmake, which copies abi/${header}\n")
  else()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${ABI}/${header}
                            ${KNOWLEDGE}/${copy} RESULT_VARIABLE differs)
    if(differs)
      string(APPEND bad "  knowledge/${copy} differs from abi/${header}: edit abi/${header} "
                        "(the one source), then re-run cmake\n")
    endif()
  endif()
endforeach()
foreach(header IN LISTS headers)
  file(GLOB_RECURSE found RELATIVE ${KNOWLEDGE} ${KNOWLEDGE}/*/${header})
  foreach(f IN LISTS found)
    if(NOT f IN_LIST COPIES)
      string(APPEND bad "  knowledge/${f} duplicates abi/${header} but is no copy the build "
                        "makes: delete it, or list it in EVK_ABI_COPIES (abi/CMakeLists.txt)\n")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "the knowledge bundles' ABI headers are not the abi/ ones:\n${bad}")
endif()
list(LENGTH COPIES n)
message(STATUS "${n} copies of abi/ headers equal their source")
