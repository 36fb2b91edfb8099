package org.sysframe.transport;

import org.sysframe.transport.internal.client.ClientConnect;
import org.sysframe.transport.internal.client.MainModulePayloads;
import org.sysframe.transport.internal.io.FdPoller;
import org.sysframe.transport.internal.epoll.SharedSocketLink;
import org.sysframe.transport.internal.io.MessagePump;
import org.sysframe.transport.internal.io.MessageReader;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;
import org.sysframe.transport.wire.RequestHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A thread-safe client of a Grout-style API socket: one connection that any number of platform or
 * virtual threads call at once (a sibling of the thread-confined {@link GroutClient}, on the same
 * framing, {@link ClientOptions} and counters).
 *
 * <p><b>Natural batching.</b> A call copies its request into the client's send queue. If no send is
 * under way, the caller sends what is queued at once, in one send; requests queued by other callers
 * while a send is under way leave together in the next one, which the same sender makes as soon as
 * its send returned. Nobody waits for a batch to fill; a virtual-thread sender yields once before
 * it sends, so that the callers already runnable on the carriers queue theirs into the same send. The copy is the framing of every batch (the
 * {@link SendFraming} of the options does not apply: a batch of many requests is one contiguous run of
 * bytes), so a caller's payload may be confined to its own thread or on the heap.
 *
 * <p><b>Answers (leader/follower).</b> There is no reader thread for blocking calls: a caller
 * waiting for its answer that finds nobody receiving takes the receiving role and reads, with the
 * options' {@link RecvFraming} (a read-ahead takes many answers per recv); it matches each answer
 * to its caller by id, copies it into that caller's buffer and unparks it; when its own answer came
 * it hands out the answers already buffered, leaves and wakes the oldest caller still waiting, which
 * takes the role. A caller alone so sends
 * and receives on its own thread, as a {@link GroutClient} does. Futures are received by whoever
 * holds the role, and, when no blocking caller waits, by a standby platform thread of the client
 * ("sysframe-shared-reader", started by the first {@link #callAsync}). A blocking {@link #call}
 * copies the answer into the segment the caller gave; {@link #callAsync} and
 * {@link #call(int, MemorySegment)} give a copy the caller owns.
 *
 * <p><b>No carrier pinning.</b> No virtual thread ever blocks in a foreign call: a caller
 * waits for its answer by parking (a virtual thread frees its carrier); a sender sends with
 * MSG_DONTWAIT and waits for room by parking in the JVM's poller (an epoll instance on a platform
 * thread). A receiver on a platform thread blocks in recv (under the receive timeout); one on a
 * virtual thread receives with MSG_DONTWAIT and parks in the poller. The io_uring backend does not
 * apply to this client's own I/O ({@link #backend()} is always {@link Backend#EPOLL}), nor does the
 * shared-memory channel ({@link ClientOptions#sharedMemory}): this client stays on the socket.
 *
 * <p><b>Bounds.</b> A call waits at most the receive timeout for its answer (ETIMEDOUT, the client
 * stays usable); its late answer is dropped, never handed to another caller, and counted
 * ({@link SharedClientStats#late()}). An interrupted caller gets EINTR the same way. A send waits for
 * room at most the send timeout; past it, and on any other send or receive failure, every waiting
 * caller fails with that error and the client is broken. {@link #close()} fails the callers that wait.
 * The id space is 1..0xffff: at most 65535 calls in flight, the next one fails with EAGAIN saying so.
 * Stream requests (several answers per id) and events are not for this client: a stream type is
 * refused with EINVAL, and events (it never subscribes) are counted as unmatched and dropped.
 *
 * <p>The steady path of the blocking {@link #call(int, MemorySegment, long, long, MemorySegment)}
 * allocates nothing on the heap (the slots, ids and answer buffers are reused); the future variant
 * allocates its future and its copy.
 */
public final class SharedGroutClient implements AutoCloseable {
    /** Largest request id; ids above it are event types. */
    private static final int MAX_ID = MessageReader.MAX_ID;
    /** The send queue's size: two maximal requests fit. */
    private static final int QUEUE_BYTES = 2 * (GroutApi.MAX_MSG_LEN + RequestHeader.SIZE);
    private static final int WAITING = 1, DONE = 2, FAILED = 3, ABANDONED = 4;

    private final ClientConfig options;
    private final MessageSpecs specs;
    private final String name;
    private final Arena arena = Arena.ofShared();
    private final UnixSocket socket;      // the receiver's side, and the descriptor's owner
    private final UnixSocket sendSide;    // the same descriptor: its own errno capture and counters, one sender at a time
    private final SyscallCounters sendCounters;
    private final MemorySegment queue;
    private final long receiveTimeoutNanos;
    private final long sendTimeoutNanos;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    // Guarded by lock: the send queue [head, tail), its sender, ids and slots.
    private int head, tail, queuedRequests, roomWaiters;
    private boolean sending;
    private Thread sender;
    private final Slot[] byId = new Slot[MAX_ID + 1];
    private final int[] freeIds = new int[MAX_ID];   // a FIFO ring: a freed id is reused last
    private int idHead, idCount;
    private Slot[] pool = new Slot[64];              // a LIFO stack: warm slots first
    private int pooled;
    private int inFlight;
    private long calls, batches, largestBatch, lastBatch;
    private ErrnoException broken;
    private volatile boolean closed;
    private volatile boolean socketClosed;           // close() got past its wait for the sender: the memory may go
    private boolean sendersDone;                     // close(): no sender may start (the descriptor is about to go)
    // Written by the receiver only (one at a time).
    private volatile long unmatched, late;

    // The receive side: whoever holds the receiving role reads with pump, into sink.
    private final SharedSocketLink link;
    private final MessagePump pump;
    private final Sink sink = new Sink();
    private final Condition idle = lock.newCondition();   // close() waits here for the receiver to leave
    // Guarded by lock: the receiver, the blocking callers parked while another receives (a FIFO), the futures' count.
    private Thread receiver;
    private Slot waitHead, waitTail;
    private int futuresInFlight;
    private Thread standby;                          // receives for futures when no caller does; started by the first callAsync
    private volatile int standbyTid;
    // Guarded by lock: when the deadline sweep that is armed runs (0: none armed). See sweep().
    private long sweepAt;
    private final java.util.concurrent.atomic.AtomicBoolean freed = new java.util.concurrent.atomic.AtomicBoolean();
    private int maxIfaces;

    /** A call's place while it waits: its id, its caller, its answer (or error). Reused. */
    private static final class Slot {
        int id;
        int type;
        long generation;
        volatile int state;
        Thread waiter;
        CompletableFuture<byte[]> future;
        Slot prevWaiting, nextWaiting;   // under lock: in the list of parked blocking callers
        boolean listed;
        long deadline;                   // System.nanoTime() by which the call gives up (0: never)
        int status;
        int length;
        byte[] data = new byte[64];
        MemorySegment dataSegment = MemorySegment.ofArray(data);
        ErrnoException error;

        void fit(long len) {
            if (data.length >= len) return;
            data = new byte[Integer.highestOneBit((int) len - 1) << 1];
            dataSegment = MemorySegment.ofArray(data);
        }
    }

    private SharedGroutClient(ClientConfig options, UnixSocket socket) throws ErrnoException {
        this.options = options;
        this.specs = options.specs();
        this.socket = socket;
        this.name = socket.name();
        this.sendCounters = new SyscallCounters("shared client sends " + name);
        this.sendSide = new UnixSocket(socket.fd(), name, sendCounters);
        this.queue = arena.allocate(QUEUE_BYTES, 8);
        this.receiveTimeoutNanos = options.receiveTimeoutMillis() * 1_000_000L;
        this.sendTimeoutNanos = options.sendTimeoutMillis() * 1_000_000L;
        for (int i = 0; i < MAX_ID; i++) freeIds[i] = i + 1;
        idCount = MAX_ID;
        this.link = new SharedSocketLink(socket, options.waitMode(), options.receiveTimeoutMillis(), options.sendTimeoutMillis());
        this.pump = new MessagePump(new MessageReader(link, options.recv(), arena, options.receiveTimeoutMillis()));
    }

    /**
     * Connects to options' socket and performs GR_HELLO, as {@link GroutClient#connect(ClientOptions)}
     * does (the same checks and errors). No thread is started (see {@link #readerThreadId()}).
     */
    public static SharedGroutClient connect(ClientOptions builder) throws IOException {
        ClientConfig options = builder.freeze();
        UnixSocket socket = ClientConnect.open(options);
        SharedGroutClient c;
        try {
            c = new SharedGroutClient(options, socket);
        } catch (ErrnoException | RuntimeException e) {
            socket.close();
            throw e;
        }
        try {
            c.hello();
            return c;
        } catch (ErrnoException e) {
            PeerCredentials server = c.credentialsOrNull();
            c.close();
            throw ClientConnect.hello(options.apiVersion(), e, server);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    public static SharedGroutClient connect(String path) throws IOException {
        return connect(ClientOptions.defaults().socketPath(path));
    }

    private void hello() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment req = MainModulePayloads.hello(a, options.apiVersion(), options.version());
            Slot s = enqueue(GroutApi.HELLO, req, 0, req.byteSize(), null);
            try {
                await(s, GroutApi.HELLO);
                Response r = new Response();
                r.set(s.id, s.status, s.dataSegment, 0, s.length);
                if (s.status == Errno.EBADMSG) {
                    throw ClientConnect.refusedVersion(options.apiVersion(), MainModulePayloads.serverVersion(r));
                }
                check(GroutApi.HELLO, s);
                maxIfaces = MainModulePayloads.maxIfaces(r);
            } finally {
                recycle(s);
            }
        }
    }

    /** What the server said in its GR_HELLO response; -1 when it answered without it (older servers). */
    public int maxIfaces() { return maxIfaces; }

    /** The settings this client runs with. */
    public ClientConfig config() { return options; }

    /** Always {@link Backend#EPOLL}: this client's I/O is send and recv syscalls (see the class comment). */
    public Backend backend() { return Backend.EPOLL; }

    /** The server process as the kernel recorded it (SO_PEERCRED). */
    public PeerCredentials serverCredentials() throws ErrnoException { return socket.peerCredentials(); }

    private PeerCredentials credentialsOrNull() {
        try {
            return socket.peerCredentials();
        } catch (ErrnoException e) {
            return null;
        }
    }

    /** Every send and recv this client made, by kind: {@link #sendCounters()} plus {@link #receiveCounters()}. */
    public SyscallCounts counts() { return sendCounters.snapshot().plus(socket.counters().snapshot()); }

    /** The sends, whichever caller made them (one sender at a time). */
    public SyscallCounters sendCounters() { return sendCounters; }

    /**
     * The receives, whichever thread made them: the caller that held the receiving role (one at a
     * time), or the standby thread receiving for futures.
     */
    public SyscallCounters receiveCounters() { return socket.counters(); }

    /**
     * The epoll_wait calls of the JVM's one poller thread ({@code sysframe-poller}), where virtual
     * threads of every client (shared, and plain ones on epoll or io_uring) park while they wait, and a
     * shared client's sender while the socket is full: cumulative, JVM-wide, zero before its first use.
     */
    public static SyscallCounts pollerCounts() { return FdPoller.countsIfStarted(); }

    /**
     * The Linux thread id of the client's standby receiver, {@code sysframe-shared-reader(<socket>)}
     * (for {@link org.sysframe.unix.KernelSyscallCounter#forThread(int)}): a platform thread started
     * by the first {@link #callAsync}, which receives while futures wait and no blocking caller does;
     * 0 before. Blocking calls receive on their own threads.
     */
    public int readerThreadId() { return standbyTid; }

    /** The calls, batches and dropped answers so far. */
    public SharedClientStats stats() {
        lock.lock();
        try {
            return new SharedClientStats(calls, batches, largestBatch, lastBatch, unmatched, late, inFlight);
        } finally {
            lock.unlock();
        }
    }

    /** False once a failure broke the connection, or after {@link #close()}. */
    public boolean isUsable() {
        lock.lock();
        try {
            return broken == null && !closed;
        } finally {
            lock.unlock();
        }
    }

    /** Sends a request with an empty payload and returns a copy of its answer's payload. */
    public byte[] call(int type) throws IOException {
        return call(type, MemorySegment.NULL, 0, 0);
    }

    /** Sends payload and returns a copy of the answer's payload (allocated per call). */
    public byte[] call(int type, MemorySegment payload) throws IOException {
        return call(type, payload, 0, payload.byteSize());
    }

    private byte[] call(int type, MemorySegment payload, long offset, long length) throws IOException {
        Slot s = enqueue(type, payload, offset, length, null);
        try {
            await(s, type);
            check(type, s);
            return java.util.Arrays.copyOf(s.data, s.length);
        } finally {
            recycle(s);
        }
    }

    /**
     * Sends a request and copies its answer's payload into answer (from offset 0); returns the
     * payload's length. A non-zero status throws {@link ApiException}; a payload shorter than the
     * type's declared minimum throws EMSGSIZE; one longer than answer throws ENOBUFS (the answer is
     * dropped, the client stays usable). Waits at most the receive timeout (ETIMEDOUT); an interrupt
     * ends the wait with EINTR. Allocates nothing on the heap once warm.
     */
    public long call(int type, MemorySegment payload, long offset, long length, MemorySegment answer) throws IOException {
        Slot s = enqueue(type, payload, offset, length, null);
        try {
            await(s, type);
            check(type, s);
            if (s.length > answer.byteSize()) {
                throw new ErrnoException(specs.name(type), Errno.ENOBUFS,
                        "an answer of " + s.length + " bytes for a segment of " + answer.byteSize());
            }
            MemorySegment.copy(s.dataSegment, 0, answer, 0, s.length);
            return s.length;
        } finally {
            recycle(s);
        }
    }

    /**
     * Queues a request (sending it, with what others queued, when no send is under way) and returns
     * a future of a copy of its answer's payload. It fails as {@link #call} would, with the same
     * exceptions; past the receive timeout with ETIMEDOUT. Its completion runs on the thread that
     * received the answer (a blocking caller of this client, or the client's standby receiver,
     * {@link #readerThreadId()}): dependent stages that block (another call of this client, say) must
     * be *Async ones, and a call made from a completion fails with IllegalStateException.
     */
    public CompletableFuture<byte[]> callAsync(int type, MemorySegment payload, long offset, long length) throws IOException {
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        Thread st = standby;
        if (st == null) st = startStandby();
        Slot s = enqueue(type, payload, offset, length, f);
        long generation = s.generation;
        lock.lock();
        try {
            if (receiver == null && s.state == WAITING) LockSupport.unpark(st); // nobody receives: the standby does
        } finally {
            lock.unlock();
        }
        if (receiveTimeoutNanos > 0) {
            return f.orTimeout(receiveTimeoutNanos, TimeUnit.NANOSECONDS).handle((v, t) -> {
                if (t == null) return v;
                Throwable cause = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
                if (cause instanceof TimeoutException) {
                    abandon(s, generation);
                    throw new java.util.concurrent.CompletionException(timedOut(type, s.id));
                }
                throw t instanceof java.util.concurrent.CompletionException ce ? ce : new java.util.concurrent.CompletionException(t);
            });
        }
        return f;
    }

    /** Calls waiting for their answer now (abandoned ones still holding their id included). */
    public int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    // ---- the send side

    /** Takes an id and a slot, copies the request into the queue, and sends what is queued when no one else does. */
    private Slot enqueue(int type, MemorySegment payload, long offset, long length, CompletableFuture<byte[]> future)
            throws ErrnoException {
        if (length < 0 || length > GroutApi.MAX_MSG_LEN) {
            throw new ErrnoException(specs.name(type), Errno.EMSGSIZE,
                    "request payload of " + length + " bytes, GR_API_MAX_MSG_LEN is " + GroutApi.MAX_MSG_LEN);
        }
        if (specs.isStream(type)) {
            throw new ErrnoException(specs.name(type), Errno.EINVAL,
                    "a stream request has several answers: use a GroutClient for it, not a SharedGroutClient");
        }
        int need = RequestHeader.SIZE + (int) length;
        Slot s;
        boolean lead;
        lock.lock();
        try {
            if (receiver == Thread.currentThread()) {
                throw new IllegalStateException("SharedGroutClient(" + name + "): a call from the thread receiving for the client"
                        + " (a future's completion) would wait for itself: use the *Async stages");
            }
            usable();
            if (idCount == 0) {
                throw new ErrnoException("client(" + name + ")", Errno.EAGAIN, "all " + MAX_ID
                        + " request ids are in use (calls waiting, or timed out with no answer yet): no call can be sent until answers come");
            }
            if (QUEUE_BYTES - tail < need) awaitRoom(need);
            int id = freeIds[idHead];
            idHead = idHead + 1 == MAX_ID ? 0 : idHead + 1;
            idCount--;
            s = pooled > 0 ? pool[--pooled] : new Slot();
            s.id = id;
            s.type = type;
            s.generation++;
            s.waiter = Thread.currentThread();
            s.future = future;
            s.error = null;
            s.state = WAITING;
            byId[id] = s;
            inFlight++;
            if (future != null) futuresInFlight++;
            calls++;
            RequestHeader.write(queue, tail, id, type, (int) length);
            if (length > 0) MemorySegment.copy(payload, offset, queue, tail + RequestHeader.SIZE, length);
            tail += need;
            queuedRequests++;
            lead = !sending;
            if (lead) {
                sending = true;
                sender = Thread.currentThread();
            }
        } finally {
            lock.unlock();
        }
        if (lead) {
            // A virtual sender lets the virtual threads already runnable on its carriers run first (callers an
            // answer burst just woke): they queue their requests behind it, and one send takes them all. A
            // yield waits for no one: with nothing runnable it returns at once.
            if (Thread.currentThread().isVirtual()) Thread.yield();
            sendQueued();
        }
        return s;
    }

    /** Under lock: waits until the queue has need bytes free, within the send timeout. */
    private void awaitRoom(int need) throws ErrnoException {
        long left = sendTimeoutNanos > 0 ? sendTimeoutNanos : Long.MAX_VALUE;
        roomWaiters++;
        try {
            while (QUEUE_BYTES - tail < need) {
                if (left <= 0) {
                    throw new ErrnoException("send(" + name + ")", Errno.ETIMEDOUT, "the send queue stayed full for "
                            + options.sendTimeoutMillis() + " ms (the send timeout): the server reads nothing");
                }
                try {
                    left = room.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ErrnoException("send(" + name + ")", Errno.EINTR, "interrupted while waiting for room in the send queue");
                }
                usable();
            }
        } finally {
            roomWaiters--;
        }
    }

    /** The sender's loop: sends [head, tail) as one batch, then what was queued meanwhile, until nothing is left. */
    private void sendQueued() {
        while (true) {
            int from, to;
            lock.lock();
            try {
                if (head == tail || broken != null || sendersDone) {
                    head = tail = 0;
                    sending = false;
                    sender = null;
                    if (roomWaiters > 0) room.signalAll();
                    return;
                }
                from = head;
                to = tail;
                batches++;
                lastBatch = queuedRequests;
                if (queuedRequests > largestBatch) largestBatch = queuedRequests;
                queuedRequests = 0;
            } finally {
                lock.unlock();
            }
            ErrnoException failure = null;
            try {
                sendRange(from, to);
            } catch (ErrnoException e) {
                failure = e;
            }
            lock.lock();
            try {
                if (failure != null) {
                    failAll(failure);
                    continue;
                }
                head = to;
                if (head == tail) {
                    head = tail = 0;
                } else if (roomWaiters > 0) {
                    MemorySegment.copy(queue, head, queue, 0, tail - head);
                    tail -= head;
                    head = 0;
                }
                if (roomWaiters > 0) room.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Sends [from, to) of the queue: MSG_DONTWAIT, parking in the poller while the socket is full, within the send timeout. */
    private void sendRange(int from, int to) throws ErrnoException {
        long deadline = sendTimeoutNanos > 0 ? System.nanoTime() + sendTimeoutNanos : System.nanoTime() + Long.MAX_VALUE / 2;
        boolean interrupted = false; // a sender's interrupt is its own call's business, not the batch's: kept for later
        try {
            int at = from;
            while (at < to) {
                long n = sendSide.send(queue, at, to - at, UnixSocket.MSG_DONTWAIT);
                if (n != UnixSocket.WOULD_BLOCK) {
                    at += (int) n;
                    continue;
                }
                if (closed) throw closedError();
                if (deadline - System.nanoTime() <= 0) {
                    throw new ErrnoException("send(" + name + ")", Errno.ETIMEDOUT, "the server took " + (at - from) + " of "
                            + (to - from) + " bytes within the send timeout of " + options.sendTimeoutMillis() + " ms (it does not read)");
                }
                interrupted |= Thread.interrupted();
                link.awaitReady(sendSide.fd(), FdPoller.WRITABLE, deadline);
            }
        } finally {
            if (interrupted || Thread.interrupted()) Thread.currentThread().interrupt();
        }
    }

    // ---- the receive side

    /** Starts the standby receiver (once). */
    private Thread startStandby() {
        lock.lock();
        try {
            if (standby == null) {
                Thread t = new Thread(this::standbyLoop, "sysframe-shared-reader(" + name + ")");
                t.setDaemon(true);
                standby = t;
                t.start();
            }
            return standby;
        } finally {
            lock.unlock();
        }
    }

    /** The standby receiver: takes the role while futures wait and nobody receives, gives it up when none is left. */
    private void standbyLoop() {
        standbyTid = Self.tid();
        Thread me = Thread.currentThread();
        while (true) {
            boolean role = false;
            lock.lock();
            try {
                if (closed || broken != null) return;
                if (receiver == null && futuresInFlight > 0) {
                    receiver = me;
                    role = true;
                }
            } finally {
                lock.unlock();
            }
            if (!role) {
                LockSupport.park(this);
                continue;
            }
            try {
                while (true) {
                    lock.lock();
                    try {
                        if (futuresInFlight == 0 || closed || broken != null) break;
                    } finally {
                        lock.unlock();
                    }
                    pump.pumpBy(sink, receiveTimeoutNanos > 0 ? System.nanoTime() + receiveTimeoutNanos : 0, receiveTimeoutNanos);
                }
            } catch (ErrnoException e) {
                receiveFailed(e);
            } catch (RuntimeException | Error e) {
                receiveFailed(new ErrnoException("client(" + name + ")", Errno.EPROTO, "the receiving thread failed: " + e));
                throw e;
            } finally {
                releaseRole();
            }
        }
    }

    /**
     * The caller holding the receiving role: reads and routes answers until its own came, its deadline
     * passed (0: none), it was interrupted, or the connection failed. Then it gives the role up.
     */
    private void receiveFor(Slot s, long deadline) {
        try {
            while (s.state == WAITING && !closed) {
                if (Thread.currentThread().isInterrupted()) break;
                if (!pump.pumpBy(sink, deadline, receiveTimeoutNanos)) break;
            }
            // Its own answer came: the answers already buffered go to their callers now, not after a hand-off to the next receiver
            // (which, on virtual threads, runs only after every caller made runnable before it). Measured: docs/concurrency.md.
            if (s.state == DONE && !closed) pump.drainBuffered(sink);
        } catch (ErrnoException e) {
            // A virtual receiver's interrupt ends its wait in the poller: its own call's business (the caller throws EINTR).
            if (e.errno() != Errno.EINTR || !Thread.currentThread().isInterrupted()) receiveFailed(e);
        } catch (RuntimeException | Error e) {
            receiveFailed(new ErrnoException("client(" + name + ")", Errno.EPROTO, "the receiving thread failed: " + e));
            throw e;
        } finally {
            releaseRole();
        }
    }

    /** A receive failed: the connection is gone or out of step, every call in flight fails with it. */
    private void receiveFailed(ErrnoException e) {
        lock.lock();
        try {
            failAll(closed ? closedError() : e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The receiver leaves: the role goes to the oldest parked blocking caller, else to the standby when
     * futures wait. After close() the last receiver frees the memory.
     */
    private void releaseRole() {
        boolean free;
        lock.lock();
        try {
            receiver = null;
            offerRole();
            free = socketClosed;
            if (free) idle.signalAll();
        } finally {
            lock.unlock();
        }
        if (free) free();
    }

    /** Under lock, with no receiver: wakes the one who should take the role, if anyone waits. */
    private void offerRole() {
        if (waitHead != null) LockSupport.unpark(waitHead.waiter);
        else if (futuresInFlight > 0 && standby != null) LockSupport.unpark(standby);
    }

    /** How many blocking callers are listed as parked (tests: none once every call returned). */
    int listedCallers() {
        lock.lock();
        try {
            int n = 0;
            for (Slot w = waitHead; w != null; w = w.nextWaiting) n++;
            return n;
        } finally {
            lock.unlock();
        }
    }

    private void list(Slot s) {
        s.listed = true;
        s.nextWaiting = null;
        s.prevWaiting = waitTail;
        if (waitTail == null) waitHead = s;
        else waitTail.nextWaiting = s;
        waitTail = s;
    }

    private void unlist(Slot s) {
        if (!s.listed) return;
        s.listed = false;
        if (s.prevWaiting == null) waitHead = s.nextWaiting;
        else s.prevWaiting.nextWaiting = s.nextWaiting;
        if (s.nextWaiting == null) waitTail = s.prevWaiting;
        else s.nextWaiting.prevWaiting = s.prevWaiting;
        s.prevWaiting = s.nextWaiting = null;
    }

    /** Routes each answer to its caller. */
    private final class Sink implements MessagePump.Sink {
        @Override
        public void response(int forId, int status, MemorySegment buffer, long offset, long length) {
            Slot s;
            lock.lock();
            try {
                s = forId > 0 && forId <= MAX_ID ? byId[forId] : null;
                if (s == null) {
                    unmatched++;
                    return;
                }
                byId[forId] = null;
                freeId(forId);
                inFlight--;
                unlist(s);
                if (s.future != null) futuresInFlight--;
                if (s.state == ABANDONED) {
                    late++;
                    pool(s);
                    return;
                }
            } finally {
                lock.unlock();
            }
            CompletableFuture<byte[]> f = s.future;
            if (f != null) {
                byte[] copy = buffer.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                int type = s.type;
                boolean won = STATE_CAS(s, WAITING, DONE);
                lock.lock();
                try {
                    if (!won) late++;
                    pool(s);
                } finally {
                    lock.unlock();
                }
                if (!won) return;
                if (status != 0) f.completeExceptionally(new ApiException(specs.name(type), type, status));
                else f.complete(copy);
                return;
            }
            s.fit(length);
            MemorySegment.copy(buffer, offset, s.dataSegment, 0, length);
            s.status = status;
            s.length = (int) length;
            Thread w = s.waiter;
            if (STATE_CAS(s, WAITING, DONE)) {
                if (w != Thread.currentThread()) LockSupport.unpark(w); // the receiver's own answer: it is awake
            } else {
                lock.lock();
                try {
                    late++;
                    pool(s);
                } finally {
                    lock.unlock();
                }
            }
        }

        @Override
        public void event(int evType, MemorySegment buffer, long offset, long length) {
            unmatched++;
        }
    }

    // ---- waiting

    /**
     * Waits for s's answer within the receive timeout; on timeout, interrupt or failure the call is
     * abandoned or failed. When nobody receives, the caller takes the receiving role and reads
     * itself (a caller alone sends and receives on its own thread); else it parks in the list of
     * waiting callers until the receiver hands it its answer, or offers it the role.
     */
    private void await(Slot s, int type) throws ErrnoException {
        long deadline = receiveTimeoutNanos > 0 ? System.nanoTime() + receiveTimeoutNanos : 0;
        Thread me = Thread.currentThread();
        while (s.state == WAITING) {
            if (me.isInterrupted()) {
                if (abandon(s, s.generation)) {
                    throw new ErrnoException(specs.name(type), Errno.EINTR, "interrupted while waiting for the answer to request " + s.id);
                }
                break;
            }
            if (deadline != 0 && deadline - System.nanoTime() <= 0) {
                if (abandon(s, s.generation)) throw timedOut(type, s.id);
                break;
            }
            boolean role = false;
            lock.lock();
            try {
                if (s.state != WAITING) break;
                if (receiver == null && !closed) {
                    receiver = me;
                    unlist(s);
                    role = true;
                } else if (!s.listed && byId[s.id] == s) {
                    // Listed only while its id is still registered: once the receiver took the answer (or
                    // failAll the call), the slot is out of the table and out of the list, and its state
                    // changes after the lock; a caller that listed itself in that window stayed listed
                    // after it returned, and the role, offered to the head of the list, went to nobody.
                    // Unlisted, it parks until the state change unparks it.
                    s.deadline = deadline;
                    list(s);
                    if (deadline != 0 && (sweepAt == 0 || deadline - sweepAt < 0)) armSweep(deadline);
                }
            } finally {
                lock.unlock();
            }
            if (role) {
                receiveFor(s, deadline);
                continue;
            }
            // Untimed: the sweep unparks a caller whose deadline passed. A timed park would set and cancel a
            // timer of the JVM's per call (measured: docs/concurrency.md).
            LockSupport.park(this);
        }
        if (s.state == FAILED) throw copyOf(s.error);
    }

    /**
     * The parked callers' one timer (instead of a timed park each): a task of {@link #DEADLINES} runs at
     * the earliest deadline of the callers listed when it was armed, unparks every listed caller whose
     * deadline passed (each then gives up with ETIMEDOUT on its own thread) and arms itself again for
     * the earliest deadline still ahead. A caller listed with a deadline before the armed one arms an
     * earlier sweep; the later one, superseded, then does nothing. Under lock.
     */
    private void armSweep(long at) {
        sweepAt = at;
        long delay = Math.max(0, at - System.nanoTime());
        DEADLINES.schedule(() -> sweep(at), delay, TimeUnit.NANOSECONDS);
    }

    private void sweep(long due) {
        lock.lock();
        try {
            if (sweepAt != due) return;     // superseded by an earlier one, which armed the next
            sweepAt = 0;
            long now = System.nanoTime(), next = 0;
            for (Slot w = waitHead; w != null; w = w.nextWaiting) {
                if (w.deadline == 0) continue;
                if (now - w.deadline >= 0) LockSupport.unpark(w.waiter);
                else if (next == 0 || w.deadline - next < 0) next = w.deadline;
            }
            if (next != 0) armSweep(next);
        } finally {
            lock.unlock();
        }
    }

    /** Runs every shared client's deadline sweeps: one daemon thread, gone after a second with none due. */
    private static final ScheduledThreadPoolExecutor DEADLINES = deadlines();

    private static ScheduledThreadPoolExecutor deadlines() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1,
                r -> Thread.ofPlatform().daemon().name("sysframe-deadlines").unstarted(r));
        e.setKeepAliveTime(1, TimeUnit.SECONDS);
        e.allowCoreThreadTimeOut(true);
        e.setRemoveOnCancelPolicy(true);
        return e;
    }

    /** The same failure as e, as an exception of the caller's own (each caller gets its own stack trace). */
    private static ErrnoException copyOf(ErrnoException e) {
        String prefix = e.call() + ": " + e.errnoName() + " (" + e.errno() + ") " + e.strerror();
        String m = e.getMessage();
        if (m.length() > prefix.length() + 2 && m.startsWith(prefix + ": ")) {
            return new ErrnoException(e.call(), e.errno(), m.substring(prefix.length() + 2));
        }
        return new ErrnoException(e.call(), e.errno());
    }

    private ErrnoException timedOut(int type, int id) {
        return new ErrnoException(specs.name(type), Errno.ETIMEDOUT, "no answer to request " + id + " within the receive timeout of "
                + options.receiveTimeoutMillis() + " ms (the client stays usable; a late answer is dropped)");
    }

    /** Marks a waiting call abandoned (its id stays taken until its answer comes, then dropped); false if it was answered or failed first. */
    private boolean abandon(Slot s, long generation) {
        lock.lock();
        try {
            if (s.generation != generation) return false;
            unlist(s);
            boolean won = STATE_CAS(s, WAITING, ABANDONED);
            if (receiver == null) offerRole(); // it may have been offered the role it now does not take
            return won;
        } finally {
            lock.unlock();
        }
    }

    private void check(int type, Slot s) throws ErrnoException, ApiException {
        if (s.status != 0) throw new ApiException(specs.name(type), type, s.status);
        int min = specs.minResponse(type);
        if (s.length < min) {
            throw new ErrnoException(specs.name(type), Errno.EMSGSIZE,
                    "response payload of " + s.length + " bytes, at least " + min + " expected");
        }
    }

    /** After a blocking call returned or threw: its slot goes back to the pool unless it was abandoned (the receiver frees those). */
    private void recycle(Slot s) {
        int st = s.state;
        if (st == ABANDONED || st == WAITING) return;
        lock.lock();
        try {
            pool(s);
        } finally {
            lock.unlock();
        }
    }

    // ---- under lock

    private void usable() throws ErrnoException {
        if (closed) throw new ErrnoException("client(" + name + ")", Errno.ENOTCONN, "the client was closed");
        if (broken != null) {
            throw new ErrnoException("client(" + name + ")", Errno.ENOTCONN, "unusable since: " + broken.getMessage());
        }
    }

    private void freeId(int id) {
        int at = idHead + idCount;
        freeIds[at >= MAX_ID ? at - MAX_ID : at] = id;
        idCount++;
    }

    private void pool(Slot s) {
        s.waiter = null;
        s.future = null;
        s.state = 0;
        if (pooled == pool.length) pool = java.util.Arrays.copyOf(pool, pooled * 2);
        pool[pooled++] = s;
    }

    /** Breaks the client with e: every call in flight fails with it (abandoned ones are freed). */
    private void failAll(ErrnoException e) {
        if (broken == null) broken = e;
        for (int id = 1; id <= MAX_ID; id++) {
            Slot s = byId[id];
            if (s == null) continue;
            byId[id] = null;
            freeId(id);
            inFlight--;
            unlist(s);
            s.error = broken;
            CompletableFuture<byte[]> f = s.future;
            if (f != null) futuresInFlight--;
            Thread w = s.waiter;
            if (STATE_CAS(s, WAITING, FAILED)) {
                if (f != null) {
                    pool(s);
                    f.completeExceptionally(copyOf(broken));
                } else if (w != Thread.currentThread()) {
                    LockSupport.unpark(w);
                }
            } else {
                pool(s);
            }
        }
        head = tail = 0;
        queuedRequests = 0;
        if (roomWaiters > 0) room.signalAll();
    }

    private ErrnoException closedError() {
        return new ErrnoException("client(" + name + ")", Errno.ENOTCONN, "the client was closed while the call waited");
    }

    private static final java.lang.invoke.VarHandle STATE;
    static {
        try {
            STATE = java.lang.invoke.MethodHandles.lookup().findVarHandle(Slot.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static boolean STATE_CAS(Slot s, int from, int to) { return STATE.compareAndSet(s, from, to); }

    /**
     * Fails every waiting call (ENOTCONN, "the client was closed while the call waited"), closes the
     * socket, stops the standby receiver and frees the client's memory (at once, or as soon as the
     * thread receiving leaves its recv, which the shutdown ends); from any thread, once.
     */
    @Override
    public void close() {
        Thread s, st;
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            failAll(closedError());
            s = sender;
            st = standby;
        } finally {
            lock.unlock();
        }
        if (s != null) LockSupport.unpark(s);
        // The sender's calls never block: wait for it to see the close before the descriptor goes.
        long until = System.nanoTime() + 2_000_000_000L;
        lock.lock();
        try {
            sendersDone = true;
            while (sending && System.nanoTime() - until < 0) {
                try {
                    room.awaitNanos(1_000_000L);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        } finally {
            lock.unlock();
        }
        boolean free;
        lock.lock();
        try {
            socketClosed = true;
            socket.close(); // the shutdown ends a receiver's recv (or its wait in the poller): it leaves, and frees the memory if it leaves after this
            if (st != null) LockSupport.unpark(st);
            Thread me = Thread.currentThread();
            until = System.nanoTime() + 2_000_000_000L;
            while (receiver != null && receiver != me && System.nanoTime() - until < 0) {
                try {
                    idle.awaitNanos(1_000_000L);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            free = receiver == null;
        } finally {
            lock.unlock();
        }
        if (free) free();
    }

    private void free() {
        if (!freed.compareAndSet(false, true)) return;
        if (arena.scope().isAlive()) arena.close();
    }
}
