# sroce: software RoCEv2 NIC. `make help` lists the targets.
TOP := $(CURDIR)
BUILD := $(TOP)/build
VERSION := 0.1

# The running kernel when its headers are installed (a real host), else
# Debian's 6.1 (the development machines run a kernel without modules and
# test in VMs).
KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
	else $(TOP)/scripts/kver.sh 6.1; fi 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
# One object tree per kernel, so builds for 6.1 and 6.12 never mix.
KB := $(BUILD)/kbuild/$(subst /,_,$(abspath $(KDIR)))
# The release modules install under (Debian's kernel.release can differ).
KREL = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h)

MULTIARCH := $(shell gcc -print-multiarch)
PROVIDER_DIR ?= /usr/lib/$(MULTIARCH)/libibverbs
PROVIDER := $(BUILD)/provider/libsroce-rdmav34.so
PROGS_SRC := $(wildcard tests/vm/prog/*.c)
PROGS := $(patsubst tests/vm/prog/%.c,$(BUILD)/prog/%,$(PROGS_SRC))
STAGE := $(BUILD)/stage

all: module provider progs test-kmod

help:
	@echo "make deps      install build/test dependencies (apt, rdma-core source)"
	@echo "make           build sroce.ko (KVER/KDIR), libsroce and test programs"
	@echo "make C=1       ... and run sparse on the module"
	@echo "make install   install module, provider and driver file [DESTDIR=]"
	@echo "make intree    build sroce as part of linux-source-6.1's tree (Kconfig,"
	@echo "               CONFIG_RDMA_SROCE=m) and with make M= against it"
	@echo "make demo      boot a VM, add an sroce device, show ibv_devinfo"
	@echo "make check     every build, static check and test; prints N passed, N failed"
	@echo "               [SHAKE=1: all of it under a CPU hog on every host core]"
	@echo "               [DEBUG_KERNEL=1: and core suites on a KASAN/lockdep/"
	@echo "               kmemleak kernel built from linux-source-6.1;"
	@echo "               DEBUG_KERNEL=full: the whole core list on it, by hand]"
	@echo "make bench     perftest on rdma_rxe and sroce in one VM, then TCP/rxe/sroce"
	@echo "               between two VMs under loss, the ULPs, congestion control on"
	@echo "               a shared bottleneck: median-of-3 tables [PROFILE=1]"
	@echo "make profile   guest perf profiles of rxe and sroce: build/profile-*.txt"
	@echo "make pyverbs   rdma-core's Python tests (pyverbs) on sroce and rxe, 6.12"

deps:
	$(TOP)/scripts/deps.sh

# Kbuild wants the sources beside the objects; copy them into the
# per-kernel tree (only what changed) and build there.
module:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': make deps"; exit 1; }
	@mkdir -p $(KB)
	@cp -ru --preserve=timestamps Kbuild drivers include $(KB)/
	@cd $(KB) && find drivers include -name '*.[ch]' | while read -r f; do \
		test -e "$(CURDIR)/$$f" || rm -f "$$f"; done
	$(MAKE) -C $(KDIR) M=$(KB) $(if $(C),C=$(C)) modules
	@test -f $(KB)/drivers/infiniband/sw/sroce/sroce.ko || \
		{ echo "no sroce.ko: is CONFIG_RDMA_SROCE=m still set in ./Kbuild?"; exit 1; }

test-kmod: module
	@mkdir -p $(KB)/tests && cp -ru --preserve=timestamps tests/kmod $(KB)/tests/
	$(MAKE) -C $(KDIR) M=$(KB)/tests/kmod $(if $(C),C=$(C)) modules

provider: $(PROVIDER)

# build-provider.sh builds it in rdma-core's tree, with its driver file.
$(PROVIDER): $(wildcard userspace-provider/providers/sroce/*) include/uapi/rdma/sroce-abi.h \
		scripts/build-provider.sh scripts/provider-syms.sh
	$(TOP)/scripts/build-provider.sh $(BUILD)/provider

progs: $(PROGS)

# Test programs may use the driver's proto/ code, as the host tests do.
PROTO_SRCS := $(wildcard drivers/infiniband/sw/sroce/proto/*.c)

$(BUILD)/prog/%: tests/vm/prog/%.c tests/vm/prog/tap.h tests/vm/prog/rawframe.h \
		tests/vm/prog/wire_peer.h \
		include/uapi/rdma/sroce-abi.h $(PROTO_SRCS)
	@mkdir -p $(dir $@)
	gcc -O2 -g -Wall -Wextra -Werror -Iinclude/uapi \
		-Idrivers/infiniband/sw/sroce -o $@ $< $(PROTO_SRCS) -libverbs -lpthread \
		$(if $(filter mc_send,$*),-lrdmacm)

# Programs that post what Debian 12's libibverbs has no verb for (FLUSH,
# tests/vm/prog/flush/, and rc_peer56, rc_peer with -F): built against
# rdma-core 56.1's headers and libibverbs (build-provider.sh leaves it in
# $(RC56)), which they find in /usr/libexec/sroce/rc56.
RC56 := $(BUILD)/provider/rc56
PROGS_FLUSH := $(BUILD)/prog-flush/flush_ops $(BUILD)/prog-flush/pmem_flush \
	$(BUILD)/prog-flush/rc_peer56
CC56 = gcc -O2 -g -Wall -Wextra -Werror -isystem $(BUILD)/rdma-core-build/include \
	-Itests/vm/prog -Wl,-rpath,/usr/libexec/sroce/rc56
progs: $(PROGS_FLUSH)
$(BUILD)/prog-flush/%: tests/vm/prog/flush/%.c tests/vm/prog/tap.h $(PROVIDER)
	@mkdir -p $(dir $@)
	$(CC56) -o $@ $< $(RC56)/libibverbs.so.1
$(BUILD)/prog-flush/rc_peer56: tests/vm/prog/rc_peer.c tests/vm/prog/tap.h $(PROVIDER)
	@mkdir -p $(dir $@)
	$(CC56) -DRC_PEER_FLUSH -o $@ $< $(RC56)/libibverbs.so.1

# rc_ops is rc_ops.c (main, TAP) and its parts under rc_ops/.
RC_OPS_PARTS := $(wildcard tests/vm/prog/rc_ops/*.c)
$(BUILD)/prog/rc_ops: tests/vm/prog/rc_ops.c $(RC_OPS_PARTS) \
		tests/vm/prog/rc_ops/rc_ops.h tests/vm/prog/tap.h
	@mkdir -p $(dir $@)
	gcc -O2 -g -Wall -Wextra -Werror -o $@ $< $(RC_OPS_PARTS) -libverbs

install: module provider
	install -D -m 644 $(KB)/drivers/infiniband/sw/sroce/sroce.ko \
		$(DESTDIR)/lib/modules/$(KREL)/extra/sroce.ko
	install -D -m 755 $(PROVIDER) $(DESTDIR)$(PROVIDER_DIR)/libsroce-rdmav34.so
	install -D -m 644 $(BUILD)/provider/sroce.driver \
		$(DESTDIR)/etc/libibverbs.d/sroce.driver
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KREL); fi

install-tests: progs test-kmod
	install -D -m 644 $(KB)/tests/kmod/sroce_test_kverbs.ko \
		$(DESTDIR)/lib/modules/$(KREL)/extra/sroce_test_kverbs.ko
	install -D -m 644 $(KB)/tests/kmod/sroce_test_rc.ko \
		$(DESTDIR)/lib/modules/$(KREL)/extra/sroce_test_rc.ko
	@mkdir -p $(DESTDIR)/usr/libexec/sroce
	$(if $(PROGS),install -m 755 $(PROGS) $(DESTDIR)/usr/libexec/sroce/)
	install -m 755 $(PROGS_FLUSH) $(DESTDIR)/usr/libexec/sroce/
	install -D -m 755 -t $(DESTDIR)/usr/libexec/sroce/rc56 $(RC56)/*

# The tree the VM harness lays over its base image.
stage:
	rm -rf $(STAGE)
	$(MAKE) install install-tests DESTDIR=$(STAGE)

# Sources for `dkms add/build/install sroce/$(VERSION)`.
dkms-src:
	install -d $(DESTDIR)/usr/src/sroce-$(VERSION)
	cp -r Kbuild dkms.conf drivers include $(DESTDIR)/usr/src/sroce-$(VERSION)/

# sroce dropped into linux-source-6.1's tree with its Kconfig entry and
# Makefile line, built there and with make M= (build/intree, cached).
intree:
	$(TOP)/scripts/intree-build.sh

unit:
	$(MAKE) -C tests/unit run

demo: deps
	$(MAKE) all stage
	$(TOP)/scripts/vm-run.sh tests/vm/suites/demo.sh

# SHAKE=1 runs it all under a CPU hog on every core; DEBUG_KERNEL=1 adds
# the debug-kernel pass, DEBUG_KERNEL=full a longer one (scripts/check.sh).
check:
	SHAKE=$(SHAKE) DEBUG_KERNEL=$(DEBUG_KERNEL) $(TOP)/scripts/check.sh

# perftest on rdma_rxe and sroce in one VM boot, then TCP, rxe and sroce
# between two VMs, clean and under loss: two tables of medians.
# PROFILE=1 adds the guest perf profiles of `make profile`.
bench: deps
	$(MAKE) all stage
	PROFILE=$(PROFILE) $(TOP)/scripts/bench.sh

# perf record -a -g in the guest during ib_send_lat and ib_write_bw on
# rdma_rxe and on sroce: build/profile-<impl>-<load>.txt.
profile: deps
	$(MAKE) all stage
	$(TOP)/scripts/profile.sh

# rdma-core's pyverbs tests on sroce and rdma_rxe, one VM on 6.12.
pyverbs: deps
	$(TOP)/scripts/pyverbs.sh

clean:
	rm -rf $(BUILD)/kbuild $(BUILD)/provider $(BUILD)/prog $(BUILD)/prog-flush $(BUILD)/unit \
		$(STAGE) $(BUILD)/results

.PHONY: all help deps module test-kmod provider progs install install-tests stage \
	dkms-src intree unit demo check bench profile clean pyverbs
