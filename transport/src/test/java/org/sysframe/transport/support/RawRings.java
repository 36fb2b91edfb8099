package org.sysframe.transport.support;

import org.sysframe.transport.internal.shm.ShmProtocol;
import org.sysframe.transport.internal.shm.ShmRing;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.EventFd;
import org.sysframe.unix.Futex;
import org.sysframe.unix.SharedMemory;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A {@link RawServer}'s side of a shared-memory channel it granted: blocking reads of the request ring
 * and writes into the answer ring, waiting as the library does (a futex on the ring's sleeping word,
 * woken by the client's publish or take), in slices after each of which it looks at the socket, whose
 * end is the client's. The socket carries nothing once the channel is open: a byte on it is a failure.
 * The script's thread only.
 */
final class RawRings implements AutoCloseable {
    // The sleeping words (docs/shared-memory.md, "The segment"): ring 0's control at 64, ring 1's at 320;
    // in each, the consumer's word at +128 and the producer's at +192.
    private static final long REQUESTS_CONSUMER = 64 + 128;
    private static final long REQUESTS_PRODUCER = 64 + 192;
    private static final long ANSWERS_CONSUMER = 320 + 128;
    private static final long ANSWERS_PRODUCER = 320 + 192;
    private static final long SLICE_NANOS = 5_000_000;
    private static final int MSG_PEEK = 0x2;

    private final UnixSocket socket;
    private final ShmSegment segment;
    private final ShmRing requests;
    private final ShmRing answers;
    private final Arena arena = Arena.ofConfined();
    private final Futex futex = new Futex(new SyscallCounters("raw server channel"), arena);
    private final MemorySegment peek = arena.allocate(1);

    private RawRings(UnixSocket socket, ShmSegment segment) {
        this.socket = socket;
        this.segment = segment;
        this.requests = segment.requests();
        this.answers = segment.answers();
    }

    /**
     * Answers the client's SHM_OPEN (request open) as a sysframe server does: a sealed segment of the default rings,
     * passed with the answer.
     */
    static RawRings grant(UnixSocket socket, RawRequest open) throws ErrnoException {
        assertEquals(ShmProtocol.OPEN, open.type(),
                "raw server: the request after the hello (the suite's client asks for the channel)");
        byte[] versionAndFlags = new byte[ShmProtocol.REQUEST_SIZE];
        MemorySegment.ofArray(versionAndFlags).set(JAVA_INT_UNALIGNED, 0, ShmSegment.VERSION);
        assertArrayEquals(versionAndFlags, open.payload(), "raw server: SHM_OPEN's version and flags");
        int[] fd = {-1};
        ShmSegment segment = ShmSegment.create("raw test server", ShmSegment.DEFAULT_CAPACITY, fd);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment answer = a.allocate(ResponseHeader.SIZE + ShmProtocol.RESPONSE_SIZE, 8);
            ResponseHeader.write(answer, 0, open.id(), 0, ShmProtocol.RESPONSE_SIZE);
            answer.set(JAVA_INT_UNALIGNED, ResponseHeader.SIZE, ShmSegment.MAGIC);
            answer.set(JAVA_INT_UNALIGNED, ResponseHeader.SIZE + 4, ShmSegment.VERSION);
            answer.set(JAVA_LONG_UNALIGNED, ResponseHeader.SIZE + 8, segment.size());
            long sent;
            try (EventFd bell = EventFd.open(new SyscallCounters("raw test server"))) {
                // The client writes it to wake this server, which never sleeps longer than a slice: never read.
                sent = socket.sendFds(answer, 0, answer.byteSize(), fd[0], bell.fd());
            }
            socket.sendFully(answer, sent, answer.byteSize() - sent);
            return new RawRings(socket, segment);
        } catch (ErrnoException | RuntimeException e) {
            segment.close();
            throw e;
        } finally {
            SharedMemory.close(fd[0]); // the client has its own
        }
    }

    /** Reads exactly len bytes of the request ring; the client's end before that is ECONNRESET, as on the socket. */
    void readFully(MemorySegment dst, long off, long len) throws ErrnoException {
        long want = len;
        while (len > 0) {
            long n = requests.take(dst, off, len);
            if (n > 0) {
                if (requests.producerWaits()) futex.wake(segment.memory(), REQUESTS_PRODUCER, 1);
                off += n;
                len -= n;
                continue;
            }
            if (requests.consumerSleeps() == 0) futex.await(segment.memory(), REQUESTS_CONSUMER, 1, SLICE_NANOS);
            requests.consumerAwake();
            if (clientGone() && requests.available() == 0) { // what it wrote before it closed is there after the look
                throw new ErrnoException("recv(" + socket.name() + ", shared memory)", Errno.ECONNRESET,
                        "peer closed after " + (want - len) + " of " + want + " bytes");
            }
        }
    }

    /** Writes len bytes into the answer ring, waiting for room; the client's end first is EPIPE, as on the socket. */
    void writeFully(MemorySegment src, long off, long len) throws ErrnoException {
        while (len > 0) {
            long n = answers.put(src, off, len);
            if (answers.publish()) futex.wake(segment.memory(), ANSWERS_CONSUMER, 1);
            off += n;
            len -= n;
            if (len == 0) return;
            if (n > 0) continue;
            if (answers.producerSleeps() == 0) futex.await(segment.memory(), ANSWERS_PRODUCER, 1, SLICE_NANOS);
            answers.producerAwake();
            if (answers.room() == 0 && clientGone()) {
                throw new ErrnoException("send(" + socket.name() + ", shared memory)", Errno.EPIPE, len
                        + " bytes not taken");
            }
        }
    }

    /** Waits until the client closes its end; a byte it sends instead, on the channel or the socket, is a failure. */
    void awaitEof() throws ErrnoException {
        while (true) {
            boolean gone = clientGone();
            long n = requests.available(); // what it wrote before it closed is there after the look
            if (n > 0) throw new AssertionError("raw server: expected EOF, got " + n + " bytes on the channel");
            if (gone) return;
            if (requests.consumerSleeps() == 0) futex.await(segment.memory(), REQUESTS_CONSUMER, 1, SLICE_NANOS);
            requests.consumerAwake();
        }
    }

    /**
     * Whether the client closed its socket; a byte on the socket is a failure (it carries nothing once the channel is
     * open).
     */
    private boolean clientGone() throws ErrnoException {
        long n;
        try {
            n = socket.recv(peek, 0, 1, MSG_PEEK | UnixSocket.MSG_DONTWAIT);
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ECONNRESET) return true;
            throw e;
        }
        if (n > 0) throw new AssertionError("raw server: the client sent a byte on the socket after the channel "
                + "opened");
        return n == 0;
    }

    @Override
    public void close() {
        segment.close();
        arena.close();
    }
}
