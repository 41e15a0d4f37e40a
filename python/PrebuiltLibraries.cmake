# The Python build (CCSIM_PYTHON=ON) links the libraries of the command line's build instead of compiling its own copy
# of them (issue 44: `pip install .` right after scripts/setup.sh compiles only python/src). pyproject.toml passes
# CCSIM_PREBUILT_DIR=build: scripts/setup.sh's build/, relative to the source folder. Included by the root
# CMakeLists.txt before the libraries are defined; where that build is usable it sets CCSIM_PREBUILT_LIBRARIES and
# CCSIM_PREBUILT_<library> (each library's archive), which ccsim_folder_library turns into imported libraries.
# Otherwise it says why, and every library is compiled here as before.
#
# Usable means: the build's ccsim-libraries.cmake (written by the root CMakeLists.txt when it was configured) names
# this source folder, the same compiler, the same build type and the same flags; and its libraries are first brought
# up to date here with `cmake --build <dir> --target ccsim_libraries`, so a source or header changed since
# scripts/setup.sh is recompiled there by that build's own dependency tracking, never linked stale. The libraries it
# names hold neither Open MPI nor CUDA: ccsim_mpi and ccsim_numerics_cuda are compiled here (one file each).
function(ccsim_find_prebuilt_libraries)
  if(NOT CCSIM_PREBUILT_DIR)
    return()
  endif()
  get_filename_component(dir "${CCSIM_PREBUILT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_SOURCE_DIR}")
  set(fallback "compiling the libraries here")
  set(manifest "${dir}/ccsim-libraries.cmake")
  if(NOT EXISTS "${manifest}")
    message(STATUS "ccsim: no prebuilt libraries in ${dir} (no ccsim-libraries.cmake; scripts/setup.sh writes it): "
                   "${fallback}")
    return()
  endif()
  include("${manifest}")

  # The flags these libraries would be compiled with here, against those the build recorded.
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  set(flags "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${config}}")
  file(REAL_PATH "${CMAKE_SOURCE_DIR}" source_here)
  file(REAL_PATH "${CMAKE_CXX_COMPILER}" compiler_here)
  set(why "")
  if(NOT CCSIM_PREBUILT_FORMAT EQUAL 1)
    set(why "its ccsim-libraries.cmake is of another format (${CCSIM_PREBUILT_FORMAT})")
  elseif(NOT EXISTS "${CCSIM_PREBUILT_SOURCE_DIR}")
    set(why "it was built from ${CCSIM_PREBUILT_SOURCE_DIR}, which is gone")
  else()
    file(REAL_PATH "${CCSIM_PREBUILT_SOURCE_DIR}" source_there)
    if(EXISTS "${CCSIM_PREBUILT_COMPILER}")
      file(REAL_PATH "${CCSIM_PREBUILT_COMPILER}" compiler_there)
    else()
      set(compiler_there "${CCSIM_PREBUILT_COMPILER} (gone)")
    endif()
    if(NOT source_there STREQUAL source_here)
      set(why "it was built from ${source_there}, not ${source_here}")
    elseif(NOT compiler_there STREQUAL compiler_here
           OR NOT CCSIM_PREBUILT_COMPILER_ID STREQUAL "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
      set(why "its compiler is ${compiler_there} (${CCSIM_PREBUILT_COMPILER_ID}), this build's ${compiler_here} ")
      string(APPEND why "(${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION})")
    elseif(NOT CCSIM_PREBUILT_BUILD_TYPE STREQUAL CMAKE_BUILD_TYPE)
      set(why "it is a ${CCSIM_PREBUILT_BUILD_TYPE} build, this one ${CMAKE_BUILD_TYPE}")
    elseif(NOT CCSIM_PREBUILT_CXX_FLAGS STREQUAL flags)
      set(why "its flags are '${CCSIM_PREBUILT_CXX_FLAGS}', this build's '${flags}'")
    endif()
  endif()
  if(why)
    message(STATUS "ccsim: not linking the libraries of ${dir}: ${why}; ${fallback}")
    return()
  endif()

  # Bring them up to date with the sources: a no-op after scripts/setup.sh, a few files after an edit.
  if(DEFINED ENV{CMAKE_BUILD_PARALLEL_LEVEL})
    set(jobs "$ENV{CMAKE_BUILD_PARALLEL_LEVEL}")
  else()
    cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)
  endif()
  message(STATUS "ccsim: bringing the libraries of ${dir} up to date (cmake --build ${dir} --target ccsim_libraries)")
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${dir}" --target ccsim_libraries --parallel ${jobs}
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ccsim: building the libraries in ${dir} failed (status ${status}; its output is above). Fix "
                        "the error, or compile everything in the Python build: "
                        "pip install . -Ccmake.define.CCSIM_PREBUILT_DIR=")
  endif()
  include("${manifest}") # again: that build may have reconfigured itself (a CMakeLists.txt changed)
  foreach(lib IN LISTS CCSIM_PREBUILT_LIBRARIES)
    if(NOT EXISTS "${CCSIM_PREBUILT_${lib}}")
      message(FATAL_ERROR "ccsim: ${dir} built, but ${CCSIM_PREBUILT_${lib}} is missing")
    endif()
    set(CCSIM_PREBUILT_${lib} "${CCSIM_PREBUILT_${lib}}" PARENT_SCOPE)
  endforeach()
  set(CCSIM_PREBUILT_LIBRARIES "${CCSIM_PREBUILT_LIBRARIES}" PARENT_SCOPE)
  message(STATUS "ccsim: linking the libraries of ${dir} (${CCSIM_PREBUILT_LIBRARIES}); compiling python/src here")
endfunction()

set(CCSIM_PREBUILT_LIBRARIES "")
ccsim_find_prebuilt_libraries()
