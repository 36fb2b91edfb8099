package org.sysframe.bench.peer;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The payload every Java peer pings with, and the check that an answer echoes it: every byte compared in place, no
 * copy, no allocation.
 */
final class Echo {
    private Echo() {}

    /** Writes the first len bytes of the ping payload into payload. */
    static void fill(MemorySegment payload, int len) {
        for (int i = 0; i < len; i++) payload.set(JAVA_BYTE, i, (byte) (i * 31 + 7));
    }

    /** Whether the length bytes at buffer[offset] are the len bytes of sent. */
    static boolean echoes(MemorySegment sent, int len, MemorySegment buffer, long offset, long length) {
        return length == len && MemorySegment.mismatch(sent, 0, len, buffer, offset, offset + len) < 0;
    }

    /** Throws {@link #failure} unless the answer echoes sent. */
    static void check(int type, MemorySegment sent, int len, MemorySegment buffer, long offset, long length)
            throws ErrnoException {
        if (!echoes(sent, len, buffer, offset, length)) throw failure(type, sent, len, buffer, offset, length);
    }

    /**
     * Why an answer of length bytes at buffer[offset] is not the echo of len bytes of sent, as one
     * line: a GR_PING answered with fewer bytes does not echo (Grout's own GR_PING of some revisions
     * answers with no payload), more bytes or other bytes differ.
     */
    static ErrnoException failure(int type, MemorySegment sent, int len, MemorySegment buffer, long offset,
            long length) {
        String what = GroutApi.typeName(type);
        if (length < len) {
            return new ErrnoException("ping", Errno.EBADMSG, "the server's " + what + " does not echo (answered "
                    + length + " of " + len
                    + " bytes): use -l 0" + (type == GroutApi.PING ? " or --ping2" : ""));
        }
        if (length > len) return new ErrnoException("ping", Errno.EBADMSG, "echo differs: " + what + " answered "
                + length + " bytes for " + len + " sent");
        long at = MemorySegment.mismatch(sent, 0, len, buffer, offset, offset + len);
        return new ErrnoException("ping", Errno.EBADMSG,
                String.format(Locale.ROOT, "echo differs at byte %d of %d: sent 0x%02x, answered 0x%02x",
                at, len, sent.get(JAVA_BYTE, at) & 0xff, buffer.get(JAVA_BYTE, offset + at) & 0xff));
    }
}
