# freertos-port/riscv-virt-smp/board.mk - FreeRTOS SMP on QEMU's RISC-V virt machine with
# several harts (RV32IMAC, machine mode), on this directory's own port layer (port/).
#
# Two boards from one directory: riscv-virt-smp2 (configNUMBER_OF_CORES 2, QEMU -smp 2)
# and riscv-virt-smp4 (4, -smp 4). A board of qemu.mk is one configuration and one
# pair of QEMU command lines, and the number of harts is both: it is compiled into the
# kernel (configNUMBER_OF_CORES, from -DVIRT_SMP_HARTS) and given to QEMU (-smp). So
# each count is a board, with its objects in $(BUILD)/<board>/ and `make qemu
# TARGET=<board>` working as on every board, rather than a demo variant (variants share
# their board's QEMU command and only add sources and flags to the demo with the
# library). The files are shared: RVS_BOARD below defines both from the same lists.
#
# Images of each (qemu.mk):
#   $(BUILD)/<board>/smp_check.elf   the board's self-check (smp_check.c): every hart,
#                                    the locks, the yields and the tick; exit status 0
#                                    when all is well (tests/tests/smp_qemu.rs runs it)
#   $(BUILD)/<board>/demo.elf        the demo (freertos-port/bare-metal, demo/) with the
#                                    library built for the board's cores (_CORES)
#   $(BUILD)/<board>/demo-nolib.elf  the same without the library
# and the QEMU commands: interactive without -icount, with MTTCG asked for explicitly
# (one host thread per hart, in parallel: what stresses the spinlocks), and under
# -icount (the harts take turns in one host thread; deterministic).

RVS_DIR := freertos-port/riscv-virt-smp

# The port layer, and the board: this directory's files for what several harts need of
# their own (start-up on every hart, the idle harts' wait, the other harts' pacing
# timers), and riscv-virt's device code, which is the same machine's: the interrupts
# and the PLIC, the tick and the wall clock, the UART, the exit through the test
# finisher, the RTC interrupt load behind the shell's 'irq'. Those files serve both
# boards (their parts for several harts are under configNUMBER_OF_CORES > 1).
RVS_VIRT_DIR := freertos-port/riscv-virt
RVS_PORT_SRC := $(addprefix $(RVS_DIR)/port/,port.c portASM.S)
RVS_BOARD_SRC := $(RVS_PORT_SRC) $(addprefix $(RVS_DIR)/,start.S idle.c pacing.c) \
    $(addprefix $(RVS_VIRT_DIR)/,interrupts.c clock.c uart.c host.c irq_load.c)

# $(1): the board, $(2): its number of harts.
define RVS_BOARD
QEMU_BOARDS += $(1)

$(1)_CC := riscv64-unknown-elf-gcc
# As riscv-virt: the rv32imac/ilp32 multilib for the link, Zicsr spelled out for the
# compiles; the A extension is what the port's locks use (amoadd, amoswap, amoor).
$(1)_ARCH := -march=rv32imac -mabi=ilp32 --specs=picolibc.specs
$(1)_CFLAGS = -march=rv32imac_zicsr -mcmodel=medany -DVIRT_SMP_HARTS=$(2)
# The kernel's only RISC-V port file used is its chip header (no extra registers, the
# timer left to the board), which port/portASM.S includes; the kernel's portmacro.h,
# port.c and portASM.S are single-core and stay out of the build and off the include
# path. The port layer is in $(1)_SRC, compiled as our code (-Werror).
$(1)_KERNEL_PORT := portable/GCC/RISC-V/chip_specific_extensions/RISCV_no_extensions
$(1)_KERNEL_PORT_SRC :=
$(1)_HEAP := heap_4
$(1)_INC := $(RVS_DIR) $(RVS_DIR)/port $(BARE_METAL)
# The demo's board-independent files, but not mask_probe.c: 'irqmask' uses the software
# interrupt that only riscv-virt's one-hart interrupts.c handles.
$(1)_SRC := $(RVS_BOARD_SRC) $(RVS_DIR)/commands.c $(RVS_DIR)/readers.c \
    $(addprefix $(BARE_METAL)/,irq_command.c main.c kernel_hooks.c uart_text.c console_rx.c)
$(1)_NOLIB_SRC := freertos-port/mps2-an385/cpu_usage_stubs.c
$(1)_CORES := $(2)
$(1)_APPS := smp_check
$(1)_APP_SRC_smp_check := $(RVS_BOARD_SRC) $(RVS_DIR)/smp_check.c \
    $(addprefix $(BARE_METAL)/,kernel_hooks.c uart_text.c console_rx.c)
$(1)_LDSCRIPT := $(RVS_DIR)/riscv-virt-smp.ld
$(1)_LDFLAGS := -Wl,--no-warn-rwx-segments
$(1)_RUST_TARGET := riscv32imac-unknown-none-elf

$(1)_QEMU := qemu-system-riscv32 -M virt -smp $(2) -bios none -display none -monitor none -rtc clock=vm
$(1)_QEMU_CMD = $$($(1)_QEMU) -accel tcg,thread=multi $(QEMU_CONSOLE) -kernel $$(QEMU_ELF)
$(1)_QEMU_CMD_ICOUNT = $$($(1)_QEMU) -icount shift=5,align=off,sleep=off $(QEMU_CONSOLE) -kernel $$(QEMU_ELF)
endef

$(eval $(call RVS_BOARD,riscv-virt-smp2,2))
$(eval $(call RVS_BOARD,riscv-virt-smp4,4))
