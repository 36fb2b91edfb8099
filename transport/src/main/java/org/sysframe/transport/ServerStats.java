package org.sysframe.transport;

/**
 * A {@link GroutServer}'s requests so far, over every loop and shared-memory channel: requests read and
 * handed to their handlers (GR_HELLO included), answers with an error status (the handler's own, or the
 * server's: ENOTSUP, EMSGSIZE, EBADMSG, EIO, ENOMEM), and the bytes of the frames read and written,
 * headers included (requests; answers and events).
 */
public record ServerStats(long requests, long errors, long bytesReceived, long bytesSent) {
}
