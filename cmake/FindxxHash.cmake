# FindxxHash: xxHash (https://github.com/Cyan4973/xxHash) as the imported
# target xxHash::xxhash, the name xxHash's own CMake package exports.
#
# Debian 12's libxxhash-dev ships a pkg-config file (libxxhash.pc) but no
# CMake package, so this module uses xxHash's CMake package if there is one,
# else pkg-config's answer as a hint, else the usual search paths.
#
# Sets xxHash_FOUND, xxHash_VERSION, xxHash_INCLUDE_DIR, xxHash_LIBRARY.
# lsmbloom's build uses it and installs it beside lsmbloomConfig.cmake,
# whose find_dependency(xxHash) uses it in turn.

if(TARGET xxHash::xxhash)
  set(xxHash_FOUND TRUE)
  return()
endif()

find_package(xxHash CONFIG QUIET)
if(xxHash_FOUND AND TARGET xxHash::xxhash)
  return()
endif()

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_xxHash QUIET libxxhash)
endif()

find_path(xxHash_INCLUDE_DIR NAMES xxhash.h HINTS ${PC_xxHash_INCLUDE_DIRS})
find_library(xxHash_LIBRARY NAMES xxhash HINTS ${PC_xxHash_LIBRARY_DIRS})

if(xxHash_INCLUDE_DIR AND EXISTS "${xxHash_INCLUDE_DIR}/xxhash.h")
  file(STRINGS "${xxHash_INCLUDE_DIR}/xxhash.h" _xxhash_version_lines
       REGEX "^#define XXH_VERSION_(MAJOR|MINOR|RELEASE) +[0-9]+")
  foreach(_part MAJOR MINOR RELEASE)
    string(REGEX REPLACE ".*#define XXH_VERSION_${_part} +([0-9]+).*" "\\1"
           _xxhash_${_part} "${_xxhash_version_lines}")
  endforeach()
  set(xxHash_VERSION "${_xxhash_MAJOR}.${_xxhash_MINOR}.${_xxhash_RELEASE}")
  unset(_xxhash_version_lines)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(xxHash
  REQUIRED_VARS xxHash_LIBRARY xxHash_INCLUDE_DIR
  VERSION_VAR xxHash_VERSION)
mark_as_advanced(xxHash_INCLUDE_DIR xxHash_LIBRARY)

if(xxHash_FOUND AND NOT TARGET xxHash::xxhash)
  add_library(xxHash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxHash::xxhash PROPERTIES
    IMPORTED_LOCATION "${xxHash_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${xxHash_INCLUDE_DIR}")
endif()
