# freertos-port/bare-metal/bare-metal.mk - the board-independent files of the bare-metal
# QEMU boards (README.md here), as lists their board.mk files use. Read by
# freertos-port/qemu.mk before any board.mk.
#
#   BARE_METAL                the directory: on every board's include path (board.h)
#   BARE_METAL_DEMO_SRC       demo.elf's: main(), the console and exit of demo.h, the
#                             kernel's hooks and the fatal paths, text over the UART,
#                             console input, the shell's 'irq' command and 'irqmask''s
#                             probe
#   BARE_METAL_SNAPSHOT_SRC   snapshot.elf's: its main() and the same hooks, text and
#                             input
#   BARE_METAL_CORTEX_M       the Arm boards' part, cortex-m/: on their include path
#   BARE_METAL_CORTEX_M_SRC   its files, in both images: semihosting, the system calls
#                             of newlib-nano (their C library), the tickless-idle wait,
#                             reset to main() and the fault report
#   BARE_METAL_CORTEX_M_DEMO_SRC  and in demo.elf: the shell's 'irqmask'

BARE_METAL := freertos-port/bare-metal

BARE_METAL_DEMO_SRC := $(addprefix $(BARE_METAL)/,irq_command.c main.c kernel_hooks.c uart_text.c console_rx.c \
    mask_probe.c)
BARE_METAL_SNAPSHOT_SRC := $(addprefix $(BARE_METAL)/,snapshot_main.c kernel_hooks.c uart_text.c console_rx.c)

BARE_METAL_CORTEX_M := $(BARE_METAL)/cortex-m
BARE_METAL_CORTEX_M_SRC := $(addprefix $(BARE_METAL_CORTEX_M)/,semihosting.c syscalls.c idle_sleep.c \
    exceptions.c)
BARE_METAL_CORTEX_M_DEMO_SRC := $(BARE_METAL_CORTEX_M)/mask_check.c
