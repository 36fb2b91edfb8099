package org.sysframe.transport;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One client connection of a {@link GroutServer}, driven by the server's event-loop thread only: its
 * socket, its arena (freed on close), its read buffer, its output batch and its queue of unsent bytes.
 *
 * <p>Reading: one recv per readable event, then every complete request in the buffer is handled (so
 * pipelined requests are answered in one batch). Writing: {@link FlushMode#IMMEDIATE} writes each
 * response as it is produced; {@link FlushMode#DEFERRED} queues the batch (headers and copied payloads
 * in a staging buffer, echoed payloads referenced in place) and writes it with one writev at the end,
 * or early at the high-water mark; a batch of one small message goes out with the copy framing.
 * Bytes the socket does not take are queued; while any are queued the connection is not read, so a
 * client that does not read cannot make the server buffer more than one batch, and one that lets more
 * than the limit pile up (events) is closed.
 */
final class ServerConnection {
    private final GroutServer server;
    private final ServerOptions options;
    final long tag;
    private final UnixSocket socket;
    private final Arena arena = Arena.ofConfined();
    private final int peerPid;
    private final int peerUid;
    private final MessageWriter writer;
    private final MemorySegment header;
    private final Request request = new Request();
    private final Reply reply = new Reply();

    private MemorySegment in;
    private final MemorySegment small;  // the read buffer of ServerOptions.readBuffer() bytes
    private Arena largeArena;           // holds the 128 KiB read buffer while large requests come
    private boolean lastRequestLarge;
    private int largeIdle;              // batches since the last large request, while largeArena is held
    private int stagingIdle;            // batches since the last one that needed the large staging buffer
    /** Batches without need before a large buffer is given back. */
    private static final int RELEASE_AFTER = 256;
    private int inStart;
    private int inEnd;

    // DEFERRED batch: headers and copied payloads are staged in 16 KiB, or for a big batch also in a
    // large buffer, given back after RELEASE_AFTER batches that did not need it.
    private static final int STAGING_START = 16 * 1024;
    private IovArray iov;
    private MemorySegment smallStaging;
    private MemorySegment largeStaging;
    private MemorySegment staging;
    private Arena stagingArena;
    private long stagingUsed;
    private long batchBytes;
    private int batchMessages;
    // The batch's first message, for sending a batch of one with the copy framing (see flush()).
    private long firstHeaderAt;
    private int firstHeaderLen;
    private MemorySegment firstPayload;
    private long firstPayloadOff;
    private long firstPayloadLen;
    private boolean dirty;

    // Bytes the socket would not take yet.
    private Arena pendingArena;
    private MemorySegment pending;
    private long pendingStart;
    private long pendingEnd;
    private boolean waitingForWritable; // watching EPOLLOUT (not EPOLLIN) until the queue drains

    private boolean helloDone;
    private boolean closed;
    private String closeWhenSent; // set: read nothing more, close once the unsent queue is empty
    private long requests;
    private int[] subTypes = new int[0];
    private boolean[] subSuppress = new boolean[0];

    ServerConnection(GroutServer server, long tag, UnixSocket socket, int peerPid, int peerUid) {
        this.server = server;
        this.options = server.options();
        this.tag = tag;
        this.socket = socket;
        this.peerPid = peerPid;
        this.peerUid = peerUid;
        this.writer = new MessageWriter(socket, options.send(), arena);
        this.header = arena.allocate(EventHeader.SIZE, 8);
        this.small = arena.allocate(options.readBuffer(), 8);
        this.in = small;
    }

    GroutServer server() { return server; }
    int peerPid() { return peerPid; }
    int peerUid() { return peerUid; }
    UnixSocket socket() { return socket; }
    SyscallCounters counters() { return socket.counters(); }
    long requests() { return requests; }
    boolean isClosed() { return closed; }
    boolean helloDone() { return helloDone; }
    boolean dirty() { return dirty; }
    void helloDone(boolean done) { helloDone = done; }

    /** The socket is readable (or hung up): one recv, then every complete request. */
    void onReadable() {
        if (closed || pendingEnd > pendingStart || closeWhenSent != null) return;
        long n;
        try {
            n = socket.recv(in, inEnd, in.byteSize() - inEnd, 0);
        } catch (ErrnoException e) {
            // A peer that died with bytes it never read shows up as ECONNRESET, not EOF: the same end.
            if (e.errno() == Errno.ECONNRESET) {
                close(inEnd > inStart ? "peer closed in the middle of a request (ECONNRESET)" : "peer closed (ECONNRESET)");
            } else {
                close("recv failed: " + e.getMessage());
            }
            return;
        }
        if (n == UnixSocket.WOULD_BLOCK) return;
        if (n == 0) {
            close(inEnd > inStart ? "peer closed in the middle of a request" : "peer closed");
            return;
        }
        inEnd += (int) n;
        handleRequests();
    }

    private void handleRequests() {
        int need = 0;
        while (inEnd - inStart >= RequestHeader.SIZE) {
            long plen = RequestHeader.payloadLen(in, inStart);
            if (plen > GroutApi.MAX_MSG_LEN) {
                server.log(Level.WARNING, "pid=%d: request payload_len %d over GR_API_MAX_MSG_LEN %d: closing the connection",
                        peerPid, plen, GroutApi.MAX_MSG_LEN);
                // Answers to the requests before it were produced: they leave first, then the connection closes.
                closeWhenSent = "payload_len " + plen + " over the maximum";
                if (options.flush() == FlushMode.DEFERRED) flush();
                if (!closed && pendingEnd == pendingStart) close(closeWhenSent);
                return;
            }
            int total = RequestHeader.SIZE + (int) plen;
            if (inEnd - inStart < total) {
                need = total;
                break;
            }
            dispatch(inStart, (int) plen);
            if (closed) return;
            inStart += total;
            lastRequestLarge = total > small.byteSize();
            if (lastRequestLarge) largeIdle = 0;
        }
        if (options.flush() == FlushMode.DEFERRED) flush();
        if (closed) return;
        // Make room for the rest of a partial request (echoed payloads were flushed or queued above).
        if (inStart == inEnd) {
            inStart = inEnd = 0;
            // Give the large read buffer back once the client has stopped sending large requests for a
            // while: allocating (and zeroing) 128 KiB per request would cost more than the request.
            if (largeArena != null && in.byteSize() > small.byteSize() && !lastRequestLarge && ++largeIdle >= RELEASE_AFTER) {
                in = small;
                largeArena.close();
                largeArena = null;
            }
        } else {
            if (need == 0) need = RequestHeader.SIZE;
            if (need > in.byteSize()) {
                // A request bigger than the read buffer: read it into a 128 KiB one (see above for when it goes).
                largeArena = Arena.ofConfined();
                MemorySegment bigger = largeArena.allocate(RequestHeader.SIZE + GroutApi.MAX_MSG_LEN, 8);
                MemorySegment.copy(in, inStart, bigger, 0, inEnd - inStart);
                in = bigger;
                inEnd -= inStart;
                inStart = 0;
            } else if (inStart + need > in.byteSize()) {
                MemorySegment.copy(in, inStart, in, 0, inEnd - inStart);
                inEnd -= inStart;
                inStart = 0;
            }
        }
    }

    private void dispatch(int at, int plen) {
        int id = RequestHeader.id(in, at);
        int type = RequestHeader.type(in, at);
        requests++;
        request.set(id, type, in, at + RequestHeader.SIZE, plen, peerPid, peerUid);
        if (!helloDone && type != GroutApi.HELLO) {
            server.log(Level.DEBUG, "pid=%d: %s before GR_HELLO", peerPid, GroutApi.typeName(type));
            respond(id, Errno.EBADMSG, MemorySegment.NULL, 0, 0, false);
            return;
        }
        HandlerRegistry.Entry h = server.handlers().entry(type);
        if (h == null) {
            respond(id, Errno.ENOTSUP, MemorySegment.NULL, 0, 0, false);
            return;
        }
        if (plen < h.minRequest()) {
            respond(id, Errno.EMSGSIZE, MemorySegment.NULL, 0, 0, false);
            return;
        }
        reply.bind(this, request, h.minResponse());
        int status = 0;
        try {
            h.handler().handle(request, reply);
        } catch (OutOfMemoryError e) {
            status = Errno.ENOMEM;
            server.log(Level.ERROR, "pid=%d: %s handler ran out of memory", peerPid, GroutApi.typeName(type));
        } catch (Exception | StackOverflowError e) {
            status = Errno.EIO;
            server.log(Level.ERROR, "pid=%d: %s handler failed: %s", peerPid, GroutApi.typeName(type), e);
        }
        if (!reply.answered() && !closed) {
            if (status == 0) {
                status = Errno.EIO;
                server.log(Level.ERROR, "pid=%d: %s handler returned without answering", peerPid, GroutApi.typeName(type));
            }
            respond(id, status, MemorySegment.NULL, 0, 0, false);
        }
    }

    /** Queues or writes one response; fromRequest payloads are echoed in place (no copy). */
    void respond(int forId, int status, MemorySegment payload, long off, long len, boolean fromRequest) {
        ResponseHeader.write(header, 0, forId, status, (int) len);
        deliver(ResponseHeader.SIZE, payload, off, len, fromRequest);
    }

    /** Queues or writes one event (its payload is copied when queued: the publisher's memory is not ours). */
    void sendEvent(int evType, MemorySegment payload, long off, long len) {
        EventHeader.write(header, 0, evType, len);
        deliver(EventHeader.SIZE, payload, off, len, false);
    }

    /** Sends the message whose header is in {@code header}: now (IMMEDIATE) or in the batch (DEFERRED). */
    private void deliver(int hlen, MemorySegment payload, long off, long len, boolean fromRequest) {
        if (closed) return;
        if (options.flush() == FlushMode.IMMEDIATE) {
            writeNow(hlen, payload, off, len);
            return;
        }
        long staged = hlen + (fromRequest ? 0 : len); // what this message needs in the staging buffer
        if (iov == null) {
            iov = new IovArray(arena, 256);
            smallStaging = arena.allocate(STAGING_START, 8);
            staging = smallStaging;
        } else if (iov.pending() + 2 > iov.capacity()) {
            flush();
            if (closed) return;
        }
        if (pendingEnd > pendingStart) {
            queue(header, 0, hlen, payload, off, len, 0); // output is backed up: this goes behind it
            return;
        }
        if (stagingUsed + staged > staging.byteSize()) {
            // The small buffer is full: go on in the large one (kept while batches keep needing it). It is
            // below the high-water mark before any message is added, so one more message always fits.
            if (stagingArena == null) {
                stagingArena = Arena.ofConfined();
                largeStaging = stagingArena.allocate(options.highWater() + GroutApi.MAX_MSG_LEN + 2L * EventHeader.SIZE, 8);
            }
            staging = largeStaging;
            stagingUsed = 0;
            stagingIdle = 0;
        }
        long headerAt = stagingUsed;
        MemorySegment.copy(header, 0, staging, stagingUsed, hlen);
        iov.add(staging, stagingUsed, hlen);
        stagingUsed += hlen;
        MemorySegment body = payload;
        long bodyOff = off;
        if (len > 0) {
            if (fromRequest) {
                iov.add(payload, off, len);
            } else {
                MemorySegment.copy(payload, off, staging, stagingUsed, len);
                iov.add(staging, stagingUsed, len);
                body = staging;
                bodyOff = stagingUsed;
                stagingUsed += len;
            }
        }
        if (batchMessages++ == 0) {
            firstHeaderAt = headerAt;
            firstHeaderLen = hlen;
            firstPayload = body;
            firstPayloadOff = bodyOff;
            firstPayloadLen = len;
        }
        batchBytes += hlen + len;
        if (!dirty) {
            dirty = true;
            server.markDirty(this);
        }
        if (batchBytes >= options.highWater()) flush();
    }

    private void writeNow(int hlen, MemorySegment payload, long off, long len) {
        long total = hlen + len;
        if (pendingEnd > pendingStart) {
            queue(header, 0, hlen, payload, off, len, 0);
            return;
        }
        long written;
        try {
            written = writer.write(header, 0, hlen, payload, off, len);
        } catch (ErrnoException e) {
            close("send failed: " + e.getMessage());
            return;
        }
        if (written < total) queue(header, 0, hlen, payload, off, len, written);
    }

    /**
     * Writes the queued batch with one writev (more if the kernel takes it in parts); queues what is
     * left. A batch of one message small enough for the copy framing (COPY, COPY_GATHER) is copied and
     * sent with one send instead: the cheapest call for the common request/response case.
     */
    void flush() {
        dirty = false;
        if (iov == null || iov.isEmpty() || closed) {
            resetBatch();
            return;
        }
        SendFraming f = options.send();
        boolean copies = f.kind() == SendFraming.Kind.COPY || f.kind() == SendFraming.Kind.COPY_GATHER;
        if (batchMessages == 1 && copies && batchBytes <= f.copyThreshold()) {
            MemorySegment.copy(staging, firstHeaderAt, header, 0, firstHeaderLen);
            writeNow(firstHeaderLen, firstPayload, firstPayloadOff, firstPayloadLen);
            resetBatch();
            return;
        }
        try {
            while (!iov.isEmpty()) {
                long n = socket.writev(iov);
                if (n == UnixSocket.WOULD_BLOCK) break;
                iov.advance(n);
            }
        } catch (ErrnoException e) {
            close("writev failed: " + e.getMessage());
            return;
        }
        if (!iov.isEmpty()) {
            long rest = iov.remaining();
            if (reserve(rest)) {
                iov.copyRemainingTo(pending, pendingEnd);
                pendingEnd += rest;
                waitForWritable();
            }
        }
        resetBatch();
    }

    private void resetBatch() {
        if (iov != null) iov.clear();
        stagingUsed = 0;
        batchBytes = 0;
        batchMessages = 0;
        firstPayload = null;
        staging = smallStaging;
        if (stagingArena != null && ++stagingIdle >= RELEASE_AFTER) {
            stagingArena.close();
            stagingArena = null;
            largeStaging = null;
        }
    }

    /** Appends header[skip..] and payload (skipping what was written already) to the unsent queue. */
    private void queue(MemorySegment hdr, long hoff, int hlen, MemorySegment payload, long off, long len, long skip) {
        long rest = hlen + len - skip;
        if (!reserve(rest)) return;
        if (skip < hlen) {
            MemorySegment.copy(hdr, hoff + skip, pending, pendingEnd, hlen - skip);
            pendingEnd += hlen - skip;
            skip = 0;
        } else {
            skip -= hlen;
        }
        if (len - skip > 0) {
            MemorySegment.copy(payload, off + skip, pending, pendingEnd, len - skip);
            pendingEnd += len - skip;
        }
        waitForWritable();
    }

    /** Makes room for bytes more in the unsent queue; closes the connection past the limit. */
    private boolean reserve(long bytes) {
        long used = pendingEnd - pendingStart;
        if (used + bytes > options.maxQueuedOutput()) {
            server.log(Level.WARNING, "pid=%d: slow reader, %d bytes unsent over the %d limit: closing the connection",
                    peerPid, used + bytes, options.maxQueuedOutput());
            close("slow reader");
            return false;
        }
        if (pending != null && pendingEnd + bytes <= pending.byteSize()) return true;
        long size = pending == null ? 64 * 1024 : pending.byteSize();
        while (size < used + bytes) size *= 2;
        size = Math.min(size, options.maxQueuedOutput());
        Arena next = Arena.ofConfined();
        MemorySegment bigger = next.allocate(size, 8);
        if (used > 0) MemorySegment.copy(pending, pendingStart, bigger, 0, used);
        if (pendingArena != null) pendingArena.close();
        pendingArena = next;
        pending = bigger;
        pendingStart = 0;
        pendingEnd = used;
        return true;
    }

    private void waitForWritable() {
        if (closed || waitingForWritable) return;
        waitingForWritable = true;
        try {
            server.epoll().modify(socket.fd(), Epoll.EPOLLOUT, tag); // not EPOLLIN: stop reading meanwhile
        } catch (ErrnoException e) {
            close("epoll_ctl failed: " + e.getMessage());
        }
    }

    /** The socket can take more: send the unsent queue; once empty, read again. */
    void onWritable() {
        if (closed) return;
        try {
            while (pendingEnd > pendingStart) {
                long n = socket.send(pending, pendingStart, pendingEnd - pendingStart, 0);
                if (n == UnixSocket.WOULD_BLOCK) return;
                pendingStart += n;
            }
            pendingArena.close(); // give the memory back between bursts
            pendingArena = null;
            pending = null;
            pendingStart = pendingEnd = 0;
            waitingForWritable = false;
            if (closeWhenSent != null) {
                close(closeWhenSent);
                return;
            }
            server.epoll().modify(socket.fd(), Epoll.EPOLLIN, tag);
        } catch (ErrnoException e) {
            close("send failed: " + e.getMessage());
            return;
        }
        // Requests completed while output was backed up are handled now.
        if (inEnd - inStart >= RequestHeader.SIZE) handleRequests();
    }

    boolean wants(int evType, int causePid) {
        for (int i = 0; i < subTypes.length; i++) {
            if ((subTypes[i] == GroutApi.EVENT_ALL || subTypes[i] == evType) && !(subSuppress[i] && causePid == peerPid)) {
                return true;
            }
        }
        return false;
    }

    boolean hasSubscriptions() { return subTypes.length > 0; }

    void subscribe(int evType, boolean suppressSelf) {
        for (int i = 0; i < subTypes.length; i++) {
            if (subTypes[i] == evType) {
                subSuppress[i] = suppressSelf;
                return;
            }
        }
        subTypes = java.util.Arrays.copyOf(subTypes, subTypes.length + 1);
        subSuppress = java.util.Arrays.copyOf(subSuppress, subSuppress.length + 1);
        subTypes[subTypes.length - 1] = evType;
        subSuppress[subSuppress.length - 1] = suppressSelf;
    }

    void unsubscribeAll() {
        subTypes = new int[0];
        subSuppress = new boolean[0];
    }

    /** Closes the socket, frees every buffer, and tells the server why. Idempotent. */
    void close(String reason) {
        if (closed) return;
        closed = true;
        socket.close(); // also removes it from the epoll set
        if (pendingArena != null) pendingArena.close();
        if (stagingArena != null) stagingArena.close();
        if (largeArena != null) largeArena.close();
        arena.close();
        server.closed(this, reason);
    }
}
