package org.sysframe.transport.internal.shm;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One single-producer single-consumer byte ring in a shared segment: a byte stream, as a socket is, so
 * that the same framing code reads and writes it. The ring's bytes are mapped twice in a row
 * ({@link ShmSegment}): any run of up to {@code capacity} bytes from any offset is contiguous in memory,
 * so a message that wraps at the ring's end is still written and read in place, with no padding record
 * in the stream and no copy in two parts.
 *
 * <p>Two ways to use each side. The producer either copies bytes in ({@link #put}) or claims room in
 * place ({@link #claim}: the offset in {@link #memory()} of that many contiguous bytes), writes there and
 * commits ({@link #commit}); the consumer either copies bytes out ({@link #take}) or reads them in place
 * ({@link #readAt}, {@link #available}) and gives their room back ({@link #release}). Nothing is seen by
 * the other side before {@link #publish} (producer) or a release (consumer).
 *
 * <p>Indices are byte counts since the start (64-bit, never wrapping in practice): the producer
 * publishes {@code tail} with a release store after the bytes, the consumer publishes {@code head}
 * after it is done with them; each reads the other's with an acquire load. Each side keeps its own index
 * in its own memory and never reads it back from the segment, and checks the other's before any use
 * ({@code 0 <= tail - head <= capacity}): a peer that writes anything there makes the next call that
 * reads it fail with EPROTO, never a copy outside the ring. Bytes read in place may change under the
 * reader while it reads (the peer is another process): a reader takes each value it checks once.
 *
 * <p>The producer reads {@code head} only when the head it read last leaves too little room for a
 * write: every read of the consumer's line pulls it across to the producer's core, and the
 * consumer's next store to it must take it back, once per message. A head read earlier is a lower
 * bound of the true one, so the room it gives is never more than there is.
 *
 * <p>The sleeping words: a side about to sleep sets its word to 1 and looks again before it sleeps
 * on it (futex); the other side, after it published, looks at the word (after a full fence) and wakes
 * the sleeper only when the word says it sleeps. One thread per side.
 *
 * <p>A side whose wait never sleeps (spin, yield) says so once, in a word beside its sleeping word
 * ({@link #consumerNeverSleeps}, {@link #producerNeverSleeps}); the other side then publishes without
 * the full fence and the look at the sleeping word, which nobody would set. The fence drains the
 * store buffer, so it waits for the store of the index to reach the line the peer reads, a cost a
 * spinning channel's profile shows (docs/shared-memory.md). A word holding anything but 1 means
 * "may sleep" (the fence and the look): a peer that says it never sleeps and then sleeps misses its own
 * wake-ups, and delays only its own calls.
 */
public final class ShmRing {
    static final long TAIL = 0;
    static final long HEAD = 64;
    static final long CONSUMER_SLEEPING = 128;
    static final long PRODUCER_SLEEPING = 192;
    static final long CONSUMER_NEVER_SLEEPS = CONSUMER_SLEEPING + 4;
    static final long PRODUCER_NEVER_SLEEPS = PRODUCER_SLEEPING + 4;
    /** How many bytes of newly come ones {@link #availableBeyond} reads a byte of per cache line. */
    static final int TOUCH_BYTES = 1024;
    private static final long LINE = 64;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment memory;
    private final long control;
    private final long data;
    private final int capacity;
    private final long mask;
    private final String name;
    private long tail; // the producer's own
    private long published; // the tail the producer published last
    private long head; // the consumer's own
    private long headSeen; // the producer's last reading of head (checked when read)
    private byte touched; // what the reads of bytes not used gave: stored, so that the compiler keeps the reads

    ShmRing(MemorySegment memory, long control, long data, int capacity) {
        this.memory = memory;
        this.control = control;
        this.data = data;
        this.capacity = capacity;
        this.mask = capacity - 1L;
        this.name = control == ShmSegment.RING0_CONTROL ? "request ring" : "answer ring";
    }

    public int capacity() { return capacity; }

    /** The segment the ring lives in: its words (for the futex calls), and its bytes read or written in place. */
    public MemorySegment memory() { return memory; }

    /**
     * Where the ring's bytes begin in {@link #memory()}: {@code 2 x capacity} of them, mapped twice in a row, hold
     * every offset that {@link #claim} and {@link #readAt} return.
     */
    public long bytesAt() { return data; }

    long consumerWord() { return control + CONSUMER_SLEEPING; }

    long producerWord() { return control + PRODUCER_SLEEPING; }

    // ---------------------------------------------------------------- the producer's side

    /** Bytes the producer may write now (a fresh reading of head). */
    public long room() throws ErrnoException {
        long h = (long) LONG.getAcquire(memory, control + HEAD);
        long used = tail - h;
        if (used < 0 || used > capacity) throw corrupt("head", h, tail);
        headSeen = h;
        return capacity - used;
    }

    /** Room for a write of want bytes: from the head read last while it leaves that much, else from a fresh reading. */
    private long roomFor(long want) throws ErrnoException {
        long r = capacity - (tail - headSeen);
        return r >= want ? r : room();
    }

    /** Copies at most len bytes of src from off into the ring (not yet published); returns how many. */
    public long put(MemorySegment src, long off, long len) throws ErrnoException {
        long n = Math.min(len, roomFor(len));
        if (n <= 0) return 0;
        MemorySegment.copy(src, off, memory, data + (tail & mask), n);
        tail += n;
        return n;
    }

    /**
     * Room for n contiguous bytes in place: their offset in {@link #memory()}, or -1 while the ring has less room
     * than that (the head is read afresh then). Written there, they are the ring's once {@link #commit committed},
     * the other side's once published. n is at most the capacity.
     */
    public long claim(long n) throws ErrnoException {
        if (n > capacity || n < 0) throw new IllegalArgumentException("a claim of " + n + " bytes in a ring of "
                + capacity);
        return roomFor(n) >= n ? data + (tail & mask) : -1;
    }

    /** The n bytes written at the last {@link #claim} are the ring's (not yet published). */
    public void commit(long n) { tail += n; }

    /**
     * Copies at most max of iov's pending bytes from the skip-th on (not yet published); returns how many. iov is not
     * advanced.
     */
    public long put(IovArray iov, long skip, long max) throws ErrnoException {
        long want = Math.min(max, iov.remaining() - skip);
        long n = Math.min(want, roomFor(want));
        if (n <= 0) return 0;
        iov.copyPendingTo(skip, memory, data + (tail & mask), n);
        tail += n;
        return n;
    }

    /** Bytes put (or committed) and not published yet. */
    public long unpublished() { return tail - published; }

    /**
     * Publishes what was put; true when the consumer said it sleeps (the caller wakes it: the word is
     * cleared). No fence and no look when the consumer said it never sleeps.
     */
    public boolean publish() {
        LONG.setRelease(memory, control + TAIL, tail);
        published = tail;
        if (saysNeverSleeps(control + CONSUMER_NEVER_SLEEPS)) return false;
        VarHandle.fullFence();
        return takeSleeper(control + CONSUMER_SLEEPING);
    }

    /**
     * This side, the ring's producer, says whether its wait for room never sleeps (spin, yield); once, before its first
     * write.
     */
    public void producerNeverSleeps(boolean never) {
        INT.setVolatile(memory, control + PRODUCER_NEVER_SLEEPS, never ? 1 : 0);
    }

    /**
     * This side, the ring's consumer, says whether its wait for bytes never sleeps (spin, yield); once, before its
     * first look.
     */
    public void consumerNeverSleeps(boolean never) {
        INT.setVolatile(memory, control + CONSUMER_NEVER_SLEEPS, never ? 1 : 0);
    }

    private boolean saysNeverSleeps(long word) { return (int) INT.getOpaque(memory, word) == 1; }

    /** The producer is about to sleep for room: sets its word and returns the room there is now (0: sleep). */
    public long producerSleeps() throws ErrnoException {
        INT.setVolatile(memory, control + PRODUCER_SLEEPING, 1);
        return room();
    }

    /** The producer woke or will not sleep after all. */
    public void producerAwake() { INT.setVolatile(memory, control + PRODUCER_SLEEPING, 0); }

    // ---------------------------------------------------------------- the consumer's side

    /**
     * Bytes the consumer may read now. Each look first reads the byte at the head and the one 63 past it, where the
     * next bytes will be written (the one or two cache lines the next 64 bytes lie in), then the tail: a consumer
     * that looks again and again (a spinning wait) holds those lines too, and after the producer wrote there, its
     * next look brings them over while the tail is still on its way, so that a small message comes with the tail,
     * not in a second wait after it (half of a 32-byte call's 48-byte messages begin in one line and end in the
     * next). The bytes read are not used; the second lies in the ring's mirror whatever the head.
     */
    public long available() throws ErrnoException {
        long at = data + (head & mask);
        touched ^= (byte) (memory.get(ValueLayout.JAVA_BYTE, at) ^ memory.get(ValueLayout.JAVA_BYTE, at + LINE - 1));
        long t = (long) LONG.getAcquire(memory, control + TAIL);
        long n = t - head;
        if (n < 0 || n > capacity) throw corrupt("tail", t, head);
        return n;
    }

    /**
     * Bytes past the first have (those the reader has) that the consumer may read now. Their cache lines are read
     * here, one byte each, all at once (those of the first {@value #TOUCH_BYTES} bytes): a reader in place reads a
     * message's header first and its payload later, and when the payload begins on the next line, that line's miss
     * would come only then, a second wait for a line to come over from the producer's core. Read here, the lines
     * come over together.
     */
    public long availableBeyond(long have) throws ErrnoException {
        long n = available() - have;
        if (n <= 0) return 0;
        long at = data + ((head + have) & mask);
        long end = at + Math.min(n, TOUCH_BYTES);
        byte x = 0;
        for (; at < end; at = (at | (LINE - 1)) + 1) x ^= memory.get(ValueLayout.JAVA_BYTE, at);
        touched = x;
        return n;
    }

    /**
     * Copies at most len bytes out into dst at off and gives their room back; returns how many. True
     * in {@link #producerWaits()} afterwards when the producer said it sleeps for room.
     */
    public long take(MemorySegment dst, long off, long len) throws ErrnoException {
        long n = Math.min(len, available());
        if (n <= 0) return 0;
        MemorySegment.copy(memory, data + (head & mask), dst, off, n);
        release(n);
        return n;
    }

    /**
     * Where the consumer's bytes begin in {@link #memory()}: {@link #available()} of them are contiguous from
     * there, until they are {@link #release released}.
     */
    public long readAt() { return data + (head & mask); }

    /**
     * Gives the room of the first n bytes read in place back to the producer (n at most what {@link #available()}
     * said); the caller then asks {@link #producerWaits()} whether the producer sleeps for that room.
     */
    public void release(long n) {
        head += n;
        LONG.setRelease(memory, control + HEAD, head);
    }

    /**
     * After a take: whether the producer sleeps for room (the word is cleared: the caller wakes it); false, with no
     * fence, when it said it never sleeps.
     */
    public boolean producerWaits() {
        if (saysNeverSleeps(control + PRODUCER_NEVER_SLEEPS)) return false;
        VarHandle.fullFence();
        return takeSleeper(control + PRODUCER_SLEEPING);
    }

    /** The consumer is about to sleep for bytes: sets its word and returns what is there now (0: sleep). */
    public long consumerSleeps() throws ErrnoException {
        INT.setVolatile(memory, control + CONSUMER_SLEEPING, 1);
        return available();
    }

    /** The consumer woke or will not sleep after all. */
    public void consumerAwake() { INT.setVolatile(memory, control + CONSUMER_SLEEPING, 0); }

    private boolean takeSleeper(long word) {
        if ((int) INT.getVolatile(memory, word) == 0) return false;
        INT.setVolatile(memory, word, 0);
        return true;
    }

    private ErrnoException corrupt(String what, long theirs, long ours) {
        return new ErrnoException("shared memory", Errno.EPROTO, String.format(
                "the %s's %s is %d, %d bytes from this side's %d (capacity %d): the peer wrote a bad index",
                name, what, theirs, theirs - ours, ours, capacity));
    }
}
