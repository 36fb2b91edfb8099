# sysframe: build, test and benchmark. Finds a JDK >= 22 by itself (.ci/find-jdk).
SHELL := /bin/bash
JDK := $(shell .ci/find-jdk)
ifeq ($(JDK),)
$(error no JDK >= 22 found (see the line above): install one under /usr/lib/jvm or set JAVA_HOME)
endif
export JAVA_HOME := $(JDK)
export PATH := $(JDK)/bin:$(PATH)
JDK_MAJOR := $(shell sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$(JDK)/release" 2>/dev/null)
# Maven's own guava touches sun.misc.Unsafe, and JDK 24+ warns about it on every run unless this
# option allows it. The option exists from JDK 23 on (JEP 471): JDK 22 would refuse to start with it.
ifeq ($(shell [ "$(JDK_MAJOR)" -ge 23 ] 2>/dev/null && echo yes),yes)
export MAVEN_OPTS ?= --sun-misc-unsafe-memory-access=allow
endif
# Maven 3.8's console (jansi) ends every run with an ESC[0m reset, even with -B into a file or a pipe: not here.
MAVEN_OPTS += -Djansi.noreset=true
MVN := mvn -B --no-transfer-progress -Dstyle.color=never
CC := gcc
CFLAGS := -O2 -Wall -Wextra -Werror -std=gnu11
C_PEER := bench/target/sysframe_ping
C_SHM := bench/target/shm_pingpong
C_SERVE := bench/target/sysframe_serve

.PHONY: help build test bench jmh pingpong profile soak javadoc release clean tracefs c-peer

# The first target: `make` alone lists the others.
help:
	@echo "make bench     build, start embedded servers, run the comparison, print the tables and verdicts, write the report"
	@echo "               (BENCH_ARGS=--full for the whole grid, --quick for a short run)"
	@echo "make test      the style check (config/checkstyle), every module's tests, the transport's once per backend, then again with 2 loops per server"
	@echo "make build     compile and install the modules (tests not compiled) and the C peer"
	@echo "make release   the library as a Maven file repository and its .tar.gz, in target/release (no gcc)"
	@echo "make javadoc   the API's HTML (the exported packages of org.sysframe.unix and org.sysframe.transport) in target/apidocs"
	@echo "make soak      the 5-minute soak (SOAK_SECONDS=300)"
	@echo "make jmh       the JMH suite (JMH_ARGS, -prof gc by default)"
	@echo "make pingpong  the ping-pong designs and a channel call measured in pairs, in one process (PINGPONG_ARGS: rounds, calls per slice, designs)"
	@echo "make profile   where a call's CPU time goes, sysframe's against the C program's, per call (perf, root; PROFILE_ARGS)"
	@echo "make tracefs   mount tracefs for the kernel's syscall counters (root)"
	@echo "make clean     remove the build output"

build: c-peer
	$(MVN) -q -Dmaven.test.skip=true install

c-peer: $(C_PEER) $(C_SHM) $(C_SERVE)

$(C_PEER): bench/src/main/c/sysframe_ping.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# Two processes ping-ponging through one shared page, both spinning: the shared-memory rows' physical limit.
$(C_SHM): bench/src/main/c/shm_pingpong.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# A lean C server of the same API, one thread and one epoll loop: the server-side anchor the Java server is put beside.
$(C_SERVE): bench/src/main/c/sysframe_serve.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# Kernel syscall counters read tracepoint ids from tracefs; mount it when it is not (needs root).
tracefs:
	@if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ]; then \
	  if [ "$$(id -u)" = 0 ]; then mount -t tracefs nodev /sys/kernel/tracing && echo "mounted tracefs at /sys/kernel/tracing"; \
	  else echo "warning: tracefs is not mounted and we are not root: kernel syscall counters will be unavailable"; fi; \
	fi

