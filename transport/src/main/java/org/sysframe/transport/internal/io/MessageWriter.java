package org.sysframe.transport.internal.io;

import org.sysframe.transport.SendFraming;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Writes one message (header + payload) on a socket with a {@link SendFraming}, looping over partial
 * writes. On a blocking socket it returns once all is out; on a non-blocking one it stops at EAGAIN
 * and returns how much was written, so the caller can queue the rest. Into a shared-memory ring
 * ({@link InPlaceSink}) it writes in place, whatever the framing: room claimed for the whole message,
 * the header and the payload copied there once. Its scratch memory (the copy
 * buffer and the iovec array, {@link Scratch}) holds nothing between two writes, so the writers of one
 * thread may share one (a server loop's connections do); no allocation per message. Payloads on the
 * Java heap are copied to native memory first (the kernel needs real addresses); native ones go as they are.
 */
public final class MessageWriter {
    private final ByteSink sink;
    private final SendFraming framing;
    private final MemorySegment copyBuffer;
    private final IovArray iov;
    private final Scratch scratch;

    /**
     * A writer's scratch memory for framing: the copy buffer and the two-entry iovec array, and the
     * native copy of heap payloads (allocated on first need). Used only within one write: one thread's
     * writers may share it.
     */
    public static final class Scratch {
        private final Arena arena;
        private final MemorySegment copyBuffer;
        private final IovArray iov;
        private MemorySegment heapCopy;

        /** Scratch for framing, in arena. */
        public Scratch(SendFraming framing, Arena arena) {
            this.arena = arena;
            SendFraming.Kind k = framing.kind();
            boolean copies = k == SendFraming.Kind.COPY || k == SendFraming.Kind.COPY_GATHER;
            boolean gathers = k == SendFraming.Kind.GATHER || k == SendFraming.Kind.COPY_GATHER;
            this.copyBuffer = copies ? arena.allocate(framing.copyThreshold(), 8) : null;
            this.iov = gathers ? new IovArray(arena, 2) : null;
        }

        private MemorySegment heapCopy() {
            if (heapCopy == null) heapCopy = arena.allocate(GroutApi.MAX_MSG_LEN, 8);
            return heapCopy;
        }
    }

    public MessageWriter(UnixSocket socket, SendFraming framing, Arena arena) {
        this(socket, framing, new Scratch(framing, arena));
    }

    /** A writer on socket whose scratch is shared (one thread's writers). */
    public MessageWriter(UnixSocket socket, SendFraming framing, Scratch scratch) {
        this(new ByteSink() {
            @Override
            public long sendUntilFull(MemorySegment seg, long off, long len) throws ErrnoException {
                return socket.sendUntilFull(seg, off, len);
            }

            @Override
            public long sendmsg(IovArray iov) throws ErrnoException { return socket.sendmsg(iov, 0); }
        }, framing, scratch);
    }

    /** A writer into sink (a client's link: a socket, or an io_uring that queues the sends). */
    public MessageWriter(ByteSink sink, SendFraming framing, Arena arena) {
        this(sink, framing, new Scratch(framing, arena));
    }

    private MessageWriter(ByteSink sink, SendFraming framing, Scratch scratch) {
        this.sink = sink;
        this.framing = framing;
        this.scratch = scratch;
        this.copyBuffer = scratch.copyBuffer;
        this.iov = scratch.iov;
    }

    public SendFraming framing() { return framing; }

    /**
     * Writes hlen header bytes then plen payload bytes; returns the bytes written, hlen + plen unless
     * the socket is non-blocking and filled up.
     */
    public long write(MemorySegment header, long hoff, int hlen, MemorySegment payload, long poff, long plen)
            throws ErrnoException {
        long total = hlen + plen;
        if (sink instanceof InPlaceSink ring && total <= ring.claimLimit()) {
            // In place, whatever the framing: the header and the payload copied once, straight into the ring.
            long at = ring.claim(total);
            MemorySegment m = ring.memory();
            MemorySegment.copy(header, hoff, m, at, hlen);
            if (plen > 0) MemorySegment.copy(payload, poff, m, at + hlen, plen);
            ring.commit(total);
            return total;
        }
        if (plen > 0 && !payload.isNative()) {
            // The kernel needs a real address: heap payloads (MemorySegment.ofArray) go through native memory.
            MemorySegment heapCopy = scratch.heapCopy();
            MemorySegment.copy(payload, poff, heapCopy, 0, plen);
            payload = heapCopy;
            poff = 0;
        }
        SendFraming.Kind kind = framing.kind();
        boolean fitsCopy = copyBuffer != null && plen > 0 && hlen + plen <= copyBuffer.byteSize();
        if (fitsCopy) {
            // Copy only when there is a payload and the whole message fits (the seed patch's rule).
            MemorySegment.copy(header, hoff, copyBuffer, 0, hlen);
            MemorySegment.copy(payload, poff, copyBuffer, hlen, plen);
            return sendAll(copyBuffer, 0, hlen + plen);
        }
        if (kind == SendFraming.Kind.GATHER || (kind == SendFraming.Kind.COPY_GATHER && plen > 0)) {
            return writeGather(header, hoff, hlen, payload, poff, plen);
        }
        return writeSplit(header, hoff, hlen, payload, poff, plen);
    }

    private long writeGather(MemorySegment header, long hoff, int hlen, MemorySegment payload, long poff, long plen)
            throws ErrnoException {
        iov.clear();
        iov.add(header, hoff, hlen);
        if (plen > 0) iov.add(payload, poff, plen);
        while (!iov.isEmpty()) {
            long n = sink.sendmsg(iov);
            if (n == UnixSocket.WOULD_BLOCK) break;
            iov.advance(n);
        }
        return hlen + plen - iov.remaining();
    }

    private long writeSplit(MemorySegment header, long hoff, int hlen, MemorySegment payload, long poff, long plen)
            throws ErrnoException {
        long h = sendAll(header, hoff, hlen);
        if (h < hlen || plen == 0) return h;
        return h + sendAll(payload, poff, plen);
    }

    private long sendAll(MemorySegment seg, long off, long len) throws ErrnoException {
        return sink.sendUntilFull(seg, off, len);
    }
}
