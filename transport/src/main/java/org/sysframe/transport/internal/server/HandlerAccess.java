package org.sysframe.transport.internal.server;

import org.sysframe.transport.Reply;
import org.sysframe.transport.Request;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;

/**
 * What the server's loops do to a handler's {@link Request} and {@link Reply} that a handler may not:
 * make them, fill the request, bind the reply to a connection, read whether and how it was answered. The API
 * package installs the one implementation when {@link Request} is initialized; the methods stay
 * package-private there, so no application sees them.
 */
public interface HandlerAccess {
    /** A request view for a connection to fill (an application cannot make one). */
    Request newRequest();

    /** A reply for a connection to bind (an application cannot make one). */
    Reply newReply();

    void set(Request r, int id, int type, MemorySegment buffer, long offset, long length, int peerPid, int peerUid);

    void bind(Reply r, Responder connection, Request request, int minResponse);

    boolean answered(Reply r);

    int status(Reply r);

    /** The connection being answered, for the built-in messages that change its session. */
    Responder session(Reply r);

    /** A built-in message's failure with a payload that says more (a refused GR_HELLO's version). */
    void error(Reply r, int status, MemorySegment seg, long off, long len);

    /** The implementation (the API package's). */
    static HandlerAccess get() {
        HandlerAccess a = Holder.instance;
        if (a != null) return a;
        try {
            MethodHandles.lookup().ensureInitialized(Request.class);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        return Holder.instance;
    }

    /** Called once, by the API package. */
    static void install(HandlerAccess a) {
        if (Holder.instance != null) throw new IllegalStateException("installed already");
        Holder.instance = a;
    }

    final class Holder {
        private static volatile HandlerAccess instance;

        private Holder() {}
    }
}
