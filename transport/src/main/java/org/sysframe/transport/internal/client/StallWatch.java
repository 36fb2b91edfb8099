package org.sysframe.transport.internal.client;

import org.sysframe.transport.internal.io.SafeLogger;

import java.lang.System.Logger.Level;
import java.util.Locale;

/**
 * Tells a server that answers one request per socket read (Grout's own API loop does: the rest of
 * what it read waits until more bytes arrive) from a slow one: when a call times out that was on the
 * wire with others, one of them was answered after it was sent, and nothing came for
 * {@value #BOUND_MILLIS} ms since (or half the receive timeout, if shorter), its error says so and
 * names the options that fix it; the first time per connection it is also logged as a WARNING. Only
 * an answer that came while two or more requests were in flight is timed (a caller alone reads no
 * clock). Under the {@link Conduit}'s lock.
 */
final class StallWatch {
    /** How long nothing must come after an answer before a timed-out call is put down to such a server. */
    static final long BOUND_MILLIS = 1000;

    private static final System.Logger LOG = SafeLogger.of("org.sysframe.client");

    private final long boundNanos;
    private long lastAnswerNanos;
    private boolean timed;
    private boolean warned;

    StallWatch(long receiveTimeoutMillis) {
        long bound = receiveTimeoutMillis > 0 ? Math.min(BOUND_MILLIS, receiveTimeoutMillis / 2) : BOUND_MILLIS;
        this.boundNanos = bound * 1_000_000L;
    }

    /** An answer came while inFlight requests were on the wire (its own included). */
    void answered(int inFlight) {
        if (inFlight < 2) return;
        lastAnswerNanos = System.nanoTime();
        timed = true;
    }

    /**
     * What a timed-out call's error adds: the hint, or "" when the stall does not look like one-request-
     * per-read (the call was alone, sent after the last answer, or answers came until recently).
     */
    String hint(Call c, String client, int maxInFlight) {
        if (!timed || maxInFlight == 1 || c.startNanos - lastAnswerNanos >= 0) return "";
        long quiet = System.nanoTime() - lastAnswerNanos;
        if (quiet < boundNanos) return "";
        String hint = String.format(Locale.ROOT,
                "; other requests were on the wire with it, one was answered after it was sent, then"
                + " nothing came for %.1f s: the server looks like one that answers one request per read (as Grout's "
                        + "api.c does):"
                + " use ClientOptions.maxInFlight(1), with connections(n) for callers in parallel (ping: "
                        + "--max-in-flight 1 --connections n)",
                quiet / 1e9);
        if (!warned) {
            warned = true;
            LOG.log(Level.WARNING, "client(" + client + "): a call timed out" + hint);
        }
        return hint;
    }
}
