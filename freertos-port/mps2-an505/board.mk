# freertos-port/mps2-an505/board.mk - the demo on QEMU's mps2-an505 (Cortex-M33 with FPU,
# Secure state, 20 MHz).
#
# Read by freertos-port/qemu.mk, which builds every port from what its board.mk lists
# (the variables are described at the top of qemu.mk). This board's image:
#   $(BUILD)/mps2-an505/demo.elf   kernel + ARM_CM33_NTZ port + demo + the MPS2 board
#                                  files, linked with the thumbv8m.main-none-eabihf
#                                  archive
# and its QEMU commands, which run $(QEMU_ELF), as mps2-an385's do (interactive; with
# -icount; scripted): the same options on another machine.
#
# The board files are mps2-an385's (and the board-independent ones of
# freertos-port/bare-metal/), compiled again for this core with this directory first on
# the include path: its mps2_board.h (addresses, IRQs, clock, the kernel port's handler
# names) and FreeRTOSConfig.h are found before mps2-an385's.

QEMU_BOARDS += mps2-an505

# Set here too, whichever of the MPS2 board.mk files is read first.
MPS2_CC ?= arm-none-eabi-gcc

mps2-an505_CC := $(MPS2_CC)
# The M33's FPU is single precision (FPv5-SP); hard float, as thumbv8m.main-none-eabihf.
mps2-an505_ARCH := -mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16
# The ARMv8-M port built for the side it runs on (here the Secure side, without
# TrustZone: FreeRTOSConfig.h); portasm.c holds its handlers.
mps2-an505_KERNEL_PORT := portable/GCC/ARM_CM33_NTZ/non_secure
mps2-an505_KERNEL_PORT_SRC := port.c portasm.c
mps2-an505_HEAP := heap_4
mps2-an505_INC := freertos-port/mps2-an505 freertos-port/mps2-an385 $(BARE_METAL) $(BARE_METAL_CORTEX_M)
mps2-an505_SRC = $(mps2-an385_SRC)
mps2-an505_LDSCRIPT := freertos-port/mps2-an505/mps2-an505.ld
# As mps2-an385's (newlib-nano; -L for the sections its linker script INCLUDEs).
mps2-an505_LDFLAGS := --specs=nano.specs -Wl,--no-warn-execstack -L freertos-port/mps2-an385
mps2-an505_RUST_TARGET := thumbv8m.main-none-eabihf

$(BUILD)/mps2-an505/demo.elf: freertos-port/mps2-an385/mps2-sections.ld

MPS2_AN505_QEMU := qemu-system-arm -M mps2-an505 -cpu cortex-m33 -display none -monitor none

mps2-an505_QEMU_CMD = $(MPS2_AN505_QEMU) $(QEMU_CONSOLE) $(MPS2_SEMIHOSTING) -kernel $(QEMU_ELF)
mps2-an505_QEMU_CMD_ICOUNT = $(MPS2_AN505_QEMU) $(QEMU_CONSOLE) $(MPS2_SEMIHOSTING) $(MPS2_ICOUNT) -kernel $(QEMU_ELF)
mps2-an505_QEMU_CMD_SCRIPT = $(MPS2_AN505_QEMU) -chardev file,id=mps2-uart0,path=/dev/stdout,append=on \
    -serial chardev:mps2-uart0 \
    $(MPS2_SEMIHOSTING),arg=$(notdir $(QEMU_ELF)),arg=console=semihosting \
    $(MPS2_ICOUNT) -kernel $(QEMU_ELF)
