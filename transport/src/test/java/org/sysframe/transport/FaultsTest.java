package org.sysframe.transport;

import org.sysframe.unix.ThreadSyscall;
import org.sysframe.unix.Self;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.internal.LibC;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.sysframe.transport.ClientErrorPathsTest.nativeCopy;
import static org.sysframe.transport.ClientErrorPathsTest.pattern;

/**
 * Faults from outside the library, with real sockets, signals and processes: a peer SIGKILLed in the
 * middle of a request, signals interrupting blocked recv and send calls (EINTR), the socket file
 * deleted, replaced or re-created under a running server, and a server that runs out of descriptors.
 * Outcomes are exact; waits are bounded only as hang guards.
 */
class FaultsTest {
    private static final Duration HANG_GUARD = Duration.ofSeconds(90);
    private static final int RECV_TIMEOUT_MS = 30_000;
    /** NMT "Other" may grow by less than the 128 KiB read buffer a cut-off request makes the server allocate. */
    private static final long MAX_OTHER_GROWTH = 64 * 1024;

    @TempDir
    Path dir;

    private final List<GroutServer> servers = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeables) c.close();
        for (GroutServer s : servers) s.close();
    }

    // ---------------------------------------------------------------- helpers

    private String path(String name) {
        return dir.resolve(name).toString();
    }

    private GroutServer start(ServerOptions o) throws IOException {
        GroutServer s = GroutServer.start(o);
        servers.add(s);
        return s;
    }

    private static ClientOptions clientOptions(String path) {
        return ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(RECV_TIMEOUT_MS);
    }

    /**
     * A client on its own thread: GroutClient is thread-confined (its arena belongs to the thread that
     * connected), and a connect that waits in a listen backlog must not hold up the test.
     */
    private static final class OwnedClient implements AutoCloseable {
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "owned-client");
            t.setDaemon(true);
            return t;
        });
        final Future<GroutClient> client;

        OwnedClient(ClientOptions o) {
            client = thread.submit(() -> GroutClient.connect(o));
        }

        GroutClient awaitConnected() throws Exception {
            return client.get(60, TimeUnit.SECONDS);
        }

        void ping(int seed, int len) throws Exception {
            GroutClient c = awaitConnected();
            thread.submit(() -> {
                FaultsTest.ping(c, seed, len);
                return null;
            }).get(60, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws Exception {
            if (client.isDone() && !client.isCancelled() && !thread.isShutdown()) {
                thread.submit(() -> {
                    try {
                        client.get().close();
                    } catch (java.util.concurrent.ExecutionException connectFailed) {
                        // nothing to close
                    }
                    return null;
                }).get(60, TimeUnit.SECONDS);
            }
            thread.shutdownNow(); // a connect still waiting is left to its receive timeout (daemon thread)
        }
    }

    private static void closeAll(List<GroutClient> clients) {
        for (GroutClient c : clients) c.close();
    }

    private static void guard(Executable body) {
        assertTimeoutPreemptively(HANG_GUARD, body);
    }

    /** One GR_PING of len bytes of pattern(len, seed), the echo checked byte for byte. */
    private static void ping(GroutClient c, int seed, int len) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = nativeCopy(a, pattern(len, seed));
            Response r = c.sendRecv(GroutApi.PING, p, 0, len);
            assertEquals(0, r.status());
            assertEquals(len, r.length());
            assertEquals(-1, MemorySegment.mismatch(r.buffer(), r.offset(), r.offset() + len, p, 0, len), "echo differs");
        }
    }

    private static void awaitConnectionCount(GroutServer s, int expected) throws InterruptedException {
        for (int i = 0; i < 4_000 && s.connectionCount() != expected; i++) Thread.sleep(5);
        assertEquals(expected, s.connectionCount(), "server.connectionCount()");
    }

    /** Lets the GC free what automatic arenas hold (each socket's 4-byte errno capture segment). */
    private static void settleGarbage() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }

    /** The kernel's name of what thread tid is blocked in ({@code /proc/self/task/TID/syscall}), e.g. "45" for recvfrom. */
    private static String blockedIn(int tid) throws IOException {
        String s = Files.readString(Path.of("/proc/self/task/" + tid + "/syscall")).trim();
        int sp = s.indexOf(' ');
        return sp < 0 ? s : s.substring(0, sp);
    }

    private static void awaitBlockedIn(int tid, String syscallNr) throws Exception {
        for (int i = 0; i < 4_000 && !blockedIn(tid).equals(syscallNr); i++) Thread.sleep(2);
        assertEquals(syscallNr, blockedIn(tid), "thread " + tid + " is not blocked in syscall " + syscallNr);
    }

    // ---------------------------------------------------------------- child processes

    private static List<String> childJava(String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Xmx64m", "-cp", System.getProperty("java.class.path"), FaultChild.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** A child process with its merged stdout and stderr read line by line on a daemon thread. */
    private static final class Child implements AutoCloseable {
        final Process process;
        final List<String> output = new CopyOnWriteArrayList<>();
        private final LinkedBlockingQueue<String> fresh = new LinkedBlockingQueue<>();
        private final Thread reader;
        private final OutputStream stdin;

        Child(List<String> command) throws IOException {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
            stdin = process.getOutputStream();
            reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        output.add(line);
                        fresh.add(line);
                    }
                } catch (IOException e) {
                    output.add("(reading the child's output failed: " + e + ")");
                }
            }, "child-output-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        int pid() { return (int) process.pid(); }

        /** The next output line that matches (earlier lines are skipped); fails if the child ends first. */
        String awaitLine(Predicate<String> what) throws InterruptedException {
            while (true) {
                String line = fresh.poll(100, TimeUnit.MILLISECONDS);
                if (line != null) {
                    if (what.test(line)) return line;
                } else if (!process.isAlive() && !reader.isAlive() && fresh.isEmpty()) {
                    fail("child " + pid() + " ended (exit " + process.exitValue() + ") before the expected line:\n" + String.join("\n", output));
                }
            }
        }

        long count(Predicate<String> what) {
            return output.stream().filter(what).count();
        }

        void command(String line) throws IOException {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        }

        /** Kills the process (if alive), reaps it and closes the three pipes. */
        @Override
        public void close() throws Exception {
            process.destroyForcibly();
            process.waitFor();
            reader.join(10_000);
            stdin.close();
            process.getInputStream().close();
            process.getErrorStream().close();
        }
    }

    // ---------------------------------------------------------------- peer killed mid-frame

    /**
     * Starts a child that says hello, then sends the header of a 128 KiB GR_PING and 60 KiB of it, and
     * SIGKILLs it there; returns what the server recorded for its connection.
     */
    private ConnectionStats killMidRequest(GroutServer s, String path, boolean unreadResponse) throws Exception {
        int before = s.connectionCount();
        try (Child child = new Child(childJava("partial", path, Boolean.toString(unreadResponse)))) {
            String sent = child.awaitLine(l -> l.startsWith("SENT "));
            assertEquals("SENT " + (RequestHeader.SIZE + FaultChild.SENT_PAYLOAD), sent);
            // The requests it completed were handled (and answered) before it dies: the hello, and the
            // small ping whose answer it leaves unread.
            long handled = unreadResponse ? 2 : 1;
            for (int i = 0; i < 2_000 && requestsOf(s, child.pid()) != handled; i++) Thread.sleep(5);
            assertEquals(handled, requestsOf(s, child.pid()), "requests handled for the child before the kill");

            child.process.destroyForcibly(); // SIGKILL
            assertTrue(child.process.waitFor(30, TimeUnit.SECONDS), "child not reaped");
            assertEquals(128 + 9, child.process.exitValue(), "exit status of a SIGKILLed process");
            awaitConnectionCount(s, before);
            List<ConnectionStats> mine = s.closedConnections().stream().filter(c -> c.peerPid() == child.pid()).toList();
            assertEquals(1, mine.size(), "closed connections of pid " + child.pid() + ": " + mine);
            return mine.get(0);
        }
    }

    private static long requestsOf(GroutServer s, int pid) throws IOException {
        return s.openConnections().stream().filter(c -> c.peerPid() == pid).mapToLong(ConnectionStats::requests).sum();
    }

    @ParameterizedTest(name = "a response left unread by the dead peer: {0}")
    @ValueSource(booleans = {false, true})
    void peerKilledInTheMiddleOfARequestIsClosedAndFreedWithAReasonSayingSo(boolean unreadResponse) throws Exception {
        String p = path("killed.sock");
        guard(() -> {
            GroutServer s = start(ServerOptions.defaults().socketPath(p));
            // Warm-up: one whole cycle, so that process launching, the server's paths for a large
            // request and the NMT reporting are set up before the figures are taken.
            ConnectionStats warm = killMidRequest(s, p, unreadResponse);
            System.out.println("mid-request kill (warm-up): " + warm);
            settleGarbage();
            ConnectionChurnTest.nativeMemory();

            ConnectionChurnTest.Nmt nmtBefore = ConnectionChurnTest.nativeMemory();
            long fdsBefore = ConnectionChurnTest.openFds();
            ConnectionStats killed = killMidRequest(s, p, unreadResponse);
            settleGarbage();
            ConnectionChurnTest.Nmt nmtAfter = ConnectionChurnTest.nativeMemory();
            long fdsAfter = ConnectionChurnTest.openFds();

            System.out.printf(Locale.ROOT, "mid-request kill (unread response: %b): server recorded %s%n", unreadResponse, killed);
            System.out.printf(Locale.ROOT, "mid-request kill: connections %d, fds %d -> %d, NMT %s -> %s (Other %+,d bytes)%n",
                    s.connectionCount(), fdsBefore, fdsAfter, nmtBefore, nmtAfter,
                    nmtAfter.otherCommitted() - nmtBefore.otherCommitted());

            assertEquals(0, s.connectionCount());
            assertEquals(unreadResponse ? 2 : 1, killed.requests(), killed.toString());
            assertEquals(fdsBefore, fdsAfter, "open descriptors of this process");
            long growth = nmtAfter.otherCommitted() - nmtBefore.otherCommitted();
            assertTrue(growth <= MAX_OTHER_GROWTH, "NMT Other grew by " + growth + " bytes (" + nmtBefore + " -> " + nmtAfter + ")");

            // The server goes on serving.
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                ping(c, 5, GroutApi.MAX_MSG_LEN);
            }

            // The record says the peer went away with a request cut short. A peer that dies with bytes
            // of ours unread makes the kernel report ECONNRESET instead of EOF once the rest of its
            // data is read; it is the same event and must be reported as such.
            assertTrue(killed.closeReason().contains("middle of a request"),
                    "close reason of a peer killed mid-request: \"" + killed.closeReason() + "\"");
        });
    }

    // ---------------------------------------------------------------- EINTR

    /**
     * A real-time signal with a handler installed without SA_RESTART, so that a blocked recv or send
     * it interrupts fails with EINTR instead of being restarted by the kernel.
     *
     * <p>The handler is libc's {@code abs}: for a {@code void (int)} handler it does nothing, touches no
     * errno and is async-signal-safe. It is not an FFM upcall stub on purpose: HotSpot's upcall entry
     * requires the thread to be in native code ({@code guarantee(thread->thread_state() ==
     * _thread_in_native) failed: wrong thread state for upcall}, upcallLinker.cpp), and a signal that
     * lands while the thread runs Java code between two calls aborts the JVM.
     */
    static final class RtSignal {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final SymbolLookup LIBC = LINKER.defaultLookup();
        private static final MethodHandle SIGACTION = LINKER.downcallHandle(LIBC.find("sigaction").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        private static final MethodHandle SIGRTMIN = LINKER.downcallHandle(LIBC.find("__libc_current_sigrtmin").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT));
        static final MemorySegment NO_OP_HANDLER = LIBC.find("abs").orElseThrow();
        static final MemorySegment SIG_IGN = MemorySegment.ofAddress(1);
        private static final long SYS_TGKILL = 234; // x86-64
        // glibc's struct sigaction on x86-64: handler, sigset_t (128 bytes), int flags, restorer.
        private static final long SIZE = 152, HANDLER = 0, FLAGS = 136;
        static final int SA_RESTART = 0x10000000;

        /** SIGRTMIN + 4 as glibc counts it at run time (it keeps the first real-time signals for itself). */
        static int number() {
            try {
                return (int) SIGRTMIN.invokeExact() + 4;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        static void install(int sig, MemorySegment handler, int flags) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment act = a.allocate(SIZE, 8); // zeroed: an empty mask
                act.set(ADDRESS, HANDLER, handler);
                act.set(JAVA_INT, FLAGS, flags);
                int rc = (int) SIGACTION.invokeExact(sig, act, MemorySegment.NULL);
                if (rc != 0) throw new IllegalStateException("sigaction(" + sig + ") = " + rc);
            } catch (Throwable t) {
                throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
            }
        }

        /** The handler address and flags now installed for sig. */
        static long[] current(int sig) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment act = a.allocate(SIZE, 8);
                int rc = (int) SIGACTION.invokeExact(sig, MemorySegment.NULL, act);
                if (rc != 0) throw new IllegalStateException("sigaction(" + sig + ") = " + rc);
                return new long[] {act.get(JAVA_LONG, HANDLER), act.get(JAVA_INT, FLAGS)};
            } catch (Throwable t) {
                throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
            }
        }

        static long tgkill(MemorySegment callState, int pid, int tid, int sig) {
            return LibC.syscall(callState, SYS_TGKILL, pid, tid, sig, 0, 0);
        }
    }

    /** Sends sig to the given threads in turn, every ~50 µs, until stopped; counts what it sent. */
    private static final class Signaller extends Thread {
        private final int sig;
        private final int pid = Self.pid();
        private volatile int[] targets = new int[0];
        private volatile boolean stop;
        final AtomicLong sent = new AtomicLong();
        final AtomicLong queueFull = new AtomicLong();
        volatile Throwable failure;

        Signaller(int sig) {
            super("rt-signaller");
            this.sig = sig;
            setDaemon(true);
        }

        void target(int... tids) { targets = tids.clone(); }

        @Override
        public void run() {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment cs = Errno.newCallState(a);
                while (!stop) {
                    for (int tid : targets) {
                        if (RtSignal.tgkill(cs, pid, tid, sig) == 0) {
                            sent.incrementAndGet();
                        } else if (Errno.read(cs) == Errno.EAGAIN) {
                            queueFull.incrementAndGet(); // RLIMIT_SIGPENDING reached: not sent
                        } else {
                            throw new ErrnoException("tgkill(" + tid + ")", Errno.read(cs));
                        }
                    }
                    LockSupport.parkNanos(50_000);
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        void finish() throws InterruptedException {
            stop = true;
            join(10_000);
            assertFalse(isAlive(), "signaller did not stop");
            assertNull(failure, () -> "signaller failed: " + failure);
        }
    }

    /** A signalled thread's last step: says it is done, then lives on until the signals have stopped. */
    private static void stayUntilReleased(CountDownLatch done, CountDownLatch release) {
        done.countDown();
        try {
            release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int sigBlockedBit(int tid, int sig) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("SigBlk:")) {
                long mask = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                return (int) ((mask >>> (sig - 1)) & 1);
            }
        }
        throw new IllegalStateException("no SigBlk in the status of thread " + tid);
    }

    /** What the signalled thread did in one direction: its own calls, the library's count, the kernel's count. */
    private record Transfer(String what, long successfulCalls, SyscallCounts library) {
        long eintr(org.sysframe.unix.SyscallKind kind) { return library.get(kind) - successfulCalls; }
    }

    @Test
    void signalsInterruptingBlockedRecvAndSendLoseAndDuplicateNoByteAndEveryRetryIsCounted() throws Exception {
        assertNull(KernelSyscallCounter.unavailableReason());
        final int total = 8 << 20; // through 4 KiB socket buffers: thousands of blocking waits each way
        final int sig = RtSignal.number();
        guard(() -> {
            RtSignal.install(sig, RtSignal.NO_OP_HANDLER, 0);
            long[] installed = RtSignal.current(sig);
            assertEquals(RtSignal.NO_OP_HANDLER.address(), installed[0], "handler");
            assertEquals(0, installed[1] & RtSignal.SA_RESTART, "SA_RESTART must be off");
            Signaller signaller = new Signaller(sig);
            CountDownLatch release = new CountDownLatch(1);
            try (Arena shared = Arena.ofShared()) {
                MemorySegment expected = shared.allocate(total, 8);
                SplittableRandom fill = new SplittableRandom(20261130);
                for (long i = 0; i < total; i += 8) expected.set(JAVA_LONG, i, fill.nextLong());
                MemorySegment receivedByTarget = shared.allocate(total, 8);
                MemorySegment receivedByPeer = shared.allocate(total, 8);

                UnixSocket[] in = UnixSocket.pair();   // peer -> target: the target's blocking recv
                UnixSocket[] out = UnixSocket.pair();  // target -> peer: the target's blocking send
                for (UnixSocket u : List.of(in[0], in[1], out[0], out[1])) {
                    closeables.add(u); // closing wakes a thread blocked on it: the hang guard's way out
                    u.setSendBufferSize(4096);
                    u.setReceiveBufferSize(4096);
                }
                // No SO_RCVTIMEO on the target's sockets: with a timeout set, the kernel turns an
                // interrupted wait into EINTR whatever SA_RESTART says; without one, only the handler's
                // missing SA_RESTART keeps the kernel from restarting the call unseen.
                in[1].setReceiveTimeout(RECV_TIMEOUT_MS);
                out[1].setReceiveTimeout(RECV_TIMEOUT_MS);

                // The peer thread: feeds the target, then drains what the target sends, in random pieces, pausing
                // after each so that the target blocks (and can be interrupted) on most of its calls.
                ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
                Thread peer = new Thread(() -> {
                    try {
                        SplittableRandom r = new SplittableRandom(1);
                        for (long off = 0; off < total; ) {
                            long n = in[1].send(expected, off, Math.min(total - off, 1 + r.nextInt(32 * 1024)), 0);
                            if (n <= 0) throw new AssertionError("peer send returned " + n);
                            off += n;
                            LockSupport.parkNanos(100_000); // a slow writer: the target waits in recv often
                        }
                        in[1].close(); // EOF for the target after exactly total bytes
                        for (long off = 0; off < total; ) {
                            long n = out[1].recv(receivedByPeer, off, Math.min(total - off, 1 + r.nextInt(64 * 1024)), 0);
                            if (n <= 0) throw new AssertionError("peer recv returned " + n + " at " + off);
                            off += n;
                            LockSupport.parkNanos(100_000); // a slow reader: the target waits in send often
                        }
                        try (Arena a = Arena.ofConfined()) {
                            assertEquals(0, out[1].recv(a.allocate(64), 0, 64, 0), "bytes beyond the " + total + " sent");
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                        in[1].close();
                        out[1].close();
                    }
                }, "eintr-peer");
                peer.setDaemon(true);

                // The target thread: blocking recv of everything, then blocking send of everything,
                // under a stream of signals; it reads its own kernel counter before and after.
                AtomicInteger targetTid = new AtomicInteger();
                CountDownLatch armed = new CountDownLatch(1);
                CountDownLatch go = new CountDownLatch(1);
                CountDownLatch done = new CountDownLatch(1);
                List<Transfer> transfers = new CopyOnWriteArrayList<>();
                SyscallCounts[] kernel = new SyscallCounts[1];
                Thread target = new Thread(() -> {
                    targetTid.set(Self.tid());
                    try (KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread(); Arena a = Arena.ofConfined()) {
                        SyscallCounts k0 = k.read();
                        SyscallCounts r0 = in[0].counters().snapshot(), s0 = out[0].counters().snapshot();
                        armed.countDown();
                        go.await();
                        SplittableRandom r = new SplittableRandom(2);
                        long calls = 0;
                        for (long off = 0; off < total; ) {
                            long n = in[0].recv(receivedByTarget, off, Math.min(total - off, 1 + r.nextInt(64 * 1024)), 0);
                            calls++;
                            if (n <= 0) throw new AssertionError("target recv returned " + n + " at " + off);
                            off += n;
                        }
                        long eof = in[0].recv(a.allocate(64), 0, 64, 0);
                        calls++;
                        assertEquals(0, eof, "bytes beyond the " + total + " sent");
                        transfers.add(new Transfer("recv", calls, in[0].counters().snapshot().minus(r0)));

                        calls = 0;
                        for (long off = 0; off < total; ) {
                            long n = out[0].send(expected, off, Math.min(total - off, 1 + r.nextInt(32 * 1024)), 0);
                            calls++;
                            if (n <= 0) throw new AssertionError("target send returned " + n + " at " + off);
                            off += n;
                        }
                        out[0].close(); // EOF for the peer
                        transfers.add(new Transfer("send", calls, out[0].counters().snapshot().minus(s0)));
                        kernel[0] = k.read().minus(k0);
                    } catch (Throwable t) {
                        failures.add(t);
                        in[0].close();
                        out[0].close();
                        armed.countDown();
                    } finally {
                        stayUntilReleased(done, release); // a signal at an exited thread would fail with ESRCH
                    }
                }, "eintr-target");
                target.setDaemon(true);
                target.start();
                armed.await();
                assertEquals(List.of(), List.copyOf(failures));
                assertEquals(0, sigBlockedBit(targetTid.get(), sig), "the signal is blocked in the target thread");

                signaller.target(targetTid.get());
                signaller.start();
                peer.start();
                go.countDown();
                done.await();
                signaller.finish();
                release.countDown();
                target.join();
                peer.join();
                if (!failures.isEmpty()) {
                    AssertionError e = new AssertionError("transfer failed: " + failures.peek());
                    failures.forEach(e::addSuppressed);
                    throw e;
                }

                Transfer recv = transfers.get(0), send = transfers.get(1);
                SyscallCounts library = recv.library().plus(send.library());
                long recvEintr = recv.eintr(org.sysframe.unix.SyscallKind.RECVFROM);
                long sendEintr = send.eintr(org.sysframe.unix.SyscallKind.SENDTO);
                System.out.printf(Locale.ROOT, "EINTR: signal %d sent %,d times (%,d refused, queue full) at tid %d;"
                                + " recv: %,d successful calls, library %s -> %,d EINTR retries;"
                                + " send: %,d successful calls, library %s -> %,d EINTR retries; kernel %s%n",
                        sig, signaller.sent.get(), signaller.queueFull.get(), targetTid.get(),
                        recv.successfulCalls(), recv.library(), recvEintr,
                        send.successfulCalls(), send.library(), sendEintr, kernel[0]);

                assertEquals(-1, MemorySegment.mismatch(receivedByTarget, 0, total, expected, 0, total),
                        "bytes received by the signalled thread");
                assertEquals(-1, MemorySegment.mismatch(receivedByPeer, 0, total, expected, 0, total),
                        "bytes sent by the signalled thread");
                assertEquals(library, kernel[0], "the signalled thread's syscalls: library vs kernel");
                assertTrue(signaller.sent.get() >= 200, "only " + signaller.sent.get() + " signals sent");
                assertTrue(recvEintr > 0, "no recv was interrupted: the test exercised nothing");
                assertTrue(sendEintr > 0, "no send was interrupted: the test exercised nothing");
            } finally {
                if (signaller.isAlive()) signaller.finish();
                release.countDown();
                // Not back to SIG_DFL, whose action for a real-time signal ends the process: SIG_IGN also
                // discards any instance still pending.
                RtSignal.install(sig, RtSignal.SIG_IGN, 0);
            }
        });
    }

    /** A reading of the server loop's library and kernel counts, taken while it waits in epoll_wait. */
    private static SyscallCounts[] idleReading(GroutServer s, KernelSyscallCounter k) throws Exception {
        while (true) {
            ThreadSyscall.awaitEpollWait(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts l = s.counters().snapshot(), kk = k.read();
            Thread.sleep(20);
            ThreadSyscall.awaitEpollWait(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts l2 = s.counters().snapshot(), k2 = k.read();
            if (l.equals(l2) && kk.equals(k2)) return new SyscallCounts[] {l, kk};
        }
    }

    @Test
    void signalsAtAClientAndAtTheServerLoopLoseNoMessageAndLibraryCountsStayEqualToTheKernels() throws Exception {
        assertNull(KernelSyscallCounter.unavailableReason());
        final int sig = RtSignal.number();
        final int pings = 300;
        String p = path("eintr.sock");
        guard(() -> {
            RtSignal.install(sig, RtSignal.NO_OP_HANDLER, 0);
            Signaller signaller = new Signaller(sig);
            CountDownLatch release = new CountDownLatch(1);
            GroutServer s = start(ServerOptions.defaults().socketPath(p).socketBufferSize(4096));
            try (KernelSyscallCounter serverKernel = KernelSyscallCounter.forThread(s.loopThreadId())) {
                ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
                AtomicInteger clientTid = new AtomicInteger();
                CountDownLatch armed = new CountDownLatch(1);
                CountDownLatch go = new CountDownLatch(1);
                CountDownLatch done = new CountDownLatch(1);
                SyscallCounts[] client = new SyscallCounts[2]; // library, kernel
                AtomicLong bytes = new AtomicLong();
                Thread t = new Thread(() -> {
                    clientTid.set(Self.tid());
                    try (GroutClient c = GroutClient.connect(clientOptions(p).socketBufferSize(4096).recv(RecvFraming.EXACT));
                         KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread();
                         Arena a = Arena.ofConfined()) {
                        SplittableRandom r = new SplittableRandom(3);
                        MemorySegment payload = a.allocate(GroutApi.MAX_MSG_LEN, 8);
                        SyscallCounts l0 = c.counters().snapshot(), k0 = k.read();
                        armed.countDown();
                        go.await();
                        for (int i = 0; i < pings; i++) {
                            int len = i % 3 == 0 ? r.nextInt(256) : r.nextInt(GroutApi.MAX_MSG_LEN + 1);
                            for (int j = 0; j < len; j++) payload.set(JAVA_BYTE, j, (byte) (i * 131 + j * 7 + (j >>> 9)));
                            Response resp = c.sendRecv(GroutApi.PING, payload, 0, len);
                            if (resp.length() != len || MemorySegment.mismatch(resp.buffer(), resp.offset(), resp.offset() + len, payload, 0, len) != -1) {
                                throw new AssertionError("ping " + i + " of " + len + " bytes: bad echo " + resp);
                            }
                            bytes.addAndGet(len);
                        }
                        client[0] = c.counters().snapshot().minus(l0);
                        client[1] = k.read().minus(k0);
                    } catch (Throwable e) {
                        failures.add(e);
                        armed.countDown();
                    } finally {
                        stayUntilReleased(done, release);
                    }
                }, "eintr-client");
                t.setDaemon(true);
                t.start();
                armed.await();
                assertEquals(List.of(), List.copyOf(failures));
                SyscallCounts[] server0 = idleReading(s, serverKernel);

                signaller.target(clientTid.get(), s.loopThreadId());
                signaller.start();
                go.countDown();
                done.await();
                signaller.finish();
                release.countDown();
                t.join();
                if (!failures.isEmpty()) throw new AssertionError("client failed: " + failures.peek(), failures.peek());
                SyscallCounts[] server1 = idleReading(s, serverKernel);
                SyscallCounts serverLibrary = server1[0].minus(server0[0]), serverKernelCounts = server1[1].minus(server0[1]);

                System.out.printf(Locale.ROOT, "EINTR through GroutClient and GroutServer: %d pings, %,d payload bytes each way,"
                                + " %,d signals; client library %s kernel %s; server loop library %s kernel %s%n",
                        pings, bytes.get(), signaller.sent.get(), client[0], client[1], serverLibrary, serverKernelCounts);
                assertEquals(client[0], client[1], "client thread: library vs kernel");
                assertEquals(serverLibrary, serverKernelCounts, "server loop: library vs kernel");
                awaitConnectionCount(s, 0);
                assertEquals(List.of(pings + 1L), s.closedConnections().stream().map(ConnectionStats::requests).toList());
            } finally {
                if (signaller.isAlive()) signaller.finish();
                release.countDown();
                RtSignal.install(sig, RtSignal.SIG_IGN, 0);
            }
        });
    }

    // ---------------------------------------------------------------- the socket file

    @Test
    void socketFileDeletedWhileRunningKeepsConnectionsServesNoNewOnesAndCloseStillWorks() throws Exception {
        String p = path("deleted.sock");
        guard(() -> {
            GroutServer s = start(ServerOptions.defaults().socketPath(p));
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                ping(c, 1, 100);
                Files.delete(Path.of(p));

                for (int len : new int[] {0, 1, 4096, GroutApi.MAX_MSG_LEN}) ping(c, 2, len);
                ErrnoException e = assertThrows(ErrnoException.class, () -> GroutClient.connect(clientOptions(p)).close());
                assertEquals(Errno.ENOENT, e.errno(), e.getMessage());
                ErrnoException raw = assertThrows(ErrnoException.class, () -> UnixSocket.connect(p).close());
                assertEquals(Errno.ENOENT, raw.errno(), raw.getMessage());
                assertEquals(1, s.connectionCount());
                assertEquals(6, s.openConnections().get(0).requests());

                s.close(); // the file is already gone: no failure
                assertFalse(Files.exists(Path.of(p), LinkOption.NOFOLLOW_LINKS));
                assertEquals(0, s.connectionCount());
                assertEquals(List.of("server shutdown"), s.closedConnections().stream().map(ConnectionStats::closeReason).toList());
            }
        });
    }

    @Test
    void socketFileReplacedByAnotherServersSocketSendsNewClientsToTheNewServerAndOldClientsStayWithTheOld() throws Exception {
        String p = path("replaced.sock");
        guard(() -> {
            GroutServer first = start(ServerOptions.defaults().socketPath(p).maxIfaces(1001));
            List<GroutClient> clients = new ArrayList<>();
            try {
                GroutClient old = GroutClient.connect(clientOptions(p));
                clients.add(old);
                assertEquals(1001, old.maxIfaces());
                Files.delete(Path.of(p));
                // The path is free, so a second server binds it (no EADDRINUSE: that check needs the file).
                GroutServer second = start(ServerOptions.defaults().socketPath(p).maxIfaces(1002));

                GroutClient fresh = GroutClient.connect(clientOptions(p));
                clients.add(fresh);
                assertEquals(1002, fresh.maxIfaces(), "a new client reaches the server that owns the file now");
                ping(old, 3, 5000);
                ping(fresh, 4, 5000);
                assertEquals(1, first.connectionCount());
                assertEquals(1, second.connectionCount());
                assertEquals(2, first.openConnections().get(0).requests());
                assertEquals(2, second.openConnections().get(0).requests());
            } finally {
                closeAll(clients);
            }
        });
    }

    @Test
    void closingAServerWhoseSocketFileWasReplacedLeavesTheNewServersFileInPlace() throws Exception {
        String p = path("replaced-close.sock");
        guard(() -> {
            GroutServer first = start(ServerOptions.defaults().socketPath(p).maxIfaces(1001));
            Files.delete(Path.of(p));
            GroutServer second = start(ServerOptions.defaults().socketPath(p).maxIfaces(1002));
            first.close();
            // The file at p is the second server's, not the first's: the first has no business removing it.
            assertTrue(Files.exists(Path.of(p), LinkOption.NOFOLLOW_LINKS),
                    "the first server's close() removed the socket file of the second, which still runs");
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                assertEquals(1002, c.maxIfaces());
                ping(c, 6, 64);
                assertEquals(1, second.connectionCount());
            }
        });
    }

    @Test
    void serverRestartedOnTheSamePathFailsOldConnectionsWithEpipeOrEconnresetAndNewConnectsWork() throws Exception {
        String p = path("restart.sock");
        final int loopers = 4;
        guard(() -> {
            GroutServer first = start(ServerOptions.defaults().socketPath(p).maxIfaces(1001));
            List<GroutClient> clients = new ArrayList<>();
            try {
                // An idle client, and one blocked in recv waiting for an event (on its own thread).
                GroutClient idle = GroutClient.connect(clientOptions(p));
                clients.add(idle);
                AtomicInteger waitingTid = new AtomicInteger();
                AtomicReference<Throwable> waitOutcome = new AtomicReference<>();
                CountDownLatch subscribed = new CountDownLatch(1);
                Thread waiter = new Thread(() -> {
                    waitingTid.set(Self.tid());
                    try (GroutClient waiting = GroutClient.connect(clientOptions(p))) {
                        waiting.subscribe(GroutApi.EVENT_ALL, false);
                        subscribed.countDown();
                        waiting.nextEvent();
                        waitOutcome.set(new AssertionError("an event arrived"));
                    } catch (Throwable t) {
                        waitOutcome.set(t);
                    } finally {
                        subscribed.countDown();
                    }
                }, "restart-waiter");
                waiter.setDaemon(true);
                waiter.start();

                // Clients that ping in a loop and reconnect whenever their connection fails.
                ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
                List<Map<String, Integer>> oldFailures = new ArrayList<>();
                List<Map<String, Integer>> connectFailures = new ArrayList<>();
                AtomicInteger onFirst = new AtomicInteger();
                List<Thread> threads = new ArrayList<>();
                for (int i = 0; i < loopers; i++) {
                    final int id = i;
                    Map<String, Integer> oldF = new TreeMap<>(), connF = new TreeMap<>();
                    oldFailures.add(oldF);
                    connectFailures.add(connF);
                    Thread th = new Thread(() -> {
                        GroutClient c = null;
                        int pingsOnFirst = 0, pingsOnSecond = 0;
                        try {
                            while (pingsOnSecond < 20) {
                                if (c == null) {
                                    try {
                                        c = GroutClient.connect(clientOptions(p));
                                    } catch (ErrnoException e) {
                                        connF.merge(e.errnoName(), 1, Integer::sum);
                                        Thread.sleep(1);
                                        continue;
                                    }
                                }
                                try {
                                    ping(c, id, 1 + (pingsOnFirst + pingsOnSecond) % 3000);
                                } catch (ErrnoException e) {
                                    oldF.merge(e.errnoName(), 1, Integer::sum);
                                    c.close();
                                    c = null;
                                    continue;
                                }
                                if (c.maxIfaces() == 1001) {
                                    if (++pingsOnFirst == 20) onFirst.incrementAndGet();
                                } else {
                                    pingsOnSecond++;
                                }
                            }
                        } catch (Throwable t) {
                            failures.add(t);
                        } finally {
                            if (c != null) c.close();
                        }
                    }, "restart-looper-" + i);
                    th.setDaemon(true);
                    threads.add(th);
                    th.start();
                }

                subscribed.await();
                awaitBlockedIn(waitingTid.get(), "45"); // recvfrom
                for (int i = 0; i < 4_000 && onFirst.get() < loopers; i++) Thread.sleep(2);
                assertEquals(loopers, onFirst.get(), "loopers pinging the first server");

                first.close();
                GroutServer second = start(ServerOptions.defaults().socketPath(p).maxIfaces(1002));
                for (Thread th : threads) th.join();
                waiter.join();
                assertEquals(List.of(), List.copyOf(failures));

                // Blocked in recv when the server went away: EOF, reported as ECONNRESET.
                Throwable w = waitOutcome.get();
                assertTrue(w instanceof ErrnoException, String.valueOf(w));
                assertEquals(Errno.ECONNRESET, ((ErrnoException) w).errno(), w.getMessage());
                assertTrue(w.getMessage().endsWith("server closed the connection"), w.getMessage());
                // Idle when it went away: the next call is a send to a closed peer, EPIPE, even though a
                // server answers on the same path again: nothing reconnects by itself.
                ErrnoException e = assertThrows(ErrnoException.class, () -> ping(idle, 7, 10));
                assertEquals(Errno.EPIPE, e.errno(), e.getMessage());
                assertFalse(idle.isUsable());
                ErrnoException again = assertThrows(ErrnoException.class, () -> ping(idle, 7, 10));
                assertEquals(Errno.ENOTCONN, again.errno(), again.getMessage());

                GroutClient fresh = GroutClient.connect(clientOptions(p));
                clients.add(fresh);
                assertEquals(1002, fresh.maxIfaces());
                ping(fresh, 8, GroutApi.MAX_MSG_LEN);

                System.out.println("restart: loopers' failures on their connection to the old server " + oldFailures
                        + ", their reconnect failures " + connectFailures + "; waiting client: " + w.getMessage()
                        + "; idle client: " + e.getMessage());
                for (int i = 0; i < loopers; i++) {
                    Map<String, Integer> oldF = oldFailures.get(i);
                    assertEquals(1, oldF.values().stream().mapToInt(Integer::intValue).sum(), "looper " + i + ": " + oldF);
                    assertTrue(oldF.containsKey("EPIPE") || oldF.containsKey("ECONNRESET"), "looper " + i + ": " + oldF);
                    assertTrue(List.of("ENOENT", "ECONNREFUSED", "EPIPE", "ECONNRESET").containsAll(connectFailures.get(i).keySet()),
                            "looper " + i + " reconnect failures: " + connectFailures.get(i));
                }
                awaitConnectionCount(second, 1);
                List<String> reasons = first.closedConnections().stream().map(ConnectionStats::closeReason).distinct().toList();
                assertEquals(List.of("server shutdown"), reasons);
            } finally {
                closeAll(clients);
            }
        });
    }

    // ---------------------------------------------------------------- descriptor exhaustion

    private static List<String> withDescriptorLimit(int limit, List<String> command) {
        List<String> cmd = new ArrayList<>();
        boolean prlimit = Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":"))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "prlimit")));
        if (prlimit) {
            cmd.add("prlimit");
            cmd.add("--nofile=" + limit + ":" + limit);
        } else {
            cmd.addAll(List.of("bash", "-c", "ulimit -n " + limit + " && exec \"$@\"", "bash"));
        }
        cmd.addAll(command);
        return cmd;
    }

    private static final Predicate<String> EMFILE_LINE = l -> l.contains("accept failed") && l.contains("EMFILE");

    private static String countOf(Child child) throws Exception {
        child.command("count");
        return child.awaitLine(l -> l.startsWith("COUNT "));
    }

    private static long descriptorsOf(long pid) throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return s.count();
        }
    }

    /** The child's server's open and closed connection counts, as it answers the "count" command. */
    private static int[] counts(Child child) throws Exception {
        String[] f = countOf(child).split(" ");
        return new int[] {Integer.parseInt(f[1]), Integer.parseInt(f[2])};
    }

    @Test
    void serverOutOfDescriptorsPausesAcceptingKeepsServingAndResumesWhenAConnectionCloses() throws Exception {
        final int limit = 64;
        String p = path("emfile.sock");
        guard(() -> {
            Child child = new Child(withDescriptorLimit(limit, childJava("server", p)));
            closeables.add(child);
            String ready = child.awaitLine(l -> l.startsWith("READY "));
            ClientOptions o = clientOptions(p).receiveTimeoutMillis(60_000);

            // Connect one client at a time until the child logs that accept failed with EMFILE. Its
            // loop accepts until the backlog is empty, and accept4 reports EMFILE before it looks for
            // a connection: the warning comes from the accept after the one that took the last free
            // descriptor, whether or not a connection is waiting. The child's count says which.
            List<OwnedClient> accepted = new ArrayList<>();
            OwnedClient pending = null;
            for (int i = 0; i < 2 * limit && child.count(EMFILE_LINE) == 0; i++) {
                OwnedClient c = new OwnedClient(o);
                closeables.add(c);
                while (!c.client.isDone() && child.count(EMFILE_LINE) == 0) Thread.sleep(1);
                if (c.client.isDone() || counts(child)[0] == accepted.size() + 1) {
                    c.awaitConnected(); // accepted: its hello is answered
                    accepted.add(c);
                } else {
                    pending = c; // met the full table itself: it waits in the backlog
                }
            }
            assertEquals(1, child.count(EMFILE_LINE), "accept failures logged");
            int n = accepted.size();
            long childFds = descriptorsOf(child.pid());
            System.out.printf(Locale.ROOT, "EMFILE: child pid %d (%s), limit %d, %d clients accepted, child descriptors %d,"
                            + " the warning came %s:%n  %s%n", child.pid(), ready, limit, n, childFds,
                    pending == null ? "right after the last accept (nobody waiting yet)" : "when the next client arrived",
                    child.output.stream().filter(EMFILE_LINE).findFirst().orElseThrow());
            assertEquals(limit, childFds, "the child's descriptor table is full when accepting pauses");

            // The next client waits in the backlog; the accepted ones are all served meanwhile, and
            // the paused listener does not make the loop spin on EMFILE (still one warning).
            if (pending == null) {
                pending = new OwnedClient(o);
                closeables.add(pending);
            }
            for (int i = 0; i < n; i++) accepted.get(i).ping(i, 1 + i * 997 % 20_000);
            assertArrayEquals(new int[] {n, 0}, counts(child));
            assertFalse(pending.client.isDone(), "the client beyond the limit was served");
            assertEquals(1, child.count(EMFILE_LINE), String.join("\n", child.output));

            // One connection closes: accepting resumes and the waiting client is taken from the
            // backlog; that fills the table again, so accepting pauses again (a second warning).
            accepted.remove(0).close();
            pending.awaitConnected();
            pending.ping(100, 30_000);
            for (int i = 0; i < 2_000 && child.count(EMFILE_LINE) < 2; i++) Thread.sleep(5);
            assertEquals(2, child.count(EMFILE_LINE), "accept failures logged");
            assertArrayEquals(new int[] {n, 1}, counts(child));
            assertEquals(limit, descriptorsOf(child.pid()));

            // Three more close: a brand-new client is accepted and served straight away.
            for (int i = 0; i < 3; i++) accepted.remove(0).close();
            int[] want = {n - 3, 4};
            int[] got = counts(child);
            for (int i = 0; i < 2_000 && !java.util.Arrays.equals(want, got); i++) {
                Thread.sleep(5);
                got = counts(child);
            }
            assertArrayEquals(want, got);
            OwnedClient fresh = new OwnedClient(o);
            closeables.add(fresh);
            fresh.ping(101, GroutApi.MAX_MSG_LEN);
            for (OwnedClient c : accepted) c.ping(102, 64);
            pending.ping(103, 64);
            assertArrayEquals(new int[] {n - 2, 4}, counts(child));
            assertEquals(2, child.count(EMFILE_LINE), "accept failures logged");
            System.out.printf(Locale.ROOT, "EMFILE: after 1 close the backlogged client was accepted (table full again: warning 2);"
                    + " after 3 more a new client was served at once; child descriptors %d, %s%n", descriptorsOf(child.pid()), countOf(child));

            for (OwnedClient c : accepted) c.close();
            pending.close();
            fresh.close();
            child.command("quit");
            child.awaitLine(l -> l.equals("BYE"));
            assertTrue(child.process.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.process.exitValue(), String.join("\n", child.output));
        });
    }

    /** The child's epoll registrations ({@code /proc/PID/fdinfo} of its epoll descriptors), for messages. */
    private static String epollRegistrations(long pid) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fdinfo"))) {
            for (Path p : s.toList()) {
                try {
                    for (String line : Files.readAllLines(p)) if (line.startsWith("tfd:")) sb.append("\n  ").append(line);
                } catch (IOException gone) {
                    // closed meanwhile
                }
            }
        }
        return sb.toString();
    }

    @Test
    void acceptingResumesOnceDescriptorsAreFreeAgainEvenIfNoConnectionOfTheServerCloses() throws Exception {
        final int limit = 64;
        String p = path("emfile-elsewhere.sock");
        guard(() -> {
            Child child = new Child(withDescriptorLimit(limit, childJava("server", p)));
            closeables.add(child);
            child.awaitLine(l -> l.startsWith("READY "));
            // Something else in the process takes every free descriptor; the server has no connection.
            child.command("hog");
            String hogged = child.awaitLine(l -> l.startsWith("HOGGED "));
            assertEquals(limit, descriptorsOf(child.pid()), hogged);

            OwnedClient c = new OwnedClient(clientOptions(p).receiveTimeoutMillis(60_000));
            closeables.add(c);
            child.awaitLine(EMFILE_LINE); // the server met the full table and paused accepting
            child.command("release");
            String released = child.awaitLine(l -> l.startsWith("RELEASED "));
            long free = limit - descriptorsOf(child.pid());
            System.out.printf(Locale.ROOT, "EMFILE elsewhere: %s, server paused; %s: %d descriptors free, 0 connections to close;"
                    + " child epoll registrations:%s%n", hogged, released, free, epollRegistrations(child.pid()));
            assertTrue(free > 1, "descriptors free after the release: " + free);

            // Nothing of the server's will close, so only a retry can resume accepting. Bounded wait
            // (a hang guard, not a timing requirement): the client waits in the backlog meanwhile.
            try {
                c.client.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                fail("with " + free + " descriptors free again, the client still waits in the listen backlog: the server"
                        + " paused accepting \"until a connection closes\" and has none; epoll registrations of the child"
                        + " (the listener's tag is ffffffffffffffff; events 18 = only the always-reported EPOLLERR|EPOLLHUP, no EPOLLIN: paused):" + epollRegistrations(child.pid()));
            }
            c.ping(1, 100);
            assertEquals("COUNT 1 0", countOf(child));
        });
    }
}
