package org.sysframe.transport.support;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.Response;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Pings through a GroutClient with every echoed byte checked. */
public final class Pings {
    private Pings() {}

    /** One GR_PING of len bytes of Payloads.pattern(len, seed), the echo checked byte for byte. */
    public static void ping(GroutClient c, int seed, int len) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = Payloads.nativeCopy(a, Payloads.pattern(len, seed));
            Response r = c.call(GroutApi.PING, p, 0, len);
            assertEquals(0, r.status());
            assertEquals(len, r.length());
            assertEquals(-1, MemorySegment.mismatch(r.buffer(), r.offset(), r.offset() + len, p, 0, len),
                    "echo differs");
        }
    }
}
