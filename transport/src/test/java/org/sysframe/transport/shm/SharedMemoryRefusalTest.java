package org.sysframe.transport.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.internal.shm.ShmProtocol;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.EventFd;
import org.sysframe.unix.SharedMemory;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.testsupport.ProcessProbe;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the client accepts as a channel from a hostile or foreign server (a raw server on a real
 * socket): an error answer leaves it on the socket; an unsealed memfd, a size other than announced, a
 * bad magic or no descriptor fail the connect with one line, and leave no descriptor or mapping behind.
 */
@LoopsIndependent
class SharedMemoryRefusalTest {
    static final int CAPACITY = 4096;

    @TempDir Path dir;

    ClientOptions client(String path) {
        return ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL).sharedMemory(true);
    }

    /** What comes with the answer to SHM_OPEN. */
    enum Attach { NOTHING, SEGMENT_ONLY, SEGMENT_AND_EVENTFD, SEGMENT_AND_SOCKET }

    /** What a server does with the segment it passed (its own mapping of the file), then it waits for the client. */
    interface Then {
        void run(MemorySegment file) throws Exception;
    }

    /** A server answering SHM_OPEN with the segment fd, announcing size, then waiting for the client to go. */
    static RawServer.Script answering(boolean seal, long announce, int magic, Attach attach) {
        return answering(seal, announce, magic, attach, file -> { });
    }

    static RawServer.Script answering(boolean seal, long announce, int magic, Attach attach, Then then) {
        return c -> {
            RawRequest r = c.readRequest();
            assertEquals(ShmProtocol.OPEN, r.type());
            int fd = SharedMemory.create("impostor");
            try (Arena a = Arena.ofConfined()) {
                long size = ShmSegment.sizeFor(CAPACITY);
                SharedMemory.truncate(fd, size);
                MemorySegment m = SharedMemory.map(fd, size, a);
                m.set(JAVA_INT, 0, magic);
                m.set(JAVA_INT, 4, ShmSegment.VERSION);
                m.set(JAVA_LONG, 8, size);
                m.set(JAVA_INT, 16, CAPACITY);
                m.set(JAVA_INT, 20, 4096);
                if (seal) SharedMemory.addSeals(fd, SharedMemory.SIZE_SEALS);
                MemorySegment answer = a.allocate(ResponseHeader.SIZE + ShmProtocol.RESPONSE_SIZE, 8);
                ResponseHeader.write(answer, 0, r.id(), 0, ShmProtocol.RESPONSE_SIZE);
                answer.set(JAVA_INT_UNALIGNED, 12, ShmSegment.MAGIC);
                answer.set(JAVA_INT_UNALIGNED, 16, ShmSegment.VERSION);
                answer.set(JAVA_LONG_UNALIGNED, 20, announce);
                switch (attach) {
                    case NOTHING -> c.socket.sendFully(answer, 0, answer.byteSize());
                    case SEGMENT_ONLY -> c.socket.sendFds(answer, 0, answer.byteSize(), fd);
                    case SEGMENT_AND_EVENTFD -> {
                        try (EventFd e = EventFd.open(new SyscallCounters("impostor"))) {
                            c.socket.sendFds(answer, 0, answer.byteSize(), fd, e.fd());
                        }
                    }
                    case SEGMENT_AND_SOCKET -> c.socket.sendFds(answer, 0, answer.byteSize(), fd, c.socket.fd());
                }
                then.run(m);
            } finally {
                SharedMemory.close(fd);
            }
            c.awaitEof();
        };
    }

    ErrnoException refused(RawServer.Script script) throws Exception {
        String path = dir.resolve("impostor.sock").toString();
        long fds = ProcessProbe.openFds();
        ErrnoException e;
        try (RawServer s = new RawServer(path, script)) {
            e = assertThrows(ErrnoException.class, () -> GroutClient.connect(client(path)));
            s.awaitScript();
        }
        assertEquals(Errno.EPROTO, e.errno());
        assertEquals(fds, ProcessProbe.openFds(), "descriptors after the refusal");
        assertEquals(0, MemfdProbe.mappings(), "memfd mappings after the refusal");
        assertEquals(0, MemfdProbe.descriptors(), "memfd descriptors after the refusal");
        return e;
    }

    @Test
    void anErrorAnswerLeavesTheClientOnTheSocket() throws Exception {
        String path = dir.resolve("enotsup.sock").toString();
        try (RawServer s = new RawServer(path, c -> {
            RawRequest r = c.readRequest();
            assertEquals(ShmProtocol.OPEN, r.type());
            c.respond(r.id(), Errno.ENOTSUP, new byte[0]);
            RawRequest ping = c.expect(GroutApi.PING, new byte[] {1, 2, 3});
            c.respond(ping.id(), 0, new byte[] {1, 2, 3});
            c.awaitEof();
        }); GroutClient c = GroutClient.connect(client(path)); Arena a = Arena.ofConfined()) {
            assertFalse(c.sharedMemory());
            MemorySegment p = a.allocate(3);
            p.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
            p.set(ValueLayout.JAVA_BYTE, 1, (byte) 2);
            p.set(ValueLayout.JAVA_BYTE, 2, (byte) 3);
            assertEquals(3, c.call(GroutApi.PING, p, 0, 3).length());
            c.close();
            s.awaitScript();
        }
    }

    /** A bad answer to SHM_OPEN, and the one line the client's refusal says. */
    static Stream<Arguments> badAnswers() {
        long size = ShmSegment.sizeFor(CAPACITY);
        String p = "shared memory: EPROTO (71) Protocol error: ";
        return Stream.of(
                Arguments.of("unsealed", answering(false, size, ShmSegment.MAGIC, Attach.SEGMENT_AND_EVENTFD),
                        p + "the segment is not sealed (seals 0x0, want F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL 0x7)"),
                Arguments.of("another size", answering(true, ShmSegment.sizeFor(CAPACITY * 2), ShmSegment.MAGIC,
                        Attach.SEGMENT_AND_EVENTFD), p + "the segment is 12288 bytes, the server announced 20480"),
                Arguments.of("bad magic", answering(true, size, 0x12345678, Attach.SEGMENT_AND_EVENTFD),
                        p + "bad magic 0x12345678 (want 0x53485346)"),
                Arguments.of("no descriptor", answering(true, size, ShmSegment.MAGIC, Attach.NOTHING),
                        p + "the answer to SHM_OPEN came with no descriptor, not two (the segment, the eventfd)"),
                Arguments.of("the segment only", answering(true, size, ShmSegment.MAGIC, Attach.SEGMENT_ONLY),
                        p + "the answer to SHM_OPEN came with one descriptor, not two (the segment, the eventfd)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badAnswers")
    void aBadAnswerIsRefusedWithOneLineAndNothingLeft(String what, RawServer.Script answer, String line)
            throws Exception {
        assertEquals(line, refused(answer).getMessage());
    }

    @Test
    void anAnswerHeaderOverTheLimitInTheRingFailsTheCallWithEmsgsizeAndReadsNothingPastIt() throws Exception {
        // The client reads answers where they lie in the ring: a payload_len the server wrote there is checked
        // before anything of the payload is looked at, as on a socket.
        String path = dir.resolve("liar.sock").toString();
        VarHandle tail = JAVA_LONG.varHandle();
        long size = ShmSegment.sizeFor(CAPACITY);
        RawServer.Script lie = answering(true, size, ShmSegment.MAGIC, Attach.SEGMENT_AND_EVENTFD, file -> {
            long end = System.nanoTime() + 30_000_000_000L;
            while ((long) tail.getAcquire(file, 64L) == 0) { // the request ring's tail: the call was sent
                if (System.nanoTime() > end) throw new AssertionError("no request came");
                Thread.onSpinWait();
            }
            ResponseHeader.write(file, 4096 + CAPACITY, 1, 0, 0xffff_ff00); // the answer ring's first bytes
            tail.setRelease(file, 320L, (long) ResponseHeader.SIZE);        // the answer ring's tail
        });
        try (RawServer s = new RawServer(path, lie); Arena a = Arena.ofConfined()) {
            try (GroutClient c = GroutClient.connect(client(path))) {
                assertTrue(c.sharedMemory());
                MemorySegment p = a.allocate(8);
                ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING, p, 0, 8));
                assertEquals("response header: EMSGSIZE (90) Message too long: payload_len 4294967040 over "
                        + "GR_API_MAX_MSG_LEN " + GroutApi.MAX_MSG_LEN, e.getMessage());
                assertFalse(c.isUsable(), "the stream is out of step");
            }
            s.awaitScript();
        }
    }

    @Test
    void aWakeUpDescriptorThatIsNoEventfdIsRefused() throws Exception {
        // A socket in its place could take the client's wake-ups as bytes, or block them.
        ErrnoException e = refused(answering(true, ShmSegment.sizeFor(CAPACITY), ShmSegment.MAGIC,
                Attach.SEGMENT_AND_SOCKET));
        assertTrue(e.getMessage().matches("eventfd: EPROTO \\(71\\) Protocol error: the descriptor received is "
                + "socket:\\[\\d+\\], not an eventfd"), e.getMessage());
    }
}
