package org.sysframe.transport.internal.shm;

import org.sysframe.transport.ClientConfig;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.EventFd;
import org.sysframe.unix.SharedMemory;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The client's side of SHM_OPEN, right after GR_HELLO while nothing else is in flight: the request on
 * the socket, the answer read with recvmsg (the memfd and the eventfd come with its first byte), the segment checked
 * ({@link ShmSegment#open}: sealed, of the size announced, the right magic and version) and mapped.
 * An error answer (ENOTSUP from a server that does not offer channels or does not know the type)
 * leaves the client on the socket; a segment that fails the checks fails the connect.
 */
public final class ShmClient {
    private static final Logger LOG = System.getLogger("org.sysframe.client");

    private ShmClient() {}

    /** The link over the channel, or null when the server answered an error (the client stays on the socket). */
    public static ShmClientLink negotiate(ClientConfig options, UnixSocket socket, int id) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(RequestHeader.SIZE + ShmProtocol.REQUEST_SIZE, 8);
            RequestHeader.write(req, 0, id, ShmProtocol.OPEN, ShmProtocol.REQUEST_SIZE);
            req.set(JAVA_INT_UNALIGNED, RequestHeader.SIZE, ShmSegment.VERSION);
            socket.sendFully(req, 0, req.byteSize());

            MemorySegment head = a.allocate(ResponseHeader.SIZE + ShmProtocol.RESPONSE_SIZE, 8);
            int[] fd = {-1, -1}; // the segment's memfd, the eventfd that wakes the server's loop
            long got = 0;
            try {
                while (got < ResponseHeader.SIZE) {
                    long n = readWithFd(socket, head, got, ResponseHeader.SIZE - got, fd);
                    got += n;
                }
                int forId = ResponseHeader.forId(head, 0);
                int status = ResponseHeader.status(head, 0);
                long plen = Integer.toUnsignedLong(head.get(JAVA_INT_UNALIGNED, 8));
                if (forId != id) throw refused("the answer to SHM_OPEN is for id " + forId + ", not " + id);
                if (plen > GroutApi.MAX_MSG_LEN) throw refused("the answer to SHM_OPEN has a payload_len of " + plen);
                if (status != 0) {
                    drain(socket, a, plen);
                    LOG.log(Level.INFO, "the server of " + socket.name() + " answered SHM_OPEN with "
                            + Errno.name(status)
                            + ": staying on the socket");
                    return null;
                }
                if (plen != ShmProtocol.RESPONSE_SIZE) throw refused("the answer to SHM_OPEN has " + plen
                        + " bytes, not " + ShmProtocol.RESPONSE_SIZE);
                while (got < head.byteSize()) got += readWithFd(socket, head, got, head.byteSize() - got, fd);
                if (fd[0] < 0 || fd[1] < 0) throw refused("the answer to SHM_OPEN came with "
                        + (fd[0] < 0 ? "no descriptor" : "one descriptor") + ", not two (the segment, the eventfd)");
                int magic = head.get(JAVA_INT_UNALIGNED, ResponseHeader.SIZE);
                int version = head.get(JAVA_INT_UNALIGNED, ResponseHeader.SIZE + 4);
                long size = head.get(JAVA_LONG_UNALIGNED, ResponseHeader.SIZE + 8);
                if (magic != ShmSegment.MAGIC) throw refused(
                        String.format("the answer to SHM_OPEN says magic 0x%08x (want 0x%08x)", magic,
                        ShmSegment.MAGIC));
                if (version != ShmSegment.VERSION) throw refused("the answer to SHM_OPEN says version " + version
                        + ", this client speaks " + ShmSegment.VERSION);
                ShmSegment segment = ShmSegment.open(fd[0], size);
                EventFd bell;
                try {
                    bell = EventFd.adopt(fd[1], socket.counters());
                } catch (ErrnoException e) {
                    segment.close();
                    throw e; // EPROTO, saying what came instead
                } finally {
                    fd[1] = -1; // adopted, or closed by the refusal
                }
                return new ShmClientLink(segment, bell, socket, options.waitMode(), options.receiveTimeoutMillis(),
                        options.sendTimeoutMillis());
            } finally {
                SharedMemory.close(fd[0]); // the mapping keeps the file
                if (fd[1] >= 0) SharedMemory.close(fd[1]);
            }
        }
    }

    /** One recvmsg; keeps the first descriptors that come, as many as fd holds (closing any later one). */
    private static long readWithFd(UnixSocket socket, MemorySegment into, long off, long len,
            int[] fd) throws ErrnoException {
        int[] came = new int[fd.length];
        long n = socket.recvFds(into, off, len, came);
        if (came[0] >= 0) {
            if (fd[0] < 0) System.arraycopy(came, 0, fd, 0, fd.length);
            else closeAll(came);
        }
        if (n == UnixSocket.WOULD_BLOCK) throw new ErrnoException("SHM_OPEN", Errno.ETIMEDOUT,
                "no answer within the receive timeout");
        if (n == 0) throw new ErrnoException("SHM_OPEN", Errno.ECONNRESET, "the server closed the connection");
        return n;
    }

    private static void closeAll(int[] fds) {
        for (int f : fds) {
            if (f >= 0) SharedMemory.close(f);
        }
    }

    private static void drain(UnixSocket socket, Arena a, long plen) throws ErrnoException {
        if (plen == 0) return;
        MemorySegment rest = a.allocate(plen);
        socket.recvFully(rest, 0, plen);
    }

    private static ErrnoException refused(String why) {
        return new ErrnoException("shared memory", Errno.EPROTO, why);
    }
}
