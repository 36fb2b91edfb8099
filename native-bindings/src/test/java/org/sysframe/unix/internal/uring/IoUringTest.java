package org.sysframe.unix.internal.uring;

import org.junit.jupiter.api.Test;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.uring.UringCounters;
import org.sysframe.unix.uring.UringCounts;
import org.sysframe.unix.uring.UringOp;
import org.sysframe.unix.uring.UringSupport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ring on real sockets (socketpair): what each operation does and exactly what it costs. */
class IoUringTest {
    static final int FLAGS = IoUring.SETUP_SINGLE_ISSUER | IoUring.SETUP_DEFER_TASKRUN;

    private static IoUring ring(int entries, int cqEntries, int flags) throws ErrnoException {
        return new IoUring(entries, cqEntries, flags, new SyscallCounters("ring"), new UringCounters());
    }

    @Test
    void availableOnThisMachine() {
        assertNull(UringSupport.unavailableReason());
    }

    @Test
    @NeedsKernelCounter
    void aRoundTripOfSendAndRecvIsOneEnterAsTheKernelCountsIt() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (IoUring r = ring(8, 0, FLAGS); Arena a = Arena.ofConfined();
             KernelSyscallCounter kernel = KernelSyscallCounter.forCurrentThread()) {
            assertTrue(r.registerRingFd());
            MemorySegment out = a.allocate(44, 8);
            MemorySegment in = a.allocate(64, 8);
            for (int i = 0; i < 44; i++) out.set(JAVA_BYTE, i, (byte) i);
            SyscallCounts k0 = kernel.read();
            int rounds = 100;
            for (int round = 0; round < rounds; round++) {
                // The receive is prepared first and waits; the send on the other end completes it, in the same enter.
                r.nextSqe().prepRecv(pair[1].fd(), in.address(), 64, 0).userData(2);
                r.nextSqe().prepSend(pair[0].fd(), out.address(), 44, UnixSocket.MSG_NOSIGNAL).userData(1);
                assertEquals(2, r.submit(2, 0));
                long sent = -1, got = -1;
                for (Cqe c; (c = r.peek()) != null; r.advance()) {
                    if (c.userData() == 1) sent = c.res();
                    else got = c.res();
                }
                assertEquals(44, sent);
                assertEquals(44, got);
                assertEquals(out.get(JAVA_BYTE, 43), in.get(JAVA_BYTE, 43));
            }
            SyscallCounts kernelCost = kernel.read().minus(k0);
            assertEquals(rounds, r.counters().get(SyscallKind.IO_URING_ENTER));
            assertEquals(rounds, kernelCost.get(SyscallKind.IO_URING_ENTER));
            assertEquals(0, kernelCost.get(SyscallKind.SENDTO) + kernelCost.get(SyscallKind.RECVFROM));
            UringCounts u = r.uringCounters().snapshot();
            assertEquals(rounds, u.sqes(UringOp.SEND));
            assertEquals(rounds, u.sqes(UringOp.RECV));
            assertEquals(2L * rounds, u.cqes());
            assertEquals("1 SEND + 1 RECV", u.describe(rounds));
        } finally {
            pair[0].close();
            pair[1].close();
        }
    }

    @Test
    void aFullCompletionQueueLosesNothing() throws Exception {
        try (IoUring r = ring(8, 8, FLAGS)) {
            // Three batches of 8 NOPs without reaping: 24 completions for a CQ of 8.
            for (int batch = 0; batch < 3; batch++) {
                for (int i = 0; i < 8; i++) r.nextSqe().prepNop().userData(batch * 8 + i);
                r.submit(0, 0);
            }
            List<Long> seen = new ArrayList<>();
            for (Cqe c; (c = r.peek()) != null; r.advance()) {
                assertEquals(0, c.res());
                seen.add(c.userData());
            }
            List<Long> expected = new ArrayList<>();
            for (long i = 0; i < 24; i++) expected.add(i);
            assertEquals(expected, seen, "every completion, once, in order");
            assertEquals(0, r.overflowCount(), "none dropped (IORING_FEAT_NODROP)");
            assertEquals(24, r.uringCounters().snapshot().cqes());
        }
    }

    @Test
    void multishotRecvFillsProvidedBuffersAndEndsAtEof() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (IoUring r = ring(8, 0, FLAGS); Arena a = Arena.ofConfined()) {
            BufferRing buffers = new BufferRing(r, 7, 4, 128);
            MemorySegment msg = a.allocate(16, 8);
            r.nextSqe().prepRecvMultishot(pair[1].fd(), 7).userData(99);
            r.submit(0, 0);
            for (int i = 0; i < 10; i++) {
                msg.set(JAVA_LONG, 0, 1000 + i);
                pair[0].sendFully(msg, 0, 8);
                r.submit(1, 0);
                Cqe c = r.peek();
                assertEquals(99, c.userData());
                assertEquals(8, c.res());
                assertTrue(c.hasMore());
                int bid = c.bufferId();
                buffers.taken(bid);
                assertEquals(1000 + i, buffers.memory().get(JAVA_LONG, buffers.offset(bid)));
                r.advance();
                buffers.recycle(bid);
            }
            assertEquals(0, buffers.outstanding());
            pair[0].close();
            r.submit(1, 0);
            Cqe eof = r.peek();
            assertEquals(0, eof.res(), "EOF ends the multishot receive");
            assertFalse(eof.hasMore());
            r.advance();
            buffers.close();
        } finally {
            pair[0].close();
            pair[1].close();
        }
    }

    @Test
    void aWaitTimesOutAndACancelledRecvCompletesWithEcanceled() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (IoUring r = ring(8, 0, FLAGS); Arena a = Arena.ofConfined()) {
            MemorySegment in = a.allocate(64, 8);
            r.nextSqe().prepRecv(pair[1].fd(), in.address(), 64, 0).userData(5);
            // A wait that also submits returns the count submitted even when it timed out: nothing is ready.
            assertEquals(1, r.submit(1, 20_000_000L));
            assertNull(r.peek());
            assertEquals(IoUring.TIMED_OUT, r.submit(1, 20_000_000L));
            assertNull(r.peek());
            r.nextSqe().prepCancel(5, 0, 0).userData(6);
            r.submit(2, 0);
            int recvRes = 0, cancelRes = -1;
            for (Cqe c; (c = r.peek()) != null; r.advance()) {
                if (c.userData() == 5) recvRes = c.res();
                if (c.userData() == 6) cancelRes = c.res();
            }
            assertEquals(-Errno.ECANCELED, recvRes);
            assertEquals(0, cancelRes);
        } finally {
            pair[0].close();
            pair[1].close();
        }
    }

    @Test
    void aMissingOpIsNamedWithTheKernelItNeeds() throws Exception {
        try (IoUring r = ring(4, 0, FLAGS); Arena a = Arena.ofConfined()) {
            UringProbe real = r.probe();
            for (UringOp op : UringOp.values()) assertTrue(real.supports(op), op.name());
            UringProbe none = UringProbe.read(a.allocate(UringLayouts.PROBE.byteSize() + 8L * 64, 8));
            ErrnoException e = assertThrows(ErrnoException.class, () -> none.require(UringOp.SEND, UringOp.RECV));
            assertEquals(Errno.ENOTSUP, e.errno());
            assertTrue(e.getMessage().endsWith("does not support IORING_OP_SEND, which needs Linux 5.6"),
                    e.getMessage());
        }
    }

    @Test
    void setupFailuresAreExplained() throws Exception {
        // This machine runs with kernel.io_uring_disabled = 0, so EPERM can only come from a filter.
        assertEquals("0", Files.readString(Path.of("/proc/sys/kernel/io_uring_disabled")).trim());
        assertEquals("refused although kernel.io_uring_disabled = 0: a seccomp filter or security module denies "
                + "io_uring_setup to this process",
                SetupFailure.explain(Errno.EPERM, 0));
        assertEquals("this kernel (" + UringSupport.kernelRelease()
                + ") has no io_uring (Linux 5.1+ built with CONFIG_IO_URING)",
                SetupFailure.explain(Errno.ENOSYS, 0));
        assertEquals("setup flags refused by this kernel (" + UringSupport.kernelRelease()
                + "): IORING_SETUP_SINGLE_ISSUER (Linux 6.0),"
                + " IORING_SETUP_DEFER_TASKRUN (Linux 6.1)", SetupFailure.explain(Errno.EINVAL, FLAGS));
        ErrnoException e = assertThrows(ErrnoException.class, () -> ring(4, 0, FLAGS | (1 << 30)));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().startsWith("io_uring_setup: EINVAL"), e.getMessage());
    }
}
