package org.sysframe.bench.explore;

import org.sysframe.bench.peer.Pairing;
import org.sysframe.transport.FlushMode;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.WaitMode;

import java.util.Arrays;
import java.util.Locale;

/**
 * One setting a sweep varies while every other setting of the held pairing stays: its name on the
 * command line, the values it accepts, and how a value changes a {@link Pairing}.
 */
public enum SweepParameter {
    /** The copy threshold of every copying send (client and server); gathers or splits above it. */
    COPY_THRESHOLD("copy-threshold", Limits.COPY_THRESHOLD.accepted()) {
        @Override public String check(String value) {
            return Integer.toString(Limits.COPY_THRESHOLD.parse(given(value), value));
        }

        @Override public Pairing apply(Pairing p, String value) {
            if (!copies(p.clientSend()) && !copies(p.serverSend())) {
                throw new IllegalArgumentException(id + ": the held pairing copies on neither side (client-send "
                        + p.clientSend()
                        + ", server-send " + p.serverSend() + "); hold one that does with --base");
            }
            int t = Integer.parseInt(value);
            return with(p, value, copies(p.clientSend()) ? new SendFraming(p.clientSend().kind(), t) : p.clientSend(),
                    p.clientRecv(), copies(p.serverSend()) ? new SendFraming(p.serverSend().kind(), t) : p.serverSend(),
                            p.serverFlush(), p.highWater(),
                    p.clientWait(), p.depth());
        }

        @Override public String held(Pairing p) {
            return Integer.toString(copies(p.clientSend()) ? p.clientSend().copyThreshold()
                    : p.serverSend().copyThreshold());
        }
    },
    /** The client's read-ahead buffer (reads ahead at every value, even when the held pairing reads exactly). */
    READAHEAD("readahead", Limits.READAHEAD.accepted()) {
        @Override public String check(String value) {
            return Integer.toString(Limits.READAHEAD.parse(given(value), value));
        }

        @Override public Pairing apply(Pairing p, String value) {
            return with(p, value, p.clientSend(), RecvFraming.readAhead(Integer.parseInt(value)), p.serverSend(),
                    p.serverFlush(), p.highWater(), p.clientWait(), p.depth());
        }

        @Override public String held(Pairing p) {
            return p.clientRecv().readAhead() ? Integer.toString(p.clientRecv().bufferSize()) : "";
        }
    },
    /** The server's early-flush mark (only a deferred server has one). */
    HIGH_WATER("high-water", Limits.HIGH_WATER.accepted()) {
        @Override public String check(String value) {
            return Integer.toString(Limits.HIGH_WATER.parse(given(value), value));
        }

        @Override public Pairing apply(Pairing p, String value) {
            if (p.serverFlush() != FlushMode.DEFERRED) {
                throw new IllegalArgumentException(id
                        + ": the held pairing flushes immediately, so it has no high-water mark; hold one"
                        + " with flush=deferred");
            }
            return with(p, value, p.clientSend(), p.clientRecv(), p.serverSend(), p.serverFlush(),
                    Integer.parseInt(value), p.clientWait(), p.depth());
        }

        @Override public String held(Pairing p) { return Integer.toString(p.highWater()); }
    },
    /** Requests in flight (a pipelined client above 1). */
    DEPTH("depth", Limits.DEPTH.accepted()) {
        @Override public String check(String value) {
            return Integer.toString(Limits.DEPTH.parse(given(value), value));
        }

        @Override public Pairing apply(Pairing p, String value) {
            return with(p, value, p.clientSend(), p.clientRecv(), p.serverSend(), p.serverFlush(), p.highWater(),
                    p.clientWait(), Integer.parseInt(value));
        }

        @Override public String held(Pairing p) { return Integer.toString(p.depth()); }
    },
    /** The client's spin budget before it blocks: 0 blocks at once, forever never blocks. */
    SPIN("spin",
            "0 (block), a duration of ns, us, ms or s up to 10s such as 50us (spin, then block), or forever (spin "
            + "only)") {
        @Override public String check(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            if (v.equals("0") || v.equals("forever")) return v;
            try {
                return WaitMode.parse("spin:" + v).toString().substring("spin:".length());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(given(value) + ": not a spin budget; accepted " + accepted);
            }
        }

        @Override public Pairing apply(Pairing p, String value) {
            WaitMode w = value.equals("0") ? WaitMode.BLOCK : value.equals("forever") ? WaitMode.SPIN
                    : WaitMode.parse("spin:" + value);
            return with(p, value, p.clientSend(), p.clientRecv(), p.serverSend(), p.serverFlush(), p.highWater(), w,
                    p.depth());
        }

        @Override public String held(Pairing p) {
            return switch (p.clientWait().kind()) {
                case BLOCK -> "0";
                case SPIN -> "forever";
                case SPIN_THEN_BLOCK -> p.clientWait().toString().substring("spin:".length());
                case YIELD -> "";
            };
        }
    },
    /** How the client waits for its answer: block, spin, spin:DURATION or yield. */
    WAIT("wait", "block, spin, spin:DURATION (up to 10s, e.g. spin:50us) or yield") {
        @Override public String check(String value) { return PairingSpec.wait(id, value).toString(); }

        @Override public Pairing apply(Pairing p, String value) {
            return with(p, value, p.clientSend(), p.clientRecv(), p.serverSend(), p.serverFlush(), p.highWater(),
                    WaitMode.parse(value), p.depth());
        }

        @Override public String held(Pairing p) { return p.clientWait().toString(); }
    },
    /** When the server writes: each response at once, or a read's responses together. */
    FLUSH("flush", "immediate or deferred") {
        @Override public String check(String value) {
            return PairingSpec.flush(id, value).name().toLowerCase(Locale.ROOT);
        }

        @Override public Pairing apply(Pairing p, String value) {
            return with(p, value, p.clientSend(), p.clientRecv(), p.serverSend(), FlushMode.parse(value),
                    p.highWater(), p.clientWait(), p.depth());
        }

        @Override public String held(Pairing p) { return p.serverFlush().name().toLowerCase(Locale.ROOT); }
    };

