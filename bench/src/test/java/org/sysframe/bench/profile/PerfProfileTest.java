package org.sysframe.bench.profile;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.profile.PerfProfile.Part;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code perf report}'s rows ({@code period|dso|symbol}, as {@code -F period,dso,sym -t '|'} prints them) sorted
 * into parts and sysframe's methods, exactly: every row's period counted once, in the part its shared object and
 * (for compiled Java) its method's package say.
 */
class PerfProfileTest {
    private static final List<String> REPORT = List.of(
            "# To display the perf.data header info, please use --header/--header-only options.",
            "#",
            "# Samples: 60K of event 'cpu-clock:ppp'",
            "",
            " 2972697240 |[JIT] tid 29013                    |[.] int org.sysframe.transport.internal.io.Waiter.await("
                    + "org.sysframe.transport.internal.io.Waiter$Steps, long, long)",
            " 1000       |[JIT] tid 29013                    |[.] int org.sysframe.transport.internal.io.Waiter.await("
                    + "org.sysframe.transport.internal.io.Waiter$Steps, long, long)",
            " 40         |perf-29013.map                     |[.] void org.sysframe.transport.Pipeline$Sink.accept("
                    + "int, int)",
            " 35003500   |[vdso]                             |[.] 0x00000000000007bd",
            " 7200720    |[vdso]                             |[.] __vdso_clock_gettime",
            " 19801980   |[kernel.kallsyms]                  |[k] pvm_irq_enable",
            " 500        |libc.so.6                          |[.] __send",
            " 700        |libjvm.so                          |[.] os::javaTimeNanos",
            " 300        |[JIT] tid 29013                    |[.] Interpreter",
            " 200        |[JIT] tid 29013                    |[.] nep_invoker_blob",
            " 100        |[JIT] tid 29013                    |[.] void org.sysframe.bench.peer.SysframePeer.ping()",
            " 90         |[JIT] tid 29013                    |[.] void org.HdrHistogram.AbstractHistogram.recordValue("
                    + "long)",
            " 80         |[JIT] tid 29013                    |[.] int java.util.ArrayList.size()",
            " 60         |sysframe_ping                      |[.] run_calls",
            " 50         |[unknown]                          |[.] 0x0000000000001234",
            "not a row",
            "abc |[kernel.kallsyms] |[k] not a period");

    @Test
    void everyRowCountsOnceInItsPart() {
        PerfProfile p = PerfProfile.parse(REPORT, "sysframe_ping");
        assertEquals(2972697240L + 1000 + 40, p.of(Part.LIBRARY));
        assertEquals(35003500L + 7200720, p.of(Part.VDSO));
        assertEquals(19801980L, p.of(Part.KERNEL));
        assertEquals(500, p.of(Part.LIBC));
        assertEquals(700, p.of(Part.JVM));
        assertEquals(300 + 200, p.of(Part.STUBS));
        assertEquals(100 + 90, p.of(Part.BENCH));
        assertEquals(80, p.of(Part.JDK));
        assertEquals(60, p.of(Part.PROGRAM));
        assertEquals(50, p.of(Part.OTHER));
        long sum = 0;
        for (Part part : Part.values()) sum += p.of(part);
        assertEquals(sum, p.total());
        assertEquals(2972697240L + 1000 + 40 + 35003500 + 7200720 + 19801980 + 500 + 700 + 300 + 200 + 100 + 90 + 80
                + 60 + 50, p.total());
    }

    @Test
    void sysframesMethodsByClassAndName() {
        PerfProfile p = PerfProfile.parse(REPORT, "sysframe_ping");
        assertEquals(Map.of("Waiter.await", 2972697240L + 1000, "Pipeline$Sink.accept", 40L), p.methods());
    }

    @Test
    void anotherProgramsSamplesAreNotTheProgramsPart() {
        PerfProfile p = PerfProfile.parse(REPORT, "shm_pingpong");
        assertEquals(0, p.of(Part.PROGRAM));
        assertEquals(60 + 50, p.of(Part.OTHER));
    }

    @Test
    void nothingToReadIsAnEmptyProfile() {
        PerfProfile p = PerfProfile.parse(List.of("# no samples", ""), null);
        assertEquals(0, p.total());
        for (Part part : Part.values()) assertEquals(0, p.of(part), part.label);
        assertEquals(Map.of(), p.methods());
    }
}
