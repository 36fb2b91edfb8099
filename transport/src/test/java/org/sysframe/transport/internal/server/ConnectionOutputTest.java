package org.sysframe.transport.internal.server;

import org.sysframe.transport.FlushMode;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.internal.io.FakeOutlet;
import org.sysframe.transport.support.ServerLogs;
import org.sysframe.transport.wire.EventHeader;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.ResponseHeader;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.io.Pool;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A connection's output against fakes of its neighbours: the outlet (a socket with so much room) and its owner. */
class ConnectionOutputTest {
    private final Arena arena = Arena.ofConfined();
    private final FakeOutlet out = new FakeOutlet();
    private final ByteArrayOutputStream expected = new ByteArrayOutputStream();
    /** The deferred flush mode, as a channel's connection has by default: its ring batches turns, it keeps no batch. */
    private static final ServerConfig RING = config(FlushMode.DEFERRED);

    /** The connection, as the output sees it: it records closes and started batches. */
    static final class FakeOwner implements ConnectionOutput.Owner {
        final ServerLimits limits;
        final List<String> closes = new ArrayList<>();
        int batches;

        FakeOwner(ServerConfig config) { this.limits = new ServerLimits(config); }

        @Override public boolean isClosed() { return !closes.isEmpty(); }
        @Override public void close(String reason) { closes.add(reason); }
        @Override public void batchStarted() { batches++; }
        @Override public int peerPid() { return 4242; }
        @Override public ServerLimits limits() { return limits; }
        @Override public Pool<OutputBatch.Memory> batchMemory() { return batchMemory; }
        @Override public MemorySegment claimArea() { return claimArea; }

        final MemorySegment claimArea = Arena.ofAuto().allocate(GroutApi.MAX_MSG_LEN);

        final Pool<OutputBatch.Memory> batchMemory = OutputBatch.Memory.pool(4);
    }

    @AfterEach
    void free() { arena.close(); }

    private MemorySegment payload(int n, int from) {
        MemorySegment s = arena.allocate(Math.max(1, n));
        for (int i = 0; i < n; i++) s.set(JAVA_BYTE, i, (byte) (from + i));
        return s;
    }

    /** What a response looks like on the wire, appended to what the outlet should have taken. */
    private void expect(int forId, int status, MemorySegment p, int len) {
        MemorySegment h = arena.allocate(ResponseHeader.SIZE);
        ResponseHeader.write(h, 0, forId, status, len);
        expected.writeBytes(h.toArray(JAVA_BYTE));
        expected.writeBytes(p.asSlice(0, len).toArray(JAVA_BYTE));
    }

    private static ServerConfig config(FlushMode flush) {
        return ServerOptions.defaults().flush(flush).send(SendFraming.COPY_GATHER).freeze();
    }

    @Test
    void immediateAnswersLeaveAtOnceAndWhatTheSocketRefusesWaitsInOrderBehindTheRest() {
        ServerConfig c = config(FlushMode.IMMEDIATE);
        FakeOwner owner = new FakeOwner(c);
        ConnectionOutput o = new ConnectionOutput(owner, c, out, arena);
        MemorySegment a = payload(32, 0), b = payload(40, 100), d = payload(8, 200);
        o.respond(1, 0, a, 0, 32, true);
        expect(1, 0, a, 32);
        out.room = 10;
        o.respond(2, 0, b, 0, 40, true);   // 10 bytes leave, 42 wait
        expect(2, 0, b, 40);
        o.respond(3, 0, d, 0, 8, true);    // behind them, without a write
        expect(3, 0, d, 8);
        assertFalse(o.caughtUp());
        assertTrue(out.writable);
        out.room = 30;
        assertFalse(o.drain());
        out.room = Long.MAX_VALUE;
        assertTrue(o.drain());
        assertTrue(o.caughtUp());
        assertEquals(List.of("write 44 took 44", "write 52 took 10", "wantWritable true", "send 62 took 30",
                "send 32 took 32", "wantWritable false"), out.calls);
        assertArrayEquals(expected.toByteArray(), out.taken());
        assertEquals(List.of(), owner.closes);
        assertEquals(0, owner.limits.memory.used(), "drained: the queue's memory is back in the budget");
        o.close();
    }

