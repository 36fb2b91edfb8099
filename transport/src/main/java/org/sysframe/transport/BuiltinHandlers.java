package org.sysframe.transport;

import org.sysframe.unix.Errno;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/** The main module's messages every sysframe server answers (PROTOCOL.md, "Server rules"). */
final class BuiltinHandlers {
    private BuiltinHandlers() {}

    static void registerAll(HandlerRegistry r) {
        r.register(GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE, BuiltinHandlers::hello);
        r.register(GroutApi.PING, 0, (req, reply) -> reply.echo(0, req.length()));
        r.register(GroutApi.PING2, GroutApi.PING2_SIZE, GroutApi.PING2_SIZE, (req, reply) -> reply.echo(0, GroutApi.PING2_SIZE));
        r.register(GroutApi.EVENT_SUBSCRIBE, GroutApi.SUBSCRIBE_REQUEST_SIZE, BuiltinHandlers::subscribe);
        r.register(GroutApi.EVENT_UNSUBSCRIBE, 0, BuiltinHandlers::unsubscribe);
    }

    private static void hello(Request req, Reply reply) {
        ServerConnection c = reply.connection();
        GroutServer server = c.server();
        int theirs = req.buffer().get(JAVA_INT_UNALIGNED, req.offset());
        int ours = server.options().apiVersion();
        if (theirs != ours) {
            server.log(Level.WARNING, "pid=%d: GR_HELLO with api_version %d, this server speaks %d", req.peerPid(), theirs, ours);
            reply.error(Errno.EBADMSG);
            return;
        }
        c.helloDone(true);
        if (server.options().emptyHelloResponse()) {
            reply.ok();
            return;
        }
        MemorySegment resp = server.scratch();
        resp.set(JAVA_SHORT_UNALIGNED, 0, (short) server.options().maxIfaces());
        reply.ok(resp, 0, GroutApi.HELLO_RESPONSE_SIZE);
    }

    private static void subscribe(Request req, Reply reply) {
        boolean suppressSelf = req.buffer().get(JAVA_BYTE, req.offset()) != 0;
        int evType = req.buffer().get(JAVA_INT_UNALIGNED, req.offset() + 4);
        ServerConnection c = reply.connection();
        c.subscribe(evType, suppressSelf);
        c.server().subscribed(c);
        reply.ok();
    }

    private static void unsubscribe(Request req, Reply reply) {
        ServerConnection c = reply.connection();
        c.unsubscribeAll();
        c.server().unsubscribed(c);
        reply.ok();
    }

}
