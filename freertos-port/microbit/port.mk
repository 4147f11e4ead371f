# freertos-port/microbit/port.mk - the demo on QEMU's microbit (nRF51822, Cortex-M0).
# Temporary: its own compile rules until freertos-port/qemu.mk holds every QEMU port's.
#
# Provides $(BUILD)/microbit/demo.elf, microbit (phony), MICROBIT_QEMU_CMD,
# MICROBIT_QEMU_CMD_ICOUNT, MICROBIT_QEMU_CMD_SCRIPT (as mps2-an385's QEMU_CMD*).

MICROBIT_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
MICROBIT_SHARED := freertos-port/mps2-an385
MICROBIT_OUT := $(BUILD)/microbit
LIB_CM0 ?= target/thumbv6m-none-eabi/release/libfreertos_cpu_usage.a

MICROBIT_ARCH := -mcpu=cortex-m0 -mthumb
MICROBIT_CFLAGS = $(MICROBIT_ARCH) -Os -g -std=gnu11 -ffunction-sections -fdata-sections -MMD -MP \
    -I include -I demo -I $(MICROBIT_DIR) -I $(MICROBIT_SHARED) \
    -I $(KERNEL_DIR)/include -I $(KERNEL_DIR)/portable/GCC/ARM_CM0
MICROBIT_WARN := -Wall -Wextra -Werror
MICROBIT_LDSCRIPT := $(MICROBIT_DIR)/microbit.ld
MICROBIT_LDFLAGS := $(MICROBIT_ARCH) -T $(MICROBIT_LDSCRIPT) -nostartfiles -Wl,--gc-sections --specs=nano.specs \
    -Wl,--no-warn-execstack

MICROBIT_KERNEL_SRC := tasks.c queue.c list.c stream_buffer.c event_groups.c timers.c \
    portable/GCC/ARM_CM0/port.c portable/GCC/ARM_CM0/portasm.c portable/MemMang/heap_4.c
MICROBIT_PORT_SRC := startup.c commands.c uart.c clock.c irq_load.c
MICROBIT_SHARED_SRC := main.c kernel_hooks.c semihosting.c syscalls.c uart_text.c

MICROBIT_OBJS := $(addprefix $(MICROBIT_OUT)/kernel/,$(MICROBIT_KERNEL_SRC:.c=.o)) \
    $(addprefix $(MICROBIT_OUT)/port/,$(MICROBIT_PORT_SRC:.c=.o)) \
    $(addprefix $(MICROBIT_OUT)/shared/,$(MICROBIT_SHARED_SRC:.c=.o)) \
    $(patsubst demo/%.c,$(MICROBIT_OUT)/demo/%.o,$(wildcard demo/*.c))

.PHONY: microbit lib-cm0
microbit: $(MICROBIT_OUT)/demo.elf

lib-cm0:
	$(CARGO) build --release --features trace --target thumbv6m-none-eabi
	scripts/localize-libc.sh $(LIB_CM0) $(MICROBIT_ARCH)
$(LIB_CM0): lib-cm0
	@:

$(MICROBIT_OUT)/kernel/%.o: $(KERNEL_DIR)/%.c
	@mkdir -p $(@D)
	$(MPS2_CC) $(MICROBIT_CFLAGS) -c $< -o $@
$(MICROBIT_OUT)/port/%.o: $(MICROBIT_DIR)/%.c
	@mkdir -p $(@D)
	$(MPS2_CC) $(MICROBIT_CFLAGS) $(MICROBIT_WARN) -c $< -o $@
$(MICROBIT_OUT)/shared/%.o: $(MICROBIT_SHARED)/%.c
	@mkdir -p $(@D)
	$(MPS2_CC) $(MICROBIT_CFLAGS) $(MICROBIT_WARN) -c $< -o $@
$(MICROBIT_OUT)/demo/%.o: demo/%.c
	@mkdir -p $(@D)
	$(MPS2_CC) $(MICROBIT_CFLAGS) $(MICROBIT_WARN) -c $< -o $@

$(MICROBIT_OUT)/demo.elf: $(MICROBIT_OBJS) $(LIB_CM0) $(MICROBIT_LDSCRIPT)
	$(MPS2_CC) $(MICROBIT_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(MICROBIT_OBJS) $(LIB_CM0)

-include $(MICROBIT_OBJS:.o=.d)

MICROBIT_QEMU_ELF ?= $(MICROBIT_OUT)/demo.elf
MICROBIT_QEMU := qemu-system-arm -M microbit -display none -monitor none
MICROBIT_SEMIHOSTING := -semihosting-config enable=on,target=native
MICROBIT_ICOUNT := -icount shift=5,align=off,sleep=off
MICROBIT_QEMU_CMD = $(MICROBIT_QEMU) -serial stdio $(MICROBIT_SEMIHOSTING) -kernel $(MICROBIT_QEMU_ELF)
MICROBIT_QEMU_CMD_ICOUNT = $(MICROBIT_QEMU) -serial stdio $(MICROBIT_SEMIHOSTING) $(MICROBIT_ICOUNT) -kernel $(MICROBIT_QEMU_ELF)
MICROBIT_QEMU_CMD_SCRIPT = $(MICROBIT_QEMU) -chardev file,id=microbit-uart0,path=/dev/stdout,append=on \
    -serial chardev:microbit-uart0 \
    $(MICROBIT_SEMIHOSTING),arg=$(notdir $(MICROBIT_QEMU_ELF)),arg=console=semihosting \
    $(MICROBIT_ICOUNT) -kernel $(MICROBIT_QEMU_ELF)
