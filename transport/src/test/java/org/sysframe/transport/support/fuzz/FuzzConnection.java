package org.sysframe.transport.support.fuzz;

import org.sysframe.testsupport.Awaits;
import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.transport.support.PoliteClient;
import org.sysframe.transport.support.RawSockets;
import org.sysframe.transport.support.ResponseReader;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.sysframe.transport.support.fuzz.FrameFuzzer.Barrier;
import static org.sysframe.transport.support.fuzz.FrameFuzzer.End;
import static org.sysframe.transport.support.fuzz.FrameFuzzer.Kind;
import static org.sysframe.transport.support.fuzz.FrameFuzzer.Script;
import static org.sysframe.transport.support.fuzz.FrameFuzzer.generate;

/**
 * Runs fuzzed connections against a live server: sends each script in random chunks, checks every answer and the end of
 * the stream.
 */
public final class FuzzConnection {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;

    /** GR_HELLO's answer payload from a default server: u16 max_ifaces. */
    private static final byte[] HELLO_ANSWER = new byte[2];

    /** The payload of a GR_HELLO refused for its api_version: u32, the version the server speaks. */
    private static final byte[] VERSION_ANSWER = new byte[4];

    static {
        MemorySegment.ofArray(HELLO_ANSWER).set(ValueLayout.JAVA_SHORT_UNALIGNED, 0,
                (short) RawSockets.SERVER_MAX_IFACES);
        MemorySegment.ofArray(VERSION_ANSWER).set(ValueLayout.JAVA_INT_UNALIGNED, 0, GroutApi.DEFAULT_API_VERSION);
    }

    private FuzzConnection() {}

    private static String hex(int v) {
        return String.format("0x%08x", v);
    }

    /** Checks every answer of the script in order, then the end of the stream where one is due. */
    static void verify(Script sc, ResponseReader in, AtomicInteger received) throws ErrnoException {
        ServerModel.Answers ex = sc.m.answers;
        MemorySegment sent = MemorySegment.ofArray(sc.s.a);
        MemorySegment hello = MemorySegment.ofArray(HELLO_ANSWER);
        for (int i = 0; i < ex.size; i++) {
            String what = sc.name() + ": response " + (i + 1) + " of " + ex.size + " (for_id " + hex(ex.forId[i])
                    + ", status " + ex.status[i] + ", " + ex.len[i] + " bytes)";
            if (!in.fill(HDR)) throw new AssertionError(what + ": the server closed the connection instead");
            int forId = ResponseHeader.forId(in.buf, in.start);
            int status = ResponseHeader.status(in.buf, in.start);
            long len = ResponseHeader.payloadLen(in.buf, in.start);
            if (forId != ex.forId[i] || status != ex.status[i] || len != ex.len[i]) {
                throw new AssertionError(what + ": got for_id " + hex(forId) + ", status " + status + ", " + len
                        + " bytes");
            }
            if (!in.fill(HDR + (int) len)) throw new AssertionError(what + ": the stream ended inside the payload");
            long p = in.start + HDR;
            long mismatch = ex.off[i] == ServerModel.HELLO_PAYLOAD
                    ? MemorySegment.mismatch(in.buf, p, p + len, hello, 0, len)
                    : ex.off[i] == ServerModel.VERSION_PAYLOAD
                            ? MemorySegment.mismatch(in.buf, p, p + len, MemorySegment.ofArray(VERSION_ANSWER), 0, len)
                    : MemorySegment.mismatch(in.buf, p, p + len, sent, ex.off[i], ex.off[i] + len);
            if (mismatch != -1) throw new AssertionError(what + ": payload differs at byte " + mismatch);
            in.start += HDR + (int) len;
            received.set(i + 1);
        }
        if (sc.end == End.FINAL_PING || sc.end == End.CLOSE_MID_HEADER) {
            if (in.end != in.start) throw new AssertionError(sc.name() + ": " + (in.end - in.start)
                    + " bytes after the last response");
            return;
        }
        // SERVER_CLOSES and HALF_CLOSE: the server closes having read everything, so a clean EOF (not ECONNRESET).
        boolean more;
        try {
            more = in.fill(1);
        } catch (ErrnoException e) {
            throw new AssertionError(sc.name() + " (" + sc.end + "): expected EOF after the last response, got "
                    + e.getMessage(), e);
        }
        if (more) throw new AssertionError(sc.name() + " (" + sc.end
                + "): bytes after the last response instead of EOF");
    }

    static int chunk(Random r, int remaining) {
        int c = switch (r.nextInt(10)) {
            case 0 -> 1 + r.nextInt(16);
            case 1, 2, 3 -> 1 + r.nextInt(1500);
            default -> 1 + r.nextInt(256 * 1024);
        };
        return Math.min(c, remaining);
    }