    @Test
    void deferredAnswersGoAsOneGatherAtTheFlushAndALoneSmallOneAsOneCopy() {
        ServerConfig c = config(FlushMode.DEFERRED);
        FakeOwner owner = new FakeOwner(c);
        ConnectionOutput o = new ConnectionOutput(owner, c, out, arena);
        MemorySegment a = payload(32, 0), b = payload(64, 50);
        o.respond(1, 0, a, 0, 32, true);
        o.respond(2, 0, b, 0, 64, true);
        expect(1, 0, a, 32);
        expect(2, 0, b, 64);
        assertTrue(o.dirty());
        assertEquals(1, owner.batches, "one batch started for both");
        assertEquals(List.of(), out.calls, "nothing leaves before the flush");
        o.flush();
        assertFalse(o.dirty());
        o.respond(3, 0, a, 0, 32, true);
        expect(3, 0, a, 32);
        o.flush();
        assertEquals(List.of("gather 120 took 120", "write 44 took 44"), out.calls);
        assertArrayEquals(expected.toByteArray(), out.taken());
        assertTrue(o.caughtUp());
        o.close();
    }

    @Test
    void whatAGatherLeavesIsQueuedAndTheOutletWatchesForRoom() {
        ServerConfig c = config(FlushMode.DEFERRED);
        FakeOwner owner = new FakeOwner(c);
        ConnectionOutput o = new ConnectionOutput(owner, c, out, arena);
        MemorySegment a = payload(100, 0), b = payload(100, 7);
        o.respond(1, 0, a, 0, 100, true);
        o.respond(2, 0, b, 0, 100, true);
        expect(1, 0, a, 100);
        expect(2, 0, b, 100);
        out.room = 20;
        o.flush();
        assertFalse(o.caughtUp());
        out.room = Long.MAX_VALUE;
        assertTrue(o.drain());
        assertEquals(List.of("gather 224 took 20", "wantWritable true", "send 204 took 204", "wantWritable false"),
                out.calls);
        assertArrayEquals(expected.toByteArray(), out.taken());
        o.close();
    }

    @Test
    void aReaderThatTakesNothingIsClosedOnceItsQueuePassesTheLimitWithOneWarning() {
        int limit = 2 * (GroutApi.MAX_MSG_LEN + EventHeader.SIZE) + FlushMode.DEFAULT_HIGH_WATER;
        ServerConfig c = ServerOptions.defaults().flush(FlushMode.IMMEDIATE).maxQueuedOutput(limit).freeze();
        FakeOwner owner = new FakeOwner(c);
        ConnectionOutput o = new ConnectionOutput(owner, c, out, arena);
        out.room = 0;
        int len = 100_000, message = ResponseHeader.SIZE + len;
        MemorySegment p = payload(len, 0);
        try (ServerLogs logs = new ServerLogs()) {
            int sent = 0;
            while (!owner.isClosed() && sent < 100) {
                o.respond(sent, 0, p, 0, len, true);
                sent++;
            }
            int fit = limit / message; // the message that would pass the limit closes the connection
            assertEquals(fit + 1, sent);
            assertEquals(List.of("slow reader"), owner.closes);
            assertEquals(
                    List.of(
                    String.format("pid=4242: slow reader, %d bytes unsent over the %d limit: closing the connection",
                    (long) (fit + 1) * message, limit)), logs.lines());
        }
        o.close();
    }

    /** An output to the fake outlet standing for a channel's answer ring, with room of its own to write in place. */
    private ConnectionOutput toRing(FakeOwner owner) {
        out.inPlace = true;
        return new ConnectionOutput(owner, RING, out, arena);
    }

    /** A claim's payload, written where it lies: the bytes of payload(n, from). */
    private static void fill(MemorySegment m, long at, int n, int from) {
        for (int i = 0; i < n; i++) m.set(JAVA_BYTE, at + i, (byte) (from + i));
    }

