package org.sysframe.transport.internal.uring;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The io_uring connection's two state machines, every event from every state: what comes next, and
 * the exact refusal of an event that cannot happen there.
 */
class SocketStatesTest {
    record Event<S>(String name, UnaryOperator<S> apply) {}

    private static <S extends Enum<S>> List<String> table(S[] states, List<Event<S>> events) {
        List<String> rows = new ArrayList<>();
        for (S s : states) {
            for (Event<S> e : events) {
                String next;
                try {
                    next = e.apply().apply(s).name();
                } catch (IllegalStateException x) {
                    next = "refused: " + x.getMessage();
                }
                rows.add(s + " " + e.name() + " -> " + next);
            }
        }
        return rows;
    }

    @Test
    void theReceiveArmsOnceIsCancelledAtMostOnceAndEndsFromEitherArmedState() {
        List<Event<ReceiveState>> events = List.of(new Event<>("arm", ReceiveState::armed),
                new Event<>("cancel", ReceiveState::cancelAsked), new Event<>("end", ReceiveState::ended));
        assertEquals(List.of(
                "IDLE arm -> ARMED",
                "IDLE cancel -> refused: receive IDLE: cannot ask a cancel",
                "IDLE end -> refused: receive IDLE: cannot end",
                "ARMED arm -> refused: receive ARMED: cannot arm",
                "ARMED cancel -> CANCELLING",
                "ARMED end -> IDLE",
                "CANCELLING arm -> refused: receive CANCELLING: cannot arm",
                "CANCELLING cancel -> refused: receive CANCELLING: cannot ask a cancel",
                "CANCELLING end -> IDLE"), table(ReceiveState.values(), events));
    }

    @Test
    void theOutputHasOneSendOrPollAtATimeAndALingerMayStartFromTheSendList() {
        List<Event<SendState>> events = List.of(new Event<>("queue", SendState::queued),
                new Event<>("start", SendState::started),
                new Event<>("unqueue", SendState::unqueued), new Event<>("sent", SendState::sent),
                new Event<>("poll", SendState::polling), new Event<>("writable", SendState::writable));
        assertEquals(List.of(
                "IDLE queue -> QUEUED",
                "IDLE start -> SENDING",
                "IDLE unqueue -> refused: send IDLE: cannot leave the send list",
                "IDLE sent -> refused: send IDLE: cannot complete a send",
                "IDLE poll -> POLLING",
                "IDLE writable -> refused: send IDLE: cannot complete a poll",
                "QUEUED queue -> refused: send QUEUED: cannot queue",
                "QUEUED start -> SENDING",
                "QUEUED unqueue -> IDLE",
                "QUEUED sent -> refused: send QUEUED: cannot complete a send",
                "QUEUED poll -> refused: send QUEUED: cannot poll for room",
                "QUEUED writable -> refused: send QUEUED: cannot complete a poll",
                "SENDING queue -> refused: send SENDING: cannot queue",
                "SENDING start -> refused: send SENDING: cannot start a send",
                "SENDING unqueue -> refused: send SENDING: cannot leave the send list",
                "SENDING sent -> IDLE",
                "SENDING poll -> refused: send SENDING: cannot poll for room",
                "SENDING writable -> refused: send SENDING: cannot complete a poll",
                "POLLING queue -> refused: send POLLING: cannot queue",
                "POLLING start -> refused: send POLLING: cannot start a send",
                "POLLING unqueue -> refused: send POLLING: cannot leave the send list",
                "POLLING sent -> refused: send POLLING: cannot complete a send",
                "POLLING poll -> refused: send POLLING: cannot poll for room",
                "POLLING writable -> IDLE"), table(SendState.values(), events));
    }

    @Test
    void onlyASendOrAPollIsInFlight() {
        assertFalse(SendState.IDLE.inFlight());
        assertFalse(SendState.QUEUED.inFlight(), "the send list holds nothing of the kernel's");
        assertTrue(SendState.SENDING.inFlight());
        assertTrue(SendState.POLLING.inFlight());
    }

    @Test
    void aShortSendWaitsForRoomThenSendsTheRest() {
        SendState s = SendState.IDLE.queued().started().sent().polling().writable().queued().started().sent();
        assertEquals(SendState.IDLE, s);
        assertThrows(IllegalStateException.class, () -> SendState.SENDING.polling(),
                "a poll only once the send came back");
    }
}
