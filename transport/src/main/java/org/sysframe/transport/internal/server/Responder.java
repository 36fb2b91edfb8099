package org.sysframe.transport.internal.server;

import org.sysframe.transport.ServerConfig;

import java.lang.foreign.MemorySegment;

/**
 * What a {@code Reply} needs from the connection it answers on: a way to send the answer, to publish
 * an event, and the session state the built-in messages change. Implemented by the server connection.
 */
public interface Responder {
    /** Queues or writes one response; fromRequest payloads lie in the request buffer and are sent in place. */
    void respond(int forId, int status, MemorySegment payload, long off, long len, boolean fromRequest);

    /**
     * Room for a success answer of len payload bytes, written in place by its handler: their offset in
     * {@link #claimMemory()}, valid until {@link #commit} or another answer.
     */
    long claim(long len);

    /** The memory the last {@link #claim}'s offset is in. */
    MemorySegment claimMemory();

    /** Sends the answer to forId claimed last, its len payload bytes written. */
    void commit(int forId, long len);

    /** Publishes an event to every subscriber of the server, on every loop. */
    void publish(int evType, MemorySegment payload, long off, long len, int causePid);

    ServerConfig config();

    /** The server's shared limits (rate limits of the warnings a peer can provoke). */
    ServerLimits limits();

    /** GR_HELLO was accepted: other requests are served from now on. */
    void helloDone();

    void subscribe(int evType, boolean suppressSelf);

    void unsubscribeAll();

    /** 64 bytes of loop-thread memory for built-in answers, valid until the handler returns. */
    MemorySegment scratch();
}
