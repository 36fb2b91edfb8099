package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Linux errno values (x86-64, asm-generic/errno*.h) with their symbolic names and cached
 * {@code strerror} texts, and access to the errno captured in a call-state segment.
 */
public final class Errno {
    private Errno() {}

    /** Operation not permitted. */
    public static final int EPERM = 1;
    /** No such file or directory. */
    public static final int ENOENT = 2;
    /** No such process. */
    public static final int ESRCH = 3;
    /** Interrupted system call. */
    public static final int EINTR = 4;
    /** Input/output error. */
    public static final int EIO = 5;
    /** Bad file descriptor. */
    public static final int EBADF = 9;
    /** Resource temporarily unavailable (EWOULDBLOCK). */
    public static final int EAGAIN = 11;
    /** Cannot allocate memory. */
    public static final int ENOMEM = 12;
    /** Permission denied. */
    public static final int EACCES = 13;
    /** Device or resource busy. */
    public static final int EBUSY = 16;
    /** File exists. */
    public static final int EEXIST = 17;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Too many open files in system. */
    public static final int ENFILE = 23;
    /** Too many open files. */
    public static final int EMFILE = 24;
    /** Broken pipe. */
    public static final int EPIPE = 32;
    /** File name too long. */
    public static final int ENAMETOOLONG = 36;
    /** Function not implemented. */
    public static final int ENOSYS = 38;
    /** Timer expired. */
    public static final int ETIME = 62;
    /** Protocol error. */
    public static final int EPROTO = 71;
    /** Bad message. */
    public static final int EBADMSG = 74;
    /** Socket operation on non-socket. */
    public static final int ENOTSOCK = 88;
    /** Message too long. */
    public static final int EMSGSIZE = 90;
    /** Operation not supported (EOPNOTSUPP). */
    public static final int ENOTSUP = 95;
    /** Address already in use. */
    public static final int EADDRINUSE = 98;
    /** Software caused connection abort. */
    public static final int ECONNABORTED = 103;
    /** Connection reset by peer. */
    public static final int ECONNRESET = 104;
    /** No buffer space available. */
    public static final int ENOBUFS = 105;
    /** Transport endpoint is not connected. */
    public static final int ENOTCONN = 107;
    /** Connection timed out. */
    public static final int ETIMEDOUT = 110;
    /** Connection refused. */
    public static final int ECONNREFUSED = 111;
    /** Operation already in progress. */
    public static final int EALREADY = 114;
    /** Operation canceled. */
    public static final int ECANCELED = 125;

    // Index = errno. Names from the kernel's uapi headers; gaps are values Linux does not use.
    private static final String[] NAMES = {
        null, "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF", "ECHILD",
        "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV", "ENODEV", "ENOTDIR",
        "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS",
        "EMLINK", "EPIPE", "EDOM", "ERANGE", "EDEADLK", "ENAMETOOLONG", "ENOLCK", "ENOSYS", "ENOTEMPTY", "ELOOP",
        null, "ENOMSG", "EIDRM", "ECHRNG", "EL2NSYNC", "EL3HLT", "EL3RST", "ELNRNG", "EUNATCH", "ENOCSI",
        "EL2HLT", "EBADE", "EBADR", "EXFULL", "ENOANO", "EBADRQC", "EBADSLT", null, "EBFONT", "ENOSTR",
        "ENODATA", "ETIME", "ENOSR", "ENONET", "ENOPKG", "EREMOTE", "ENOLINK", "EADV", "ESRMNT", "ECOMM",
        "EPROTO", "EMULTIHOP", "EDOTDOT", "EBADMSG", "EOVERFLOW", "ENOTUNIQ", "EBADFD", "EREMCHG", "ELIBACC", "ELIBBAD",
        "ELIBSCN", "ELIBMAX", "ELIBEXEC", "EILSEQ", "ERESTART", "ESTRPIPE", "EUSERS", "ENOTSOCK", "EDESTADDRREQ",
                "EMSGSIZE",
        "EPROTOTYPE", "ENOPROTOOPT", "EPROTONOSUPPORT", "ESOCKTNOSUPPORT", "EOPNOTSUPP", "EPFNOSUPPORT",
                "EAFNOSUPPORT", "EADDRINUSE", "EADDRNOTAVAIL", "ENETDOWN",
        "ENETUNREACH", "ENETRESET", "ECONNABORTED", "ECONNRESET", "ENOBUFS", "EISCONN", "ENOTCONN", "ESHUTDOWN",
                "ETOOMANYREFS", "ETIMEDOUT",
        "ECONNREFUSED", "EHOSTDOWN", "EHOSTUNREACH", "EALREADY", "EINPROGRESS", "ESTALE", "EUCLEAN", "ENOTNAM",
                "ENAVAIL", "EISNAM",
        "EREMOTEIO", "EDQUOT", "ENOMEDIUM", "EMEDIUMTYPE", "ECANCELED", "ENOKEY", "EKEYEXPIRED", "EKEYREVOKED",
                "EKEYREJECTED", "EOWNERDEAD",
        "ENOTRECOVERABLE", "ERFKILL", "EHWPOISON",
    };

    private static final String[] TEXTS = new String[NAMES.length];

    /**
     * Symbolic name of an errno value, e.g. {@code ECONNREFUSED} for 111. {@code EOPNOTSUPP} and
     * {@code ENOTSUP} share 95 on Linux; Grout's protocol speaks of ENOTSUP, so that is the name given.
     */
    public static String name(int errno) {
        if (errno == ENOTSUP) return "ENOTSUP";
        if (errno > 0 && errno < NAMES.length && NAMES[errno] != null) return NAMES[errno];
        return "E" + errno;
    }

    /** libc's {@code strerror} text for errno, cached after the first look-up. */
    public static String text(int errno) {
        if (errno <= 0 || errno >= TEXTS.length) return LibC.strerror(errno);
        String s = TEXTS[errno];
        if (s == null) {
            s = LibC.strerror(errno);
            TEXTS[errno] = s; // benign race: every thread computes the same immutable string
        }
        return s;
    }

    /** A new errno capture segment (call state) in arena. One per owner: never share one between threads. */
    public static MemorySegment newCallState(Arena arena) {
        return LibC.newCallState(arena);
    }

    /** The errno a downcall stored in its capture segment. */
    public static int read(MemorySegment callState) {
        return callState.get(JAVA_INT, LibC.ERRNO_OFFSET);
    }
}
