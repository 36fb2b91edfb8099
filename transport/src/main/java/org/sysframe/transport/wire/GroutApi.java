package org.sysframe.transport.wire;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SockaddrUn;

/**
 * Constants of Grout's API protocol (docs/wire-format.md): message types of the main module, limits,
 * and the socket path rules.
 */
public final class GroutApi {
    private GroutApi() {}

    /** Largest payload of any message: 128 KiB. A larger request closes the connection. */
    public static final int MAX_MSG_LEN = 128 * 1024;
    /** Subscribes to every event type. */
    public static final int EVENT_ALL = 0xffffffff;
    /** The API version Grout speaks: 11, what clients send in GR_HELLO and servers accept by default. */
    public static final int DEFAULT_API_VERSION = 11;
    /** The socket path when {@link #SOCK_PATH_ENV} is not set: {@code /run/grout.sock}. */
    public static final String DEFAULT_SOCK_PATH = "/run/grout.sock";
    /** The environment variable that names the socket path: {@code GROUT_SOCK_PATH}. */
    public static final String SOCK_PATH_ENV = "GROUT_SOCK_PATH";

    /** The main module, {@code 0xcafe}: the high 16 bits of its message types. */
    public static final int MAIN_MODULE = 0xcafe;
    /** GR_HELLO: the first request, with the API version; answered with {@code u16 max_ifaces}. */
    public static final int HELLO = type(MAIN_MODULE, 0x1981);
    /** GR_LOG_PACKETS_SET: turns packet logging on or off ({@code bool enabled}). */
    public static final int LOG_PACKETS_SET = type(MAIN_MODULE, 0x1982);
    /** GR_LOG_LEVEL_LIST: answered with a stream of {@code char name[64]; u32 level}. */
    public static final int LOG_LEVEL_LIST = type(MAIN_MODULE, 0x1983);
    /** GR_LOG_LEVEL_SET: sets {@code u32 level} for the names matching {@code char pattern[64]}. */
    public static final int LOG_LEVEL_SET = type(MAIN_MODULE, 0x1984);
    /** GR_EVENT_SUBSCRIBE: subscribes the connection to an event type ({@link #EVENT_ALL}: all). */
    public static final int EVENT_SUBSCRIBE = type(MAIN_MODULE, 0x1985);
    /** GR_EVENT_UNSUBSCRIBE: removes all of the connection's subscriptions. */
    public static final int EVENT_UNSUBSCRIBE = type(MAIN_MODULE, 0x1986);
    /** GR_PING: answered with the same bytes (0 to 128 KiB). */
    public static final int PING = type(MAIN_MODULE, 0x1987);
    /** GR_PING2: answered with the same 32 bytes. */
    public static final int PING2 = type(MAIN_MODULE, 0x1988);

    /** GR_HELLO request payload: {@code u32 api_version; char version[128]}. */
    public static final int HELLO_REQUEST_SIZE = 4 + 128;
    /** GR_HELLO response payload: {@code u16 max_ifaces}. */
    public static final int HELLO_RESPONSE_SIZE = 2;
    /** GR_EVENT_SUBSCRIBE request payload: {@code bool suppress_self_events; u32 ev_type} with padding. */
    public static final int SUBSCRIBE_REQUEST_SIZE = 8;
    /** GR_PING2 payload, both ways. */
    public static final int PING2_SIZE = 32;

    /** {@code (module << 16) | id}, as Grout's REQUEST_TYPE and EVENT_TYPE macros. */
    public static int type(int module, int id) {
        return ((module & 0xffff) << 16) | (id & 0xffff);
    }

    /** $GROUT_SOCK_PATH when set and not empty, else /run/grout.sock: what Grout's tools do. */
    public static String defaultSocketPath() {
        String env = System.getenv(SOCK_PATH_ENV);
        return env == null || env.isEmpty() ? DEFAULT_SOCK_PATH : env;
    }

    /**
     * The socket path rules shared by client and server ({@link org.sysframe.unix.SockaddrUn#check}):
     * a path starting with {@code @} is an abstract name; any other is a file path, which must not be
     * empty, must hold no NUL byte (the kernel would end it there and name another file) and fits in
     * 107 bytes. A path that breaks them fails with one EINVAL (ENAMETOOLONG) line naming it, NUL shown
     * as {@code \0}, before any syscall.
     */
    public static void checkSocketPath(String path) throws ErrnoException {
        SockaddrUn.check(path);
    }

    /** A readable name for the main module's types, else the hex value. */
    public static String typeName(int type) {
        if (type == HELLO) return "GR_HELLO";
        if (type == LOG_PACKETS_SET) return "GR_LOG_PACKETS_SET";
        if (type == LOG_LEVEL_LIST) return "GR_LOG_LEVEL_LIST";
        if (type == LOG_LEVEL_SET) return "GR_LOG_LEVEL_SET";
        if (type == EVENT_SUBSCRIBE) return "GR_EVENT_SUBSCRIBE";
        if (type == EVENT_UNSUBSCRIBE) return "GR_EVENT_UNSUBSCRIBE";
        if (type == PING) return "GR_PING";
        if (type == PING2) return "GR_PING2";
        return String.format("0x%08x", type);
    }
}
