package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sysframe.transport.support.Payloads;
import org.sysframe.transport.support.PoliteClient;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.transport.support.fuzz.FrameFuzzer;
import org.sysframe.transport.support.fuzz.FuzzConnection;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.nativeCopy;
import static org.sysframe.transport.support.ServerFixture.awaitConnectionCount;

/**
 * A seeded fuzzer throws random and mutated request frames at a live {@link GroutServer}: every response
 * is checked against what docs/wire-format.md says a server must answer to the bytes sent, every close reason
 * against the model, while a polite client goes on being served.
 *
 * <p>Outcomes are exact; nothing is timed. Waits are progress-based and bounded only as hang guards:
 * receive timeouts on every raw socket, a deadline on every wait, and a preemptive timeout around each test body.
 */
@EachBackend
class FuzzedRequestsTest {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    static Stream<Arguments> fuzzRuns() {
        return Stream.of(
                Arguments.of("defaults (deferred, gather)", false, 0x5eed_0001L),
                Arguments.of("immediate, split", true, 0x5eed_0002L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fuzzRuns")
    void seededFuzzerOfRandomAndMutatedFramesGetsExactlyTheDocumentedAnswersWhileAPoliteClientIsServed(
            String label, boolean immediateSplit, long runSeed) throws Exception {
        String p = fx.path("fuzz.sock");
        ServerOptions options = ServerOptions.defaults().socketPath(p);
        if (immediateSplit) options.flush(FlushMode.IMMEDIATE).send(SendFraming.SPLIT);
        // Thousands of expected warnings (over-size payload_len, wrong api_version): keep the log readable.
        Logger serverLog = Logger.getLogger("org.sysframe.server");
        Level level = serverLog.getLevel();
        serverLog.setLevel(Level.SEVERE);
        try {
            fuzz(label, p, options, runSeed);
        } finally {
            serverLog.setLevel(level);
        }
    }

    private void fuzz(String label, String p, ServerOptions options, long runSeed) {
        final int frameTarget = 100_000;
        final int workers = 3;
        guard(() -> {
            GroutServer server = fx.start(options);
            PoliteClient polite = fx.polite(p, "polite client", 3, 2048);
            polite.awaitPings(0, 1);
            FuzzConnection.Totals totals = new FuzzConnection.Totals();
            ExecutorService pool = Executors.newFixedThreadPool(workers);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int w = 0; w < workers; w++) {
                    int worker = w;
                    int quota = (frameTarget + workers - 1) / workers;
                    futures.add(pool.submit(() -> {
                        FuzzConnection.fuzzWorker(p, runSeed, worker, quota, polite, totals);
                        return null;
                    }));
                }
                for (Future<?> f : futures) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof Error err) throw err;
                        throw e;
                    }
                }
            } finally {
                pool.shutdownNow();
                pool.awaitTermination(10, TimeUnit.SECONDS);
            }
            polite.checkAlive();

            // Every raw connection is gone; the polite client's is the one left.
            awaitConnectionCount(server, 1);
            List<String> expected = new ArrayList<>(totals.expectedClosures);
            List<String> actual = new ArrayList<>();
            for (ConnectionStats st : server.closedConnections()) actual.add(FuzzConnection.closureKey(st));
            Collections.sort(expected);
            Collections.sort(actual);
            if (!expected.equals(actual)) {
                assertEquals(FuzzConnection.countByReason(expected), FuzzConnection.countByReason(actual),
                        "close reasons recorded by the server");
                assertEquals(expected, actual, "close reason and request count of every fuzzed connection");
            }

            long politePings = polite.finish();
            awaitConnectionCount(server, 0);
            try (GroutClient late = GroutClient.connect(clientOptions(p)); Arena a = Arena.ofConfined()) {
                byte[] b = Payloads.unique(99, 777);
                Response r = late.call(GroutApi.PING, nativeCopy(a, b));
                assertArrayEquals(b, r.toByteArray(), "a new client after the fuzzing");
                assertEquals(1, server.connectionCount());
            }
            awaitConnectionCount(server, 0);

            StringBuilder kinds = new StringBuilder();
            for (FrameFuzzer.Kind k : FrameFuzzer.Kind.values()) kinds.append(' ')
                    .append(k.name().toLowerCase(Locale.ROOT)).append('=').append(totals.kinds.get(k.ordinal()));
            System.out.printf(Locale.ROOT,
                    "fuzz [%s]: %,d frames (%,d complete requests answered, %,d bytes) over %,d connections; ends: %d "
                    + "final ping, "
                            + "%d closed by the server (payload_len over 128 KiB), %d half-closed mid-header, %d "
                                    + "closed mid-header; "
                            + "polite client: %,d pings%n"
                            + "fuzz [%s]: frame kinds:%s%n",
                    label, totals.frames.get(), totals.requests.get(), totals.bytes.get(), totals.connections.get(),
                    totals.ends.get(FrameFuzzer.End.FINAL_PING.ordinal()),
                            totals.ends.get(FrameFuzzer.End.SERVER_CLOSES.ordinal()),
                    totals.ends.get(FrameFuzzer.End.HALF_CLOSE.ordinal()),
                            totals.ends.get(FrameFuzzer.End.CLOSE_MID_HEADER.ordinal()), politePings,
                    label, kinds);
            assertTrue(totals.frames.get() >= frameTarget, "frames fuzzed: " + totals.frames.get());
            assertTrue(politePings > 0);
            for (FrameFuzzer.End e : FrameFuzzer.End.values()) assertTrue(totals.ends.get(e.ordinal()) > 0,
                    "no connection ended by " + e);
            for (FrameFuzzer.Kind k : FrameFuzzer.Kind.values()) assertTrue(totals.kinds.get(k.ordinal()) > 0,
                    "no frame of kind " + k);
        });
    }
}
