# sysframe: build, test and benchmark. Finds a JDK >= 22 by itself (.ci/find-jdk).
SHELL := /bin/bash
JDK := $(shell .ci/find-jdk)
ifeq ($(JDK),)
$(error no JDK >= 22 found (see the line above): install one under /usr/lib/jvm or set JAVA_HOME)
endif
export JAVA_HOME := $(JDK)
export PATH := $(JDK)/bin:$(PATH)
# Maven's own guava touches sun.misc.Unsafe; keep JDK 25 from printing that warning on every run.
export MAVEN_OPTS ?= --sun-misc-unsafe-memory-access=allow
MVN := mvn -B --no-transfer-progress -Dstyle.color=never
CC := gcc
CFLAGS := -O2 -Wall -Wextra -Werror -std=gnu11
C_PEER := bench/target/sysframe_ping

.PHONY: build test bench jmh soak clean tracefs c-peer

build: c-peer
	$(MVN) -q -Dmaven.test.skip=true install

c-peer: $(C_PEER)

$(C_PEER): bench/src/main/c/sysframe_ping.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# Kernel syscall counters read tracepoint ids from tracefs; mount it when it is not (needs root).
tracefs:
	@if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ]; then \
	  if [ "$$(id -u)" = 0 ]; then mount -t tracefs nodev /sys/kernel/tracing && echo "mounted tracefs at /sys/kernel/tracing"; \
	  else echo "warning: tracefs is not mounted and we are not root: kernel syscall counters will be unavailable"; fi; \
	fi

# Ends with a summary from the surefire reports: tests run, skipped, and why (tests that need root, the
# kernel's syscall counters or strace skip, saying why, only for a non-root user outside CI).
# make test runs the suite, then the transport tests again with every server on TEST_LOOPS event loops,
# then once more with every server and client that does not pin its backend on io_uring (-Dsysframe.backend).
TEST_LOOPS ?= 2
test: tracefs c-peer
	@rm -rf */target/surefire-reports
	@rc=0; $(MVN) install || rc=$$?; \
	awk '/<testsuite /{ if (match($$0, /tests="[0-9]+"/)) t += substr($$0, RSTART+7, RLENGTH-8); \
	                    if (match($$0, /skipped="[0-9]+"/)) s += substr($$0, RSTART+9, RLENGTH-10) } \
	     /<skipped message="/{ match($$0, /message="[^"]*"/); r[substr($$0, RSTART+9, RLENGTH-10)]++ } \
	     END { printf "test summary: %d tests, %d skipped\n", t, s; for (k in r) printf "test summary: %d skipped: %s\n", r[k], k }' \
	  $$(ls */target/surefire-reports/TEST-*.xml 2>/dev/null) /dev/null; \
	[ $$rc = 0 ] || exit $$rc; \
	echo "second pass: every transport test again, each server with $(TEST_LOOPS) event loops (-Dsysframe.test.loops)"; \
	$(MVN) verify -pl transport -Dsysframe.test.loops=$(TEST_LOOPS) -Dsurefire.reportsDirectory=target/surefire-reports-loops || exit $$?; \
	echo "third pass: every transport test again, each server and client on the io_uring backend (-Dsysframe.backend=io_uring)"; \
	$(MVN) verify -pl transport -Dsysframe.backend=io_uring -Dsurefire.reportsDirectory=target/surefire-reports-uring

bench: tracefs build
	./sysframe matrix $(BENCH_ARGS)

# The 5-minute soak (make test runs a 20-second one): 256 clients, mixed payloads, memory and fds checked.
SOAK_SECONDS ?= 300
soak: tracefs
	$(MVN) -q -Dmaven.test.skip=true install -pl native-bindings
	$(MVN) test -pl transport -Dtest=SoakTest -Dsurefire.failIfNoSpecifiedTests=false -Dsysframe.soak.seconds=$(SOAK_SECONDS)

# The JMH suite; allocation per operation is shown by default (-prof gc).
JMH_ARGS ?= -prof gc
jmh: build
	$(JDK)/bin/java --enable-native-access=ALL-UNNAMED -cp "bench/target/classes:bench/target/lib/*" \
	  org.openjdk.jmh.Main $(JMH_ARGS)

clean:
	$(MVN) -q clean
