package org.sysframe.unix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct sockaddr_un} (sys/un.h): a 2-byte family and a 108-byte path, 110 bytes in all.
 *
 * <p>A path starting with {@code @} names a Linux abstract-namespace socket: the {@code @} becomes the
 * leading NUL byte and no terminator is added. File permissions do not apply to those.
 */
public final class SockaddrUn {
    private SockaddrUn() {}

    public static final short AF_UNIX = 1;
    public static final int PATH_MAX = 108;

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sun_family"),
            MemoryLayout.sequenceLayout(PATH_MAX, JAVA_BYTE).withName("sun_path"));

    public static final long SUN_PATH = LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("sun_path"));

    /** An address for path in arena, with its length (the socklen_t to pass) in {@link Address#length()}. */
    public static Address of(Arena arena, String path) throws ErrnoException {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        boolean abstractName = bytes.length > 0 && bytes[0] == '@';
        if (bytes.length == 0) throw new ErrnoException("sockaddr_un(\"\")", Errno.ENOENT, "empty socket path");
        // A filesystem path needs its NUL terminator inside sun_path; an abstract name does not.
        int limit = abstractName ? PATH_MAX : PATH_MAX - 1;
        if (bytes.length > limit) {
            throw new ErrnoException("sockaddr_un(" + path + ")", Errno.ENAMETOOLONG,
                    bytes.length + " bytes, sun_path holds at most " + limit);
        }
        MemorySegment sa = arena.allocate(LAYOUT);
        sa.set(JAVA_SHORT, 0, AF_UNIX);
        MemorySegment.copy(bytes, 0, sa, JAVA_BYTE, SUN_PATH, bytes.length);
        if (abstractName) sa.set(JAVA_BYTE, SUN_PATH, (byte) 0);
        int len = (int) SUN_PATH + bytes.length + (abstractName ? 0 : 1);
        return new Address(sa, len, abstractName);
    }

    /** A filled {@code sockaddr_un}, its socklen_t, and whether it is in the abstract namespace. */
    public record Address(MemorySegment segment, int length, boolean isAbstract) {}
}
