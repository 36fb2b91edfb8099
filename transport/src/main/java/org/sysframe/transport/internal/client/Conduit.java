package org.sysframe.transport.internal.client;

import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.MessagePump;
import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.wire.MessageSpecs;
import org.sysframe.transport.wire.RequestHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One connection's calls from any number of threads: whoever holds the <em>I/O role</em> moves the
 * bytes, one thread at a time, with the backend's own link. A caller that finds the role free takes
 * it, writes its request with the client's send framing, receives until its answer came, routing
 * every other answer to its caller, and leaves the role to the oldest caller still waiting. A caller
 * that finds the role taken copies its request into the {@link SendQueue} and parks; the holder sends
 * what is queued, in one send, before each receive. A caller alone so costs what a thread-confined
 * client costs; many callers share sends and receives.
 *
 * <p>Futures are received for by whoever holds the role, or by the client's {@link Standby} thread
 * when no caller does. The role's holder may be waiting idly for events ({@link Events}): a caller
 * that needs the role wakes it and it leaves.
 */
public final class Conduit {
    static final int NONE = 0, CALLER = 1, STANDBY = 2, EXCLUSIVE = 3, IDLE = 4;

    final String name;
    final CallLock lock;
    final CallTable table = new CallTable();
    final SendQueue queue;
    final ClientLink link;
    final MessagePump pump;
    final Router router;
    final Events events;
    final Standby standby;
    private final long receiveTimeoutNanos;
    private final long receiveTimeoutMillis;
    final WaitList waiting = new WaitList();
    /** The shared-memory channel moves the bytes (no descriptor to wait on in the poller). */
    private final boolean channel;
    final DeadlineSweep sweep;
    final Runnable onLastExit;
    private final CloseProtocol ending = new CloseProtocol(this);
    final Outbox outbox;
    final Gate gate;
    final Driver driver = new Driver(this);
    final StallWatch stall;
    private final CallEnds ends = new CallEnds(this);

    // Under lock.
    Thread holder;
    int holderMode;
    ErrnoException broken;
    volatile boolean closed;
    boolean memoryMayGo;
    long calls, batches, largestBatch, lastBatch;
    /** Calls ended without an answer (timed out, interrupted, or failed with the connection), and of them timed out. */
    long failed, timedOutCalls;
    /** The frames' bytes, headers included: requests registered, and answers and events received. */
    long bytesSent, bytesReceived;

    /** onLastExit: frees the client's memory once close() happened and no thread uses it any more. */
    public Conduit(String name, ClientLink link, MessageWriter writer, MessagePump pump, Arena arena,
            long receiveTimeoutMillis, int maxInFlight, MessageSpecs specs, Runnable onLastExit) {
        this.name = name;
        this.link = link;
        this.lock = new CallLock(link.counters());
        this.pump = pump;
        this.queue = new SendQueue(arena);
        this.outbox = new Outbox(this, writer, arena);
        this.channel = link.readableFd() < 0;
        this.receiveTimeoutMillis = receiveTimeoutMillis;
        this.receiveTimeoutNanos = receiveTimeoutMillis * 1_000_000L;
        this.onLastExit = onLastExit;
        this.router = new Router(this, specs);
        this.events = new Events(this);
        this.standby = new Standby(this);
        this.sweep = new DeadlineSweep(lock, waiting::sweep);
        this.gate = new Gate(this, maxInFlight);
        this.stall = new StallWatch(receiveTimeoutMillis);
    }

    /**
     * Calls on the wire or about to be, and calls waiting under the in-flight cap (a racy read: a hint for picking a
     * connection).
     */
    public int load() { return table.calls() + gate.waiting(); }

    /** The in-flight cap (ClientOptions.maxInFlight). */
    public int maxInFlight() { return gate.cap(); }

    public String name() { return name; }

    /** Whether the receive framing reads ahead (a receive that does not wait can take whole messages). */
    public boolean readsAhead() { return pump.readsAhead(); }

