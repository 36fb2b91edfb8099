package org.sysframe.bench.cli;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * A hand-written server for ping's failure tests, one connection at a time until closed: it answers
 * GR_HELLO as Grout does, then serves requests as its {@link Mode} says, reading whatever the socket
 * has (one read may hold several requests).
 */
final class ScriptedServer implements AutoCloseable {
    enum Mode {
        /** Handles one request per socket read and keeps the rest, as Grout's own api.c (libevent read_cb) did. */
        ONE_REQUEST_PER_READ,
        /** Answers GR_PING with no payload, as the seed's {@code GR_REQ(GR_PING, struct gr_empty, struct gr_empty)}. */
        EMPTY_PING,
        /** Echoes with byte 5 of the payload inverted. */
        ONE_BYTE_WRONG,
        /** Reads and never answers. */
        SILENT
    }

    private final String path;
    private final Mode mode;
    private final UnixSocket listener;
    private final Thread thread;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile UnixSocket conn;
    private volatile boolean closing;

    ScriptedServer(String path, Mode mode) throws ErrnoException {
        this.path = path;
        this.mode = mode;
        this.listener = UnixSocket.listen(path, 0600, 4, false);
        this.thread = new Thread(this::serve, "scripted server " + mode);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void serve() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(1 << 20);
            MemorySegment out = arena.allocate(GroutApi.MAX_MSG_LEN + 64L);
            while (!closing) {
                UnixSocket s;
                try {
                    s = listener.accept(new SyscallCounters("scripted server"));
                } catch (ErrnoException e) {
                    if (closing) break; // the listener closed under accept (EINVAL): the way to stop it
                    throw e;
                }
                if (s == null || closing) {
                    if (s != null) s.close();
                    break;
                }
                conn = s;
                s.setNonBlocking(false);
                try {
                    serveOne(s, in, out);
                } catch (ErrnoException e) {
                    if (e.errno() != Errno.ECONNRESET && e.errno() != Errno.EPIPE && !closing) throw e;
                } finally {
                    s.close();
                }
            }
            done.complete(null);
        } catch (Throwable t) {
            done.completeExceptionally(t);
        }
    }

    private void serveOne(UnixSocket s, MemorySegment in, MemorySegment out) throws ErrnoException {
        long have = 0;
        boolean hello = true;
        while (true) {
            long n = s.recv(in, have, in.byteSize() - have, 0);
            if (n == 0) return;
            have += n;
            // Every whole request buffered, or the first only (ONE_REQUEST_PER_READ).
            while (have >= 12) {
                int id = in.get(JAVA_INT_UNALIGNED, 0);
                long len = Integer.toUnsignedLong(in.get(JAVA_INT_UNALIGNED, 8));
                if (have < 12 + len) break;
                if (hello) {
                    out.set(JAVA_SHORT_UNALIGNED, 12, (short) 1024);
                    respond(s, out, id, 2);
                    hello = false;
                } else if (mode == Mode.SILENT) {
                    // read, never answered
                } else if (mode == Mode.EMPTY_PING) {
                    respond(s, out, id, 0);
                } else {
                    MemorySegment.copy(in, 12, out, 12, len);
                    if (mode == Mode.ONE_BYTE_WRONG && len > 5) out.set(JAVA_BYTE, 12 + 5,
                            (byte) ~out.get(JAVA_BYTE, 12 + 5));
                    respond(s, out, id, len);
                }
                MemorySegment.copy(in, 12 + len, in, 0, have - 12 - len);
                have -= 12 + len;
                if (mode == Mode.ONE_REQUEST_PER_READ) break;
            }
        }
    }

    private static void respond(UnixSocket s, MemorySegment out, int id, long len) throws ErrnoException {
        out.set(JAVA_INT_UNALIGNED, 0, id);
        out.set(JAVA_INT_UNALIGNED, 4, 0);
        out.set(JAVA_INT_UNALIGNED, 8, (int) len);
        s.sendFully(out, 0, 12 + len);
    }

    @Override
    public void close() throws Exception {
        closing = true;
        UnixSocket c = conn;
        if (c != null) c.close();
        listener.close();
        thread.join(10_000);
        UnixSocket.unlink(path);
        if (thread.isAlive()) throw new AssertionError("scripted server did not stop");
        done.get(10, TimeUnit.SECONDS);
    }
}
