# SPDX-License-Identifier: MIT
# Fails if the disabled object defines or references anything of the collector
# or the dispatch table (cmake -DNM=... -DOBJECTS=... -P check_nm.cmake).
foreach(obj ${OBJECTS})
  execute_process(COMMAND ${NM} -C ${obj} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${obj}")
  endif()
  foreach(bad msprof_mstx_ "msprof::v0_1::collect" "msprof::v0_1::instrument" dlopen dlsym)
    string(FIND "${syms}" "${bad}" pos)
    if(NOT pos EQUAL -1)
      message(FATAL_ERROR "disabled object ${obj} mentions '${bad}':\n${syms}")
    endif()
  endforeach()
endforeach()
message(STATUS "disabled object is free of collector symbols")
