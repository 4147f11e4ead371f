# freertos-port/microbit/board.mk - the demo on QEMU's microbit (nRF51822: Cortex-M0,
# 16 MHz, 16 KiB of RAM).
#
# Read by freertos-port/qemu.mk, which builds every port from what its board.mk lists
# (the variables are described at the top of qemu.mk). This board's images:
#   $(BUILD)/microbit/demo.elf       kernel + ARM_CM0 port + demo + board files, linked
#                                    with the thumbv6m-none-eabi archive
#   $(BUILD)/microbit/snapshot.elf   the minimal build (no shell) in a firmware of its
#                                    own, the shared snapshot_main.c on this board
# and its QEMU commands, which run $(QEMU_ELF). The console, the scripted mode and the
# exit statuses are mps2-an385's: the board lists the board-independent files of
# freertos-port/bare-metal/ (bare-metal.mk; board.h is their contract with a board)
# rather than keeping copies.

QEMU_BOARDS += microbit

microbit_CC := arm-none-eabi-gcc
microbit_ARCH := -mcpu=cortex-m0 -mthumb
# ARM_CM0 in V11 has its handlers in portasm.c (no MPU here: configENABLE_MPU 0).
microbit_KERNEL_PORT := portable/GCC/ARM_CM0
microbit_KERNEL_PORT_SRC := port.c portasm.c
microbit_HEAP := heap_4
microbit_INC := freertos-port/microbit $(BARE_METAL) $(BARE_METAL_CORTEX_M)
microbit_SRC := $(addprefix freertos-port/microbit/,startup.c commands.c uart.c clock.c irq_load.c) \
    $(BARE_METAL_DEMO_SRC) $(BARE_METAL_CORTEX_M_SRC) $(BARE_METAL_CORTEX_M_DEMO_SRC)
# snapshot.elf: the board without the demo (startup.c leaves the demo's IRQs to the
# fault report when irq_load.c and mask_check.c are not linked).
microbit_SNAPSHOT_SRC := $(addprefix freertos-port/microbit/,startup.c uart.c clock.c) \
    $(BARE_METAL_SNAPSHOT_SRC) $(BARE_METAL_CORTEX_M_SRC)
microbit_LDSCRIPT := freertos-port/microbit/microbit.ld
# newlib-nano; --no-warn-execstack as for mps2-an385 (newlib's assembly objects).
microbit_LDFLAGS := --specs=nano.specs -Wl,--no-warn-execstack
microbit_RUST_TARGET := thumbv6m-none-eabi

MICROBIT_QEMU := qemu-system-arm -M microbit -display none -monitor none
MICROBIT_SEMIHOSTING := -semihosting-config enable=on,target=native
# One instruction = 2^5 ns of virtual time, never paced to the host clock.
MICROBIT_ICOUNT := -icount shift=5,align=off,sleep=off

# As mps2-an385's three: interactive (UART0 on the terminal), the same under -icount,
# and scripted (stdin through semihosting, deterministic to the byte).
microbit_QEMU_CMD = $(MICROBIT_QEMU) $(QEMU_CONSOLE) $(MICROBIT_SEMIHOSTING) -kernel $(QEMU_ELF)
microbit_QEMU_CMD_ICOUNT = $(MICROBIT_QEMU) $(QEMU_CONSOLE) $(MICROBIT_SEMIHOSTING) $(MICROBIT_ICOUNT) -kernel $(QEMU_ELF)
microbit_QEMU_CMD_SCRIPT = $(MICROBIT_QEMU) -chardev file,id=microbit-uart0,path=/dev/stdout,append=on \
    -serial chardev:microbit-uart0 \
    $(MICROBIT_SEMIHOSTING),arg=$(notdir $(QEMU_ELF)),arg=console=semihosting \
    $(MICROBIT_ICOUNT) -kernel $(QEMU_ELF)
