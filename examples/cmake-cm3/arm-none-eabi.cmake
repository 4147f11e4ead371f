# The Cortex-M3 toolchain: GNU Arm's bare-metal GCC with newlib-nano, the core's flags in
# CMAKE_C_FLAGS (where freertos_cpu_usage reads the core, with FREERTOS_PORT).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m3 -mthumb")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs -nostartfiles -Wl,--gc-sections -Wl,--no-warn-execstack")
