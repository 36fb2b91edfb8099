package org.sysframe.transport.internal.io;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.transport.Event;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.Response;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.testsupport.WireBytes.concat;
import static org.sysframe.testsupport.WireBytes.event;
import static org.sysframe.testsupport.WireBytes.response;

/**
 * {@link Inbox} with its {@link MessageReader} against a fake of the socket they read
 * ({@link ScriptedLink}), with both receive framings: the awaited answer is handed in place, the rest
 * kept aside in arrival order and handed out when awaited, a second answer is EPROTO, at most
 * {@value Inbox#MAX} are kept, a timeout says what came meanwhile, and a pipeline's drain offers what
 * was kept first. Error texts are exact.
 */
class InboxTest {
    private static final int EV = (0x5f5f << 16) | 1;
    private static final long TIMEOUT_MS = 200;

    private final Arena arena = Arena.ofConfined();
    private final ScriptedLink link = new ScriptedLink();
    private final Response r = new Response();
    private final Event ev = new Event();

    @AfterEach
    void free() { arena.close(); }

    private Inbox inbox(String framing) {
        return new Inbox(new MessageReader(link, RecvFraming.parse(framing), arena, TIMEOUT_MS), "scripted.sock");
    }

    private static byte[] b(String s) { return s.getBytes(StandardCharsets.US_ASCII); }

    private static String text(Response r) { return r.id() + ":" + r.status() + ":" + new String(r.toByteArray(), StandardCharsets.US_ASCII); }

    /** What a pipeline's sink saw, one "id status payload kept" per offer, answering with the next of its answers. */
    private static final class Sink implements Inbox.ResponseSink {
        final List<String> seen = new ArrayList<>();
        final int[] answers;
        int i;

        Sink(int... answers) { this.answers = answers; }

