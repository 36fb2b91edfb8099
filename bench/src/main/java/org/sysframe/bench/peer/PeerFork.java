package org.sysframe.bench.peer;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.transport.ClientOptions;
import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM that owns in-process peers (one {@link PeerThread} each, as in the bench's own JVM) and
 * measures them on request, against a server of the parent: the JMH-style fork of a table whose Java
 * cells must not all share one JVM's fate (its JIT decisions, its memory layout, its threads'
 * placement), which a whole run's worth of interleaved rounds in one JVM cannot average out.
 *
 * <p>The parent ({@link #start}) names a peer set ({@link Peers}), the socket and the CPU the peer threads are
 * pinned to; the child connects every peer, says {@code ready}, then answers each {@code measure}
 * line of stdin with one line of the client side of a run ({@link ClientThreadsProbe} in the child);
 * the parent samples its own server around the request and makes the {@link Measurement}. The child
 * ends when its stdin closes.
 */
public final class PeerFork implements AutoCloseable {
    /** The peer sets a fork can make: the same list in parent and child, by name. */
    public enum Peers {
        /**
         * The peers table's Java peers: sysframe's client with the sysframe pairing's framing, the
         * JDK's SocketChannel gathering and with two writes, jnr-unixsocket.
         */
        PEER_TABLE;

        /** The peers, not yet open. */
        public List<PingPeer> create() {
            return switch (this) {
                case PEER_TABLE -> {
                    Pairing best = Pairing.named("sysframe");
                    yield List.of(
                            new SysframePeer("sysframe", ClientOptions.defaults().send(best.clientSend())
                            .recv(best.clientRecv())),
                            ChannelPeer.jdk("jdk-gather", ChannelPeer.Send.GATHER, true),
                            ChannelPeer.jdk("jdk-2write", ChannelPeer.Send.TWO_WRITES, false),
                            ChannelPeer.jnr("jnr", ChannelPeer.Send.COPY_ONE_WRITE, true));
                }
            };
        }
    }

    /** How long the parent waits for a child to get ready, and for one answer. */
    static final long READY_SECONDS = 120, ANSWER_SECONDS = 300;

    private final Process process;
    private final BufferedReader out;
    private final Writer in;
    private final List<String> names;
    private final int number;

    private PeerFork(Process process, List<String> names, int number) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.names = names;
        this.number = number;
    }

    /** The command line of a child JVM: this JVM's java and class path, the options the launcher gives. */
    static List<String> command(Peers peers, String socket, int cpu) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Djava.awt.headless=true",
                "-cp", System.getProperty("java.class.path"), PeerFork.class.getName(), peers.name(), socket,
                Integer.toString(cpu));
    }

    /**
     * Starts fork number (1, 2, ...) of peers against socket, pinned to cpu (-1: not pinned), and waits until it is
     * connected.
     */
    public static PeerFork start(Peers peers, String socket, int cpu, int number) throws IOException {
        Process p = new ProcessBuilder(command(peers, socket, cpu)).redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        List<String> names = peers.create().stream().map(PingPeer::name).toList();
        PeerFork f = new PeerFork(p, names, number);
        try {
            String line = f.answer(READY_SECONDS);
            if (!line.equals("ready")) throw new IOException("fork " + number + " did not get ready: " + line);
            return f;
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /** This fork's number (1, 2, ...). */
    public int number() { return number; }

    /** The child's pid. */
    public long pid() { return process.pid(); }

    /** A probe of the peer of that name in this fork, its server side read from server in this process. */
    public Cell.Probe probe(String peer, ServerSample.Source server) {
        int index = names.indexOf(peer);
        if (index < 0) throw new IllegalArgumentException("no peer " + peer + " in a fork (" + String.join(", ", names)
                + ")");
        return (cell, calls, round) -> measure(index, cell, calls, round, server);
    }

    private synchronized Measurement measure(int index, Cell cell, long calls, int round,
            ServerSample.Source server) throws IOException {
        ServerSample s0 = server.sample();
        in.write("measure " + index + " " + cell.payload() + " " + calls + " " + round + "\n");
        in.flush();
        String line = answer(ANSWER_SECONDS);
        ServerSample s1 = server.sample();
        if (line.startsWith("error ")) throw new IOException("fork " + number + ", " + cell.name() + ": "
                + line.substring(6));
        ServerSample sd = s0 == null || s1 == null ? null : s1.minus(s0);
        return ClientSide.parse(line).measurement(cell, round, sd, server.unknown());
    }

    /** The child's next line, waiting at most seconds; IOException when it ended or took longer. */
    private String answer(long seconds) throws IOException {
        String line = ChildLines.next(out, process, seconds, "fork " + number);
        if (line == null) throw new IOException("fork " + number + " ended (" + ChildLines.exitOf(process) + ")");
        return line;
    }

    /** Closes the child's stdin (it closes its peers and ends), waiting a few seconds before killing it. */
    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException ignored) {
            // the child is gone already
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /**
     * The client side of one run as the child sends it: one line of space-separated fields, counts
     * in {@link SyscallKind} order, {@code -} for a null set.
     */
    record ClientSide(int clients, long calls, double seconds, long[] latency, SyscallCounts library,
            SyscallCounts kernel, ThreadCpu cpu, SortedSet<Integer> cpus, SyscallCounts empty) {

        static ClientSide of(Measurement m) {
            if (m.clientUring() != null) throw new IllegalArgumentException(m.cell()
                    + ": io_uring counts do not cross a fork");
            return new ClientSide(m.clients(), m.calls(), m.seconds(),
                    new long[] {m.p50Nanos(), m.p90Nanos(), m.p99Nanos(), m.p999Nanos(), m.maxNanos()},
                    m.clientLibrary(), m.clientKernel(), m.clientCpu(), clientCpus(m.cpus()), m.clientEmpty());
        }

        /**
         * The client CPUs of a {@link ClientThreadsProbe#cpus} text ({@code client cpu 1; server cpu ...}, or
         * {@code client cpu 1}).
         */
        static SortedSet<Integer> clientCpus(String cpus) {
            SortedSet<Integer> set = new TreeSet<>();
            int end = cpus.indexOf(';');
            String c = cpus.substring("client cpu ".length(), end < 0 ? cpus.length() : end);
            if (!c.equals("?")) for (String s : c.split(",")) set.add(Integer.parseInt(s));
            return set;
        }

        String format() {
            StringBuilder sb = new StringBuilder("run ").append(clients).append(' ').append(calls).append(' ')
                    .append(String.format(Locale.ROOT, "%.9f", seconds));
            for (long l : latency) sb.append(' ').append(l);
            counts(sb, library);
            counts(sb, kernel);
            counts(sb, empty);
            sb.append(' ').append(cpu.cpuNanos()).append(' ').append(cpu.userMicros()).append(' ')
                    .append(cpu.systemMicros())
                    .append(' ').append(cpu.voluntarySwitches()).append(' ').append(cpu.involuntarySwitches());
            sb.append(' ').append(cpus.isEmpty() ? "?" : String.join(",", cpus.stream().map(String::valueOf).toList()));
            return sb.toString();
        }

        private static void counts(StringBuilder sb, SyscallCounts c) {
            if (c == null) {
                sb.append(" -");
                return;
            }
            sb.append(' ');
            for (SyscallKind k : SyscallKind.values()) sb.append(k.ordinal() == 0 ? "" : ",").append(c.get(k));
        }

        static ClientSide parse(String line) throws IOException {
            String[] f = line.split(" ");
            if (f.length != 18 || !f[0].equals("run")) throw new IOException("a fork's answer is not a run: " + line);
            try {
                long[] latency = new long[5];
                for (int i = 0; i < 5; i++) latency[i] = Long.parseLong(f[4 + i]);
                ThreadCpu cpu = new ThreadCpu(Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14]),
                        Long.parseLong(f[15]), Long.parseLong(f[16]));
                SortedSet<Integer> cpus = new TreeSet<>();
                if (!f[17].equals("?")) for (String c : f[17].split(",")) cpus.add(Integer.parseInt(c));
                return new ClientSide(Integer.parseInt(f[1]), Long.parseLong(f[2]), Double.parseDouble(f[3]), latency,
                        counts(f[9]), counts(f[10]), cpu, cpus, counts(f[11]));
            } catch (NumberFormatException e) {
                throw new IOException("a fork's answer is not a run: " + line, e);
            }
        }

        private static SyscallCounts counts(String field) throws IOException {
            if (field.equals("-")) return null;
            String[] v = field.split(",");
            if (v.length != SyscallKind.values().length) throw new IOException("a fork's counts have " + v.length
                    + " kinds, not " + SyscallKind.values().length);
            SyscallCounts.Builder b = SyscallCounts.builder();
            for (SyscallKind k : SyscallKind.values()) b.count(k, Long.parseLong(v[k.ordinal()]));
            return b.build();
        }

        Measurement measurement(Cell cell, int round, ServerSample sd, String serverUnknown) {
            return new Measurement(cell.name(), cell.payload(), round, clients, calls, seconds,
                    latency[0], latency[1], latency[2], latency[3], latency[4],
                    library, kernel, sd == null ? null : sd.library(), sd == null ? null : sd.kernel(),
                    cpu, sd == null ? null : sd.cpu(), ClientThreadsProbe.cpus(cpus, sd == null ? null : sd.cpus(),
                            serverUnknown),
                    empty, sd == null ? null : sd.empty(), null, sd == null ? null : sd.uring());
        }
    }

    /** The child: {@code PeerFork PEERS SOCKET CPU}. */
    public static void main(String[] args) throws Exception {
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // whatever else prints stays off the protocol
        Peers peers = Peers.valueOf(args[0]);
        String socket = args[1];
        int cpu = Integer.parseInt(args[2]);
        List<PeerThread> threads = new ArrayList<>();
        try {
            for (PingPeer p : peers.create()) {
                PeerThread t = new PeerThread(p);
                threads.add(t);
                t.onThread(() -> p.open(socket));
                if (cpu >= 0) t.onThread(() -> CpuPlacement.pinCurrentThread(cpu));
            }
            protocol.println("ready");
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = commands.readLine()) != null; ) {
                String[] f = line.split(" ");
                try {
                    PeerThread t = threads.get(Integer.parseInt(f[1]));
                    Cell cell = new Cell(t.peer().name(), Integer.parseInt(f[2]), "", Long.parseLong(f[3]), 0,
                            new ClientThreadsProbe(List.of(t), ServerSample.Source.NONE));
                    Measurement m = cell.probe().measure(cell, cell.calls(), Integer.parseInt(f[4]));
                    protocol.println(ClientSide.of(m).format());
                } catch (IOException | RuntimeException e) {
                    protocol.println("error " + String.valueOf(e.getMessage()).replace('\n', ' '));
                }
            }
        } finally {
            KernelCounters.closeAll();
            for (PeerThread t : threads) {
                try {
                    t.close();
                } catch (IOException | RuntimeException e) {
                    System.err.println("fork: closing " + t.peer().name() + ": " + e.getMessage());
                }
            }
        }
    }
}
