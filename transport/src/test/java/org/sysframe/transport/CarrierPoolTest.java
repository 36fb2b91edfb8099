package org.sysframe.transport;

import org.sysframe.testsupport.ChildProcess;
import org.sysframe.transport.support.Heartbeat;
import org.sysframe.transport.support.SilentServer;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.uring.UringSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The virtual-thread carrier pool is not exhausted by callers waiting on a slow server: a child JVM
 * with two carriers and no more ({@code -Djdk.virtualThreadScheduler.parallelism=2
 * -Djdk.virtualThreadScheduler.maxPoolSize=2}) has 200 virtual threads wait on a server that never
 * answers (100 sharing clients, one on epoll and one on io_uring where it is available; 100 on a
 * client each: epoll, and io_uring where it is available), and meanwhile 100 other virtual threads
 * complete 100 calls each on a responsive server (50 sharing clients: one on the socket, one on the
 * shared-memory channel; 50 on a client each) while a heartbeat virtual thread beats. If a wait held
 * a carrier, the two carriers would be gone with the first two waiters and nothing else would run
 * until the waits ended.
 */
class CarrierPoolTest {
    static final int WAITERS = 200;
    static final int CALLERS = 100;
    static final int CALLS = 100;

    @TempDir Path dir;

    @Test
    void twoCarriersServeCallersWhile200VirtualThreadsWaitOnASlowServer() throws Exception {
        List<String> cmd = ChildProcess.javaCommand(Child.class, dir.toString());
        cmd.addAll(1, List.of("-Djdk.virtualThreadScheduler.parallelism=2",
                "-Djdk.virtualThreadScheduler.maxPoolSize=2"));
        try (ChildProcess child = new ChildProcess(cmd)) {
            if (!child.process.waitFor(100, TimeUnit.SECONDS)) {
                // Seen once (2026-12-05, a fresh clone's suite): 51 calls answered, one heartbeat in 30 s, and not
                // reproduced in six runs alone: what the child does is in the message the next time.
                fail("the child hangs:\n" + String.join("\n", child.output) + child.diagnose());
            }
            String out = String.join("\n", child.output);
            assertEquals(0, child.process.exitValue(), out);
            assertEquals("carriers: parallelism 2, maxPoolSize 2", child.awaitLine(l -> l.startsWith("carriers:")),
                    out);
            assertEquals("slow servers: " + WAITERS / 2 + " requests read from the clients of one caller each, "
                    + WAITERS / 2
                    + " calls in flight on the shared clients, " + WAITERS + " callers waiting",
                            child.awaitLine(l -> l.startsWith("slow servers:")), out);
            assertEquals("responsive server: " + CALLERS * CALLS + " calls answered, " + WAITERS
                    + " callers still waiting",
                    child.awaitLine(l -> l.startsWith("responsive server:")), out);
            String beats = child.awaitLine(l -> l.startsWith("heartbeat:"));
            assertTrue(Long.parseLong(beats.substring("heartbeat: ".length(), beats.indexOf(" beats"))) > 0, out);
            String ended = child.awaitLine(l -> l.startsWith("slow callers ended:"));
            assertTrue(ended.matches("slow callers ended: " + WAITERS
                    + " with an error \\{[A-Z]+=\\d+(, [A-Z]+=\\d+)*}, 0 answered"), out);
        }
    }

