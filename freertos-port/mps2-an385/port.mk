# freertos-port/mps2-an385/port.mk - the demo on QEMU's mps2-an385 (Cortex-M3).
#
# Included by the top Makefile, which runs from the repository root. Provides:
#   $(BUILD)/mps2-an385/demo.elf        kernel + ARM_CM3 port + demo + port files,
#                                       linked with $(LIB_CM3)
#   $(BUILD)/mps2-an385/demo-nolib.elf  the same image without the library: the kernel
#                                       is built without the hooks header
#                                       (-DCPU_USAGE_DISABLED) and the demo's library
#                                       calls go to cpu_usage_stubs.c. Section sizes
#                                       of demo.elf minus these = what the library adds.
#   $(BUILD)/mps2-an385/snapshot.elf    the minimal build (no shell) in a firmware of its
#                                       own: snapshot_main.c, the port's board files and
#                                       demo.elf's kernel objects, linked with
#                                       $(LIB_CM3_MINIMAL); it prints cpu_usage_snapshot()
#                                       once per window and exits (tests/tests/e2e_qemu.rs)
#   mps2-an385 (phony)                  the three images
#   QEMU_CMD, QEMU_CMD_ICOUNT,          commands that run $(MPS2_QEMU_ELF) (default
#   QEMU_CMD_SCRIPT                     demo.elf): interactive; with -icount; fully
#                                       deterministic with scripted input (see below).
#                                       Run them under `timeout`, with stdin from a
#                                       pipe or /dev/null (a closed stdin breaks
#                                       -serial stdio). QEMU's exit status is the
#                                       demo's port_exit() status; the port's own fatal
#                                       errors exit with 101..105 (mps2_an385.h).
#
# Inputs (all have defaults; set BUILD before the include): BUILD, KERNEL_DIR, LIB_CM3,
# LIB_CM3_MINIMAL, MPS2_CC, MPS2_QEMU_ELF.

MPS2_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

BUILD ?= build
LIB_CM3 ?= target/thumbv7m-none-eabi/release/libfreertos_cpu_usage.a
LIB_CM3_MINIMAL ?= target/minimal/thumbv7m-none-eabi/release/libfreertos_cpu_usage.a

# FreeRTOS-Kernel inside the freertos-next Cargo package: ask Cargo where the package
# is, else look in Cargo's registry. Evaluated once (when the rules are read).
mps2_kernel_from_cargo = $(patsubst %/Cargo.toml,%/FreeRTOS-Kernel,$(shell \
    cargo metadata --format-version 1 --offline 2>/dev/null \
    | grep -o '"manifest_path":"[^"]*/freertos-next-[0-9][^"/]*/Cargo.toml"' \
    | sed -e 's/^"manifest_path":"//' -e 's/"$$//' | sort | tail -n 1))
mps2_kernel_from_registry = $(lastword $(sort $(wildcard \
    $(or $(CARGO_HOME),$(HOME)/.cargo)/registry/src/*/freertos-next-*/FreeRTOS-Kernel)))
KERNEL_DIR ?= $(eval KERNEL_DIR := $(or $(mps2_kernel_from_cargo),$(mps2_kernel_from_registry)))$(KERNEL_DIR)

MPS2_CC ?= arm-none-eabi-gcc
MPS2_OUT := $(BUILD)/mps2-an385

MPS2_ARCH := -mcpu=cortex-m3 -mthumb
MPS2_CFLAGS = $(MPS2_ARCH) -Os -g -std=gnu11 -ffunction-sections -fdata-sections -MMD -MP \
    -I include -I demo -I $(MPS2_DIR) \
    -I $(KERNEL_DIR)/include -I $(KERNEL_DIR)/portable/GCC/ARM_CM3
# Our own code (port files and demo); the kernel is built without them.
MPS2_WARN := -Wall -Wextra -Werror
MPS2_LDSCRIPT := $(MPS2_DIR)/mps2-an385.ld
# -nostartfiles: startup.c is the startup code (vector table, Reset_Handler).
# --no-warn-execstack: newlib's assembly objects lack a .note.GNU-stack section, which
# binutils >= 2.39 reports; there is no such thing as an executable stack here.
MPS2_LDFLAGS := $(MPS2_ARCH) -T $(MPS2_LDSCRIPT) -nostartfiles -Wl,--gc-sections --specs=nano.specs \
    -Wl,--no-warn-execstack

MPS2_KERNEL_SRC := tasks.c queue.c list.c stream_buffer.c event_groups.c timers.c \
    portable/GCC/ARM_CM3/port.c portable/MemMang/heap_4.c
MPS2_PORT_SRC := startup.c main.c commands.c kernel_hooks.c uart.c uart_text.c clock.c irq_load.c mask_check.c \
    semihosting.c syscalls.c
