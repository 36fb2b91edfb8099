package org.sysframe.bench.cli;

import org.sysframe.bench.measure.ServerSample;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A ping's server, measured by its process (every thread) when it is another process of this machine whose
 * {@code /proc} this uid can read; else why its CPU stays unknown.
 *
 * @param pid     the server's pid when it can be measured, else -1
 * @param unknown why it cannot be, or null
 */
record MeasuredServer(long pid, String unknown) {
    /** How a client learns its server's pid (SO_PEERCRED): 0 for a server in another PID namespace, -1 for none. */
    @FunctionalInterface
    interface Pid {
        long get() throws ErrnoException;
    }

    /** The server whose pid pid gives. */
    static MeasuredServer of(Pid pid) {
        long p;
        try {
            p = pid.get();
        } catch (ErrnoException e) {
            return unknown("SO_PEERCRED failed: " + e.getMessage());
        }
        if (p < 0) return unknown("this client does not learn its server's pid");
        if (p == 0) return unknown("SO_PEERCRED gave no pid: the server runs in another PID namespace (a container?)");
        if (p == ProcessHandle.current().pid()) {
            return unknown("the server runs in this process (pid " + p
                    + "), where its threads are not told apart from the client's");
        }
        Path task = Path.of("/proc/" + p + "/task");
        if (!Files.isReadable(task)) {
            return unknown("the server is pid " + p + ", whose " + task + " uid " + Self.uid() + " cannot read");
        }
        return new MeasuredServer(p, null);
    }

    private static MeasuredServer unknown(String why) { return new MeasuredServer(-1, why); }

    /** What the run samples of the server: its process, or nothing and why. */
    ServerSample.Source source() {
        return pid > 0 ? ServerSample.Source.ofProcess(pid) : ServerSample.Source.unknown(unknown);
    }
}
