package org.sysframe.transport.internal.shm;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SharedMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One ring of a real (sealed, mapped) segment: wrapping, back-pressure, sleeping words, and indices a peer corrupted.
 */
class ShmRingTest {
    static final int CAP = 4096;

    /** A fresh segment of CAP-byte rings, mapped; its descriptor closed (the mapping keeps it). */
    private static ShmSegment segment() throws Exception {
        int[] fd = {-1};
        ShmSegment seg = ShmSegment.create("ring-test", CAP, fd);
        SharedMemory.close(fd[0]);
        return seg;
    }

    @Test
    void bytesWrapAtTheEndAndAFullRingTakesNothingMore() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.requests();
            MemorySegment src = a.allocate(3000), dst = a.allocate(3000);
            for (int round = 0; round < 10; round++) {
                for (int i = 0; i < 3000; i++) src.set(JAVA_BYTE, i, (byte) (i * 13 + round));
                assertEquals(3000, r.put(src, 0, 3000));
                assertFalse(r.publish(), "nobody sleeps");
                assertEquals(3000, r.available());
                assertEquals(1000, r.take(dst, 0, 1000));
                assertEquals(2000, r.take(dst, 1000, 3000));
                assertEquals(-1, MemorySegment.mismatch(src, 0, 3000, dst, 0, 3000), "round " + round);
            }
            // Full: the rest waits (back-pressure), nothing is dropped.
            assertEquals(CAP, r.put(a.allocate(2 * CAP), 0, 2 * CAP));
            assertEquals(0, r.put(src, 0, 1));
            assertEquals(0, r.room());
            r.publish();
            assertEquals(CAP, r.available());
        }
    }

    @Test
    void whatWasPutOrCommittedIsUnpublishedUntilThePublishAndThePeerSeesNoneOfItBefore() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.answers();
            assertEquals(0, r.unpublished());
            r.put(a.allocate(300), 0, 300);
            long at = r.claim(100);
            assertTrue(at >= 0);
            r.commit(100);
            assertEquals(400, r.unpublished());
            assertEquals(0, r.available(), "the consumer sees nothing unpublished");
            r.publish();
            assertEquals(0, r.unpublished());
            assertEquals(400, r.available());
            r.put(a.allocate(10), 0, 10);
            assertEquals(10, r.unpublished());
        }
    }

    @Test
    void aGatherGoesInTwoPiecesAcrossTheEnd() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.answers();
            MemorySegment dst = a.allocate(CAP);
            r.put(a.allocate(4000), 0, 4000);
            r.publish();
            r.take(dst, 0, 4000);
            IovArray iov = new IovArray(a, 4);
            MemorySegment x = a.allocate(100), y = a.allocate(50);
            x.fill((byte) 1);
            y.fill((byte) 2);
            iov.add(x, 0, 100);
            iov.add(y, 0, 50);
            assertEquals(150, r.put(iov, 0, 150));
            r.publish();
            assertEquals(150, r.take(dst, 0, 150));
            for (int i = 0; i < 150; i++) assertEquals(i < 100 ? 1 : 2, dst.get(JAVA_BYTE, i), "byte " + i);
        }
    }

    @Test
    void aClaimAcrossTheEndIsContiguousAndIsReadInPlace() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.answers();
            MemorySegment m = r.memory();
            long data = ShmSegment.DATA_OFFSET + 2L * CAP; // the answer ring's bytes in this process's mapping
            r.put(a.allocate(4000), 0, 4000);
            r.publish();
            r.release(4000); // read in place: nothing copied
            assertEquals(0, r.available());
            long at = r.claim(200);
            assertEquals(data + 4000, at, "the claim starts at the tail");
            for (int i = 0; i < 200; i++) m.set(JAVA_BYTE, at + i, (byte) (i + 1));
            assertEquals(0, r.available(), "not published yet");
            r.commit(200);
            r.publish();
            assertEquals(200, r.available());
            assertEquals(data + 4000, r.readAt());
            for (int i = 0; i < 200; i++) assertEquals((byte) (i + 1), m.get(JAVA_BYTE, r.readAt() + i), "byte " + i);
            // Past the ring's end the bytes went to its start (the mirror is the same memory).
            assertEquals((byte) 97, m.get(JAVA_BYTE, data), "byte 96 of the claim, the ring's first");
            r.release(200);
            assertEquals(data + (4200 - CAP), r.readAt());
            // No room for a claim: -1 and nothing changes; a claim past the capacity is a bug of the caller.
            assertEquals(CAP, r.put(a.allocate(CAP), 0, CAP));
            assertEquals(-1, r.claim(1));
            assertThrows(IllegalArgumentException.class, () -> r.claim(CAP + 1));
            r.publish();
            r.release(CAP);
            assertEquals(data + (4200 - CAP), r.claim(CAP), "the whole ring, contiguous from the middle");
        }
    }

    @Test
    void bytesReadInPlaceAreCountedPastWhatTheReaderHasAcrossTheEnd() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.answers();
            MemorySegment m = r.memory();
            assertEquals(0, r.availableBeyond(0), "nothing came");
            r.put(a.allocate(4000), 0, 4000);
            r.publish();
            r.release(4000);
            // A whole ring's worth from near its end: its lines are read up to the mirror's, no read outside it.
            MemorySegment src = a.allocate(CAP);
            for (int i = 0; i < CAP; i++) src.set(JAVA_BYTE, i, (byte) (i * 7));
            assertEquals(CAP, r.put(src, 0, CAP));
            r.publish();
            assertEquals(CAP, r.availableBeyond(0));
            assertEquals(CAP - 100, r.availableBeyond(100), "past the 100 bytes the reader has");
            assertEquals(1, r.availableBeyond(CAP - 1));
            assertEquals(0, r.availableBeyond(CAP));
            assertEquals(0, r.availableBeyond(CAP + 1), "a reader that says it has more than came: nothing more");
            for (int i = 0; i < CAP; i++) assertEquals((byte) (i * 7), m.get(JAVA_BYTE, r.readAt() + i), "byte " + i);
        }
    }

    @Test
    void aLookFromAnyOffsetOfTheLastRingsEndCountsWhatCameAndReadsInsideItsMapping() throws Exception {
        // The answer ring is the last in the segment: its mirror ends where the mapping does. A look reads a byte
        // 63 past the head, so from the ring's last bytes that byte is in the mirror, never past it.
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.answers();
            MemorySegment one = a.allocate(1), got = a.allocate(1);
            r.put(a.allocate(CAP - 70), 0, CAP - 70);
            r.publish();
            r.release(CAP - 70);
            for (int i = 0; i < 140; i++) { // the head from 70 bytes before the ring's end to 70 past its start
                assertEquals(0, r.available(), "nothing came, head at " + (CAP - 70 + i) % CAP);
                one.set(JAVA_BYTE, 0, (byte) i);
                assertEquals(1, r.put(one, 0, 1));
                r.publish();
                assertEquals(1, r.available());
                assertEquals(1, r.take(got, 0, 1));
                assertEquals((byte) i, got.get(JAVA_BYTE, 0));
            }
        }
    }

    @Test
    void aClaimReadsAHeadThePeerCorruptedAndFails() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.requests();
            r.put(a.allocate(CAP - 8), 0, CAP - 8);
            seg.memory().set(JAVA_LONG, ShmSegment.RING0_CONTROL + ShmRing.HEAD, CAP); // ahead of the tail
            assertEquals(ShmSegment.DATA_OFFSET + CAP - 8, r.claim(8), "the head read last leaves room: not read");
            ErrnoException e = assertThrows(ErrnoException.class, () -> r.claim(16));
            assertEquals("shared memory: EPROTO (71) Protocol error: the request ring's head is 4096, 8 bytes from "
                    + "this side's 4088 (capacity 4096): the peer wrote a bad index", e.getMessage());
        }
    }

    @Test
    void theSleepingWordsSayWhomToWake() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.requests();
            assertEquals(0, r.consumerSleeps());
            r.put(a.allocate(8), 0, 8);
            assertTrue(r.publish(), "the consumer said it sleeps");
            assertFalse(r.publish(), "the word was cleared: one wake");
            r.put(a.allocate(CAP - 8), 0, CAP - 8);
            r.publish();
            assertEquals(0, r.producerSleeps());
            r.take(a.allocate(8), 0, 8);
            assertTrue(r.producerWaits());
            assertFalse(r.producerWaits());
        }
    }

    @Test
    void aSideThatSaysItNeverSleepsIsNotLookedAtAndAnyOtherValueMeansItMaySleep() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.requests();
            MemorySegment m = r.memory();
            long control = ShmSegment.RING0_CONTROL;
            r.consumerNeverSleeps(true);
            r.producerNeverSleeps(true);
            assertEquals(1, m.get(JAVA_INT, control + ShmRing.CONSUMER_NEVER_SLEEPS));
            assertEquals(1, m.get(JAVA_INT, control + ShmRing.PRODUCER_NEVER_SLEEPS));
            // Sleeping words set anyway (a peer that said it never sleeps, then sleeps): not looked at, not cleared.
            m.set(JAVA_INT, control + ShmRing.CONSUMER_SLEEPING, 1);
            m.set(JAVA_INT, control + ShmRing.PRODUCER_SLEEPING, 1);
            r.put(a.allocate(8), 0, 8);
            assertFalse(r.publish(), "the consumer said it never sleeps");
            r.take(a.allocate(8), 0, 8);
            assertFalse(r.producerWaits(), "the producer said it never sleeps");
            assertEquals(1, m.get(JAVA_INT, control + ShmRing.CONSUMER_SLEEPING), "not looked at");
            assertEquals(1, m.get(JAVA_INT, control + ShmRing.PRODUCER_SLEEPING), "not looked at");
            // A hostile value is "may sleep": the fence and the look, as before.
            m.set(JAVA_INT, control + ShmRing.CONSUMER_NEVER_SLEEPS, 7);
            m.set(JAVA_INT, control + ShmRing.PRODUCER_NEVER_SLEEPS, -1);
            r.put(a.allocate(8), 0, 8);
            assertTrue(r.publish(), "the consumer may sleep and says it sleeps");
            r.take(a.allocate(8), 0, 8);
            assertTrue(r.producerWaits(), "the producer may sleep and says it sleeps");
            r.consumerNeverSleeps(false);
            assertEquals(0, m.get(JAVA_INT, control + ShmRing.CONSUMER_NEVER_SLEEPS));
        }
    }

    @Test
    void anIndexThePeerCorruptedFailsBeforeAnyCopy() throws Exception {
        try (ShmSegment seg = segment(); Arena a = Arena.ofConfined()) {
            ShmRing r = seg.requests();
            MemorySegment m = seg.memory();
            MemorySegment dst = a.allocate(CAP);
            for (long bad : new long[] {CAP + 1, -1, Long.MIN_VALUE, Long.MAX_VALUE}) {
                m.set(JAVA_LONG, ShmSegment.RING0_CONTROL + ShmRing.TAIL, bad);
                ErrnoException e = assertThrows(ErrnoException.class, () -> r.take(dst, 0, CAP));
                assertEquals(Errno.EPROTO, e.errno());
                assertEquals(Errno.EPROTO, assertThrows(ErrnoException.class, () -> r.availableBeyond(0)).errno(),
                        "and before any read in place");
                assertEquals(
                        String.format("shared memory: EPROTO (71) Protocol error: the request ring's tail is %d, %d "
                        + "bytes from this side's 0"
                        + " (capacity 4096): the peer wrote a bad index", bad, bad), e.getMessage());
            }
            m.set(JAVA_LONG, ShmSegment.RING0_CONTROL + ShmRing.TAIL, 0);
            // The producer's side: a head ahead of the tail, read by the look at the room.
            m.set(JAVA_LONG, ShmSegment.RING0_CONTROL + ShmRing.HEAD, 10);
            ErrnoException e = assertThrows(ErrnoException.class, r::room);
            assertEquals("shared memory: EPROTO (71) Protocol error: the request ring's head is 10, 10 bytes from this "
                    + "side's 0"
                    + " (capacity 4096): the peer wrote a bad index", e.getMessage());
            // ... and by a write that needs more room than the head read last left: it writes nothing.
            m.set(JAVA_LONG, ShmSegment.RING0_CONTROL + ShmRing.HEAD, 0);
            assertEquals(CAP - 8, r.put(dst, 0, CAP - 8));
            m.set(JAVA_LONG, ShmSegment.RING0_CONTROL + ShmRing.HEAD, CAP);
            m.set(JAVA_INT, ShmSegment.DATA_OFFSET + CAP - 8, 0);
            e = assertThrows(ErrnoException.class, () -> r.put(dst, 0, 16));
            assertEquals("shared memory: EPROTO (71) Protocol error: the request ring's head is 4096, 8 bytes from "
                    + "this side's 4088"
                    + " (capacity 4096): the peer wrote a bad index", e.getMessage());
            assertEquals(0, m.get(JAVA_INT, ShmSegment.DATA_OFFSET + CAP - 8), "nothing was written");
        }
    }
}
