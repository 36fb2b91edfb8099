package org.sysframe.transport.internal.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The server's sums are every loop thread's cell added up, and stay the same when a cell's thread ends. */
class ServerCountsTest {
    private static final int OTHER = 1000;
    private static final int OWN = 500;

    @Test
    void theSumsAddEveryCellAndKeepARetiredOnesCounts() throws Exception {
        ServerCounts counts = new ServerCounts();
        ServerCounts.Cell own = counts.cell();
        ServerCounts.Cell[] other = new ServerCounts.Cell[1];
        Thread t = Thread.ofPlatform().name("other loop").start(() -> {
            other[0] = counts.cell();
            for (int i = 0; i < OTHER; i++) {
                other[0].request(16 + i);
                other[0].answer(i % 10 == 0 ? 95 : 0, 16);
            }
            other[0].event(24);
        });
        for (int i = 0; i < OWN; i++) {
            own.request(20);
            own.answer(0, 20);
        }
        t.join();
        long received = OWN * 20L + OTHER * 16L + (OTHER - 1L) * OTHER / 2;
        long sent = OWN * 20L + OTHER * 16L + 24;
        assertSums(counts, received, sent);

        counts.retire(other[0]);
        assertSums(counts, received, sent);
        counts.retire(other[0]); // a second time: nothing counted twice
        assertSums(counts, received, sent);
        counts.retire(own);
        assertSums(counts, received, sent);
    }

    private static void assertSums(ServerCounts counts, long received, long sent) {
        assertEquals(OWN + OTHER, counts.requests());
        assertEquals(OTHER / 10, counts.errors(), "statuses other than 0");
        assertEquals(received, counts.bytesReceived());
        assertEquals(sent, counts.bytesSent());
    }
}
