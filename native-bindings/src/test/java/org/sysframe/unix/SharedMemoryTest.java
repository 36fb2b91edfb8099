package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.testsupport.ProcessProbe;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** memfd, seals, shared mappings, descriptors passed over a real socketpair, and futex, on real descriptors. */
class SharedMemoryTest {
    static final long SIZE = 64 * 1024;

    @Test
    void aSealedMemfdKeepsItsSizeAndRefusesFtruncate() throws Exception {
        int fd = SharedMemory.create("sysframe-test");
        try {
            assertEquals(0, SharedMemory.seals(fd));
            SharedMemory.truncate(fd, SIZE);
            assertEquals(SIZE, SharedMemory.size(fd));
            SharedMemory.addSeals(fd, SharedMemory.SIZE_SEALS);
            assertEquals(SharedMemory.SIZE_SEALS, SharedMemory.seals(fd));
            ErrnoException shrink = assertThrows(ErrnoException.class, () -> SharedMemory.truncate(fd, 4096));
            assertEquals("ftruncate(fd " + fd + ", 4096): EPERM (1) Operation not permitted", shrink.getMessage());
            ErrnoException grow = assertThrows(ErrnoException.class, () -> SharedMemory.truncate(fd, 2 * SIZE));
            assertEquals(Errno.EPERM, grow.errno());
            ErrnoException more = assertThrows(ErrnoException.class, () ->
                    SharedMemory.addSeals(fd, SharedMemory.F_SEAL_WRITE));
            assertEquals("fcntl(fd " + fd + ", F_ADD_SEALS, 0x8): EPERM (1) Operation not permitted",
                    more.getMessage());
            assertEquals(SIZE, SharedMemory.size(fd));
        } finally {
            SharedMemory.close(fd);
        }
    }

