# schedhost_add_plugin(<target> SOURCES <src>... [LINK_LIBRARIES <lib>...] [OUTPUT_DIRECTORY <dir>])
#
# Builds a plugin the way every schedhost plugin must be built:
#  - a MODULE library (dlopen-only) named <target>.so;
#  - hidden visibility and a version script, so the entry function is the only exported symbol
#    and two plugins' internal functions never interpose on each other;
#  - --require-defined of the entry function: a library without SCHEDHOST_LIBRARY (or, in C,
#    without schedhost_plugin_library_v1) is a link error, not a load error in the cluster;
#  - -Wl,-z,defs: every symbol resolves at link time, the plugin imports nothing from the host;
#  - -fno-gnu-unique: no STB_GNU_UNIQUE symbols that would pin the library or share state;
#  - static libstdc++/libgcc: nothing C++ crosses the ABI, and the .so then runs on hosts with an
#    older libstdc++ (no "GLIBCXX_3.4.xx not found").
include_guard(GLOBAL)
set(SCHEDHOST_PLUGIN_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/schedhost-plugin.map
    CACHE INTERNAL "Linker version script of schedhost plugins")

function(schedhost_add_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "schedhost_add_plugin(${target}): SOURCES is required")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE schedhost::sdk ${ARG_LINK_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${SCHEDHOST_PLUGIN_VERSION_SCRIPT})
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
  target_link_options(${target} PRIVATE "-Wl,--version-script=${SCHEDHOST_PLUGIN_VERSION_SCRIPT}"
                      "-Wl,--require-defined=schedhost_plugin_library_v1")
  # Sanitizer runtimes live in the host executable, so a sanitized plugin has undefined
  # references by design; -z defs and a static C++ runtime only apply to normal builds.
  if(NOT SCHEDHOST_SANITIZE)
    target_link_options(${target} PRIVATE -Wl,-z,defs -static-libstdc++ -static-libgcc)
  endif()
endfunction()
