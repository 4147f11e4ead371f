# freertos-port/mps2-an386/board.mk - the demo on QEMU's mps2-an386 (Cortex-M4F, hard
# float, 25 MHz).
#
# Read by freertos-port/qemu.mk (the variables are described at its top). The board is
# mps2-an385's with a Cortex-M4F: the same CMSDK UART and timers, clock and memory map,
# so this port builds mps2-an385's board files, FreeRTOSConfig.h and linker script as
# they are, with the kernel's ARM_CM4F port and the hard-float ABI, and adds only
# cm4f.c (the FPU switched on at reset, the port's name). Image:
#   $(BUILD)/mps2-an386/demo.elf   linked with the thumbv7em-none-eabihf archive
# and the same three QEMU commands as mps2-an385 (`make qemu TARGET=mps2-an386`).

QEMU_BOARDS += mps2-an386

MPS2_CC ?= arm-none-eabi-gcc

mps2-an386_CC := $(MPS2_CC)
mps2-an386_ARCH := -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard
mps2-an386_KERNEL_PORT := portable/GCC/ARM_CM4F
mps2-an386_KERNEL_PORT_SRC := port.c
mps2-an386_HEAP := heap_4
mps2-an386_INC := freertos-port/mps2-an386 freertos-port/mps2-an385 $(BARE_METAL) $(BARE_METAL_CORTEX_M)
mps2-an386_SRC = $(mps2-an385_SRC) freertos-port/mps2-an386/cm4f.c
mps2-an386_LDSCRIPT = $(mps2-an385_LDSCRIPT)
mps2-an386_LDFLAGS = $(mps2-an385_LDFLAGS)
mps2-an386_RUST_TARGET := thumbv7em-none-eabihf

MPS2_AN386_QEMU := qemu-system-arm -M mps2-an386 -cpu cortex-m4 -display none -monitor none
mps2-an386_QEMU_CMD = $(call mps2_qemu_cmd,$(MPS2_AN386_QEMU))
mps2-an386_QEMU_CMD_ICOUNT = $(call mps2_qemu_cmd_icount,$(MPS2_AN386_QEMU))
mps2-an386_QEMU_CMD_SCRIPT = $(call mps2_qemu_cmd_script,$(MPS2_AN386_QEMU))
