package org.sysframe.transport.internal.client;

import org.sysframe.transport.Response;
import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * The payloads of the main module's session messages a client sends and reads (GR_HELLO, GR_EVENT_SUBSCRIBE).
 */
public final class MainModulePayloads {
    private MainModulePayloads() {}

    /** {@code u32 api_version; char version[128]}, the version NUL-terminated (at most 127 bytes). */
    public static MemorySegment hello(Arena arena, int apiVersion, String version) {
        MemorySegment req = arena.allocate(GroutApi.HELLO_REQUEST_SIZE);
        req.set(JAVA_INT, 0, apiVersion);
        byte[] v = version.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(v, 0, req, JAVA_BYTE, 4, v.length); // the rest stays 0: NUL-terminated
        return req;
    }

    /** {@code u16 max_ifaces} of a GR_HELLO answer; -1 when the server answered without it (older servers). */
    public static int maxIfaces(Response r) {
        return r.length() >= GroutApi.HELLO_RESPONSE_SIZE
                ? Short.toUnsignedInt(r.buffer().get(JAVA_SHORT_UNALIGNED, r.offset())) : -1;
    }

    /**
     * The api_version a sysframe server puts in its refusal of GR_HELLO; -1 when absent (Grout's servers send none).
     */
    public static int serverVersion(Response r) {
        return r.length() >= 4 ? r.buffer().get(JAVA_INT_UNALIGNED, r.offset()) : -1;
    }

    /** {@code bool suppress_self_events; u32 ev_type} with its C padding: 8 bytes. */
    public static MemorySegment subscribe(Arena arena, int evType, boolean suppressSelfEvents) {
        MemorySegment req = arena.allocate(GroutApi.SUBSCRIBE_REQUEST_SIZE);
        req.set(JAVA_BYTE, 0, (byte) (suppressSelfEvents ? 1 : 0));
        req.set(JAVA_INT, 4, evType);
        return req;
    }
}
