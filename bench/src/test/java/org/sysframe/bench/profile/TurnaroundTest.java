package org.sysframe.bench.profile;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Turnaround#parse} on perf script's lines as {@link PerfRecording#script} asks for them: each send after a
 * receive that brought bytes is one turnaround, from that receive's return (the last one before the send) to the
 * send's entry, per thread; empty receives, other syscalls and a first send with no receive before it are none; lost
 * events end what was open.
 */
class TurnaroundTest {
    private static String enter(long tid, String time, int nr) {
        return tid + " " + time + ": raw_syscalls:sys_enter: NR " + nr + " (3, 7f2520973010, b00, 4040, 0, 0)";
    }

    private static String exit(long tid, String time, int nr, long ret) {
        return tid + " " + time + ":  raw_syscalls:sys_exit: NR " + nr + " = " + ret;
    }

    @Test
    void theRecordingKeepsTheSyscallsTheParserCounts() {
        // What PerfRecording.syscalls gives perf's kernel filters: x86-64's writev, sendto, sendmsg entries, and
        // readv, recvfrom, recvmsg exits.
        assertEquals("id == 20 || id == 44 || id == 46", Turnaround.idIn(Turnaround.SENDS));
        assertEquals("id == 19 || id == 45 || id == 47", Turnaround.idIn(Turnaround.RECEIVES));
    }

    @Test
    void eachSendAfterAReceiveIsOneTurnaroundFromTheLastReceiveThatBroughtBytes() {
        Turnaround t = Turnaround.parse(List.of(
                enter(7, "100.000000000", 44),           // the first send: no receive before it
                exit(7, "100.000010000", 45, 2816),
                exit(7, "100.000010400", 45, 48),        // the last receive before the send counts
                exit(7, "100.000010500", 45, -11),       // EAGAIN: waiting, not an answer
                enter(7, "100.000010600", 232),          // not a send
                enter(7, "100.000011000", 44),           // 600 ns after the receive of 48 bytes
                exit(7, "100.000020000", 47, 100),
                enter(7, "100.000021500", 46),           // sendmsg, 1,500 ns
                exit(7, "100.000030000", 45, 0),         // the peer closed: no bytes
                enter(7, "100.000030100", 20)));         // writev after no answer: no turnaround
        assertEquals(new Turnaround(2, 4, 0, 1050, 1050.0), t);
    }

    @Test
    void threadsAreApartAndTheMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        Turnaround t = Turnaround.parse(List.of(
                exit(1, "5.999999900", 45, 10),
                exit(2, "6.000000000", 45, 10),
                enter(1, "6.000000100", 44),             // thread 1: 200 ns, across a second's boundary
                enter(3, "6.000000200", 44),             // thread 3 received nothing
                enter(2, "6.000001000", 44),             // thread 2: 1,000 ns
                exit(1, "6.000002000", 45, 10),
                enter(1, "6.000002300", 44),             // 300 ns
                exit(2, "6.000003000", 45, 10),
                enter(2, "6.000007000", 44)));           // 4,000 ns
        assertEquals(4, t.turnarounds());
        assertEquals(5, t.sends());
        assertEquals((300 + 1000) / 2, t.medianNanos());
        assertEquals((200 + 1000 + 300 + 4000) / 4.0, t.meanNanos());
    }

    @Test
    void lostEventsEndWhatWasOpenAndAreCounted() {
        Turnaround t = Turnaround.parse(List.of(
                exit(9, "1.000000000", 45, 64),
                "LOST 12 events!",
                enter(9, "1.000050000", 44),             // its receive may not be the last: none
                exit(9, "1.000060000", 45, 64),
                enter(9, "1.000060700", 44)));
        assertEquals(new Turnaround(1, 2, 1, 700, 700.0), t);
    }

    @Test
    void noSendAfterAReceiveIsNoTurnaround() {
        assertEquals(new Turnaround(0, 1, 0, 0, 0), Turnaround.parse(List.of(enter(4, "2.000000000", 44),
                "not an event", exit(4, "2.000001000", 45, 8))));
    }
}
