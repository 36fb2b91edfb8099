package org.sysframe.bench.peer;

import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The child JVM of {@link ServerProcess#java}: sysframe's server with the library's defaults on one
 * socket, in a process of its own, so that its resident memory is its own (the bench's JVM holds a 3 GB
 * heap, every table's servers and clients). {@code ServerFork SOCKET BACKEND LOOPS}; prints
 * {@code ready PID} once serving, then answers one line per command on stdin, read by the main thread
 * (never by a loop, so a command wakes none):
 * <ul>
 *   <li>{@code stats}: {@code {"open":N,"cpu_ns":...,"cpu_user_us":...,"cpu_sys_us":...,"nvcsw":...,"nivcsw":...,
 *       "library":"C,C,...","kernel":"C,C,...","empty":"C,C,...","cpus":"0,1"}}: the server sampled as an embedded
 *       one is ({@link ServerSample}: every loop parked in its wait, then its library and kernel counts in
 *       {@link SyscallKind} order, {@code -} when the kernel's cannot be read, and its CPU), with the
 *       connections open;</li>
 *   <li>{@code requests}: {@code {"requests":N}}, the requests of every connection, open and closed (read on
 *       the loops: they wake);</li>
 *   <li>{@code quit}, or the end of stdin: the server closed, exit 0.</li>
 * </ul>
 * A command that fails is answered {@code error WHAT}.
 */
public final class ServerFork {
    private ServerFork() {}

    public static void main(String[] args) throws Exception {
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // whatever else prints stays off the protocol
        if (args.length != 3) {
            System.err.println("usage: ServerFork SOCKET BACKEND LOOPS");
            System.exit(2);
        }
        ServerOptions o = ServerOptions.defaults().socketPath(args[0]).backend(Backend.parse(args[1]))
                .loops(Integer.parseInt(args[2]));
        try (GroutServer server = GroutServer.start(o)) {
            ServerSample.Source source = ServerSample.Source.of(server);
            protocol.println("ready " + ProcessHandle.current().pid());
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = commands.readLine()) != null; ) {
                String c = line.trim();
                if (c.equals("quit")) break;
                try {
                    protocol.println(switch (c) {
                        case "stats" -> stats(server.connectionCount(), source.sample());
                        case "requests" -> "{\"requests\":" + requests(server) + "}";
                        default -> "error: unknown command '" + c + "' (stats, requests, quit)";
                    });
                } catch (Exception e) {
                    protocol.println("error " + String.valueOf(e.getMessage()).replace('\n', ' '));
                }
            }
        } finally {
            KernelCounters.closeAll();
        }
        System.exit(0); // no thread of the closed server keeps the process
    }

    /** The stats line of a sample. */
    static String stats(int open, ServerSample s) {
        StringBuilder cpus = new StringBuilder();
        for (int c : s.cpus()) cpus.append(cpus.isEmpty() ? "" : ",").append(c);
        return String.format(Locale.ROOT,
                "{\"open\":%d,\"cpu_ns\":%d,\"cpu_user_us\":%d,\"cpu_sys_us\":%d,\"nvcsw\":%d,\"nivcsw\":%d,"
                        + "\"library\":\"%s\",\"kernel\":\"%s\",\"empty\":\"%s\",\"cpus\":\"%s\"}",
                open, s.cpu().cpuNanos(), s.cpu().userMicros(), s.cpu().systemMicros(), s.cpu().voluntarySwitches(),
                s.cpu().involuntarySwitches(), counts(s.library()), counts(s.kernel()), counts(s.empty()),
                cpus.isEmpty() ? "?" : cpus);
    }

    /** Counts in {@link SyscallKind} order, comma-separated; {@code -} for none. */
    static String counts(SyscallCounts c) {
        if (c == null) return "-";
        List<String> v = new ArrayList<>();
        for (SyscallKind k : SyscallKind.values()) v.add(Long.toString(c.get(k)));
        return String.join(",", v);
    }

    private static long requests(GroutServer server) throws IOException {
        long n = 0;
        for (ConnectionStats c : server.openConnections()) n += c.requests();
        for (ConnectionStats c : server.closedConnections()) n += c.requests();
        return n;
    }
}