    @Test
    void withRoomInPlaceAnAnswerIsWrittenThereHeaderIncludedAndAClaimedOneIsCommittedWithoutACopy() {
        FakeOwner owner = new FakeOwner(RING);
        ConnectionOutput o = toRing(owner);
        MemorySegment a = payload(32, 0);
        o.respond(1, 0, a, 0, 32, true);
        expect(1, 0, a, 32);
        long at = o.claim(40);
        assertEquals(FakeOutlet.CLAIMED + ResponseHeader.SIZE, at, "the payload's room, past the header's");
        assertEquals(out.place, o.claimMemory());
        fill(o.claimMemory(), at, 40, 9);
        o.commit(2, 40);
        expect(2, 0, payload(40, 9), 40);
        assertEquals(List.of("claim 44", "commit 44", "claim 52", "commit 52"), out.calls);
        assertArrayEquals(expected.toByteArray(), out.taken());
        o.close();
    }

    @Test
    void anEventThatComesWhileAnAnswerIsClaimedInPlaceGoesBehindThatAnswerInOrder() {
        FakeOwner owner = new FakeOwner(RING);
        ConnectionOutput o = toRing(owner);
        long at = o.claim(8);
        fill(o.claimMemory(), at, 8, 1);
        MemorySegment ev = payload(12, 50);
        o.event(77, ev, 0, 12); // the claimed room is the ring's next bytes: the event may not go there
        assertTrue(out.writable, "the event waits in the queue for room behind the claim");
        o.commit(5, 8);
        expect(5, 0, payload(8, 1), 8);
        MemorySegment h = arena.allocate(EventHeader.SIZE);
        EventHeader.write(h, 0, 77, 12);
        expected.writeBytes(h.toArray(JAVA_BYTE));
        expected.writeBytes(ev.toArray(JAVA_BYTE));
        assertTrue(o.drain());
        assertEquals(List.of("claim 20", "wantWritable true", "commit 20", "send 28 took 28", "wantWritable false"),
                out.calls);
        assertArrayEquals(expected.toByteArray(), out.taken());
        o.close();
    }

    @Test
    void behindQueuedOutputAClaimIsInTheLoopsAreaZeroedAndItsAnswerQueuedInOrder() {
        FakeOwner owner = new FakeOwner(RING);
        ConnectionOutput o = toRing(owner);
        out.room = 20;
        MemorySegment a = payload(32, 0);
        o.respond(1, 0, a, 0, 32, true); // no room in place for 44: 20 bytes written, 24 queued
        expect(1, 0, a, 32);
        fill(owner.claimArea, 0, 16, 99); // an earlier answer's bytes, maybe another connection's
        long at = o.claim(16);
        assertEquals(0, at);
        assertEquals(owner.claimArea, o.claimMemory());
        assertArrayEquals(new byte[16], owner.claimArea.asSlice(0, 16).toArray(JAVA_BYTE), "zeroed");
        fill(o.claimMemory(), at, 10, 3); // the last 6 bytes left as they are: zeros
        o.commit(2, 16);
        MemorySegment b = arena.allocate(16);
        fill(b, 0, 10, 3);
        expect(2, 0, b, 16);
        out.room = Long.MAX_VALUE;
        assertTrue(o.drain());
        assertEquals(List.of("claim 44 refused", "write 44 took 20", "wantWritable true", "send 52 took 52",
                "wantWritable false"), out.calls);
        assertArrayEquals(expected.toByteArray(), out.taken());
        o.close();
    }

    @Test
    void anAnswerAfterAClaimAbandonsItAndNothingOfTheClaimLeaves() {
        FakeOwner owner = new FakeOwner(RING);
        ConnectionOutput o = toRing(owner);
        long at = o.claim(16);
        fill(o.claimMemory(), at, 16, 1);
        o.respond(3, 22, MemorySegment.NULL, 0, 0, false);
        expect(3, 22, MemorySegment.NULL, 0);
        assertEquals(List.of("claim 28", "claim 12", "commit 12"), out.calls);
        assertArrayEquals(expected.toByteArray(), out.taken());
        o.close();
    }
}
