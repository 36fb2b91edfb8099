package org.sysframe.transport.support;

import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.Pipeline;
import org.sysframe.transport.PipelineOptions;
import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * A child JVM for JfrCommandLineTest: against the socket in args[0], 5 blocking calls, 3 futures and
 * 4 pipelined pings, each of 8 bytes; then it exits (the recording started on its command line is
 * written at exit).
 */
public final class JfrChild {
    private JfrChild() {}

    public static void main(String[] args) throws Exception {
        try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(args[0])); Arena a =
                Arena.ofConfined()) {
            MemorySegment p = a.allocate(8);
            for (int i = 0; i < 5; i++) c.call(GroutApi.PING, p);
            CompletableFuture<?>[] fs = new CompletableFuture<?>[3];
            for (int i = 0; i < fs.length; i++) fs[i] = c.callAsync(GroutApi.PING, p);
            CompletableFuture.allOf(fs).join();
            try (Pipeline pl = c.pipeline(PipelineOptions.window(4))) {
                for (int i = 0; i < 4; i++) pl.queue(GroutApi.PING, p, 0, 8);
                int[] got = {0};
                while (got[0] < 4) pl.poll((id, status, seg, off, len, latency) -> got[0]++, 4, true);
            }
        }
    }
}
