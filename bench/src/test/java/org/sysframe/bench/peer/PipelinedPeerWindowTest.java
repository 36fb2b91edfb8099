package org.sysframe.bench.peer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The pipelined peer keeps at most 96 KiB of requests in flight, so that a deep window of large messages cannot
 * deadlock.
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
}
