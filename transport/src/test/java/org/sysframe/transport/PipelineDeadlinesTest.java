package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.OneRequestPerRead;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * Every wait of a pipeline ends by the earliest deadline in flight: against a server that answers one
 * request per read (as Grout's own API loop does), one that sends events but never the answer, and
 * one that stalls in the middle of an answer, each request past its timeout reaches the handler as
 * ETIMEDOUT from a poll that waited (on both backends, both framings); closing waits at most a second.
 * The request timeout (and the client's receive timeout) are far apart so that which fires is
 * certain; nothing is timed.
 */
@EachBackend
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@LoopsIndependent
class PipelineDeadlinesTest {
    @TempDir Path dir;

    /** ids and statuses as the handler got them. */
    private static final class Got implements Pipeline.AnswerHandler {
        final List<String> seen = new ArrayList<>();

        @Override
        public void onResponse(int id, int status, MemorySegment payload, long offset, long length, long latencyNanos) {
            seen.add(id + ":" + (status == 0 ? "ok " + length + " B tag " + payload.get(JAVA_INT_UNALIGNED, offset)
                    : Errno.name(status)));
        }
    }

    private ClientOptions client(String path, String recv) {
        return ClientOptions.defaults().socketPath(path).recv(RecvFraming.parse(recv))
                // far past the request timeout: only the request deadlines end these waits
                .receiveTimeoutMillis(30_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aServerThatAnswersOneRequestPerReadLeavesTheRestToTimeOutThroughWaitingPolls(String recv) throws Exception {
        String path = dir.resolve("one-per-read.sock").toString();
        OneRequestPerRead server = new OneRequestPerRead();
        try (RawServer raw = new RawServer(path, server);
             GroutClient c = GroutClient.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            Got got = new Got();
            try (Pipeline p = c.pipeline(PipelineOptions.window(4).requestTimeoutMillis(300))) {
                MemorySegment payload = a.allocate(4);
                for (int tag = 1; tag <= 4; tag++) {
                    payload.set(JAVA_INT_UNALIGNED, 0, tag);
                    p.queue(GroutApi.PING, payload, 0, 4);
                }
                p.flush(); // one send: the server reads the four at once, answers the first
                int polls = 0;
                while (p.inFlight() > 0) {
                    assertTrue(p.poll(got, 4, true) > 0, "a waiting poll hands an answer or a timeout");
                    polls++;
                }
                assertEquals(List.of("2:ok 4 B tag 1", "3:ETIMEDOUT", "4:ETIMEDOUT", "5:ETIMEDOUT"), got.seen);
                assertEquals(2, polls, "the answer, then the three timeouts together");
                assertTrue(c.isUsable(), "timed-out requests do not break the client");
            }
            assertEquals(1, server.answered());
            c.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void eventsArrivingDoNotKeepAnOverdueRequestFromTimingOut(String recv) throws Exception {
        String path = dir.resolve("events.sock").toString();
        try (RawServer raw = new RawServer(path, conn -> {
                conn.readRequest();
                try {
                    for (int i = 0; i < 200; i++) {
                        conn.write(WireBytes.event(GroutApi.type(0x5f5f, 1), pattern(8, i)));
                        Thread.sleep(10);
                    }
                } catch (ErrnoException e) {
                    if (e.errno() != Errno.EPIPE && e.errno() != Errno.ECONNRESET) throw e; // the client went
                }
            });
             GroutClient c = GroutClient.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            Got got = new Got();
            try (Pipeline p = c.pipeline(PipelineOptions.window(4).requestTimeoutMillis(300))) {
                MemorySegment payload = a.allocate(4);
                int id = p.queue(GroutApi.PING, payload, 0, 4);
                while (p.inFlight() > 0) p.poll(got, 4, true);
                assertEquals(List.of(id + ":ETIMEDOUT"), got.seen);
            }
            assertTrue(c.pendingEvents() > 0, "the events were kept for nextEvent");
            c.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void anAnswerThatStopsHalfWayFailsEveryRequestWithEtimedoutAtTheDeadline(String recv) throws Exception {
        String path = dir.resolve("half.sock").toString();
        try (RawServer raw = new RawServer(path, conn -> {
                RawRequest r = conn.readRequest();
                conn.write(WireBytes.concat(WireBytes.response(r.id(), 0, 2, new byte[0]), new byte[] {7}));
                conn.awaitEof();
            });
             GroutClient c = GroutClient.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            Got got = new Got();
            Pipeline p = c.pipeline(PipelineOptions.window(4).requestTimeoutMillis(300));
            int id = p.queue(GroutApi.PING, a.allocate(4), 0, 4);
            ErrnoException e = assertThrows(ErrnoException.class, () -> {
                while (p.inFlight() > 0) p.poll(got, 4, true);
            });
            assertEquals("recv(" + path
                    + "): ETIMEDOUT (110) Connection timed out: a message stopped arriving: 13 of its 14 bytes came,"
                    + " then nothing until the earliest request's deadline", e.getMessage());
            assertEquals(List.of(id + ":ETIMEDOUT"), got.seen);
            assertFalse(c.isUsable(), "the stream is out of step");
            p.close();
            c.close();
            raw.awaitScript();
        }
    }

    @Test
    void closingWaitsAtMostASecondForAnswersThatDoNotComeAndSaysSo() throws Exception {
        String path = dir.resolve("close.sock").toString();
        try (RawServer raw = new RawServer(path, conn -> {
                for (int i = 0; i < 8; i++) conn.readRequest();
                conn.awaitEof();
            });
             GroutClient c = GroutClient.connect(client(path, "readahead")); Arena a = Arena.ofConfined()) {
            Pipeline p = c.pipeline(PipelineOptions.window(8)); // no request timeout: close bounds itself
            for (int i = 0; i < 8; i++) p.queue(GroutApi.PING, a.allocate(4), 0, 4);
            p.flush();
            p.close();
            assertFalse(c.isUsable());
            ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
            assertEquals("client(" + path
                    + "): ENOTCONN (107) Transport endpoint is not connected: unusable since: pipeline: ETIMEDOUT (110)"
                    + " Connection timed out: 8 requests still unanswered when the pipeline closed, after 1000 ms",
                            e.getMessage());
            c.close();
            raw.awaitScript();
        }
    }

    @Test
    void aRequestTimeoutEndsTheWaitEvenWithoutAReceiveTimeout() throws Exception {
        String path = dir.resolve("no-rcvtimeo.sock").toString();
        OneRequestPerRead server = new OneRequestPerRead();
        try (RawServer raw = new RawServer(path, server);
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(0));
             Arena a = Arena.ofConfined()) {
            Got got = new Got();
            try (Pipeline p = c.pipeline(PipelineOptions.window(2).requestTimeoutMillis(200))) {
                MemorySegment payload = a.allocate(4);
                p.queue(GroutApi.PING, payload, 0, 4);
                p.queue(GroutApi.PING, payload, 0, 4);
                while (p.inFlight() > 0) p.poll(got, 2, true);
            }
            assertEquals(List.of("2:ok 4 B tag 0", "3:ETIMEDOUT"), got.seen);
            c.close();
            raw.awaitScript();
        }
    }
}
