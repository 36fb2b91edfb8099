package org.sysframe.bench.peer;

import org.HdrHistogram.Histogram;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.Pipeline;
import org.sysframe.transport.PipelineOptions;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringCounts;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * sysframe's client keeping depth requests in flight through a {@link Pipeline}: it refills batch at
 * a time (each refill one send) as answers come, and records the latency from a request's flush to
 * its answer (timed once per poll by the {@link Pipeline}) for one answer in {@link #SAMPLE_EVERY},
 * weighted by it, or for every answer after {@link #everyRequest}.
 *
 * <p>At most {@link #BYTES_IN_FLIGHT} bytes of requests are kept in flight: a window of large messages
 * that fills both directions' socket buffers would block the flush's send while the server, its
 * answers unread, stops reading (the {@link Pipeline}'s documented limit). At 32 B or 1 KiB every
 * depth up to 64 fits; at 64 KiB one request at a time does.
 */
public final class PipelinedPeer implements PingPeer {
    private final String name;
    private final ClientOptions options;
    private final int depth;
    private final int batch;
    private final int copyThreshold;
    private final long requestTimeoutMillis;
    private Arena arena;
    private MemorySegment payload;
    private GroutClient client;
    private Pipeline pipeline;
    /** Request bytes kept in flight at most, well under the default AF_UNIX socket buffers (208 KiB). */
    static final int BYTES_IN_FLIGHT = 96 * 1024;

    private int len;
    private int window;
    private Histogram latency;
    private long answered;      // answers and failures handed back
    private long echoed;        // of them, right answers
    private long timedOut;      // of them, ETIMEDOUT (past the request timeout)
    private ErrnoException wrong; // the first wrong answer, as one line
    /**
     * Answers per latency recorded by default: the histogram costs about as much as the rest of an answer's handling.
     */
    public static final int SAMPLE_EVERY = 16;
    private int sampleEvery = SAMPLE_EVERY;
    /** Answers until the next latency recorded: a count down, not a remainder (a 64-bit division an answer). */
    private int untilSample = SAMPLE_EVERY;
    private long lastLatency;     // of the last right answer: stands for the answers since the last sample

    public PipelinedPeer(String name, ClientOptions options, int depth, int batch) {
        this(name, options, depth, batch, PipelineOptions.window(depth).copyThreshold());
    }

    /**
     * With the pipeline copying requests of up to copyThreshold payload bytes into its batch (larger ones are
     * gathered).
     */
    PipelinedPeer(String name, ClientOptions options, int depth, int batch, int copyThreshold) {
        if (batch < 1 || batch > depth) throw new IllegalArgumentException("--batch " + batch + ": expected 1.."
                + depth + " (the depth)");
        this.name = name;
        this.options = options;
        this.depth = depth;
        this.batch = batch;
        this.copyThreshold = copyThreshold;
        // A request unanswered for the client's receive timeout fails (and ends the run), as one call at a time would.
        this.requestTimeoutMillis = options.freeze().receiveTimeoutMillis();
    }

    private final Pipeline.AnswerHandler onAnswer = (id, status, p, off, length, latencyNanos) -> {
        answered++;
        if (status == Errno.ETIMEDOUT && p.equals(MemorySegment.NULL)) {
            timedOut++;
            return;
        }
        if (status != 0 || !Echo.echoes(payload, len, p, off, length)) {
            if (wrong == null) {
                wrong = status != 0 ? new ErrnoException("pipelined ping", status, "request " + id + " failed")
                        : Echo.failure(GroutApi.PING, payload, len, p, off, length);
            }
            return;
        }
        echoed++;
        lastLatency = latencyNanos;
        if (--untilSample == 0) {
            untilSample = sampleEvery;
            latency.recordValueWithCount(Math.min(latencyNanos, latency.getHighestTrackableValue()), sampleEvery);
        }
    };

    /** Records the latency of every answer instead of one in {@link #SAMPLE_EVERY}; returns this. */
    public PipelinedPeer everyRequest(boolean every) {
        sampleEvery = every ? 1 : SAMPLE_EVERY;
        untilSample = sampleEvery;
        return this;
    }

    /** e.g. {@code one answer in 16 (weighted by 16)} or {@code every answer}. */
    public String latencySampling() {
        return sampleEvery == 1 ? "every answer" : "one answer in " + sampleEvery + " (weighted by " + sampleEvery
                + ")";
    }

    @Override public String name() { return name; }

    @Override public String framing() {
        return "FFM pipeline, depth " + depth + " (fewer above " + BYTES_IN_FLIGHT / 1024 + " KiB in flight), batch "
                + batch
                + ", copies up to " + copyThreshold + " B, " + options.freeze().send() + " / "
                        + options.freeze().recv();
    }

    @Override
    public void open(String path) throws IOException {
        arena = Arena.ofConfined();
        payload = arena.allocate(GroutApi.MAX_MSG_LEN);
        client = GroutClient.connect(options.socketPath(path));
        pipeline = client.pipeline(PipelineOptions.window(depth).copyThreshold(copyThreshold)
                .requestTimeoutMillis(requestTimeoutMillis));
    }

    @Override
    public void prepare(int len) {
        this.len = len;
        this.window = windowFor(depth, len);
        Echo.fill(payload, len);
    }

    /**
     * The requests kept in flight for payloads of len bytes: depth, or fewer when their bytes would pass
     * {@link #BYTES_IN_FLIGHT}.
     */
    static int windowFor(int depth, int len) {
        return Math.max(1, Math.min(depth, BYTES_IN_FLIGHT / (len + RequestHeader.SIZE)));
    }

    @Override
    public void ping() throws IOException {
        throw new UnsupportedOperationException("a pipelined peer runs its calls together: pingMany");
    }

    @Override
    public void pingMany(long n, Histogram latency) throws IOException {
        this.latency = latency;
        answered = echoed = timedOut = 0;
        untilSample = sampleEvery;
        wrong = null;
        long lastAnswer = System.nanoTime(); // of the last poll that brought answers (one clock read per such poll)
        try {
            pingUntilAnswered(n, lastAnswer);
        } finally {
            // The answers since the last sample, counted with the last latency: the histogram's count is
            // then exactly the right answers, which the run's summary reports (also when it failed).
            long unsampled = sampleEvery - untilSample;
            if (unsampled > 0) latency.recordValueWithCount(Math.min(lastLatency, latency.getHighestTrackableValue()),
                    unsampled);
        }
    }

    private void pingUntilAnswered(long n, long lastAnswer) throws IOException {
        long sent = 0;
        // the client's in-flight cap (--max-in-flight) took fewer than the refill: poll before the next
        boolean held = false;
        while (answered < n) {
            int free = window - pipeline.inFlight();
            int refill = Math.min(batch, window);
            if (!held && sent < n && (free >= refill || n - sent <= free)) {
                long k = Math.min(Math.min(refill, free), n - sent), queued = 0;
                while (queued < k && pipeline.queue(GroutApi.PING, payload, 0, len)
                        != Pipeline.BACK_PRESSURED) queued++;
                sent += queued;
                held = queued < k;
                pipeline.flush();
            } else {
                held = false;
                long before = echoed;
                pipeline.poll(onAnswer, depth, true);
                if (wrong != null) throw wrong;
                if (timedOut > 0) throw stalled(sent, System.nanoTime() - lastAnswer);
                if (echoed != before) lastAnswer = System.nanoTime();
            }
        }
    }

    /** The server left requests unanswered past the request timeout: one line on what happened and what to try. */
    private ErrnoException stalled(long sent, long quietNanos) {
        return new ErrnoException("pipelined ping", Errno.ETIMEDOUT, String.format(Locale.ROOT,
                "the server stopped answering: %d sent, %d answered, then nothing came for %.3f s (--timeout %d ms);"
                        + " a server that answers one request per read (as Grout's api.c does) cannot be pipelined: "
                                + "try --depth 1",
                sent, echoed, quietNanos / 1e9, requestTimeoutMillis));
    }

    @Override
    public SyscallCounts libraryCounts() { return client.counters().snapshot(); }

    @Override
    public long serverPid() throws ErrnoException { return client.serverCredentials().pid(); }

    @Override
    public SyscallCounts emptyCounts() { return client.counters().emptySnapshot(); }

    @Override
    public String backend() { return client.backend().toString(); }

    @Override
    public String transport() { return client.sharedMemory() ? "shm" : "socket"; }

    @Override
    public UringCounts uringCounts() {
        return client.backend() == Backend.IO_URING ? client.uringCounts() : null;
    }

    @Override
    public void close() throws IOException {
        if (pipeline != null) pipeline.close();
        if (client != null) client.close();
        if (arena != null) arena.close();
    }
}