    /** The name on the command line, e.g. {@code copy-threshold}. */
    public final String id;
    /** What it accepts, for a refusal. */
    public final String accepted;

    SweepParameter(String id, String accepted) {
        this.id = id;
        this.accepted = accepted;
    }

    /**
     * The value in its canonical form (e.g. {@code 0512} is {@code 512}), or one line naming it and the accepted range.
     */
    public abstract String check(String value);

    /** The held pairing with this parameter set to value (canonical), named {@code id=value}. */
    public abstract Pairing apply(Pairing held, String value);

    /** The held pairing's own value of this parameter (canonical), or "" when it has none. */
    public abstract String held(Pairing p);

    /** The row name of value, e.g. {@code copy-threshold=512}. */
    public String given(String value) { return id + "=" + value; }

    /** e.g. {@code copy-threshold (16..131072 bytes), readahead (...)...}: every parameter and what it accepts. */
    static String all() {
        return String.join(", ", Arrays.stream(values()).map(p -> p.id + " (" + p.accepted + ")").toList());
    }

    /** The parameter named id, or one line naming it and every parameter. */
    public static SweepParameter named(String id) {
        for (SweepParameter p : values()) if (p.id.equals(id)) return p;
        throw new IllegalArgumentException("unknown parameter '" + id + "'; sweepable: " + all());
    }

    static boolean copies(SendFraming f) {
        return f.kind() == SendFraming.Kind.COPY || f.kind() == SendFraming.Kind.COPY_GATHER;
    }

    Pairing with(Pairing p, String value, SendFraming cs, RecvFraming cr, SendFraming ss, FlushMode flush,
            int highWater, WaitMode wait, int depth) {
        Pairing out = new Pairing(given(value), "", cs, cr, ss, flush, highWater, wait, p.clientCpu(), p.serverCpu(),
                depth, p.clientBackend(), p.serverBackend());
        return out.renamed(out.name(), "held " + p.name() + ", " + given(value));
    }
}