    /** Sends the script's bytes in random chunks, pausing at its barriers; then half-closes if the script says so. */
    static void send(Script sc, UnixSocket socket, AtomicInteger received, PoliteClient others,
            AtomicBoolean abort) throws Exception {
        Random r = new Random(~sc.seed);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = a.allocate(Math.max(1, sc.s.n));
            MemorySegment.copy(sc.s.a, 0, seg, JAVA_BYTE, 0, sc.s.n);
            int pos = 0;
            for (int b = 0; b <= sc.barriers.size() && !abort.get(); b++) {
                int until = b < sc.barriers.size() ? sc.barriers.get(b).at() : sc.s.n;
                while (pos < until) {
                    int c = chunk(r, until - pos);
                    socket.sendFully(seg, pos, c);
                    pos += c;
                }
                if (b == sc.barriers.size()) break;
                Barrier bar = sc.barriers.get(b);
                Awaits.awaitUntil(() -> abort.get() || received.get() >= bar.responses(), Awaits.HANG_GUARD,
                        () -> sc.name() + ": " + received.get() + " responses, waiting for " + bar.responses());
                if (bar.othersServed() && !abort.get()) others.awaitPings(others.pings.get(), 2);
            }
            if (sc.end == End.HALF_CLOSE && !abort.get()) RawSockets.shutdownWrite(socket);
        }
    }

    /** Totals of one fuzz run. */
    public static final class Totals {
        public final AtomicLong frames = new AtomicLong();
        public final AtomicLong requests = new AtomicLong();
        public final AtomicLong bytes = new AtomicLong();
        public final AtomicInteger connections = new AtomicInteger();
        public final AtomicLongArray ends = new AtomicLongArray(End.values().length);
        public final AtomicLongArray kinds = new AtomicLongArray(Kind.values().length);
        public final List<String> expectedClosures = new CopyOnWriteArrayList<>();
    }

    /** How the server must record a connection when it closes: its reason and its request count (hello included). */
    static String closureKey(Script sc) {
        String reason = switch (sc.end) {
            case FINAL_PING -> "peer closed";
            case HALF_CLOSE, CLOSE_MID_HEADER -> "peer closed in the middle of a request";
            case SERVER_CLOSES -> "payload_len " + sc.m.closingLen;
        };
        return reason + " / " + (sc.m.requests + 1) + " requests";
    }

    public static String closureKey(ConnectionStats st) {
        String reason = st.closeReason();
        if (reason.startsWith("payload_len ")) {
            int sp = reason.indexOf(' ', "payload_len ".length());
            reason = sp < 0 ? reason : reason.substring(0, sp);
        }
        return reason + " / " + st.requests() + " requests";
    }

    /** Runs connections with seeds from (runSeed, worker) until the worker has sent quota frames. */
    public static void fuzzWorker(String path, long runSeed, int worker, int quota, PoliteClient polite,
            Totals totals) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(2L * (HDR + MAX) + 64, 8);
            int sent = 0;
            for (int c = 0; sent < quota; c++) {
                long seed = runSeed * 1_000_003L + worker * 7_919L + c;
                Script sc = generate(seed);
                UnixSocket socket = UnixSocket.connect(path, new SyscallCounters("fuzz " + worker + "/" + c));
                AtomicInteger received = new AtomicInteger();
                AtomicBoolean abort = new AtomicBoolean();
                AtomicReference<Throwable> senderFailure = new AtomicReference<>();
                Thread sender = null;
                try {
                    socket.setReceiveTimeout(RawSockets.RECV_TIMEOUT_MS);
                    RawSockets.hello(socket, buf, 1);
                    sender = new Thread(() -> {
                        try {
                            send(sc, socket, received, polite, abort);
                        } catch (Throwable t) {
                            senderFailure.set(t);
                        }
                    }, "fuzz sender " + worker + "/" + c);
                    sender.setDaemon(true);
                    sender.start();
                    verify(sc, new ResponseReader(socket, buf), received);
                    sender.join(Awaits.HANG_GUARD.toMillis());
                    if (sender.isAlive()) throw new AssertionError(sc.name() + ": sender did not finish");
                    if (senderFailure.get() != null) throw new AssertionError(sc.name() + ": sender failed",
                            senderFailure.get());
                } finally {
                    abort.set(true);
                    socket.close();
                    if (sender != null) sender.join(5_000);
                }
                sent += sc.frames;
                totals.frames.addAndGet(sc.frames);
                totals.requests.addAndGet(sc.m.requests);
                totals.bytes.addAndGet(sc.s.n);
                totals.connections.incrementAndGet();
                totals.ends.incrementAndGet(sc.end.ordinal());
                for (int k = 0; k < sc.kinds.length; k++) totals.kinds.addAndGet(k, sc.kinds[k]);
                totals.expectedClosures.add(closureKey(sc));
            }
        }
    }

    /** Close reasons and how many connections had each (over-size payload_len lengths folded into one). */
    public static Map<String, Integer> countByReason(List<String> keys) {
        Map<String, Integer> out = new TreeMap<>();
        for (String k : keys) {
            String reason = k.substring(0, k.indexOf(" / "));
            if (reason.startsWith("payload_len ")) reason = "payload_len over the maximum";
            out.merge(reason, 1, Integer::sum);
        }
        return out;
    }
}