# snapshot.elf: the board without the demo (startup.c leaves the demo's IRQs to the
# fault report when irq_load.c and mask_check.c are not linked).
MPS2_SNAPSHOT_SRC := startup.c snapshot_main.c kernel_hooks.c uart.c uart_text.c clock.c semihosting.c syscalls.c
MPS2_DEMO_SRC = $(wildcard demo/*.c)

# Objects of one variant ($(1) = lib or nolib).
mps2_objs = $(addprefix $(MPS2_OUT)/$(1)/kernel/,$(MPS2_KERNEL_SRC:.c=.o)) \
    $(addprefix $(MPS2_OUT)/$(1)/port/,$(MPS2_PORT_SRC:.c=.o)) \
    $(patsubst demo/%.c,$(MPS2_OUT)/$(1)/demo/%.o,$(MPS2_DEMO_SRC))

MPS2_LIB_OBJS = $(call mps2_objs,lib)
MPS2_NOLIB_OBJS = $(call mps2_objs,nolib) $(MPS2_OUT)/nolib/port/cpu_usage_stubs.o
# The same kernel objects as demo.elf: compiled with the same flags, they do not depend
# on which build of the library they are linked with.
MPS2_SNAPSHOT_OBJS = $(addprefix $(MPS2_OUT)/lib/kernel/,$(MPS2_KERNEL_SRC:.c=.o)) \
    $(addprefix $(MPS2_OUT)/lib/port/,$(MPS2_SNAPSHOT_SRC:.c=.o))

MPS2_ELFS := $(MPS2_OUT)/demo.elf $(MPS2_OUT)/demo-nolib.elf $(MPS2_OUT)/snapshot.elf

.PHONY: mps2-an385 mps2-an385-kernel-check
mps2-an385: $(MPS2_ELFS)

mps2-an385-kernel-check:
	@test -f "$(KERNEL_DIR)/tasks.c" || { \
	    echo "mps2-an385: FreeRTOS-Kernel not found (KERNEL_DIR='$(KERNEL_DIR)')." >&2; \
	    echo "  Fetch the freertos-next crate (cargo fetch) or set KERNEL_DIR=/path/to/FreeRTOS-Kernel." >&2; \
	    exit 1; }

# Compile rules of one variant ($(1) = lib or nolib, $(2) = its extra flags).
define mps2_variant_rules
$(MPS2_OUT)/$(1)/kernel/%.o: $$(KERNEL_DIR)/%.c | mps2-an385-kernel-check
	@mkdir -p $$(@D)
	$$(MPS2_CC) $$(MPS2_CFLAGS) $(2) -c $$< -o $$@

$(MPS2_OUT)/$(1)/port/%.o: $(MPS2_DIR)/%.c | mps2-an385-kernel-check
	@mkdir -p $$(@D)
	$$(MPS2_CC) $$(MPS2_CFLAGS) $$(MPS2_WARN) $(2) -c $$< -o $$@

$(MPS2_OUT)/$(1)/demo/%.o: demo/%.c | mps2-an385-kernel-check
	@mkdir -p $$(@D)
	$$(MPS2_CC) $$(MPS2_CFLAGS) $$(MPS2_WARN) $(2) -c $$< -o $$@
endef

$(eval $(call mps2_variant_rules,lib,))
$(eval $(call mps2_variant_rules,nolib,-DCPU_USAGE_DISABLED))

$(MPS2_OUT)/demo.elf: $(MPS2_LIB_OBJS) $(LIB_CM3) $(MPS2_LDSCRIPT)
	$(MPS2_CC) $(MPS2_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(MPS2_LIB_OBJS) $(LIB_CM3)

$(MPS2_OUT)/demo-nolib.elf: $(MPS2_NOLIB_OBJS) $(MPS2_LDSCRIPT)
	$(MPS2_CC) $(MPS2_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(MPS2_NOLIB_OBJS)

$(MPS2_OUT)/snapshot.elf: $(MPS2_SNAPSHOT_OBJS) $(LIB_CM3_MINIMAL) $(MPS2_LDSCRIPT)
	$(MPS2_CC) $(MPS2_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(MPS2_SNAPSHOT_OBJS) $(LIB_CM3_MINIMAL)

-include $(MPS2_LIB_OBJS:.o=.d) $(MPS2_NOLIB_OBJS:.o=.d) $(MPS2_OUT)/lib/port/snapshot_main.d

MPS2_QEMU_ELF ?= $(MPS2_OUT)/demo.elf
MPS2_QEMU := qemu-system-arm -M mps2-an385 -cpu cortex-m3 -display none -monitor none
MPS2_SEMIHOSTING := -semihosting-config enable=on,target=native
# One instruction = 2^5 ns of virtual time, never paced to the host clock.
MPS2_ICOUNT := -icount shift=5,align=off,sleep=off

# Interactive: the console is UART0 on the terminal (or a pipe).
QEMU_CMD = $(MPS2_QEMU) -serial stdio $(MPS2_SEMIHOSTING) -kernel $(MPS2_QEMU_ELF)
# The same with -icount: guest timing no longer depends on host speed, but UART input
# still arrives whenever QEMU's I/O thread delivers it, so the output is reproducible
# only if it does not depend on when each input byte arrived.
QEMU_CMD_ICOUNT = $(MPS2_QEMU) -serial stdio $(MPS2_SEMIHOSTING) $(MPS2_ICOUNT) -kernel $(MPS2_QEMU_ELF)
# Deterministic, for checked output: -icount, and the console reads stdin through
# semihosting (main.c "scripted"), so every input byte arrives at the same guest
# instruction in every run; end of stdin ends the run like on the POSIX port. Stdin
# must reach end-of-file (a pipe or a file, not a terminal). The serial port writes
# to stdout without reading stdin; append=on keeps a redirect to a file intact.
QEMU_CMD_SCRIPT = $(MPS2_QEMU) -chardev file,id=mps2-uart0,path=/dev/stdout,append=on \
    -serial chardev:mps2-uart0 \
    $(MPS2_SEMIHOSTING),arg=$(notdir $(MPS2_QEMU_ELF)),arg=console=semihosting \
    $(MPS2_ICOUNT) -kernel $(MPS2_QEMU_ELF)
