# freertos_cpu_usageConfig.cmake - the prebuilt freertos-cpu-usage (make dist), for
# find_package(freertos_cpu_usage): no Rust toolchain needed.
#
#   list(APPEND CMAKE_PREFIX_PATH /path/to/freertos-cpu-usage-<version>)
#   set(FREERTOS_PORT GCC_ARM_CM4F CACHE STRING "")   # as for FreeRTOS-Kernel's CMake
#   find_package(freertos_cpu_usage 0.2 REQUIRED)
#   target_link_libraries(freertos_config INTERFACE freertos_cpu_usage::freertos_cpu_usage)
#
# Chooses one archive of the tree, lib/<rust target>/<build>/libfreertos_cpu_usage.a
# (cores<N>/lib/... for several cores), from these cache variables:
#   FREERTOS_CPU_USAGE_BUILD        minimal, default or trace (default: default)
#   FREERTOS_CPU_USAGE_CORES        the kernel's configNUMBER_OF_CORES (default 1)
#   FREERTOS_CPU_USAGE_RUST_TARGET  the Rust target; by default read from FREERTOS_PORT
#                                   and the compile flags (freertos_cpu_usage_rust_target.cmake)
#
# Provides the imported target freertos_cpu_usage::freertos_cpu_usage (the archive, and
# the include directory of its build: the API header, the settings header and the
# hooks header FreeRTOSConfig.h includes at its end) and FREERTOS_CPU_USAGE_ARCHIVE.
# Linked to freertos_config, the kernel's sources find the hooks header and the
# archive is linked after the kernel, which calls it.

include("${CMAKE_CURRENT_LIST_DIR}/freertos_cpu_usage_rust_target.cmake")
get_filename_component(_fcu_root "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

# (A variable the project set before find_package() wins: the cache entries are made
# only for those it did not set.)
if(NOT DEFINED FREERTOS_CPU_USAGE_BUILD)
    set(FREERTOS_CPU_USAGE_BUILD default CACHE STRING "freertos-cpu-usage build: minimal, default or trace")
    set_property(CACHE FREERTOS_CPU_USAGE_BUILD PROPERTY STRINGS minimal default trace)
endif()
if(NOT DEFINED FREERTOS_CPU_USAGE_CORES)
    set(FREERTOS_CPU_USAGE_CORES 1 CACHE STRING "freertos-cpu-usage: the kernel's configNUMBER_OF_CORES")
endif()

freertos_cpu_usage_rust_target(_fcu_target)
if(FREERTOS_CPU_USAGE_CORES EQUAL 1)
    set(_fcu_prefix "${_fcu_root}")
else()
    set(_fcu_prefix "${_fcu_root}/cores${FREERTOS_CPU_USAGE_CORES}")
endif()
set(_fcu_archive "${_fcu_prefix}/lib/${_fcu_target}/${FREERTOS_CPU_USAGE_BUILD}/libfreertos_cpu_usage.a")

if(NOT EXISTS "${_fcu_archive}" OR NOT EXISTS "${_fcu_prefix}/include/freertos_cpu_usage_hooks.h")
    file(GLOB _fcu_have RELATIVE "${_fcu_root}"
        "${_fcu_root}/lib/*/*/libfreertos_cpu_usage.a" "${_fcu_root}/cores*/lib/*/*/libfreertos_cpu_usage.a")
    string(REPLACE "/libfreertos_cpu_usage.a" "" _fcu_have "${_fcu_have}")
    string(REPLACE ";" ", " _fcu_have "${_fcu_have}")
    set(freertos_cpu_usage_FOUND FALSE)
    string(CONCAT freertos_cpu_usage_NOT_FOUND_MESSAGE
        "no prebuilt archive for ${_fcu_target}, the ${FREERTOS_CPU_USAGE_BUILD} build, "
        "${FREERTOS_CPU_USAGE_CORES} core(s) (${_fcu_archive}). The tree has: ${_fcu_have}. "
        "Set FREERTOS_CPU_USAGE_RUST_TARGET, FREERTOS_CPU_USAGE_BUILD or FREERTOS_CPU_USAGE_CORES, "
        "or build from the sources with add_subdirectory().")
    return()
endif()

if(NOT TARGET freertos_cpu_usage::freertos_cpu_usage)
    add_library(freertos_cpu_usage::freertos_cpu_usage STATIC IMPORTED)
    set_target_properties(freertos_cpu_usage::freertos_cpu_usage PROPERTIES
        IMPORTED_LOCATION "${_fcu_archive}"
        IMPORTED_LINK_INTERFACE_LANGUAGES C
        INTERFACE_INCLUDE_DIRECTORIES "${_fcu_prefix}/include")
endif()
set(FREERTOS_CPU_USAGE_ARCHIVE "${_fcu_archive}")
if(NOT freertos_cpu_usage_FIND_QUIETLY)
    message(STATUS "freertos_cpu_usage ${freertos_cpu_usage_VERSION}: ${_fcu_target}, "
        "the ${FREERTOS_CPU_USAGE_BUILD} build, ${FREERTOS_CPU_USAGE_CORES} core(s), prebuilt")
endif()