    @Test
    void aSocketIsNotSealable() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (UnixSocket a = pair[0]; UnixSocket b = pair[1]) {
            ErrnoException e = assertThrows(ErrnoException.class, () -> SharedMemory.seals(a.fd()));
            assertEquals(Errno.EINVAL, e.errno());
        }
    }

    @Test
    void twoMappingsOfOneFileShareTheirBytesAndCloseGivesTheMappingBack() throws Exception {
        int fd = SharedMemory.create("sysframe-maps");
        try (Arena one = Arena.ofShared(); Arena two = Arena.ofShared()) {
            SharedMemory.truncate(fd, SIZE);
            MemorySegment a = SharedMemory.map(fd, SIZE, one);
            MemorySegment b = SharedMemory.map(fd, SIZE, two);
            assertNotEquals(a.address(), b.address());
            a.set(JAVA_LONG, SIZE - 8, 0x1122334455667788L);
            assertEquals(0x1122334455667788L, b.get(JAVA_LONG, SIZE - 8));
            assertEquals(2, memfdMappings("sysframe-maps"));
        } finally {
            SharedMemory.close(fd);
        }
        assertEquals(0, memfdMappings("sysframe-maps"));
    }

    @Test
    void aMirroredRingContinuesInItsOwnStartAndCloseUnmapsEveryPiece() throws Exception {
        long head = SharedMemory.PAGE;
        long ring = 2 * SharedMemory.PAGE;
        int fd = SharedMemory.create("sysframe-mirror");
        try (Arena arena = Arena.ofShared()) {
            SharedMemory.truncate(fd, head + 2 * ring);
            MemorySegment plain = SharedMemory.map(fd, head + 2 * ring, arena);
            MemorySegment m = SharedMemory.mapMirrored(fd, head, ring, 2, arena);
            assertEquals(head + 4 * ring, m.byteSize());
            // A long written across ring 1's end, through its mirror: its last 4 bytes are the ring's first 4.
            long ring1 = head + 2 * ring;
            m.set(JAVA_LONG_UNALIGNED, ring1 + ring - 4, 0x1122334455667788L);
            assertEquals(0x55667788, plain.get(JAVA_INT, head + 2 * ring - 4), "the ring's last bytes in the file");
            assertEquals(0x11223344, plain.get(JAVA_INT, head + ring), "its first bytes in the file");
            assertEquals(0x11223344, m.get(JAVA_INT, ring1), "seen at the ring's start");
            // The two rings and the head are distinct file ranges.
            plain.set(JAVA_INT, 0, 7);
            plain.set(JAVA_INT, head, 8);
            assertEquals(7, m.get(JAVA_INT, 0));
            assertEquals(8, m.get(JAVA_INT, head));
            assertEquals(8, m.get(JAVA_INT, head + ring), "ring 0's mirror");
            assertEquals(0x11223344, m.get(JAVA_INT, ring1 + ring), "ring 1's mirror");
            assertEquals((head + 2 * ring) + (head + 4 * ring), memfdBytes("sysframe-mirror"),
                    "the plain mapping, then the head and two views of each ring");
        } finally {
            SharedMemory.close(fd);
        }
        assertEquals(0, memfdMappings("sysframe-mirror"));
    }

    @Test
    void aRefusedMirrorLeavesNothingMapped() throws Exception {
        int fd = SharedMemory.create("sysframe-short");
        try (Arena arena = Arena.ofShared()) {
            SharedMemory.truncate(fd, SharedMemory.PAGE);
            long ring = 37 * SharedMemory.PAGE; // an odd size: the reservation is told apart by its size
            long total = SharedMemory.PAGE + 2 * ring;
            long before = reservations(total);
            assertThrows(IllegalArgumentException.class, () -> SharedMemory.mapMirrored(fd, 100, 4096, 1, arena));
            ErrnoException e = assertThrows(ErrnoException.class,
                    () -> SharedMemory.mapMirrored(-1, SharedMemory.PAGE, ring, 1, arena));
            assertEquals(Errno.EBADF, e.errno());
            assertTrue(e.getMessage().startsWith("mmap(fd -1, 4096 bytes at file offset 0, MAP_SHARED | MAP_FIXED)"),
                    e.getMessage());
            assertEquals(before, reservations(total), "the reservation was given back");
        } finally {
            SharedMemory.close(fd);
        }
    }

    /** Mappings of this process with no access (---p) of that many bytes: a reservation such as mapMirrored's. */
    private static long reservations(long bytes) throws IOException {
        try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.map(l -> l.split(" +")).filter(f -> f[1].equals("---p")).filter(f -> {
                String[] range = f[0].split("-");
                return Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16) == bytes;
            }).count();
        }
    }

    /** Bytes of this process's mappings of the memfd of that name (the kernel merges adjacent ones into one line). */
    private static long memfdBytes(String name) throws IOException {
        try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("/memfd:" + name + " ")).mapToLong(l -> {
                String[] range = l.split(" ")[0].split("-");
                return Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16);
            }).sum();
        }
    }

    /** Lines of /proc/self/maps mapping the memfd of that name (the JVM's own mappings come and go). */
    static long memfdMappings(String name) throws IOException {
        try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("/memfd:" + name + " ")).count();
        }
    }

    @Test
    void aDescriptorTravelsOverTheSocketWithItsByte() throws Exception {
        long fdsBefore = ProcessProbe.openFds();
        UnixSocket[] pair = UnixSocket.pair();
        int fd = SharedMemory.create("sysframe-pass");
        try (UnixSocket tx = pair[0]; UnixSocket rx = pair[1]; Arena arena = Arena.ofConfined()) {
            SharedMemory.truncate(fd, SIZE);
            SharedMemory.addSeals(fd, SharedMemory.SIZE_SEALS);
            MemorySegment mine = SharedMemory.map(fd, SIZE, arena);
            mine.set(JAVA_INT, 0, 0xfeedbeef);
            MemorySegment bytes = arena.allocate(8);
            bytes.set(JAVA_LONG, 0, 42);
            assertEquals(8, tx.sendFds(bytes, 0, 8, fd));
            MemorySegment in = arena.allocate(8);
            int[] got = {-2};
            assertEquals(8, rx.recvFds(in, 0, 8, got));
            assertEquals(42, in.get(JAVA_LONG, 0));
            assertTrue(got[0] >= 0);
            assertNotEquals(fd, got[0]);
            try {
                assertEquals(SharedMemory.SIZE_SEALS, SharedMemory.seals(got[0]));
                assertEquals(SIZE, SharedMemory.size(got[0]));
                MemorySegment theirs = SharedMemory.map(got[0], SIZE, arena);
                assertEquals(0xfeedbeef, theirs.get(JAVA_INT, 0));
            } finally {
                SharedMemory.close(got[0]);
            }
            assertEquals(1, tx.counters().get(SyscallKind.SENDMSG));
            assertEquals(1, rx.counters().get(SyscallKind.RECVMSG));

            // Bytes without a descriptor: none reported.
            tx.send(bytes, 0, 1, 0);
            assertEquals(1, rx.recvFds(in, 0, 8, got));
            assertEquals(-1, got[0]);
        } finally {
            SharedMemory.close(fd);
        }
        assertEquals(fdsBefore, ProcessProbe.openFds());
    }

    @Test
    void descriptorsTravelInTheirOrderAndThoseBeyondTheReceiversRoomAreClosed() throws Exception {
        long fdsBefore = ProcessProbe.openFds();
        UnixSocket[] pair = UnixSocket.pair();
        int memfd = SharedMemory.create("sysframe-pass-two");
        try (UnixSocket tx = pair[0]; UnixSocket rx = pair[1]; Arena arena = Arena.ofConfined();
             EventFd efd = EventFd.open(new SyscallCounters("test"))) {
            MemorySegment bytes = arena.allocate(8);
            assertEquals(8, tx.sendFds(bytes, 0, 8, memfd, efd.fd()));
            int[] got = {-2, -2, -2};
            assertEquals(8, rx.recvFds(bytes, 0, 8, got));
            try {
                assertTrue(Files.readSymbolicLink(Path.of("/proc/self/fd/" + got[0])).toString().startsWith("/memfd:"),
                        "the memfd first");
                assertEquals("anon_inode:[eventfd]", Files.readSymbolicLink(Path.of("/proc/self/fd/" + got[1]))
                        .toString(), "the eventfd second");
                assertEquals(-1, got[2], "no third came");
            } finally {
                SharedMemory.close(got[0]);
                SharedMemory.close(got[1]);
            }
            // Three sent, room for one: the two others are closed by the receiver, not leaked.
            long fdsHere = ProcessProbe.openFds();
            assertEquals(8, tx.sendFds(bytes, 0, 8, memfd, efd.fd(), memfd));
            int[] one = {-2};
            assertEquals(8, rx.recvFds(bytes, 0, 8, one));
            assertTrue(one[0] >= 0);
            SharedMemory.close(one[0]);
            assertEquals(fdsHere, ProcessProbe.openFds());
            assertThrows(IllegalArgumentException.class, () -> tx.sendFds(bytes, 0, 8));
        } finally {
            SharedMemory.close(memfd);
        }
        assertEquals(fdsBefore, ProcessProbe.openFds());
    }

    @Test
    void aFutexSleepsUntilWokenAndEachCallIsCounted() throws Exception {
        int fd = SharedMemory.create("sysframe-futex");
        try (Arena arena = Arena.ofShared()) {
            SharedMemory.truncate(fd, 4096);
            MemorySegment word = SharedMemory.map(fd, 4096, arena);
            SyscallCounters sleeper = new SyscallCounters("sleeper");
            Futex f = new Futex(sleeper, arena);
            assertEquals(Futex.CHANGED, f.await(word, 64, 1, 1_000_000_000L), "the word holds 0, not 1: no sleep");
            assertEquals(Futex.TIMED_OUT, f.await(word, 64, 0, 1_000_000L));
            assertEquals(2, sleeper.get(SyscallKind.FUTEX));

            CompletableFuture<Integer> woken = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    woken.complete(new Futex(new SyscallCounters("t"), Arena.ofAuto()).await(word, 64, 0,
                            30_000_000_000L));
                } catch (Throwable e) {
                    woken.completeExceptionally(e);
                }
            });
            t.start();
            SyscallCounters waker = new SyscallCounters("waker");
            Futex w = new Futex(waker, arena);
            int n = 0;
            // The sleeper may not be asleep yet: wake until one was.
            while (n == 0 && !woken.isDone()) {
                n = w.wake(word, 64, 1);
                if (n == 0) Thread.sleep(1);
            }
            assertEquals(Futex.WOKEN, woken.get(30, TimeUnit.SECONDS));
            assertEquals(1, n);
            t.join();
            assertThrows(IllegalArgumentException.class, () -> w.await(word, 65, 0, 0));
        } finally {
            SharedMemory.close(fd);
        }
    }

    /**
     * The library's futex count is the kernel's exactly, counted by a counter of shared futex calls, while
     * the same thread enters futex for the JVM too (parks: private futex calls), which a counter of all
     * futex calls counts and the shared one does not.
     */
    @NeedsKernelCounter
    @Test
    void futexCallsCountedAsTheKernelCountsThem() throws Exception {
        Set<SyscallKind> futexOnly = EnumSet.of(SyscallKind.FUTEX);
        try (Arena arena = Arena.ofConfined();
             KernelSyscallCounter shared = KernelSyscallCounter.forThread(Self.tid(), futexOnly,
                     KernelSyscallCounter.FutexCalls.SHARED);
             KernelSyscallCounter all = KernelSyscallCounter.forThread(Self.tid(), futexOnly)) {
            MemorySegment word = arena.allocate(8, 8);
            SyscallCounters counters = new SyscallCounters("futex");
            Futex f = new Futex(counters, arena);
            SyscallCounts s0 = shared.read(), a0 = all.read();
            for (int i = 0; i < 100; i++) {
                f.wake(word, 0, 1);
                assertEquals(Futex.CHANGED, f.await(word, 4, 7, 0));
                LockSupport.parkNanos(1_000); // the JVM's: at least one FUTEX_WAIT_PRIVATE (nothing unparks us)
            }
            SyscallCounts s1 = shared.read(), a1 = all.read();
            assertEquals(SyscallCounts.builder().futex(200).build(), counters.snapshot());
            assertEquals(counters.snapshot(), s1.minus(s0));
            long every = a1.minus(a0).get(SyscallKind.FUTEX);
            assertTrue(every >= 300, "all futex calls: " + every + ", the library's 200 and 100 parks' at least");
            assertEquals(0, word.get(JAVA_BYTE, 0));
        }
    }
}
