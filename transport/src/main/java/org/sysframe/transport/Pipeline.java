package org.sysframe.transport;

import org.sysframe.transport.internal.client.Conduit;
import org.sysframe.transport.internal.client.PipelineRole;
import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.Flushes;
import org.sysframe.transport.internal.io.Inbox;
import org.sysframe.transport.internal.io.MessageReader;
import org.sysframe.transport.internal.jfr.Jfr;
import org.sysframe.transport.internal.jfr.PipelineBatchEvent;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.IovArray;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Many requests in flight on one {@link GroutClient}: {@link #queue} corks requests (nothing is sent),
 * {@link #flush} sends everything queued with one syscall (one send of a staging buffer when every
 * payload was copied, else one sendmsg whose iovec points at the large payloads, looping over partial
 * writes), and {@link #poll} hands answers to a {@link AnswerHandler} as they come, matched by id in any
 * order, with their latency from flush to answer (the clock is read once per poll that hands answers,
 * not per answer: every answer of one poll is timed at the first of them). Nothing is allocated per
 * request.
 *
 * <p>The window bounds the requests in flight: {@link #queue} returns {@link #BACK_PRESSURED} when it is
 * full, and the caller polls. With a request timeout, a request unanswered for that long is failed
 * with ETIMEDOUT by the poll that sees it (a waiting poll never waits past the earliest deadline in
 * flight) and its late answer is dropped (counted), never matched to another request. Without one,
 * the client's receive timeout bounds every wait (ETIMEDOUT then fails every request in flight).
 * Answers for other callers' requests go to them; events are kept for {@link GroutClient#nextEvent}.
 * When the connection fails (the server closed: ECONNRESET), every request in flight is failed
 * through the handler with that errno before the error is thrown.
 *
 * <p>One pipeline per client at a time, used by the thread that opened it, which does the client's
 * I/O until {@link #close()}: other threads' calls go out with its flushes and their answers come in
 * with its polls. A payload sent from where it
 * is (over the copy threshold) must stay unchanged until {@link #flush} returns. The flush blocks
 * until the batch is written: keep window x message size within what the socket buffers hold, or poll
 * between flushes, since a server stops reading a client that does not read its answers.
 */
public final class Pipeline implements AutoCloseable {
    /**
     * Receives answers, on the polling thread; the payload is valid during the call only (not the server's
     * {@link Handler}, which answers requests).
     */
    @FunctionalInterface
    public interface AnswerHandler {
        /** status 0: success; an errno otherwise (ETIMEDOUT, ECONNRESET, EMSGSIZE included, with no payload). */
        void onResponse(int id, int status, MemorySegment payload, long offset, long length, long latencyNanos);
    }

    /**
     * Returned by {@link #queue} when the window is full, or the client's in-flight cap
     * ({@link ClientOptions#maxInFlight}).
     */
    public static final int BACK_PRESSURED = -1;

    private static final int BATCH_BYTES = 64 * 1024;
    /** An id's state here; RESERVED: taken from the client, its request not queued yet ({@link PipelineIds}). */
    static final byte FREE = 0, QUEUED = 1, SENT = 2, ABANDONED = 3, RESERVED = 4;

    private final GroutClient client;
    private final Conduit conduit;
    private final PipelineRole role;
    private final ClientLink link;
    private final SyscallCounters counters;
    private final Inbox inbox;
    private final PipelineOptions options;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment staging = arena.allocate(BATCH_BYTES, 8);
    private final IovArray iov = new IovArray(arena, IovArray.IOV_MAX);
    private final byte[] state = new byte[0x10000];
    private final int[] typeOf = new int[0x10000];
    private final long[] sentAt = new long[0x10000];
    private final int[] queued;
    private final PipelineIds ids;
    /** Whether the client has an in-flight cap ({@link ClientOptions#maxInFlight}). */
    private final boolean capped;
    /** The flushes whose requests wait for answers, for the request timeout (null without one). */
    private final Flushes flushes;
    private final Sink sink = new Sink();
    private long stagedFrom;
    private long stagingUsed;
    private int queuedCount;
    private long queuedBytes;
    private int inFlight;
    private long lateAnswers;
    private AnswerHandler handler;

    Pipeline(GroutClient client, Conduit conduit, PipelineRole role, ClientLink link, MessageReader reader,
            SyscallCounters counters, PipelineOptions options) {
        this.client = client;
        this.counters = counters;
        this.conduit = conduit;
        this.role = role;
        this.link = link;
        this.inbox = new Inbox(reader, conduit.router());
        this.options = options;
        this.queued = new int[options.window()];
        this.capped = conduit.maxInFlight() < ClientOptions.MAX_IN_FLIGHT;
        this.ids = new PipelineIds(role, state, options.window(), !capped);
        // One more than the window: a timed-out flush is still held while its requests' handlers may flush again.
        this.flushes = options.requestTimeoutMillis() > 0 ? new Flushes(options.window() + 1, state.length) : null;
    }

    /** Requests queued or sent and not answered (nor failed). */
    public int inFlight() { return inFlight; }

    /** Answers that came after their request had timed out, dropped. */
    public long lateAnswers() { return lateAnswers; }


    /**
     * Queues a request without sending it; returns its id, or {@link #BACK_PRESSURED} when the window
     * is full. A full batch buffer or iovec is flushed first.
     */
    public int queue(int type, MemorySegment payload, long offset, long length) throws ErrnoException {
        if (conduit.endedHint()) conduit.check(); // (a reservation of ids checks again, under the lock it takes)
        if (length < 0 || length > GroutApi.MAX_MSG_LEN) {
            throw new ErrnoException(client.specs().name(type), Errno.EMSGSIZE,
                    "request payload of " + length + " bytes, GR_API_MAX_MSG_LEN is " + GroutApi.MAX_MSG_LEN);
        }
        if (inFlight == options.window()) return BACK_PRESSURED;
        boolean copy = length <= options.copyThreshold() || !payload.isNative();
        if (copy && RequestHeader.SIZE + length > BATCH_BYTES) {
            throw new IllegalArgumentException("a heap payload of " + length
                    + " bytes cannot be pipelined: use native memory above 64 KiB");
        }
        long need = RequestHeader.SIZE + (copy ? length : 0);
        if (stagingUsed + need > BATCH_BYTES || iov.pending() + 3 > iov.capacity()
                || queuedCount == queued.length) flush();
        int id = ids.take(options.window() - inFlight);
        if (id < 0) return BACK_PRESSURED; // the client's in-flight cap (ClientOptions.maxInFlight): poll
        RequestHeader.write(staging, stagingUsed, id, type, (int) length);
        stagingUsed += RequestHeader.SIZE;
        if (copy) {
            MemorySegment.copy(payload, offset, staging, stagingUsed, length);
            stagingUsed += length;
        } else {
            closeStagingRun();
            iov.add(payload, offset, length);
        }
        state[id] = QUEUED;
        typeOf[id] = type;
        queued[queuedCount++] = id;
        queuedBytes += RequestHeader.SIZE + length;
        inFlight++;
        return id;
    }

    private void closeStagingRun() {
        if (stagingUsed > stagedFrom) iov.add(staging, stagedFrom, stagingUsed - stagedFrom);
        stagedFrom = stagingUsed;
    }

    /** Sends every queued request with one syscall (more only if the kernel takes the batch in parts). */
    public void flush() throws ErrnoException {
        if (queuedCount == 0) return;
        PipelineBatchEvent event = null;
        long syscallsBefore = 0, bytes = 0;
        if (Jfr.pipelineBatch()) {
            event = new PipelineBatchEvent();
            syscallsBefore = counters.snapshot().total();
            if (iov.pending() != 0) closeStagingRun();
            bytes = iov.pending() == 0 ? stagingUsed : iov.remaining();
            event.begin();
        }
        role.sent(queuedCount, queuedBytes);
        queuedBytes = 0;
        try {
            conduit.flushQueue(); // other threads' requests first, in a send of their own
            if (iov.pending() == 0) {
                link.sendUntilFull(staging, 0, stagingUsed); // a blocking socket takes it all
            } else {
                closeStagingRun();
                while (!iov.isEmpty()) iov.advance(link.sendmsg(iov));
            }
            link.flush(); // io_uring: the batch's one SEND goes out now, and its memory is free again after

        } catch (ErrnoException e) {
            throw failAll(e);
        }
        long now = System.nanoTime();
        int f = flushes == null ? -1 : flushes.add(now, queuedCount);
        for (int i = 0; i < queuedCount; i++) {
            int id = queued[i];
            state[id] = SENT;
            sentAt[id] = now;
            if (f >= 0) flushes.sent(id, f);
        }
        if (event != null) {
            event.end();
            if (event.shouldCommit()) {
                event.socket = client.config().socketPath();
                event.requests = queuedCount;
                event.bytes = bytes;
                event.syscalls = counters.snapshot().total() - syscallsBefore;
                event.commit();
            }
        }
        queuedCount = 0;
        stagingUsed = stagedFrom = 0;
        iov.clear();
    }

    /**
     * Sends what is queued, then hands up to limit answers to handler: those already received first;
     * then one recv. When wait, it waits (as the client's wait mode says) for at least one answer if
     * any request is in flight. Returns how many answers were handed (timeouts included).
     *
     * <p>With a request timeout, no wait goes past the earliest deadline of the requests in flight
     * (their send time plus the timeout): the requests past it are handed to handler as ETIMEDOUT,
     * whether or not bytes arrived meanwhile. The clock is read once per poll (and once more when a
     * wait ended at a deadline), not per request.
     */
    public int poll(AnswerHandler handler, int limit, boolean wait) throws ErrnoException {
        flush();
        this.handler = handler;
        long now = flushes == null ? 0 : System.nanoTime();
        int n = flushes == null ? 0 : expire(now);
        if (inFlight == 0 && n == 0 && wait && capped) {
            // Other callers' requests fill the in-flight cap (queue said BACK_PRESSURED): their answers make room.
            try {
                conduit.receiveForOthers();
            } catch (ErrnoException e) {
                throw failAll(e);
            }
            return 0;
        }
        if (inFlight == 0 || n >= limit) return n;
        long deadline = flushes == null || flushes.isEmpty() ? 0 : deadlineOf(flushes.oldestTime());
        long bound = 0; // without a request timeout, the receive timeout bounds a waiting poll
        if (deadline == 0 && wait && n == 0 && conduit.receiveTimeoutNanos() > 0) {
            if (now == 0) now = System.nanoTime();
            bound = deadline = now + conduit.receiveTimeoutNanos();
        }
        sink.now = 0; // read again at this poll's first answer
        try {
            int got;
            try {
                got = inbox.drain(sink, limit - n, wait && n == 0, deadline, now);
            } finally {
                ids.release();
            }
            if (got == 0 && bound != 0 && System.nanoTime() - bound >= 0) {
                throw failAll(new ErrnoException("pipeline", Errno.ETIMEDOUT, "no answer within the receive timeout of "
                        + conduit.receiveTimeoutNanos() / 1_000_000L + " ms, " + inFlight + " requests in flight"));
            }
            if (got == 0 && bound == 0 && deadline != 0 && wait && n == 0) got = expire(System.nanoTime());
            return n + got;
        } catch (ErrnoException e) {
            throw failAll(e);
        }
    }

    /** The deadline of a request sent at sentAt; never 0 (0 means none to the inbox). */
    private long deadlineOf(long sentAt) {
        long d = sentAt + options.requestTimeoutMillis() * 1_000_000L;
        return d == 0 ? 1 : d;
    }

    /**
     * Fails the requests unanswered for longer than the request timeout, a flush at a time, oldest first; returns
     * how many.
     */
    private int expire(long now) {
        long limit = options.requestTimeoutMillis() * 1_000_000L;
        int n = 0;
        while (!flushes.isEmpty()) {
            int f = flushes.oldest();
            long t = flushes.time(f);
            if (now - t < limit) break;
            int left = flushes.waiting(f);
            // A timeout is rare: its requests are found by a look at every id (the flush is held meanwhile, so that a
            // handler that flushes again gets another number).
            for (int id = 1; id < state.length && left > 0; id++) {
                if (state[id] != SENT || flushes.of(id) != f) continue;
                state[id] = ABANDONED;
                inFlight--;
                left--;
                n++;
                handler.onResponse(id, Errno.ETIMEDOUT, MemorySegment.NULL, 0, 0, now - t);
            }
            flushes.remove(f);
        }
        return n;
    }

    /** Fails every request in flight with e's errno through the current handler, marks the client broken, returns e. */
    private ErrnoException failAll(ErrnoException e) {
        long now = System.nanoTime();
        for (int id = 1; id < state.length; id++) {
            byte s = state[id];
            if (s == FREE) continue;
            state[id] = FREE;
            if ((s == SENT || s == QUEUED) && handler != null) handler.onResponse(id, e.errno(), MemorySegment.NULL, 0,
                    0, s == SENT ? now - sentAt[id] : 0);
        }
        inFlight = 0;
        queuedCount = 0;
        queuedBytes = 0;
        if (flushes != null) flushes.clear();
        conduit.failAll(e);
        return e;
    }

    /** How long {@link #close} waits for the answers still in flight. */
    public static final long CLOSE_WAIT_MILLIS = 1000;

    /**
     * Waits for the answers still in flight (dropping them), at most {@value #CLOSE_WAIT_MILLIS} ms,
     * then frees the pipeline's memory. Requests still unanswered then leave the client out of step
     * (their answers may come later): it is marked broken with ETIMEDOUT saying how many.
     */
    @Override
    public void close() throws ErrnoException {
        try {
            AnswerHandler drop = (id, status, p, off, len, lat) -> { };
            long end = System.nanoTime() + CLOSE_WAIT_MILLIS * 1_000_000L;
            while (inFlight > 0 && conduit.isUsable()) {
                flush();
                this.handler = drop;
                long now = System.nanoTime();
                if (flushes != null) expire(now);
                if (inFlight == 0) break;
                if (now - end >= 0) {
                    int left = inFlight;
                    failAll(new ErrnoException("pipeline", Errno.ETIMEDOUT, left
                            + (left == 1 ? " request" : " requests")
                            + " still unanswered when the pipeline closed, after " + CLOSE_WAIT_MILLIS + " ms"));
                    break;
                }
                long deadline = flushes == null || flushes.isEmpty() ? end
                        : Math.min(end, deadlineOf(flushes.oldestTime()));
                try {
                    inbox.drain(sink, Integer.MAX_VALUE, true, deadline == 0 ? 1 : deadline, now);
                } catch (ErrnoException e) {
                    throw failAll(e);
                } finally {
                    ids.release();
                }
            }
        } finally {
            if (arena.scope().isAlive()) arena.close();
            ids.close();
            role.release();
        }
    }

    /** Matches each answer read to its request. */
    private final class Sink implements Inbox.ResponseSink {
        /** The clock at the current poll's first answer, 0 until then: one read per poll, not per answer. */
        long now;
        private int lastType = -1;
        private int lastMin;

        @Override
        public int accept(int forId, int status, MemorySegment buffer, long offset, long length) {
            int id = forId & 0xffff;
            if (id != forId) return NOT_MINE;
            byte s = state[id];
            if (s == ABANDONED) {
                state[id] = FREE;
                lateAnswers++;
                ids.free(id);
                return DROPPED;
            }
            if (s == RESERVED || s == QUEUED) { // not sent: the server made the answer up (the id stays ours)
                role.unmatched();
                return DROPPED;
            }
            if (s != SENT) return NOT_MINE;
            state[id] = FREE;
            if (flushes != null) flushes.answered(id);
            ids.free(id);
            inFlight--;
            if (now == 0) now = System.nanoTime();
            long latency = now - sentAt[id];
            int type = typeOf[id];
            // the type table's lookup once per run of one type, not per answer (the client's specs never change)
            if (type != lastType) {
                lastMin = client.specs().minResponse(type);
                lastType = type;
            }
            int min = lastMin;
            if (status == 0 && length < min) handler.onResponse(id, Errno.EMSGSIZE, MemorySegment.NULL, 0, 0, latency);
            else handler.onResponse(id, status, buffer, offset, length, latency);
            client.recordPipelined(type, length, status, latency);
            return TAKEN;
        }
    }
}
