package org.sysframe.transport.support;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server that takes any number of connections, answers each one's GR_HELLO like Grout, then reads
 * every request and never answers one: the slow server callers wait on. One platform thread per
 * connection (blocking reads); {@link #requests()} counts the requests read. Closing it closes every
 * connection (the clients' waits end with a reset or EOF), the listener, and removes the socket file.
 */
public final class SilentServer implements AutoCloseable {
    private final String path;
    private final UnixSocket listener;
    private final Thread acceptor;
    private final List<UnixSocket> conns = new CopyOnWriteArrayList<>();
    private final List<Thread> readers = new CopyOnWriteArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile boolean closing;

    public SilentServer(String path) throws ErrnoException {
        this.path = path;
        this.listener = UnixSocket.listen(path, 0600, 512, false);
        this.acceptor = new Thread(this::accept, "silent server " + path);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Requests read (after the hellos) so far, over every connection. */
    public int requests() { return requests.get(); }

    private void accept() {
        while (!closing) {
            UnixSocket s;
            try {
                s = listener.accept(new SyscallCounters("silent server connection"));
            } catch (ErrnoException e) {
                return; // the listener closed
            }
            if (s == null) continue;
            conns.add(s);
            if (closing) {
                s.close();
                return;
            }
            Thread t = new Thread(() -> read(s), "silent server connection");
            t.setDaemon(true);
            readers.add(t);
            t.start();
        }
    }

    private void read(UnixSocket s) {
        try (Arena arena = Arena.ofConfined()) {
            s.setNonBlocking(false);
            RawConn c = new RawConn(s, arena);
            c.answerHello(RawServer.DEFAULT_MAX_IFACES);
            while (true) {
                c.readRequest();
                requests.incrementAndGet();
            }
        } catch (ErrnoException | AssertionError e) {
            // the client or this server closed the connection
        }
    }

    @Override
    public void close() throws Exception {
        closing = true;
        listener.close();
        acceptor.join(10_000);
        for (UnixSocket s : conns) s.close();
        for (Thread t : readers) t.join(10_000);
        UnixSocket.unlink(path);
        if (acceptor.isAlive()) throw new AssertionError("silent server's acceptor did not stop");
        for (Thread t : readers) if (t.isAlive()) throw new AssertionError("a silent server reader did not stop");
    }
}
