package org.sysframe.transport;

import org.sysframe.transport.internal.server.HandlerAccess;
import org.sysframe.transport.internal.server.Responder;

import java.lang.foreign.MemorySegment;

/** The server's access to what handlers may not touch (see {@link HandlerAccess}); installed by {@link Request}. */
final class HandlerAccessImpl implements HandlerAccess {
    @Override
    public Request newRequest() { return new Request(); }

    @Override
    public Reply newReply() { return new Reply(); }

    @Override
    public void set(Request r, int id, int type, MemorySegment buffer, long offset, long length, int peerPid,
            int peerUid) {
        r.set(id, type, buffer, offset, length, peerPid, peerUid);
    }

    @Override
    public void bind(Reply r, Responder connection, Request request, int minResponse) {
        r.bind(connection, request, minResponse);
    }

    @Override
    public boolean answered(Reply r) { return r.answered(); }

    @Override
    public int status(Reply r) { return r.status(); }

    @Override
    public Responder session(Reply r) { return r.session(); }

    @Override
    public void error(Reply r, int status, MemorySegment seg, long off, long len) { r.error(status, seg, off, len); }
}
