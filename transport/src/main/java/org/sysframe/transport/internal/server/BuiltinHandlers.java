package org.sysframe.transport.internal.server;

import org.sysframe.transport.Handler;
import org.sysframe.transport.Reply;
import org.sysframe.transport.Request;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.internal.lookup.TypeTable;

import org.sysframe.unix.Errno;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * The main module's messages every sysframe server answers (see the wire-format document, "Server
 * rules"); their minimum sizes are those of {@code MessageSpecs.grout()}.
 */
public final class BuiltinHandlers {
    private static final HandlerAccess ACCESS = HandlerAccess.get();

    private BuiltinHandlers() {}

    /** A new handler table holding the built-in handlers. */
    public static TypeTable<Handler> table() {
        TypeTable<Handler> t = new TypeTable<>();
        t.put(GroutApi.HELLO, BuiltinHandlers::hello);
        t.put(GroutApi.PING, (req, reply) -> reply.echo(0, req.length()));
        t.put(GroutApi.PING2, (req, reply) -> reply.echo(0, GroutApi.PING2_SIZE));
        t.put(GroutApi.EVENT_SUBSCRIBE, BuiltinHandlers::subscribe);
        t.put(GroutApi.EVENT_UNSUBSCRIBE, BuiltinHandlers::unsubscribe);
        return t;
    }

    private static void hello(Request req, Reply reply) {
        Responder c = ACCESS.session(reply);
        int theirs = req.buffer().get(JAVA_INT_UNALIGNED, req.offset());
        int ours = c.config().apiVersion();
        if (theirs != ours) {
            c.limits().badHello.warn("pid=" + req.peerPid() + ": GR_HELLO with api_version " + theirs
                    + ", this server speaks " + ours);
            if (c.config().emptyHelloResponse()) {
                // as Grout's servers of that generation: no payload their clients do not expect
                reply.error(Errno.EBADMSG);
                return;
            }
            // The version this server speaks goes with the refusal (a client drains an error's payload), so
            // the client can say which version to use.
            MemorySegment ver = c.scratch();
            ver.set(JAVA_INT_UNALIGNED, 0, ours);
            ACCESS.error(reply, Errno.EBADMSG, ver, 0, 4);
            return;
        }
        c.helloDone();
        if (c.config().emptyHelloResponse()) {
            reply.ok();
            return;
        }
        MemorySegment resp = c.scratch();
        resp.set(JAVA_SHORT_UNALIGNED, 0, (short) c.config().maxIfaces());
        reply.ok(resp, 0, GroutApi.HELLO_RESPONSE_SIZE);
    }

    private static void subscribe(Request req, Reply reply) {
        boolean suppressSelf = req.buffer().get(JAVA_BYTE, req.offset()) != 0;
        int evType = req.buffer().get(JAVA_INT_UNALIGNED, req.offset() + 4);
        ACCESS.session(reply).subscribe(evType, suppressSelf);
        reply.ok();
    }

    private static void unsubscribe(Request req, Reply reply) {
        ACCESS.session(reply).unsubscribeAll();
        reply.ok();
    }
}
