package org.sysframe.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * The connection events: a server connection opened, closed (with its totals), and, periodically,
 * each open server connection's syscall counts; and a client closed (with its totals).
 */
public final class ConnectionEvent {
    private ConnectionEvent() {}

    /** A server accepted and admitted a connection. */
    @Name("org.sysframe.ConnectionOpened")
    @Label("Grout Connection Opened")
    @Category("sysframe")
    @Description("A server connection was admitted")
    @StackTrace(false)
    public static final class Opened extends Event {

        @Label("Socket") public String socket;
        @Label("Peer PID") public int peerPid;
        @Label("Peer UID") public int peerUid;
        @Label("Loop") public int loop;
    }

    /** A server connection closed: its totals and why. */
    @Name("org.sysframe.ConnectionClosed")
    @Label("Grout Connection Closed")
    @Category("sysframe")
    @Description("A server connection closed, with what it did")
    @StackTrace(false)
    public static final class Closed extends Event {

        @Label("Socket") public String socket;
        @Label("Peer PID") public int peerPid;
        @Label("Peer UID") public int peerUid;
        @Label("Requests") public long requests;
        @Label("Syscalls") @Description("Every syscall of the connection, all kinds") public long syscalls;
        @Label("Syscalls By Kind") public String syscallsByKind;
        @Label("Reason") public String reason;
    }

    /** A client closed: its totals. */
    @Name("org.sysframe.ClientClosed")
    @Label("Grout Client Closed")
    @Category("sysframe")
    @Description("A GroutClient closed, with its syscall counts")
    @StackTrace(false)
    public static final class ClientClosed extends Event {

        @Label("Socket") public String socket;
        @Label("Backend") public String backend;
        @Label("Syscalls") public long syscalls;
        @Label("Syscalls By Kind") public String syscallsByKind;
    }

    /** Each open server connection's counts so far, every period (10 s by default). */
    @Name("org.sysframe.ConnectionSyscalls")
    @Label("Grout Connection Syscalls")
    @Category("sysframe")
    @Description("An open server connection's requests and syscalls so far")
    @StackTrace(false)
    @Period("10 s")
    public static final class Periodic extends Event {
        @Label("Socket") public String socket;
        @Label("Peer PID") public int peerPid;
        @Label("Peer UID") public int peerUid;
        @Label("Requests") public long requests;
        @Label("Syscalls") public long syscalls;
        @Label("Syscalls By Kind") public String syscallsByKind;
    }
}
