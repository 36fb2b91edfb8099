package org.sysframe.transport;

import org.sysframe.transport.internal.client.Call;
import org.sysframe.transport.internal.client.Conduit;
import org.sysframe.transport.internal.jfr.Jfr;
import org.sysframe.transport.internal.jfr.RoundTripEvent;
import org.sysframe.transport.wire.MessageSpecs;

import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A future's call ({@link GroutClient#callAsync}): sent (or queued, or held under the in-flight cap)
 * on one connection, completed by whichever thread receives its answer with a copy the caller owns,
 * or failed with the error that ended it; past the receive timeout, ETIMEDOUT and the call abandoned.
 */
final class AsyncCall extends CompletableFuture<Response> {
    private final Call call = Call.of(Call.Kind.FUTURE);
    private final Conduit conduit;
    private final RoundTrips trips;
    private final MessageSpecs specs;
    private final int type;
    private final long requestBytes;
    private final Thread caller;
    private final RoundTripEvent event;

    AsyncCall(Conduit conduit, RoundTrips trips, MessageSpecs specs, int type, long requestBytes) {
        this.conduit = conduit;
        this.trips = trips;
        this.specs = specs;
        this.type = type;
        this.requestBytes = requestBytes;
        this.caller = Thread.currentThread();
        this.event = Jfr.roundTrip() ? new RoundTripEvent() : null;
        if (event != null) event.begin();
        call.attach(this);
    }

    /**
     * Sends the request (the payload is not kept: copied if it must wait); the future the caller gets, bounded by the
     * receive timeout.
     */
    CompletableFuture<Response> send(MemorySegment payload, long offset, long length) throws ErrnoException {
        conduit.standby().start();
        conduit.send(call, type, payload, offset, length);
        long timeout = conduit.receiveTimeoutNanos();
        if (timeout <= 0) return this;
        return orTimeout(timeout, TimeUnit.NANOSECONDS).handle((v, t) -> {
            if (t == null) return v;
            Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
            if (cause instanceof TimeoutException) {
                conduit.ends().abandon(call);
                throw new CompletionException(conduit.ends().timedOut(call));
            }
            throw t instanceof CompletionException ce ? ce : new CompletionException(t);
        });
    }

    /**
     * The router completes a future's call (its answer copied in, or its error): the {@code Router.Completion} of every
     * connection.
     */
    static void complete(Call c) {
        ((AsyncCall) c.attachment()).completeWith(c);
    }

    private void completeWith(Call c) {
        int status = -1;
        try {
            if (c.failed()) {
                completeExceptionally(c.error());
                return;
            }
            byte[] copy = c.answer().asSlice(0, c.length()).toArray(ValueLayout.JAVA_BYTE);
            Response r = new Response();
            r.set(c.id(), c.status(), MemorySegment.ofArray(copy), 0, copy.length);
            try {
                GroutClient.check(specs, type, r);
                status = 0;
                complete(r);
            } catch (ApiException e) {
                status = e.status();
                completeExceptionally(e);
            } catch (ErrnoException e) {
                completeExceptionally(e);
            }
        } finally {
            if (event != null) {
                event.end();
                event.responseBytes = c.length();
                trips.record(event, "async", type, requestBytes, status, caller);
            }
        }
    }
}