    /** The child JVM: argument 0 is the directory for the socket files. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            Path dir = Path.of(args[0]);
            System.out.println("carriers: parallelism " + System.getProperty("jdk.virtualThreadScheduler.parallelism")
                    + ", maxPoolSize " + System.getProperty("jdk.virtualThreadScheduler.maxPoolSize"));
            String slowPath = dir.resolve("slow.sock").toString(), fastPath = dir.resolve("fast.sock").toString();
            // Two silent servers: the shared clients' callers are not all on the wire (a request waits in the client's
            // send queue while the I/O role's holder waits for its answer), so they are counted in flight instead.
            String slowSharedPath = dir.resolve("slow-shared.sock").toString();
            boolean uring = UringSupport.unavailableReason() == null;
            Heartbeat heart = new Heartbeat();
            ClientOptions slow = ClientOptions.defaults().socketPath(slowSharedPath).receiveTimeoutMillis(20_000);
            try (SilentServer silent = new SilentServer(slowPath);
                 SilentServer silentShared = new SilentServer(slowSharedPath);
                 GroutServer fast = TestServers.startEpoll(ServerOptions.defaults().socketPath(fastPath)
                         .sharedMemory(true));
                 GroutClient slowShared = GroutClient.connect(slow);
                 GroutClient slowSharedUring = uring ? GroutClient.connect(ClientOptions.defaults()
                         .socketPath(slowSharedPath).backend(Backend.IO_URING)
                         .receiveTimeoutMillis(20_000)) : slowShared;
                 GroutClient fastShared = GroutClient.connect(fastPath);
                 GroutClient fastChannel = GroutClient.connect(ClientOptions.defaults().socketPath(fastPath)
                         .backend(Backend.EPOLL).sharedMemory(true))) {
                if (!fastChannel.sharedMemory()) throw new AssertionError("no shared-memory channel");
                AtomicInteger waiting = new AtomicInteger();
                Map<String, Integer> endings = new ConcurrentHashMap<>();
                CountDownLatch slowEnded = new CountDownLatch(WAITERS);
                for (int i = 0; i < WAITERS; i++) {
                    Backend b = i % 4 == 3 && uring ? Backend.IO_URING : Backend.EPOLL;
                    boolean shared = i % 2 == 0;
                    GroutClient sharedOne = i % 4 == 2 ? slowSharedUring : slowShared;
                    Thread.ofVirtual().start(() -> {
                        String how;
                        waiting.incrementAndGet();
                        try {
                            if (shared) {
                                sharedOne.call(GroutApi.PING);
                            } else {
                                try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(slowPath)
                                        .backend(b)
                                        .receiveTimeoutMillis(20_000))) {
                                    c.call(GroutApi.PING);
                                }
                            }
                            how = "answered";
                        } catch (Exception e) {
                            how = e instanceof ErrnoException x ? x.errnoName() : e.getClass().getSimpleName();
                        } finally {
                            waiting.decrementAndGet();
                        }
                        endings.merge(how, 1, Integer::sum);
                        slowEnded.countDown();
                    });
                }
                IntSupplier sharedInFlight = () -> slowShared.stats().inFlight()
                        + (slowSharedUring != slowShared ? slowSharedUring.stats().inFlight() : 0);
                long until = System.nanoTime() + 20_000_000_000L;
                while ((silent.requests() < WAITERS / 2 || sharedInFlight.getAsInt() < WAITERS / 2)
                        && System.nanoTime() < until) Thread.sleep(10);
                System.out.println("slow servers: " + silent.requests()
                        + " requests read from the clients of one caller each, "
                        + sharedInFlight.getAsInt() + " calls in flight on the shared clients, " + waiting.get()
                                + " callers waiting");
                long b0 = heart.beats();
                AtomicInteger answered = new AtomicInteger();
                List<Thread> callers = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++) {
                    boolean shared = i % 2 == 0;
                    GroutClient sharedOne = i % 4 == 2 ? fastChannel : fastShared;
                    callers.add(Thread.ofVirtual().start(() -> {
                        try (Arena a = Arena.ofConfined()) {
                            MemorySegment p = a.allocate(32);
                            if (shared) {
                                for (int k = 0; k < CALLS; k++) if (sharedOne.call(GroutApi.PING, p, 0, 32).length()
                                        == 32) answered.incrementAndGet();
                            } else {
                                try (GroutClient c = GroutClient.connect(fastPath)) {
                                    for (int k = 0; k < CALLS; k++) if (c.call(GroutApi.PING, p, 0, 32).length()
                                            == 32) answered.incrementAndGet();
                                }
                            }
                        } catch (Exception e) {
                            System.out.println("a responsive call failed: " + e);
                        }
                    }));
                }
                long end = System.nanoTime() + 30_000_000_000L;
                for (Thread t : callers) t.join(Math.max(1, (end - System.nanoTime()) / 1_000_000L));
                System.out.println("responsive server: " + answered.get() + " calls answered, " + waiting.get()
                        + " callers still waiting");
                System.out.println("heartbeat: " + (heart.beats() - b0) + " beats meanwhile");
                silent.close(); // the waits end now: the connections are gone
                silentShared.close();
                slowEnded.await(30, TimeUnit.SECONDS);
                Map<String, Integer> errors = new TreeMap<>(endings);
                Integer ok = errors.remove("answered");
                System.out.println("slow callers ended: " + errors.values().stream().mapToInt(Integer::intValue).sum()
                        + " with an error " + errors + ", " + (ok == null ? 0 : ok) + " answered");
            }
            heart.close();
            System.exit(0);
        }
    }
}
