package org.sysframe.transport.support;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A hand-written scripted server for one client: accepts one connection, answers GR_HELLO like Grout,
 * then runs a script of raw reads and writes. Closing it closes the connection and the listener, joins
 * the thread and removes the socket file. In the suite's {@code epoll+shm} invocation
 * ({@link BackendSuite#overSharedMemory()}) it grants the shared-memory channel its client asks for right
 * after the hello, and the script's reads and writes go through the channel's rings.
 */
public final class RawServer implements AutoCloseable {
    /** What a raw server answers in GR_HELLO unless told otherwise. */
    public static final int DEFAULT_MAX_IFACES = 0x1234;

    /** What the server does after the hello. */
    public interface Script {
        void run(RawConn c) throws Exception;
    }

    private final String path;
    private final UnixSocket listener;
    private final Thread thread;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private UnixSocket conn;
    private boolean closing;

    /** A raw server on path answering max_ifaces {@link #DEFAULT_MAX_IFACES}. */
    public RawServer(String path, Script script) throws ErrnoException {
        this(path, DEFAULT_MAX_IFACES, script);
    }

    public RawServer(String path, int maxIfaces, Script script) throws ErrnoException {
        this.path = path;
        this.listener = UnixSocket.listen(path, 0600, 4, false);
        boolean channel = BackendSuite.overSharedMemory();
        this.thread = new Thread(() -> serve(maxIfaces, channel, script), "raw test server " + path);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void serve(int maxIfaces, boolean channel, Script script) {
        try (Arena arena = Arena.ofConfined()) {
            UnixSocket s = listener.accept(new SyscallCounters("raw server connection"));
            if (!adopt(s)) {
                done.complete(null);
                return;
            }
            s.setNonBlocking(false); // accept4 gives a non-blocking socket: this server blocks
            RawConn c = new RawConn(s, arena);
            try {
                c.answerHello(maxIfaces);
                if (channel) c.openChannel();
                script.run(c);
            } finally {
                c.closeChannel();
            }
            done.complete(null);
        } catch (Throwable t) {
            done.completeExceptionally(t);
        } finally {
            synchronized (this) {
                if (conn != null) conn.close();
            }
        }
    }

    private synchronized boolean adopt(UnixSocket s) {
        if (closing || s == null) {
            if (s != null) s.close();
            return false;
        }
        conn = s;
        return true;
    }

    /** Waits for the script to finish and rethrows what failed in it (assertions included). */
    public void awaitScript() throws Exception {
        try {
            done.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error err) throw err;
            throw (Exception) e.getCause();
        }
    }

    @Override
    public void close() throws Exception {
        synchronized (this) {
            closing = true;
            if (conn != null) conn.close();
        }
        listener.close(); // wakes a thread still blocked in accept (EINVAL)
        thread.join(10_000);
        UnixSocket.unlink(path);
        if (thread.isAlive()) throw new AssertionError("raw server thread did not stop");
    }
}
