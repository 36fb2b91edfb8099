package org.sysframe.transport;

import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.Inbox;
import org.sysframe.transport.wire.MessageSpecs;

import org.sysframe.unix.ErrnoException;

/** What a {@link Pipeline} needs from the client it runs on (so that it does not depend on the client class). */
interface PipelineClient {
    ClientLink link();

    Inbox inbox();

    /** The next request id (1..0xffff, wrapping). */
    int nextId();

    MessageSpecs specs();

    /** Fails if the client is broken. */
    void checkUsable() throws ErrnoException;

    boolean isUsable();

    /** Marks the client broken by e and returns e. */
    ErrnoException fail(ErrnoException e);
}
