package org.sysframe.transport.internal.uring;

import org.sysframe.transport.internal.io.NativeBuffer;
import org.sysframe.transport.internal.io.Pool;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.internal.uring.BufferRing;
import org.sysframe.unix.internal.uring.IoUring;
import org.sysframe.unix.internal.uring.Sqe;

import java.io.UncheckedIOException;

/**
 * A loop's ring as its sockets and the loop itself use it, and the books kept on it: operations in
 * flight (those whose last completion has not arrived: the loop may free the ring only at 0), SENDs
 * prepared since the last enter (each completes within the enter that submits it), and sockets whose
 * connection waits for room. Every count changes here only, through what happened. Loop thread only.
 */
final class UringRing {
    final IoUring uring;
    final BufferRing buffers;
    final UringSocket.Host host;
    /**
     * The sockets' output areas, lent while bytes wait to be sent and given back once all were (64 kept
     * idle at most: 4 MiB), so that an idle connection holds none.
     */
    final Pool<NativeBuffer> areas = NativeBuffer.mappedPool(UringOutput.AREA, 64);
    private int inFlight;
    private int sendsPrepared;
    private int waitingForRoom;

    UringRing(IoUring uring, BufferRing buffers, UringSocket.Host host) {
        this.uring = uring;
        this.buffers = buffers;
        this.host = host;
    }

    /** The next SQE, for an operation whose completion is waited for (counted in flight until its last). */
    Sqe sqe() {
        Sqe s = sqeUnawaited();
        inFlight++;
        return s;
    }

    /** The next SQE, for an operation nobody waits for (a SEND's linked NOP: it holds nothing). */
    Sqe sqeUnawaited() {
        try {
            return uring.nextSqe();
        } catch (ErrnoException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last completion of an operation arrived (its CQE had no F_MORE). */
    void lastCompletion() { inFlight--; }

    /** Operations submitted whose last completion has not arrived. */
    int inFlight() { return inFlight; }

    /** A SEND was prepared for the next enter. */
    void sendPrepared() { sendsPrepared++; }

    /** The SENDs prepared since the last call (the enter about to happen submits them). */
    int takeSendsPrepared() {
        int n = sendsPrepared;
        sendsPrepared = 0;
        return n;
    }

    /** A socket's connection starts (true) or stops waiting for room. */
    void waitingForRoom(boolean on) { waitingForRoom += on ? 1 : -1; }

    /** Whether any connection waits for room to send more. */
    boolean anyWaitingForRoom() { return waitingForRoom > 0; }
}