    public long receiveTimeoutNanos() { return receiveTimeoutNanos; }

    long receiveTimeoutMillis() { return receiveTimeoutMillis; }

    /** How many callers are listed as parked (tests: none once every call returned). */
    public int listedCallers() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    public Router router() { return router; }

    public Events events() { return events; }

    public Standby standby() { return standby; }

    /** How a call ends without its answer: abandoned, timed out, interrupted. */
    public CallEnds ends() { return ends; }

    // ---------------------------------------------------------------- calls

    /**
     * Sends c's request and waits, within the receive timeout, until c is ready (its answer, or a
     * stream's first item, came) or failed. Throws ETIMEDOUT or EINTR having abandoned c (its late
     * answer is dropped), or the failure that ended it.
     */
    public void call(Call c, int type, MemorySegment payload, long offset, long length) throws ErrnoException {
        send(c, type, payload, offset, length);
        await(c, deadline(c.startNanos));
    }

    /** The receive timeout from start (0: none). */
    long deadline(long start) { return receiveTimeoutNanos > 0 ? start + receiveTimeoutNanos : 0; }

    /**
     * Registers c and sends its request: at once when the role is free (the caller then holds it, and
     * must {@link #await} or {@link #release}), else into the send queue; too big for it, the request
     * is written later by its caller once it holds the role, or, for a future or a passenger, by the
     * holder (from a copy). A future's caller never keeps the role: it sends and leaves.
     */
    public void send(Call c, int type, MemorySegment payload, long offset, long length) throws ErrnoException {
        Thread me = Thread.currentThread();
        c.waiter = me;
        // A virtual thread on the channel does no I/O: its carrier would spin or nap there. Under an in-flight cap
        // neither: the thread that reads an answer sends the next request at once, no caller's wake-up between them.
        // The client's own thread.
        c.passenger = (channel || gate.capped()) && me.isVirtual() && c.kind != Call.Kind.FUTURE;
        if (c.passenger) standby.start();
        // The call's start, which its receive timeout counts from: read as the request left when the caller writes it
        // itself (then the clock's reading is not between the answer to its previous call and this request: a spinning
        // caller over shared memory would wait for it), else before it waits for the gate or the queue.
        boolean started = gate.capped();
        if (started) c.startNanos = System.nanoTime();
        // a future's request, held in the gate
        if (started && !gate.waitForRoom(c, type, payload, offset, length)) return;
        boolean direct;
        lock.lock();
        try {
            // the place waitForRoom kept for c is its id's from here (or free again if c is refused)
            gate.registered(c);
            refuseUnusable(me);
            table.register(c, type);
            calls++;
            bytesSent += RequestHeader.SIZE + length;
            c.unsent = false;
            // A future's caller sends it itself only when nothing else is in flight: with answers on their way, a write
            // that waits for room would wait for a server that waits for its answers to be read, and nobody would read
            // them.
            boolean holds = holder == me;
            if (holder == null && !c.passenger && (c.kind != Call.Kind.FUTURE || table.inFlight() == 1)) {
                take(me, CALLER);
                holds = true;
                // Requests queued before it (a passenger's, or one queued as the last holder left) go first: a caller
                // that takes the role with the queue not empty queues its own behind them and sends them all in one
                // send.
                direct = c.kind == Call.Kind.FUTURE || queue.isEmpty() && outbox.unsent.isEmpty();
            } else {
                direct = holds;
            }
            if (!direct) {
                if (!started) c.startNanos = System.nanoTime();
                if (!queue.append(c.id, type, payload, offset, length)) {
                    // Too big for the queue: its caller writes it once it holds the role and the queue is sent, or the
                    // holder (a future's or a passenger's) from a copy: a future's caller goes on at once and may
                    // change the payload; a passenger's may be confined to its thread. Over 64 KiB only: rare,
                    // allocated.
                    c.unsent = true;
                    c.unsentPayload = payload;
                    c.unsentOffset = offset;
                    c.unsentLength = length;
                    if (c.kind == Call.Kind.FUTURE || c.passenger) {
                        c.unsentPayload = Outbox.copyOf(payload, offset, length);
                        c.unsentOffset = 0;
                        outbox.unsent.add(c); // the holder writes it
                    }
                }
                if (!holds) wantIo(true);
            }
        } finally {
            lock.unlock();
        }
        if (!direct) return;
        try {
            outbox.write(c.id, type, payload, offset, length);
        } catch (ErrnoException e) {
            ErrnoException failed = sendFailed(e);
            if (holderMode != EXCLUSIVE) release();
            throw failed;
        }
        if (!started) c.startNanos = System.nanoTime();
        if (c.kind == Call.Kind.FUTURE && holderMode != EXCLUSIVE) {
            try {
                link.flush(); // io_uring: the payload is the caller's, who may change it once this returns
            } catch (ErrnoException e) {
                ErrnoException failed = sendFailed(e);
                release();
                throw failed;
            }
            release();
        }
    }

