package org.sysframe.transport.internal.io;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.transport.RecvFraming;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.testsupport.WireBytes.concat;
import static org.sysframe.testsupport.WireBytes.event;
import static org.sysframe.testsupport.WireBytes.response;

/**
 * {@link Inbox}, a pipeline's drain, with its {@link MessageReader} against a fake of the socket they
 * read ({@link ScriptedLink}), with both receive framings: each response is offered to the pipeline's
 * sink in arrival order, in place; what the sink takes is counted, what it drops (a late answer) goes
 * nowhere, what is not its own and every event go to the client's router ({@code others}) in arrival
 * order; the limit, the wait and the deadline bound how much is read; a message cut off, an oversize
 * payload_len and an EOF fail with exact texts.
 */
class InboxTest {
    private static final int EV = (0x5f5f << 16) | 1;
    private static final long TIMEOUT_MS = 200;

    private final Arena arena = Arena.ofConfined();
    private final ScriptedLink link = new ScriptedLink();
    private final Others others = new Others();

    @AfterEach
    void free() { arena.close(); }

    private Inbox inbox(String framing) {
        return new Inbox(new MessageReader(link, RecvFraming.parse(framing), arena, TIMEOUT_MS), others);
    }

    private static byte[] b(String s) { return s.getBytes(StandardCharsets.US_ASCII); }

