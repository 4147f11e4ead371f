# freertos-port/mps2-an385/board.mk - the demo on QEMU's mps2-an385 (Cortex-M3, 25 MHz).
#
# Read by freertos-port/qemu.mk, which builds every port from what its board.mk lists
# (the variables are described at the top of qemu.mk). This board's images:
#   $(BUILD)/mps2-an385/demo.elf        kernel + ARM_CM3 port + demo + board files,
#                                       linked with the thumbv7m-none-eabi archive
#   $(BUILD)/mps2-an385/demo-nolib.elf  the same image without the library: the kernel
#                                       is built without the hooks header
#                                       (-DCPU_USAGE_DISABLED) and the demo's library
#                                       calls go to cpu_usage_stubs.c. Section sizes
#                                       of demo-notrace.elf minus these = what the
#                                       library adds (make size).
#   $(BUILD)/mps2-an385/demo-tracer.elf the demo with another trace tool beside the
#                                       library (the `tracer` variant, qemu.mk)
#   $(BUILD)/mps2-an385/demo-notrace.elf the demo without the event trace (`notrace`):
#                                       minus demo-nolib.elf, what the library adds
#                                       to a firmware that does not trace (make size)
#   $(BUILD)/mps2-an385/snapshot.elf    the minimal build (no shell) in a firmware of its
#                                       own: snapshot_main.c, the board files and
#                                       demo.elf's kernel objects, linked with the
#                                       minimal archive; it prints cpu_usage_snapshot()
#                                       once per window and exits (tests/tests/e2e_qemu.rs)
# and its QEMU commands, which run $(QEMU_ELF): interactive; with -icount; fully
# deterministic with scripted input (see below). QEMU's exit status is the demo's
# port_exit() status; the port's own fatal errors exit with 101..105 (board.h).
# The board-independent files (main(), the console, the kernel's hooks, semihosting...)
# are freertos-port/bare-metal/'s, which every bare-metal board lists (bare-metal.mk).
#
# Inputs: MPS2_CC (default arm-none-eabi-gcc; bench/ uses it too).

QEMU_BOARDS += mps2-an385

MPS2_CC ?= arm-none-eabi-gcc

mps2-an385_CC := $(MPS2_CC)
mps2-an385_ARCH := -mcpu=cortex-m3 -mthumb
mps2-an385_KERNEL_PORT := portable/GCC/ARM_CM3
mps2-an385_KERNEL_PORT_SRC := port.c
mps2-an385_HEAP := heap_4
mps2-an385_INC := freertos-port/mps2-an385 $(BARE_METAL) $(BARE_METAL_CORTEX_M)
# The MPS2 board files, which the other MPS2 boards build too. The link order (here and
# in bare-metal.mk) places the constants of demo.elf and demo-nolib.elf with the same
# alignment padding, so that their difference, `make size`'s figures, is the library's.
MPS2_SRC := $(addprefix freertos-port/mps2-an385/,commands.c startup.c uart.c clock.c irq_load.c)
mps2-an385_SRC := $(BARE_METAL_DEMO_SRC) $(BARE_METAL_CORTEX_M_SRC) $(BARE_METAL_CORTEX_M_DEMO_SRC) $(MPS2_SRC)
mps2-an385_NOLIB_SRC := freertos-port/mps2-an385/cpu_usage_stubs.c
mps2-an385_VARIANTS := tracer notrace
# snapshot.elf: the board without the demo (startup.c leaves the demo's IRQs to the
# fault report when irq_load.c and mask_check.c are not linked).
mps2-an385_SNAPSHOT_SRC := $(addprefix freertos-port/mps2-an385/,startup.c uart.c clock.c) \
    $(BARE_METAL_SNAPSHOT_SRC) $(BARE_METAL_CORTEX_M_SRC)
mps2-an385_LDSCRIPT := freertos-port/mps2-an385/mps2-an385.ld
# newlib-nano. --no-warn-execstack: newlib's assembly objects lack a .note.GNU-stack
# section, which binutils >= 2.39 reports; there is no such thing as an executable stack
# here. -L: the linker script gives the board's MEMORY and INCLUDEs the sections every
# MPS2 board shares, mps2-sections.ld, from this directory.
mps2-an385_LDFLAGS := --specs=nano.specs -Wl,--no-warn-execstack -L freertos-port/mps2-an385
MPS2_SECTIONS_LD := freertos-port/mps2-an385/mps2-sections.ld
$(addprefix $(BUILD)/mps2-an385/,demo.elf demo-nolib.elf snapshot.elf $(mps2-an385_VARIANTS:%=demo-%.elf)): \
    $(MPS2_SECTIONS_LD)
mps2-an385_RUST_TARGET := thumbv7m-none-eabi

MPS2_QEMU := qemu-system-arm -M mps2-an385 -cpu cortex-m3 -display none -monitor none
MPS2_SEMIHOSTING := -semihosting-config enable=on,target=native
# One instruction = 2^5 ns of virtual time, never paced to the host clock.
MPS2_ICOUNT := -icount shift=5,align=off,sleep=off

# The three commands for any MPS2 board running these board files ($(1): its QEMU and
# machine, as MPS2_QEMU; mps2-an386 uses them too).
# Interactive: the console is UART0 on the terminal (or a pipe).
mps2_qemu_cmd = $(1) $(QEMU_CONSOLE) $(MPS2_SEMIHOSTING) -kernel $(QEMU_ELF)
# The same with -icount: guest timing no longer depends on host speed, but UART input
# still arrives whenever QEMU's I/O thread delivers it, so the output is reproducible
# only if it does not depend on when each input byte arrived.
mps2_qemu_cmd_icount = $(1) $(QEMU_CONSOLE) $(MPS2_SEMIHOSTING) $(MPS2_ICOUNT) -kernel $(QEMU_ELF)
# Deterministic, for checked output: -icount, and the console reads stdin through
# semihosting (main.c "scripted"), so every input byte arrives at the same guest
# instruction in every run; end of stdin ends the run like on the POSIX port. Stdin
# must reach end-of-file (a pipe or a file, not a terminal). The serial port writes
# to stdout without reading stdin; append=on keeps a redirect to a file intact.
mps2_qemu_cmd_script = $(1) -chardev file,id=mps2-uart0,path=/dev/stdout,append=on \
    -serial chardev:mps2-uart0 \
    $(MPS2_SEMIHOSTING),arg=$(notdir $(QEMU_ELF)),arg=console=semihosting \
    $(MPS2_ICOUNT) -kernel $(QEMU_ELF)

mps2-an385_QEMU_CMD = $(call mps2_qemu_cmd,$(MPS2_QEMU))
mps2-an385_QEMU_CMD_ICOUNT = $(call mps2_qemu_cmd_icount,$(MPS2_QEMU))
mps2-an385_QEMU_CMD_SCRIPT = $(call mps2_qemu_cmd_script,$(MPS2_QEMU))
