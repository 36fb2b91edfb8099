package org.sysframe.transport.internal.shm;

import org.sysframe.transport.wire.GroutApi;

/**
 * The one message of the negotiation (docs/wire-format.md, "Shared-memory channel"): a request of a
 * private module that Grout does not use, which a server without shared memory answers ENOTSUP like
 * any unknown type.
 */
public final class ShmProtocol {
    private ShmProtocol() {}

    /** sysframe's private module number. */
    public static final int MODULE = 0x5353;
    /** SHM_OPEN: asks for a shared-memory channel. */
    public static final int OPEN = GroutApi.type(MODULE, 0x0001);
    /** SHM_OPEN's request: u32 version, u32 flags (0). */
    public static final int REQUEST_SIZE = 8;
    /**
     * SHM_OPEN's answer: u32 magic, u32 version, u64 segment size; the memfd comes with its first byte (SCM_RIGHTS).
     */
    public static final int RESPONSE_SIZE = 16;
}
