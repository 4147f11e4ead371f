# freertos-port/riscv-virt/port.mk - the demo on QEMU's RISC-V virt machine (RV32IMAC).
#
# Included by the top Makefile, which runs from the repository root. Provides:
#   $(BUILD)/riscv-virt/demo.elf   kernel + GCC/RISC-V port + demo + port files, linked
#                                  with $(LIB_RV32)
#   riscv-virt (phony)             that image
#   RVV_QEMU_CMD, RVV_QEMU_CMD_ICOUNT
#                                  commands that run $(RVV_QEMU_ELF) (default demo.elf):
#                                  interactive, and with -icount. Run them under
#                                  `timeout`, with stdin from a pipe or /dev/null. QEMU's
#                                  exit status is the demo's port_exit() status; the
#                                  port's own fatal errors exit with 101..105
#                                  (riscv_virt.h).
#
# Inputs (all have defaults; set BUILD before the include): BUILD, KERNEL_DIR, LIB_RV32,
# RVV_CC, RVV_QEMU_ELF.

RVV_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

BUILD ?= build
LIB_RV32 ?= target/riscv32imac-unknown-none-elf/release/libfreertos_cpu_usage.a

RVV_CC ?= riscv64-unknown-elf-gcc
RVV_OUT := $(BUILD)/riscv-virt

# Debian's GCC 12 selects the rv32imac/ilp32 multilib (libgcc, picolibc) only for
# -march=rv32imac; the code needs Zicsr spelled out (GCC 12 follows the 2019 ISA
# manual, where the CSR instructions left the base ISA). Compile with one, link with
# the other.
RVV_ARCH := -march=rv32imac_zicsr -mabi=ilp32 -mcmodel=medany
RVV_LINK_ARCH := -march=rv32imac -mabi=ilp32
RVV_CHIP_HEADER := portable/GCC/RISC-V/chip_specific_extensions/RISCV_no_extensions
RVV_CFLAGS = $(RVV_ARCH) --specs=picolibc.specs -Os -g -std=gnu11 -ffunction-sections -fdata-sections -MMD -MP \
    -I include -I demo -I $(RVV_DIR) \
    -I $(KERNEL_DIR)/include -I $(KERNEL_DIR)/portable/GCC/RISC-V -I $(KERNEL_DIR)/$(RVV_CHIP_HEADER)
RVV_WARN := -Wall -Wextra -Werror
RVV_LDSCRIPT := $(RVV_DIR)/riscv-virt.ld
# --no-warn-rwx-segments: one RAM region holds code and data, which is what QEMU loads.
RVV_LDFLAGS := $(RVV_LINK_ARCH) --specs=picolibc.specs -T $(RVV_LDSCRIPT) -nostartfiles -Wl,--gc-sections \
    -Wl,--no-warn-rwx-segments

RVV_KERNEL_SRC := tasks.c queue.c list.c stream_buffer.c event_groups.c timers.c \
    portable/GCC/RISC-V/port.c portable/GCC/RISC-V/portASM.S portable/MemMang/heap_4.c
RVV_PORT_SRC := start.S main.c interrupts.c clock.c uart.c irq_load.c mask_check.c mcycle.c kernel_hooks.c exit.c
RVV_DEMO_SRC = $(wildcard demo/*.c)

rvv_obj = $(patsubst %.S,%.o,$(patsubst %.c,%.o,$(1)))
RVV_OBJS = $(addprefix $(RVV_OUT)/kernel/,$(call rvv_obj,$(RVV_KERNEL_SRC))) \
    $(addprefix $(RVV_OUT)/port/,$(call rvv_obj,$(RVV_PORT_SRC))) \
    $(patsubst demo/%.c,$(RVV_OUT)/demo/%.o,$(RVV_DEMO_SRC))

.PHONY: riscv-virt
riscv-virt: $(RVV_OUT)/demo.elf

$(RVV_OUT)/kernel/%.o: $(KERNEL_DIR)/%.c
	@mkdir -p $(@D)
	$(RVV_CC) $(RVV_CFLAGS) -c $< -o $@
$(RVV_OUT)/kernel/%.o: $(KERNEL_DIR)/%.S
	@mkdir -p $(@D)
	$(RVV_CC) $(RVV_CFLAGS) -c $< -o $@
$(RVV_OUT)/port/%.o: $(RVV_DIR)/%.c
	@mkdir -p $(@D)
	$(RVV_CC) $(RVV_CFLAGS) $(RVV_WARN) -c $< -o $@
$(RVV_OUT)/port/%.o: $(RVV_DIR)/%.S
	@mkdir -p $(@D)
	$(RVV_CC) $(RVV_CFLAGS) $(RVV_WARN) -c $< -o $@
$(RVV_OUT)/demo/%.o: demo/%.c
	@mkdir -p $(@D)
	$(RVV_CC) $(RVV_CFLAGS) $(RVV_WARN) -c $< -o $@

$(RVV_OUT)/demo.elf: $(RVV_OBJS) $(LIB_RV32) $(RVV_LDSCRIPT)
	$(RVV_CC) $(RVV_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(RVV_OBJS) $(LIB_RV32)

-include $(RVV_OBJS:.o=.d)

RVV_QEMU_ELF ?= $(RVV_OUT)/demo.elf
# -bios none: no firmware; the reset vector jumps straight to the image at 0x80000000.
# -rtc clock=vm: the RTC (irq_load.c) counts guest time.
RVV_QEMU := qemu-system-riscv32 -M virt -bios none -display none -monitor none -rtc clock=vm
# One instruction = 2^5 ns of virtual time, never paced to the host clock.
RVV_ICOUNT := -icount shift=5,align=off,sleep=off

RVV_QEMU_CMD = $(RVV_QEMU) -serial stdio -kernel $(RVV_QEMU_ELF)
RVV_QEMU_CMD_ICOUNT = $(RVV_QEMU) -serial stdio $(RVV_ICOUNT) -kernel $(RVV_QEMU_ELF)