# Quiet when green (-q: Maven's INFO lines go; warnings, a failure's report and Maven's error lines stay; what
# tests print goes to */target/surefire-reports/*-output.txt and the log records they provoke are shown only with
# a failure: test-support's LogCapture). Ends with a summary from the surefire reports: per pass its total and one
# line per module, the total, and the skipped tests by reason (tests that need root, the kernel's syscall counters
# or strace skip, saying why, only for a non-root user outside CI; io_uring's invocations of the behaviour suite
# skip where io_uring is unavailable, naming why). Pass 1 is every module's tests, the transport's behaviour suite
# once per backend (epoll, io_uring: @EachBackend); pass 2 the transport's tests again with every server on
# TEST_LOOPS event loops (-Dsysframe.test.loops; its soak 5 s), but for those tagged @LoopsIndependent (a client's own
# property, scripted peers, servers that choose their loops: they would only repeat pass 1), reported as TEST-*-loops.xml. Tests are counted by their
# <testcase> entries: a class run once per backend reports tests="0" on its <testsuite>.
TEST_LOOPS ?= 2
test: tracefs c-peer
	@rm -rf */target/surefire-reports */target/test-logs */target/checkstyle-result.xml
	@rc=0; $(MVN) -q install || rc=$$?; \
	cat */target/checkstyle-result.xml 2>/dev/null | awk '/<file /{ f++ } /<error /{ e++ } \
	  END { printf "style summary: Checkstyle (config/checkstyle): %d files, %d violations\n", f, e }'; \
	if [ $$rc = 0 ]; then \
	  echo "second pass: the transport's tests again, each server with $(TEST_LOOPS) event loops (-Dsysframe.test.loops; @LoopsIndependent ones left out)"; \
	  $(MVN) -q verify -pl transport -Dcheckstyle.skip -Dsysframe.test.loops=$(TEST_LOOPS) -Dsysframe.soak.seconds=5 -DexcludedGroups=loops-independent \
	    -Dsurefire.reportNameSuffix=loops || rc=$$?; \
	fi; \
	awk -v loops=$(TEST_LOOPS) \
	    'FNR == 1 { p = (FILENAME ~ /-loops[.]xml$$/) ? 2 : 1; seen[p] = 1; m = FILENAME; sub(/\/.*/, "", m); if (!((p, m) in mods)) { mods[p, m] = 1; order[p] = order[p] " " m } } \
	     /<testcase /{ t[p]++; tm[p, m]++ } /<failure|<error /{ f[p]++; fm[p, m]++ } \
	     /<skipped/{ s[p]++; sm[p, m]++; if (match($$0, /message="[^"]*"/)) r[substr($$0, RSTART+9, RLENGTH-10)]++ } \
	     END { name[1] = "pass 1, every module (transport: each backend)"; name[2] = "pass 2, transport with " loops " event loops per server"; \
	           for (p = 1; p <= 2; p++) if (seen[p]) { printf "test summary: %s: %d tests, %d skipped, %d failed\n", name[p], t[p], s[p], f[p]; \
	                                                  n = split(order[p], ms, " "); \
	                                                  for (i = 1; i <= n; i++) printf "test summary:   %s: %d tests, %d skipped, %d failed\n", ms[i], tm[p, ms[i]], sm[p, ms[i]], fm[p, ms[i]]; \
	                                                  T += t[p]; S += s[p]; F += f[p] } \
	           printf "test summary: total: %d tests, %d skipped, %d failed\n", T, S, F; \
	           for (k in r) printf "test summary: %d skipped: %s\n", r[k], k }' \
	  $$(ls */target/surefire-reports/TEST-*.xml 2>/dev/null) /dev/null; \
	exit $$rc

bench: tracefs build
	./sysframe matrix $(BENCH_ARGS)

# The 5-minute soak (make test runs a 10-second one): 256 clients, mixed payloads, memory and fds checked.
SOAK_SECONDS ?= 300
soak: tracefs
	$(MVN) -q -Dmaven.test.skip=true install -pl native-bindings
	$(MVN) test -pl transport -Dtest=SoakTest -Dsurefire.failIfNoSpecifiedTests=false -Dsysframe.soak.seconds=$(SOAK_SECONDS)

# The JMH suite; allocation per operation is shown by default (-prof gc).
JMH_ARGS ?= -prof gc
jmh: build
	$(JDK)/bin/java --enable-native-access=ALL-UNNAMED -cp "bench/target/classes:bench/target/lib/*" \
	  org.openjdk.jmh.Main $(JMH_ARGS)

# PingPongBenchmark's designs taking turns in one process: ratios of neighbouring slices, robust to the guest's placements.
PINGPONG_ARGS ?= 40 20000
pingpong: build
	$(JDK)/bin/java --enable-native-access=ALL-UNNAMED -cp "bench/target/classes:bench/target/lib/*" \
	  org.sysframe.bench.jmh.PairedPingPong $(PINGPONG_ARGS)

# Where a call's CPU time goes, sysframe's against the C program's, per call (./sysframe profile; perf, root).
PROFILE_ARGS ?=
profile: build
	./sysframe profile $(PROFILE_ARGS)

# The exported packages only (the internal ones are not part of the API); the module descriptors say which.
javadoc:
	@rm -rf target/apidocs
	$(JDK)/bin/javadoc -quiet -Xdoclint:none -d target/apidocs -windowtitle "sysframe $$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)" \
	  --module-source-path "org.sysframe.unix=native-bindings/src/main/java" \
	  --module-source-path "org.sysframe.transport=transport/src/main/java" \
	  --module org.sysframe.unix,org.sysframe.transport
	@echo "javadoc: target/apidocs/index.html"

# The release (docs/integrating.md#coordinates): the library modules (native-bindings, transport) with their sources
# and javadoc jars, the BOM (bom/: sysframe-bom) and the parent pom the library poms name, deployed by Maven to the
# file repository target/release/repository (made afresh), then that directory as target/release/sysframe-VERSION-
# repository.tar.gz. test-support is built for native-bindings' test scope but not deployed (maven.deploy.skip), nor are
# examples and bench. No C and no tests: gcc belongs to the bench's programs and to tests that compile C probes; a
# release is cut from a tree that passed `make test`.
RELEASE_REPO := target/release/repository
release:
	@rm -rf target/release
	$(MVN) -q -Dmaven.test.skip=true deploy -pl bom,native-bindings,transport,micrometer -am \
	  -DaltDeploymentRepository=sysframe-release::file://$(CURDIR)/$(RELEASE_REPO)
	@v=$$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1); \
	  tar -czf target/release/sysframe-$$v-repository.tar.gz -C target/release repository && \
	  echo "release $$v: $(RELEASE_REPO) (file://$(CURDIR)/$(RELEASE_REPO)), target/release/sysframe-$$v-repository.tar.gz"

clean:
	$(MVN) -q clean
