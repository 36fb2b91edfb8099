package org.sysframe.transport.support;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw server of many connections, each served by a thread of its own: it answers GR_HELLO, then runs
 * the script with the connection's index (0 for the first accepted). It counts the connections it
 * accepted and the most open at once, and keeps what the scripts threw.
 */
public final class PoolServer implements AutoCloseable {
    /** What the server does with connection index after the hello. */
    public interface Script {
        void run(int index, RawConn c) throws Exception;
    }

    private final String path;
    private final UnixSocket listener;
    private final Script script;
    private final Thread acceptor;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger mostOpen = new AtomicInteger();
    private final List<UnixSocket> sockets = new CopyOnWriteArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private volatile boolean closing;

    public PoolServer(String path, Script script) throws ErrnoException {
        this.path = path;
        this.script = script;
        this.listener = UnixSocket.listen(path, 0600, 16, false);
        this.acceptor = Thread.ofPlatform().daemon().name("pool test server " + path).start(this::acceptAll);
    }

    private void acceptAll() {
        while (!closing) {
            UnixSocket s;
            try {
                s = listener.accept(new SyscallCounters("pool server connection"));
            } catch (ErrnoException e) {
                return; // the listener closed
            }
            if (s == null) continue;
            int index = accepted.getAndIncrement();
            mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
            sockets.add(s);
            Thread.ofPlatform().daemon().name("pool test connection " + index).start(() -> serve(index, s));
        }
    }

    private void serve(int index, UnixSocket s) {
        try (Arena arena = Arena.ofConfined()) {
            s.setNonBlocking(false);
            RawConn c = new RawConn(s, arena);
            c.answerHello(RawServer.DEFAULT_MAX_IFACES);
            script.run(index, c);
        } catch (Throwable t) {
            if (!closing) failures.add(t);
        } finally {
            s.close();
            open.decrementAndGet();
        }
    }

    /** Connections accepted so far. */
    public int accepted() { return accepted.get(); }

    /** The most connections open at once so far. */
    public int mostOpen() { return mostOpen.get(); }

    /** What the scripts threw (while the server was not closing). */
    public List<Throwable> failures() { return List.copyOf(failures); }

    @Override
    public void close() throws Exception {
        closing = true;
        listener.close();
        for (UnixSocket s : sockets) s.close(); // its shutdown wakes the thread blocked in recv on it
        acceptor.join(10_000);
        UnixSocket.unlink(path);
    }
}
