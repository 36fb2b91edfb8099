/**
 * Grout's framed request/response API over AF_UNIX stream sockets: wire headers, framing
 * strategies, {@link org.sysframe.transport.GroutClient} and {@link org.sysframe.transport.GroutServer}.
 *
 * <p>Calls no restricted method itself: native access is needed by {@code org.sysframe.unix} only.
 */
module org.sysframe.transport {
    requires transitive org.sysframe.unix;
    requires jdk.jfr;

    exports org.sysframe.transport;
    exports org.sysframe.transport.wire;
}
