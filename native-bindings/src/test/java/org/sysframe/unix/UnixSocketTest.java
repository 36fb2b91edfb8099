package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnixSocketTest {
    @TempDir Path dir;

    @Test
    void closeRacingOnManyThreadsClosesTheDescriptorExactlyOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment b = a.allocate(1);
            for (int round = 0; round < 200; round++) {
                UnixSocket[] pair = UnixSocket.pair();
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> closers = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    closers.add(pool.submit(() -> { go.await(); pair[0].close(); return null; }));
                }
                go.countDown();
                for (Future<?> f : closers) f.get();
                // A new pair reuses the lowest free descriptors, among them pair[0]'s old number. Had any
                // closer closed twice, it would have closed one of these and the exchange below would fail.
                UnixSocket[] next = UnixSocket.pair();
                pair[0].close();
                b.set(JAVA_BYTE, 0, (byte) round);
                next[0].sendFully(b, 0, 1);
                b.set(JAVA_BYTE, 0, (byte) -1);
                next[1].recvFully(b, 0, 1);
                assertEquals((byte) round, b.get(JAVA_BYTE, 0));
                assertFalse(pair[0].isOpen());
                pair[1].close();
                next[0].close();
                next[1].close();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void listenSetsTheRequestedModeBeforeAnyoneCanConnect() throws Exception {
        Path p = dir.resolve("m.sock");
        try (UnixSocket l = UnixSocket.listen(p.toString(), 0600, 4, false)) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
            assertTrue(l.isOpen());
        }
        assertTrue(UnixSocket.unlink(p.toString()));
        assertFalse(UnixSocket.unlink(p.toString()));
    }

    @Test
    void acceptReportsPeerCredentialsAndReturnsNullWhenNonePending() throws Exception {
        String p = dir.resolve("a.sock").toString();
        try (UnixSocket l = UnixSocket.listen(p, 0600, 4, true)) {
            assertNull(l.accept(new SyscallCounters("x")));
            try (UnixSocket c = UnixSocket.connect(p); UnixSocket s = l.accept(new SyscallCounters("s"))) {
                assertNotNull(s);
                PeerCredentials cred = s.peerCredentials();
                assertEquals(ProcessHandle.current().pid(), cred.pid());
                assertEquals(Self.uid(), cred.uid());
                assertTrue(c.isOpen());
            }
        }
    }

    @Test
    void abstractNamesNeedNoFile() throws Exception {
        String name = "@sysframe-test-" + ProcessHandle.current().pid();
        try (UnixSocket l = UnixSocket.listen(name, 0600, 4, false); UnixSocket c = UnixSocket.connect(name)) {
            assertTrue(c.isOpen());
            assertTrue(l.isOpen());
        }
    }

    @Test
    void nonBlockingRecvWithNothingToReadIsWouldBlockAndCounted() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (Arena a = Arena.ofConfined(); UnixSocket s = pair[0]; UnixSocket t = pair[1]) {
            MemorySegment b = a.allocate(16);
            assertEquals(UnixSocket.WOULD_BLOCK, s.recv(b, 0, 16, UnixSocket.MSG_DONTWAIT));
            s.setNonBlocking(true);
            assertEquals(UnixSocket.WOULD_BLOCK, s.recv(b, 0, 16, 0));
            assertEquals(2, s.counters().get(SyscallKind.RECVFROM));
            assertTrue(t.isOpen());
        }
    }

    @Test
    void receiveTimeoutTurnsABlockingRecvIntoWouldBlock() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (Arena a = Arena.ofConfined(); UnixSocket s = pair[0]; UnixSocket t = pair[1]) {
            s.setReceiveTimeout(50);
            assertEquals(UnixSocket.WOULD_BLOCK, s.recv(a.allocate(4), 0, 4, 0));
            assertTrue(t.isOpen());
        }
    }

    @Test
    void iovArrayAdvancesThroughPartialWrites() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(12);
            MemorySegment p = a.allocate(20);
            IovArray iov = new IovArray(a, 4);
            iov.add(h, 0, 12);
            iov.add(p, 0, 20);
            iov.advance(5);
            assertEquals(2, iov.pending());
            assertEquals(27, iov.remaining());
            iov.advance(7);
            assertEquals(1, iov.pending());
            iov.advance(20);
            assertTrue(iov.isEmpty());
            assertEquals(0, iov.pending());
        }
    }
}