    /**
     * A caller's own write failed with e: every call in flight fails ({@link #failAll}), and the caller gets the
     * client's one error, as they do. That is e, unless the client broke before (a close from another thread, whose
     * ENOTCONN stands: its shutdown fails the write with EPIPE).
     */
    private ErrnoException sendFailed(ErrnoException e) {
        failAll(e);
        return copyOf(broken);
    }

    /**
     * Under lock: fails a call the client cannot take (closed, broken, no id free, or from the thread receiving for
     * it).
     */
    private void refuseUnusable(Thread me) throws ErrnoException {
        try {
            usable();
            if (holder == me && holderMode != EXCLUSIVE) {
                throw new IllegalStateException("GroutClient(" + name
                        + "): a call from the thread receiving for the client"
                        + " (a future's completion or an event listener) would wait for itself: use the *Async stages, "
                                + "or another thread");
            }
            if (table.full()) {
                throw new ErrnoException("client(" + name + ")", Errno.EAGAIN, "all " + CallTable.MAX_ID
                        + " request ids are in use (calls waiting, or timed out with no answer yet): no call can be "
                                + "sent until answers come");
            }
        } catch (ErrnoException | RuntimeException e) {
            if (gate.capped()) gate.admitRoom(); // the place it had goes to the next waiting
            throw e;
        }
    }

    /** Under lock: c left the table; room for the gate's next. */
    void removed(Call c) {
        table.remove(c);
        if (gate.capped()) gate.admitRoom();
    }

    /**
     * Under lock: a request was queued, or a caller waits, for whoever does the I/O: an idle holder is
     * nudged to leave, a free role is offered to the client's own thread, and, with look, a pool's I/O
     * thread that holds the role is woken to look (it may sleep in its epoll_wait): at a request it is to
     * send, or a caller that may do the I/O and waits for the role (a passenger that waits needs nothing).
     */
    void wantIo(boolean look) {
        if (holderMode == IDLE) nudge();
        if (holder == null) {
            standby.offer();
        } else if (look && holderMode == STANDBY) {
            Multiplexer m = standby.mux;
            if (m != null) m.wake(lock);
        }
    }

    /** Under lock: the holder is to leave the role soon (an idle one waits in the poller: woken). */
    void nudge() {
        events.nudged = true;
        lock.unparkAfterUnlock(holder);
    }

    /** Under lock. */
    void take(Thread me, int mode) {
        holder = me;
        holderMode = mode;
    }

    /**
     * Waits until c is ready: drives the I/O while it holds the role, else parks in the waiting list
     * until its answer came or the role is offered to it (see {@link Driver#await}).
     */
    public void await(Call c, long deadline) throws ErrnoException { driver.await(c, deadline); }