        @Override
        public int accept(int forId, int status, MemorySegment buffer, long offset, long length, boolean kept) {
            byte[] p = buffer.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            seen.add(forId + " " + status + " " + new String(p, StandardCharsets.US_ASCII) + (kept ? " kept" : ""));
            return answers[i++];
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void theAwaitedAnswerIsHandedInPlaceAndWhatCameMeanwhileIsKeptInArrivalOrderUntilAwaited(String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(concat(response(3, 0, b("three-a")), event(EV, b("ev-1")), response(3, 0, b("three-b"))))
                .arrive(concat(response(2, 17, b("two")), event(EV, b("ev-2"))));
        in.awaitResponse(2, r);
        assertEquals("2:17:two", text(r));
        assertTrue(r.buffer().isNative(), "the awaited answer is read in place, not copied");
        assertEquals(1, in.eventCount(), "ev-1 kept aside; ev-2 not read yet");
        in.awaitResponse(3, r);
        assertEquals("3:0:three-a", text(r));
        assertFalse(r.buffer().isNative(), "an answer kept aside is a heap copy");
        in.awaitResponse(3, r);
        assertEquals("3:0:three-b", text(r));
        in.nextEvent(ev);
        assertEquals(EV + " ev-1", ev.type() + " " + new String(ev.toByteArray(), StandardCharsets.US_ASCII));
        in.nextEvent(ev);
        assertEquals(EV + " ev-2", ev.type() + " " + new String(ev.toByteArray(), StandardCharsets.US_ASCII));
        assertEquals(0, in.eventCount());
        assertEquals(0, link.left());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aSecondAnswerForAnAnsweredRequestIsEprotoNotKeptAside(String framing) throws Exception {
        Inbox in = inbox(framing);
        in.issued(5);
        link.arrive(response(5, 0, b("x")));
        in.awaitResponse(5, r);
        in.answered(5);
        in.issued(6);
        link.arrive(concat(response(5, 0, b("y")), response(6, 0, b("z"))));
        ErrnoException e = assertThrows(ErrnoException.class, () -> in.awaitResponse(6, r));
        assertEquals(Errno.EPROTO, e.errno());
        assertEquals("client(scripted.sock): EPROTO (71) Protocol error: a second answer for request 5 (status 0, 1 bytes): the server answered it twice",
                e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aResponseKeptForAnIdIsDroppedWhenThatIdIsSentAgain(String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(concat(response(8, 0, b("stale")), response(1, 0, b("one"))));
        in.awaitResponse(1, r);
        in.issued(8); // 8 is sent again: what was kept for it came before, so it does not answer it
        link.arrive(response(8, 0, b("fresh")));
        in.awaitResponse(8, r);
        assertEquals("8:0:fresh", text(r));
        assertEquals(0, link.left());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void atMostMaxMessagesAreKeptAsideThenEnobufs(String framing) throws Exception {
        Inbox in = inbox(framing);
        for (int i = 0; i < Inbox.MAX; i++) link.arrive(i % 2 == 0 ? event(EV, b("e")) : response(100 + i % 1000, 0, b("r")));
        link.arrive(response(99, 0, b("one too many")));
        ErrnoException e = assertThrows(ErrnoException.class, () -> in.awaitResponse(1, r));
        assertEquals("client(scripted.sock): ENOBUFS (105) No buffer space available: 4096 responses and events kept aside, none of them awaited",
                e.getMessage());
        assertEquals(Inbox.MAX / 2, in.eventCount());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aTimeoutSaysWhatWasAwaitedAndWhatCameMeanwhile(String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(concat(response(4, 0, b("a")), response(12, 0, b("b"))));
        ErrnoException e = assertThrows(ErrnoException.class, () -> in.awaitResponse(9, r));
        assertEquals("recv(scripted.sock): ETIMEDOUT (110) Connection timed out: no answer to request 9 within the receive timeout of 200 ms;"
                + " meanwhile 2 answers for an id not awaited came (the last for_id 12)", e.getMessage());
        ErrnoException again = assertThrows(ErrnoException.class, () -> in.awaitResponse(10, r));
        assertEquals("recv(scripted.sock): ETIMEDOUT (110) Connection timed out: no answer to request 10 within the receive timeout of 200 ms",
                again.getMessage(), "only what came while this one was awaited");
        in.awaitResponse(4, r);
        assertEquals("4:0:a", text(r));
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aTimeoutInTheMiddleOfAnAnswerSaysHowMuchOfItCame(String framing) throws Exception {
        Inbox in = inbox(framing);
        byte[] whole = response(2, 0, b("0123456789"));
        link.arrive(java.util.Arrays.copyOf(whole, 15));
        ErrnoException e = assertThrows(ErrnoException.class, () -> in.awaitResponse(2, r));
        assertEquals("recv(scripted.sock): ETIMEDOUT (110) Connection timed out: a message stopped arriving: 15 of its 22 bytes came"
                + " while awaiting request 2, then nothing for 200 ms (the receive timeout)", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void drainOffersWhatWasKeptFirstThenWhatIsReadAndKeepsAsideWhatTheSinkLeaves(String framing) throws Exception {
        Inbox in = inbox(framing);
        link.arrive(concat(response(7, 0, b("seven")), response(1, 0, b("one"))));
        in.awaitResponse(1, r); // 7 is kept aside
        link.arrive(concat(event(EV, b("ev")), response(8, 0, b("eight")), response(9, 3, b("nine"))));
        Sink first = new Sink(Inbox.ResponseSink.KEEP_ASIDE, Inbox.ResponseSink.DROPPED, Inbox.ResponseSink.TAKEN);
        assertEquals(1, in.drain(first, 4, true, 0, 0));
        assertEquals(List.of("7 0 seven kept", "8 0 eight", "9 3 nine"), first.seen, "7 offered first; the event kept aside");
        assertEquals(1, in.eventCount());
        Sink second = new Sink(Inbox.ResponseSink.TAKEN);
        assertEquals(1, in.drain(second, 4, false, 0, 0));
        assertEquals(List.of("7 0 seven kept"), second.seen);
        link.arrive(response(8, 0, b("again")));
        Sink third = new Sink(Inbox.ResponseSink.KEEP_ASIDE); // 8 is not in flight any more
        ErrnoException e = assertThrows(ErrnoException.class, () -> in.drain(third, 4, true, 0, 0));
        assertEquals(List.of("8 0 again"), third.seen);
        assertEquals("client(scripted.sock): EPROTO (71) Protocol error: a second answer for request 8 (status 0, 5 bytes): the server answered it twice",
                e.getMessage(), "a dropped answer counts as the answer");
    }
}
