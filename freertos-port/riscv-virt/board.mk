# freertos-port/riscv-virt/board.mk - the demo on QEMU's RISC-V virt machine (RV32IMAC,
# machine mode, the CLINT's timer at 10 MHz).
#
# Read by freertos-port/qemu.mk, which builds every port from what its board.mk lists
# (the variables are described at the top of qemu.mk). This board's image:
#   $(BUILD)/riscv-virt/demo.elf   kernel + GCC/RISC-V port + demo + board files, linked
#                                  with the riscv32imac-unknown-none-elf archive
# and its QEMU commands, which run $(QEMU_ELF): interactive, and with -icount. QEMU's
# exit status is the demo's port_exit() status (the test finisher, host.c); the port's
# own fatal errors exit with 101..105 (../bare-metal/board.h).

QEMU_BOARDS += riscv-virt

riscv-virt_CC := riscv64-unknown-elf-gcc
# Debian's GCC 12 picks the rv32imac/ilp32 multilib (libgcc, picolibc) only for
# -march=rv32imac, which the link and the C library check get here; the compiles need
# the CSR instructions spelled out (_CFLAGS: the 2019 ISA manual took Zicsr out of the
# base ISA, and GCC 12 follows it). picolibc: the demo uses a few string functions.
riscv-virt_ARCH := -march=rv32imac -mabi=ilp32 --specs=picolibc.specs
# RISCV_no_extensions, not RISCV_MTIME_CLINT_no_extensions: the timer interrupt then
# reaches interrupts.c, where the library sees the tick (README.md, "Which interrupts").
riscv-virt_CFLAGS = -march=rv32imac_zicsr -mcmodel=medany \
    -I $(KERNEL_DIR)/portable/GCC/RISC-V/chip_specific_extensions/RISCV_no_extensions
riscv-virt_KERNEL_PORT := portable/GCC/RISC-V
riscv-virt_KERNEL_PORT_SRC := port.c portASM.S
riscv-virt_HEAP := heap_4
riscv-virt_INC := freertos-port/riscv-virt $(BARE_METAL)
# With the board-independent files of freertos-port/bare-metal/ (main(), the console,
# the kernel's hooks and fatal paths); not its Arm part (semihosting, newlib). The
# device code (interrupts.c, clock.c, uart.c, host.c, irq_load.c, riscv_virt.h) and
# riscv_virt_config.h serve ../riscv-virt-smp too, which lists them by path.
riscv-virt_SRC := $(addprefix freertos-port/riscv-virt/,start.S commands.c interrupts.c clock.c uart.c \
    irq_load.c mask_check.c mcycle.c idle_sleep.c host.c) $(BARE_METAL_DEMO_SRC)
riscv-virt_LDSCRIPT := freertos-port/riscv-virt/riscv-virt.ld
# One RAM region holds code and data, which is what QEMU loads.
riscv-virt_LDFLAGS := -Wl,--no-warn-rwx-segments
riscv-virt_RUST_TARGET := riscv32imac-unknown-none-elf

# -bios none: no firmware; the reset vector jumps straight to the image at 0x80000000.
# -rtc clock=vm: the RTC (irq_load.c) counts guest time.
RVV_QEMU := qemu-system-riscv32 -M virt -bios none -display none -monitor none -rtc clock=vm
# One instruction = 2^5 ns of virtual time, never paced to the host clock.
RVV_ICOUNT := -icount shift=5,align=off,sleep=off

riscv-virt_QEMU_CMD = $(RVV_QEMU) $(QEMU_CONSOLE) -kernel $(QEMU_ELF)
riscv-virt_QEMU_CMD_ICOUNT = $(RVV_QEMU) $(QEMU_CONSOLE) $(RVV_ICOUNT) -kernel $(QEMU_ELF)
