package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.support.RtSignal;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.transport.support.Signaller;
import org.sysframe.transport.support.ThreadStates;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.ServerFixture.awaitConnectionCount;

/**
 * Signals interrupting blocked recv and send calls (EINTR, a handler without SA_RESTART): no byte lost or
 * duplicated, and every retry counted by the library exactly as the kernel counts it.
 * Outcomes are exact; waits are bounded only as hang guards.
 */
@EachBackend
@NeedsKernelCounter
class SignalInterruptionTest {
    private static final int RECV_TIMEOUT_MS = 30_000;

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    /** What the signalled thread did in one direction: its own calls, the library's count, the kernel's count. */
    private record Transfer(String what, long successfulCalls, SyscallCounts library) {
        long eintr(SyscallKind kind) { return library.get(kind) - successfulCalls; }
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
                    fx.track(u); // closing wakes a thread blocked on it: the hang guard's way out
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
                            long n = out[1].recv(receivedByPeer, off, Math.min(total - off, 1 + r.nextInt(64 * 1024)),
                                    0);
                            if (n <= 0) throw new AssertionError("peer recv returned " + n + " at " + off);
                            off += n;
                            LockSupport.parkNanos(100_000); // a slow reader: the target waits in send often
                        }
                        try (Arena a = Arena.ofConfined()) {
                            assertEquals(0, out[1].recv(a.allocate(64), 0, 64, 0), "bytes beyond the " + total
                                    + " sent");
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
                    try (KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread(); Arena a =
                            Arena.ofConfined()) {
                        SyscallCounts k0 = k.read();
                        SyscallCounts r0 = in[0].counters().snapshot(), s0 = out[0].counters().snapshot();
                        armed.countDown();
                        go.await();
                        SplittableRandom r = new SplittableRandom(2);
                        long calls = 0;
                        for (long off = 0; off < total; ) {
                            long n = in[0].recv(receivedByTarget, off, Math.min(total - off, 1 + r.nextInt(64 * 1024)),
                                    0);
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
                        // a signal at an exited thread would fail with ESRCH
                        ThreadStates.stayUntilReleased(done, release);
                    }
                }, "eintr-target");
                target.setDaemon(true);
                target.start();
                armed.await();
                assertEquals(List.of(), List.copyOf(failures));
                assertEquals(0, ThreadStates.sigBlockedBit(targetTid.get(), sig),
                        "the signal is blocked in the target thread");

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
                long recvEintr = recv.eintr(SyscallKind.RECVFROM);
                long sendEintr = send.eintr(SyscallKind.SENDTO);
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
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts l = s.counters().snapshot(), kk = k.read();
            Thread.sleep(20);
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts l2 = s.counters().snapshot(), k2 = k.read();
            if (l.equals(l2) && kk.equals(k2)) return new SyscallCounts[] {l, kk};
        }
    }

    @Test
    void signalsAtAClientAndAtTheServerLoopLoseNoMessageAndLibraryCountsStayEqualToTheKernels() throws Exception {
        assertNull(KernelSyscallCounter.unavailableReason());
        final int sig = RtSignal.number();
        final int pings = 300;
        String p = fx.path("eintr.sock");
        guard(() -> {
            RtSignal.install(sig, RtSignal.NO_OP_HANDLER, 0);
            Signaller signaller = new Signaller(sig);
            CountDownLatch release = new CountDownLatch(1);
            GroutServer s = fx.start(ServerOptions.defaults().socketPath(p).socketBufferSize(4096));
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
                    try (GroutClient c = GroutClient.connect(clientOptions(p).socketBufferSize(4096)
                            .recv(RecvFraming.EXACT));
                         KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread();
                         Arena a = Arena.ofConfined()) {
                        SplittableRandom r = new SplittableRandom(3);
                        MemorySegment payload = a.allocate(GroutApi.MAX_MSG_LEN, 8);
                        SyscallCounts l0 = c.counters().snapshot(), k0 = k.read();
                        armed.countDown();
                        go.await();
                        for (int i = 0; i < pings; i++) {
                            int len = i % 3 == 0 ? r.nextInt(256) : r.nextInt(GroutApi.MAX_MSG_LEN + 1);
                            for (int j = 0; j < len; j++) payload.set(JAVA_BYTE, j,
                                    (byte) (i * 131 + j * 7 + (j >>> 9)));
                            Response resp = c.call(GroutApi.PING, payload, 0, len);
                            if (resp.length() != len || MemorySegment.mismatch(resp.buffer(), resp.offset(),
                                    resp.offset() + len, payload, 0, len) != -1) {
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
                        ThreadStates.stayUntilReleased(done, release);
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
                SyscallCounts serverLibrary = server1[0].minus(server0[0]), serverKernelCounts =
                        server1[1].minus(server0[1]);

                System.out.printf(Locale.ROOT,
                        "EINTR through GroutClient and GroutServer: %d pings, %,d payload bytes each way,"
                                + " %,d signals; client library %s kernel %s; server loop library %s kernel %s%n",
                        pings, bytes.get(), signaller.sent.get(), client[0], client[1], serverLibrary,
                                serverKernelCounts);
                assertEquals(client[0], client[1], "client thread: library vs kernel");
                assertEquals(serverLibrary, serverKernelCounts, "server loop: library vs kernel");
                awaitConnectionCount(s, 0);
                assertEquals(List.of(pings + 1L), s.closedConnections().stream().map(ConnectionStats::requests)
                        .toList());
            } finally {
                if (signaller.isAlive()) signaller.finish();
                release.countDown();
                RtSignal.install(sig, RtSignal.SIG_IGN, 0);
            }
        });
    }
}