    /** See {@link Driver#receiveForOthers}. */
    public boolean receiveForOthers() throws ErrnoException { return driver.receiveForOthers(); }

    /** The holder sends what waits to be sent (see {@link Outbox#flush}). */
    public void flushQueue() throws ErrnoException { outbox.flush(); }

    /** The holder leaves: the role goes to the oldest parked caller, else to the standby when it has work. */
    public void release() {
        // io_uring: a send still queued (its caller gave up before receiving) points at memory the next holder
        // writes into (the header, the writer's buffers, the caller's payload): it goes out now (nothing with epoll).
        try {
            link.flush();
        } catch (ErrnoException e) {
            failAll(e);
        }
        boolean last;
        lock.lock();
        try {
            holder = null;
            holderMode = NONE;
            offerRole();
            last = memoryMayGo;
        } finally {
            lock.unlock();
        }
        if (last) onLastExit.run();
    }

    /** Under lock, with no holder: wakes the one who should take the role. */
    void offerRole() {
        Call driver = waiting.firstDriver();
        if (driver != null) lock.unparkAfterUnlock(driver.waiter);
        else standby.offer();
    }

    /** Whether someone other than an idle holder needs the role (under lock). */
    boolean roleWanted() {
        return waiting.firstDriver() != null || waiting.passengers() > 0 || !queue.isEmpty() || table.futures() > 0
                || closed || broken != null;
    }

    /**
     * The holder's receive failed: the error breaks the client, unless it is the holder's own interrupt (its caller
     * throws EINTR).
     */
    void receiveFailed(ErrnoException e) {
        if (e.errno() != Errno.EINTR || !Thread.currentThread().isInterrupted()) failAll(e);
    }

    /** The holder's own code failed while it received (a bug, an Error): the client breaks with EPROTO naming it. */
    void receiveCrashed(Throwable e) {
        failAll(new ErrnoException("client(" + name + ")", Errno.EPROTO, "the receiving thread failed: " + e));
    }

    // ---------------------------------------------------------------- failure and close

    /** Fails when the client was closed or broken. */
    public void check() throws ErrnoException {
        lock.lock();
        try {
            usable();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A stream's next item into its call, waiting within the receive timeout: false once the stream
     * ended (its terminator was taken before).
     */
    public boolean nextItem(Call c) throws ErrnoException {
        while (true) {
            lock.lock();
            try {
                if (c.takeItem()) return true;
                if (c.state == Call.DONE) return false;
            } finally {
                lock.unlock();
            }
            await(c, deadline(System.nanoTime()));
        }
    }

    /** Under lock: fails when the client was closed or broken. */
    void usable() throws ErrnoException {
        if (closed) throw new ErrnoException("client(" + name + ")", Errno.ENOTCONN, "the client was closed");
        if (broken != null) throw new ErrnoException("client(" + name + ")", Errno.ENOTCONN, "unusable since: "
                + broken.getMessage());
    }

    /** Breaks the connection with e: every call in flight fails with it. */
    public void failAll(ErrnoException e) { ending.failAll(e); }

    static ErrnoException copyOf(ErrnoException e) { return CloseProtocol.copyOf(e); }

    /** Whether the connection broke or was closed, read without the lock (a hint: {@link #isUsable} decides). */
    public boolean endedHint() { return closed || broken != null; }

    public boolean isUsable() {
        lock.lock();
        try {
            return broken == null && !closed;
        } finally {
            lock.unlock();
        }
    }

    /** See {@link CloseProtocol#close}. */
    public boolean close(Runnable shutdown) { return ending.close(shutdown); }

    /** Stats under lock. */
    public long[] counts() {
        lock.lock();
        try {
            return new long[] {calls, batches, largestBatch, lastBatch, router.unmatched, router.late, table.calls(),
                    events.received, events.dropped, failed, timedOutCalls, bytesSent, bytesReceived};
        } finally {
            lock.unlock();
        }
    }
}