    private static String ascii(MemorySegment buffer, long offset, long length) {
        return new String(buffer.asSlice(offset, length).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    /** What a pipeline's sink saw, one "id status payload" per offer, answering with the next of its answers. */
    private static final class Sink implements Inbox.ResponseSink {
        final List<String> seen = new ArrayList<>();
        final int[] answers;
        boolean allNative = true;
        int i;

        Sink(int... answers) { this.answers = answers; }

        @Override
        public int accept(int forId, int status, MemorySegment buffer, long offset, long length) {
            seen.add(forId + " " + status + " " + ascii(buffer, offset, length));
            allNative &= buffer.isNative();
            return answers[i++];
        }
    }

    /** The client's router: what the pipeline did not take, and every event, in arrival order. */
    private static final class Others implements MessagePump.Sink {
        final List<String> seen = new ArrayList<>();

        @Override
        public void response(int forId, int status, MemorySegment buffer, long offset, long length) {
            seen.add("response " + forId + " " + status + " " + ascii(buffer, offset, length));
        }

        @Override
        public void event(int evType, MemorySegment buffer, long offset, long length) {
            seen.add("event " + (evType == EV ? "EV" : Integer.toHexString(evType)) + " "
                    + ascii(buffer, offset, length));
        }
    }

    private static final int TAKEN = Inbox.ResponseSink.TAKEN, DROPPED = Inbox.ResponseSink.DROPPED, NOT_MINE =
            Inbox.ResponseSink.NOT_MINE;

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void eachResponseIsOfferedInPlaceAndWhatTheSinkLeavesAndEveryEventGoToOthersInArrivalOrder(
            String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(concat(response(3, 0, b("three")), event(EV, b("ev-1")), response(4, 0, b("late")),
                response(2, 17, b("two"))))
                .arrive(concat(event(EV, b("ev-2")), response(9, 0, b("nine"))));
        Sink sink = new Sink(NOT_MINE, DROPPED, TAKEN, TAKEN);
        int got = 0;
        while (got < 2) got += in.drain(sink, 8, true, 0, 0);
        assertEquals(2, got);
        assertEquals(List.of("3 0 three", "4 0 late", "2 17 two", "9 0 nine"), sink.seen,
                "every response offered, in arrival order");
        assertTrue(sink.allNative, "offered in place (the read buffer), not copied");
        assertEquals(List.of("response 3 0 three", "event EV ev-1", "event EV ev-2"), others.seen,
                "what the sink left and the events, in arrival order; the dropped answer nowhere");
        assertEquals(0, link.left());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aDrainHandsAtMostLimitAndLeavesTheRestForTheNext(String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(concat(response(5, 0, b("a")), response(6, 0, b("b")), response(7, 0, b("c"))));
        Sink sink = new Sink(TAKEN, TAKEN, TAKEN);
        assertEquals(1, in.drain(sink, 1, true, 0, 0));
        assertEquals(List.of("5 0 a"), sink.seen);
        if (framing.equals("readahead")) {
            int receives = link.receives;
            assertEquals(2, in.drain(sink, 8, false, 0, 0), "the rest was buffered: handed without waiting");
            assertEquals(receives, link.receives, "the rest was read with the first: no receive for it");
        } else {
            assertEquals(0, in.drain(sink, 8, false, 0, 0), "exact framing reads a message only when it may wait");
            assertEquals(1, in.drain(sink, 8, true, 0, 0), "one whole message per waiting drain once one was taken");
            assertEquals(1, in.drain(sink, 8, true, 0, 0));
        }
        assertEquals(List.of("5 0 a", "6 0 b", "7 0 c"), sink.seen);
        assertEquals(List.of(), others.seen);
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aDrainThatDoesNotWaitReturnsNothingWhenNothingCame(String framing) throws Exception {
        Inbox in = inbox(framing);
        Sink sink = new Sink();
        assertEquals(0, in.drain(sink, 8, false, 0, 0));
        // Exact framing reads one whole message at a time, blocking: a drain that must not wait reads nothing.
        assertEquals(0, link.receives);
        assertEquals(List.of(), sink.seen);
        assertEquals(List.of(), others.seen);
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aMessageNotStartedByTheDeadlineIsNothingCameAndOneStartedIsEtimedout(String framing) throws Exception {
        Inbox in = inbox(framing);
        Sink sink = new Sink(TAKEN);
        long past = System.nanoTime();
        assertEquals(0, in.drain(sink, 8, true, past, past), "nothing came by the deadline: no failure");
        byte[] whole = response(2, 0, b("0123456789"));
        link.arrive(Arrays.copyOf(whole, 15));
        ErrnoException e = assertThrows(ErrnoException.class, () -> in.drain(sink, 8, true, past, past));
        assertEquals("recv(scripted.sock): ETIMEDOUT (110) Connection timed out: a message stopped arriving: 15 of its "
                + "22 bytes came,"
                + " then nothing until the earliest request's deadline", e.getMessage());
        assertEquals(List.of(), sink.seen);
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void withoutADeadlineAMessageCutOffEndsAtTheReceiveTimeoutSayingHowMuchOfItCame(String framing) throws Exception {
        Inbox in = inbox(framing);
        byte[] whole = response(2, 0, b("0123456789"));
        link.arrive(Arrays.copyOf(whole, 15));
        ErrnoException e = assertThrows(ErrnoException.class, () -> in.drain(new Sink(TAKEN), 8, true, 0, 0));
        assertEquals("recv(scripted.sock): ETIMEDOUT (110) Connection timed out: a message stopped arriving: 15 of its "
                + "22 bytes came,"
                + " then nothing for 200 ms (the receive timeout)", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void eventsThatKeepComingDoNotHoldAWaitPastItsDeadline(String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(concat(event(EV, b("e1")), event(EV, b("e2")), response(3, 0, b("mine"))));
        Sink sink = new Sink(TAKEN);
        long past = System.nanoTime();
        assertEquals(0, in.drain(sink, 8, true, past, past),
                "the deadline had passed: the wait ends after the first event");
        assertEquals(List.of("event EV e1"), others.seen);
        int got = 0;
        while (got == 0) got = in.drain(sink, 8, true, 0, 0);
        assertEquals(List.of("event EV e1", "event EV e2"), others.seen);
        assertEquals(List.of("3 0 mine"), sink.seen);
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "readahead:64", "exact"})
    void aPayloadLenOverTheMaximumFailsWithEmsgsize(String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(concat(response(4, 0, b("ok")), response(5, 0, 131_073, new byte[8])));
        Sink sink = new Sink(NOT_MINE);
        ErrnoException e = assertThrows(ErrnoException.class, () -> {
            while (true) in.drain(sink, 8, true, 0, 0);
        });
        assertEquals("response header: EMSGSIZE (90) Message too long: payload_len 131073 over GR_API_MAX_MSG_LEN "
                + "131072", e.getMessage());
        assertEquals(List.of("4 0 ok"), sink.seen);
        assertEquals(List.of("response 4 0 ok"), others.seen);
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void theServerClosingIsEconnreset(String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(new byte[0]); // a receive of 0 bytes: EOF
        ErrnoException e = assertThrows(ErrnoException.class, () -> in.drain(new Sink(), 8, true, 0, 0));
        assertEquals("recv(scripted.sock): ECONNRESET (104) Connection reset by peer: server closed the connection",
                e.getMessage());
    }
}
