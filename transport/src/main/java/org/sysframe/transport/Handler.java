package org.sysframe.transport;

/**
 * Answers one request type on the server's event-loop thread. It must not block. It answers through
 * {@code reply} exactly once (a status, a payload, or a stream ending with {@link Reply#end()}); a
 * handler that returns without answering gets EIO sent for it, one that throws gets EIO (ENOMEM for
 * OutOfMemoryError), and both are logged.
 */
@FunctionalInterface
public interface Handler {
    /** Answers request through reply, exactly once, without blocking. */
    void handle(Request request, Reply reply) throws Exception;
}
