package org.sysframe.bench.peer;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The pipelined peer keeps at most 96 KiB of requests in flight, so that a deep window of large messages cannot
 * deadlock; its latency histogram counts every right answer once, one in {@link PipelinedPeer#SAMPLE_EVERY} recorded
 * (weighted) or every one, run after run.
 */
class PipelinedPeerWindowTest {
    @Test
    void theWindowShrinksOnlyWhereTheBytesInFlightWouldPassTheCap() {
        assertEquals(64, PipelinedPeer.windowFor(64, 32));
        assertEquals(64, PipelinedPeer.windowFor(64, 1024), "64 x 1036 B = 66,304 B fits");
        assertEquals(23, PipelinedPeer.windowFor(64, 4096), "98,304 / 4,108");
        assertEquals(1, PipelinedPeer.windowFor(64, 65536), "one 64 KiB request at a time");
        assertEquals(1, PipelinedPeer.windowFor(64, 131072), "never below one");
        assertEquals(4, PipelinedPeer.windowFor(4, 8192), "never above the depth asked");
    }

    @Test
    void theHistogramCountsEveryAnswerOnceWhetherSampledOrNotRunAfterRun() throws Exception {
        try (BenchFixture f = new BenchFixture("pipelined-counts")) {
            String socket = f.socket("p");
            Pairing p = Pairing.named("sysframe");
            f.server(p.server(socket));
            for (boolean every : new boolean[] {false, true}) {
                PipelinedPeer peer = f.closing(new PipelinedPeer("p", p.client(socket), 8, 8)).everyRequest(every);
                peer.open(socket);
                peer.prepare(32);
                // 1,001 answers: 62 samples of 16 and 9 past the last; then a run of 37 after it, counted afresh
                for (long n : new long[] {1_001, 37}) {
                    Histogram h = new Histogram(10_000_000_000L, 3);
                    peer.pingMany(n, h);
                    assertEquals(n, h.getTotalCount(), (every ? "every answer" : "one in 16") + ", " + n + " calls");
                }
            }
        }
    }
}
