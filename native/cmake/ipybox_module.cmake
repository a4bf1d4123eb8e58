# ipybox_add_module(<name> SOURCES ... [LINUX ...] [DARWIN ...] [PORTABLE ...] [DEPS ...]
#                   [PRIVATE_DEPS ...])
#
# One static library per module: target ipybox_<name>, alias ipybox::<name>. Public headers live in
# <module>/include/ipybox/<module>/. A module sees only the headers of the modules it links, so the
# DEPS lists below are the module graph's dependency rules (README, "How it fits together"): a
# forbidden include fails to build. LINUX, DARWIN and PORTABLE list the sources of the module's
# platform implementations; the ones for IPYBOX_PLATFORM are built (ipybox_platform.cmake).
function(ipybox_target_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                             -Wno-sign-conversion -Wnon-virtual-dtor)
    if(IPYBOX_WARNINGS_AS_ERRORS)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()

function(ipybox_add_module name)
    cmake_parse_arguments(M "" "" "SOURCES;LINUX;DARWIN;PORTABLE;DEPS;PRIVATE_DEPS" ${ARGN})
    string(REPLACE "/" "_" target_suffix "${name}")
    set(target ipybox_${target_suffix})
    string(TOUPPER "${IPYBOX_PLATFORM}" platform)
    add_library(${target} STATIC ${M_SOURCES} ${M_${platform}})
    add_library(ipybox::${target_suffix} ALIAS ${target})
    target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
    target_link_libraries(${target} PUBLIC ${M_DEPS} PRIVATE ${M_PRIVATE_DEPS})
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    ipybox_target_warnings(${target})
endfunction()
