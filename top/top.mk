# The host viewer, cpu-usage-top (top/): built with cargo, run against the POSIX
# simulator (make top) or the QEMU demo over TCP (make top-qemu). Included by the
# Makefile at the root.
#
#   make top          the simulator with the viewer on this terminal
#   make top-qemu     the mps2-an385 demo in QEMU, its UART on TCP, the viewer on it
#   make top-install  cargo install the viewer (into ~/.cargo/bin, or CARGO_INSTALL_ROOT)
#
# TOP_ARGS adds options (e.g. TOP_ARGS="--record run.jsonl --plot run.png").

TOP := target/release/cpu-usage-top
TOP_QEMU_PORT ?= 5555
TOP_ARGS ?=

.PHONY: top-build top top-qemu top-install

top-build:
	$(CARGO) build --release -p cpu-usage-top

top: setup
	@$(MAKE) --no-print-directory sim top-build
	$(TOP) --exec $(BUILD)/posix/freertos-sim $(TOP_ARGS)

# QEMU listens on the port (wait=off: the demo boots at once, and the viewer may
# disconnect and connect again); it ends with the viewer.
top-qemu: setup
	@$(MAKE) --no-print-directory $(BUILD)/mps2-an385/demo.elf top-build
	@$(MPS2_QEMU) -serial tcp:127.0.0.1:$(TOP_QEMU_PORT),server=on,wait=off $(MPS2_SEMIHOSTING) \
		-kernel $(BUILD)/mps2-an385/demo.elf & qemu=$$!; \
	trap 'kill $$qemu 2>/dev/null' EXIT INT TERM; \
	$(TOP) --tcp 127.0.0.1:$(TOP_QEMU_PORT) $(TOP_ARGS)

top-install:
	$(CARGO) install --locked --path top
