# freertos_cpu_usage_rust_target.cmake - which build of freertos-cpu-usage a firmware
# links: the Rust target of its core and float ABI (README, "Targets"). Included by the
# top CMakeLists.txt (add_subdirectory: the target cargo builds for) and by the
# prebuilt package's freertos_cpu_usageConfig.cmake (find_package: the archive it
# takes), so that both read a firmware the same way.
#
#   freertos_cpu_usage_rust_target(<variable>)
#
# sets <variable> to, in this order:
#   1. FREERTOS_CPU_USAGE_RUST_TARGET, when the project sets it (any Rust target);
#   2. the target of FREERTOS_PORT, FreeRTOS-Kernel's CMake port name, read with the
#      C compile flags (CMAKE_C_FLAGS, where a toolchain file puts -mcpu, -mfloat-abi
#      and -march): hard float picks the `eabihf` target, an RV32 -march without the
#      A extension riscv32imc;
#   3. without FREERTOS_PORT, this host's target when the build is not a cross build.
# Anything else stops with what to set.

include_guard(GLOBAL)

# This host's Rust target (the POSIX port's archive).
function(freertos_cpu_usage_host_target out)
    set(cpu "${CMAKE_HOST_SYSTEM_PROCESSOR}")
    if(cpu STREQUAL "amd64" OR cpu STREQUAL "AMD64")
        set(cpu x86_64)
    elseif(cpu STREQUAL "arm64")
        set(cpu aarch64)
    endif()
    if(CMAKE_HOST_SYSTEM_NAME STREQUAL "Linux")
        set(${out} "${cpu}-unknown-linux-gnu" PARENT_SCOPE)
    elseif(CMAKE_HOST_SYSTEM_NAME STREQUAL "Darwin")
        set(${out} "${cpu}-apple-darwin" PARENT_SCOPE)
    else()
        message(FATAL_ERROR "freertos_cpu_usage: no Rust target known for a ${CMAKE_HOST_SYSTEM_NAME} host: "
            "set FREERTOS_CPU_USAGE_RUST_TARGET")
    endif()
endfunction()

function(freertos_cpu_usage_rust_target out)
    if(FREERTOS_CPU_USAGE_RUST_TARGET)
        set(${out} "${FREERTOS_CPU_USAGE_RUST_TARGET}" PARENT_SCOPE)
        return()
    endif()

    set(port "${FREERTOS_PORT}")
    set(flags " ${CMAKE_C_FLAGS} ")
    if(flags MATCHES " -mfloat-abi=hard ")
        set(hf hf)
    else()
        set(hf "")
    endif()

    if(NOT port)
        if(CMAKE_CROSSCOMPILING)
            message(FATAL_ERROR "freertos_cpu_usage: neither FREERTOS_PORT nor FREERTOS_CPU_USAGE_RUST_TARGET "
                "is set in a cross build: set FREERTOS_PORT (FreeRTOS-Kernel's port name, e.g. GCC_ARM_CM4F) "
                "before, or FREERTOS_CPU_USAGE_RUST_TARGET (e.g. thumbv7em-none-eabihf)")
        endif()
        freertos_cpu_usage_host_target(target)
    elseif(port STREQUAL "GCC_POSIX")
        freertos_cpu_usage_host_target(target)
    elseif(port MATCHES "^GCC_(ARM_CM0|RP2040)$")
        set(target thumbv6m-none-eabi)
    elseif(port MATCHES "^GCC_ARM_CM3(_MPU)?$")
        set(target thumbv7m-none-eabi)
    elseif(port MATCHES "^GCC_ARM_(CM4F|CM4_MPU|CM7)$")
        set(target thumbv7em-none-eabi${hf})
    elseif(port MATCHES "^GCC_ARM_CM23_")
        set(target thumbv8m.base-none-eabi)
    elseif(port MATCHES "^GCC_ARM_CM(33|35P|55|85)_")
        set(target thumbv8m.main-none-eabi${hf})
    elseif(port MATCHES "^GCC_RISC_V")
        if(flags MATCHES " -march=rv64")
            message(FATAL_ERROR "freertos_cpu_usage: RV64 is not among the library's targets (README, Targets): "
                "set FREERTOS_CPU_USAGE_RUST_TARGET to build for it from the sources")
        elseif(flags MATCHES " -march=rv32([a-z]*)")
            # The single-letter extensions before any '_': without A (or G, which has it)
            # the core has no atomic instructions either.
            if(CMAKE_MATCH_1 MATCHES "[ag]")
                set(target riscv32imac-unknown-none-elf)
            else()
                set(target riscv32imc-unknown-none-elf)
            endif()
        else()
            set(target riscv32imac-unknown-none-elf)
        endif()
    else()
        message(FATAL_ERROR "freertos_cpu_usage: no Rust target known for FREERTOS_PORT ${port}: "
            "set FREERTOS_CPU_USAGE_RUST_TARGET to the Rust target of the core (README, Targets)")
    endif()
    set(${out} "${target}" PARENT_SCOPE)
endfunction()
