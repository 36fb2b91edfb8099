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

    /** The address family of local (Unix domain) sockets. */
    public static final short AF_UNIX = 1;
    /** The size of sun_path: a file path holds at most 107 bytes and its NUL, an abstract name 108. */
    public static final int PATH_MAX = 108;

    /** {@code struct sockaddr_un}: {@code sun_family}, then {@code sun_path}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sun_family"),
            MemoryLayout.sequenceLayout(PATH_MAX, JAVA_BYTE).withName("sun_path"));

    /** The byte offset of {@code sun_path} in the structure. */
    public static final long SUN_PATH = LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("sun_path"));

    /**
     * The socket path rules, checked before any syscall by everything that takes a path (client
     * connect, server listen, socket file checks): not empty, no NUL byte in a file path (the kernel
     * would end the path at it and name another file), and short enough for sun_path. Fails with
     * EINVAL (ENAMETOOLONG for the length) on one line naming the path, control characters escaped
     * ({@code \0} for NUL), e.g. {@code sockaddr_un(/tmp/a\0b): EINVAL (22) Invalid argument: ...}.
     */
    public static void check(String path) throws ErrnoException {
        String problem = problem(path);
        if (problem == null) return;
        int errno = problem.contains(SUN_PATH_LIMIT) ? Errno.ENAMETOOLONG : Errno.EINVAL;
        throw new ErrnoException("sockaddr_un(" + (path.isEmpty() ? "\"\"" : printable(path)) + ")", errno, problem);
    }

    private static final String SUN_PATH_LIMIT = " bytes, sun_path holds at most ";

    /** Null when path follows {@link #check}'s rules, else what is wrong with it, as {@link #check} says it. */
    public static String problem(String path) {
        if (path.isEmpty()) return "empty socket path";
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        boolean abstractName = bytes[0] == '@';
        // An abstract name is passed with its length: a NUL in it is part of the name, as the kernel takes it.
        int nul = abstractName ? -1 : path.indexOf('\0');
        if (nul >= 0) {
            return "the socket path has a NUL byte at offset " + utf8Offset(path, nul)
                    + " (a file path ends at its first NUL: it would name "
                            + (nul == 0 ? "nothing" : printable(path.substring(0, nul))) + ")";
        }
        int limit = abstractName ? PATH_MAX : PATH_MAX - 1;
        if (bytes.length > limit) return bytes.length + SUN_PATH_LIMIT + limit;
        return null;
    }

    private static int utf8Offset(String path, int charIndex) {
        return path.substring(0, charIndex).getBytes(StandardCharsets.UTF_8).length;
    }

    /** path with NUL shown as {@code \0} and other control characters as {@code \xNN}, for one-line messages. */
    public static String printable(String path) {
        StringBuilder b = new StringBuilder(path.length() + 8);
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == 0) b.append("\\0");
            else if (c < 0x20 || c == 0x7f) b.append(String.format("\\x%02x", (int) c));
            else b.append(c);
        }
        return b.toString();
    }

    /**
     * An address for path in arena, with its length (the socklen_t to pass) in {@link Address#length()}; path checked
     * first ({@link #check}).
     */
    public static Address of(Arena arena, String path) throws ErrnoException {
        check(path);
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        boolean abstractName = bytes[0] == '@';
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
