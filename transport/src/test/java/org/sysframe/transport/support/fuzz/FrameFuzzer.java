package org.sysframe.transport.support.fuzz;

import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fuzzer: one connection's request frames (random, mutated, truncated, over-size) from a seed alone, with the
 * answers they must get.
 */
public final class FrameFuzzer {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;

    private FrameFuzzer() {}

    /**
     * How a connection ends: a final ping answered; the server closing on an over-size payload_len
     * (then EOF); part of a header then shutdown(SHUT_WR) (then EOF); part of a header then close().
     */
    public enum End { FINAL_PING, SERVER_CLOSES, HALF_CLOSE, CLOSE_MID_HEADER }

    /**
     * The sender stops at {@code at} until {@code responses} answers were read (and, if asked, other clients were
     * served).
     */
    record Barrier(int at, int responses, boolean othersServed) {}

    public enum Kind {
        PING, PING_EMPTY, PING_NEAR_MAX, ZERO_LEN_OTHER, UNKNOWN_TYPE, SHORT_BUILTIN, OTHER_BUILTIN, MUTATED,
        GARBAGE_AFTER_FRAME, HALF_HEADER_WAIT, OVERSIZE, TRUNCATED_THEN_CLOSE
    }

    static final int[] HANDLED = {GroutApi.HELLO, GroutApi.PING, GroutApi.PING2, GroutApi.EVENT_SUBSCRIBE,
            GroutApi.EVENT_UNSUBSCRIBE};
    static final int[] ZERO_LEN_TYPES = {GroutApi.HELLO, GroutApi.PING2, GroutApi.EVENT_SUBSCRIBE,
            GroutApi.EVENT_UNSUBSCRIBE,
        GroutApi.LOG_PACKETS_SET, GroutApi.LOG_LEVEL_LIST, GroutApi.LOG_LEVEL_SET, 0, 0xffffffff};

    /** One connection's bytes, the answers they must get, where the sender pauses, and how it ends. */
    static final class Script {
        final long seed;
        final WireBytes s = new WireBytes();
        final ServerModel m = new ServerModel(s);
        final List<Barrier> barriers = new ArrayList<>();
        final int[] kinds = new int[Kind.values().length];
        End end;
        int frames;

        Script(long seed) {
            this.seed = seed;
        }

        String name() { return "connection seed " + Long.toHexString(seed); }
    }

    static int unknownType(Random r) {
        while (true) {
            int t = r.nextInt();
            boolean handled = false;
            for (int h : HANDLED) handled |= h == t;
            if (!handled) return t;
        }
    }

    static void ping(WireBytes s, Random r, int len) {
        s.header(r.nextInt(), GroutApi.PING, len).random(r, len);
    }

    /** One well-formed frame of a random built-in type (the thing mutations start from). */
    static void validFrame(WireBytes s, Random r) {
        switch (r.nextInt(5)) {
            case 0 -> ping(s, r, r.nextInt(300));
            case 1 -> s.header(r.nextInt(), GroutApi.PING2, GroutApi.PING2_SIZE).random(r, GroutApi.PING2_SIZE);
            case 2 -> s.header(r.nextInt(), GroutApi.EVENT_SUBSCRIBE, 8).put((byte) r.nextInt(2)).zeros(3)
                    .u32(r.nextInt());
            case 3 -> s.header(r.nextInt(), GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE)
                    .u32(GroutApi.DEFAULT_API_VERSION).random(r, 127).put((byte) 0);
            default -> s.header(r.nextInt(), GroutApi.EVENT_UNSUBSCRIBE, 0);
        }
    }

    /**
     * Completes a request left partial by garbage or a mutation, so that what follows is parsed from a
     * header boundary: the missing header bytes are random for id and type and 0 for payload_len (so
     * payload_len is what the garbage already gave), then random payload bytes. May close.
     */
    static void realign(Script sc, Random r) {
        ServerModel m = sc.m;
        WireBytes s = sc.s;
        int have = m.partial();
        if (have == 0 || m.closed()) return;
        if (have < HDR) {
            for (int i = have; i < HDR; i++) s.put(i < 8 ? (byte) r.nextInt() : 0);
            m.advance();
            if (m.closed() || m.partial() == 0) return;
            have = m.partial();
        }
        long plen = Integer.toUnsignedLong(s.u32At(m.next + 8));
        s.random(r, (int) (HDR + plen - have));
        m.advance();
        if (!m.closed() && m.partial() != 0) throw new AssertionError("realign left " + m.partial() + " bytes");
    }

    static long oversizeLen(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> MAX + 1L;
            case 1 -> 0xffffffffL;
            case 2 -> MAX + 1L + r.nextInt(1 << 20);
            default -> Integer.toUnsignedLong(r.nextInt() | 0x80000000);
        };
    }

    /** The frames of one connection (after its hello), from its seed alone. */
    static Script generate(long seed) {
        Script sc = new Script(seed);
        Random r = new Random(seed);
        WireBytes s = sc.s;
        ServerModel m = sc.m;
        int cap = 20 + r.nextInt(600);
        while (sc.frames < cap && !m.closed() && sc.end == null) {
            if (r.nextInt(4) == 0) realign(sc, r); // else a partial request swallows the next frame's bytes
            if (m.closed()) break;
            int k = r.nextInt(1000);
            Kind kind;
            if (k < 330) {
                kind = Kind.PING;
                ping(s, r, r.nextInt(257));
            } else if (k < 470) {
                kind = Kind.PING;
                ping(s, r, 257 + r.nextInt(3840));
            } else if (k < 485) {
                kind = Kind.PING;
                ping(s, r, 4097 + r.nextInt(28_672));
            } else if (k < 486) {
                kind = Kind.PING_NEAR_MAX;
                ping(s, r, MAX - r.nextInt(2)); // 131071 or 131072: both valid
            } else if (k < 530) {
                kind = Kind.PING_EMPTY;
                s.header(r.nextInt(), GroutApi.PING, 0);
            } else if (k < 590) {
                kind = Kind.ZERO_LEN_OTHER;
                s.header(r.nextInt(), ZERO_LEN_TYPES[r.nextInt(ZERO_LEN_TYPES.length)], 0);
            } else if (k < 670) {
                kind = Kind.UNKNOWN_TYPE;
                int len = r.nextInt(600);
                s.header(r.nextInt(), unknownType(r), len).random(r, len);
            } else if (k < 750) {
                kind = Kind.SHORT_BUILTIN;
                int which = r.nextInt(3);
                int type = which == 0 ? GroutApi.HELLO : which == 1 ? GroutApi.PING2 : GroutApi.EVENT_SUBSCRIBE;
                int min = which == 0 ? GroutApi.HELLO_REQUEST_SIZE : which == 1 ? GroutApi.PING2_SIZE
                        : GroutApi.SUBSCRIBE_REQUEST_SIZE;
                int len = r.nextInt(min);
                s.header(r.nextInt(), type, len).random(r, len);
                // right version, too short
                if (type == GroutApi.HELLO && len >= 4) s.u32At(s.n - len, GroutApi.DEFAULT_API_VERSION);
            } else if (k < 810) {
                kind = Kind.OTHER_BUILTIN;
                switch (r.nextInt(6)) {
                    case 0 -> validFrame(s, r);
                    case 1 -> { // api_version 10, or any other
                        int len = GroutApi.HELLO_REQUEST_SIZE + r.nextInt(40);
                        s.header(r.nextInt(), GroutApi.HELLO, len).u32(r.nextBoolean() ? 10 : r.nextInt()).random(r,
                                len - 4);
                    }
                    case 2 -> {
                        int len = GroutApi.PING2_SIZE + 1 + r.nextInt(200);
                        s.header(r.nextInt(), GroutApi.PING2, len).random(r, len);
                    }
                    case 3 -> {
                        int len = GroutApi.SUBSCRIBE_REQUEST_SIZE + r.nextInt(60);
                        s.header(r.nextInt(), GroutApi.EVENT_SUBSCRIBE, len).random(r, len);
                    }
                    case 4 -> {
                        int len = r.nextInt(17);
                        s.header(r.nextInt(), GroutApi.EVENT_UNSUBSCRIBE, len).random(r, len);
                    }
                    default -> {
                        int len = GroutApi.HELLO_REQUEST_SIZE + r.nextInt(100);
                        s.header(r.nextInt(), GroutApi.HELLO, len).u32(GroutApi.DEFAULT_API_VERSION).random(r, len - 4);
                    }
                }
            } else if (k < 840) {
                kind = Kind.MUTATED;
                int at = s.n;
                validFrame(s, r);
                int flips = 1 + r.nextInt(3);
                for (int f = 0; f < flips; f++) s.a[at + r.nextInt(s.n - at)] ^= (byte) (1 + r.nextInt(255));
            } else if (k < 843) {
                kind = Kind.GARBAGE_AFTER_FRAME;
                ping(s, r, r.nextInt(200));
                int at = s.n;
                int len = 1 + r.nextInt(48);
                s.random(r, len);
                if (len >= HDR && r.nextBoolean()) s.u32At(at + 8, r.nextInt(64)); // garbage whose payload_len passes
            } else if (k < 845) {
                kind = Kind.HALF_HEADER_WAIT;
                realign(sc, r);
                if (m.closed()) break;
                int before = m.answers.size;
                int at = s.n;
                ping(s, r, r.nextInt(100));
                sc.barriers.add(new Barrier(at + HDR / 2, before, true));
            } else if (k < 846) {
                kind = Kind.OVERSIZE;
                s.header(r.nextInt(), r.nextBoolean() ? GroutApi.PING : unknownType(r), (int) oversizeLen(r));
                s.random(r, r.nextInt(64)); // bytes the server must never read (the model cuts them)
            } else if (k < 847) {
                kind = Kind.TRUNCATED_THEN_CLOSE;
                realign(sc, r);
                if (m.closed()) break;
                int at = s.n;
                ping(s, r, r.nextInt(100));
                s.n = at + 1 + r.nextInt(HDR - 1); // 1..11 bytes of a header, then shutdown(SHUT_WR) or close()
                sc.end = r.nextBoolean() ? End.HALF_CLOSE : End.CLOSE_MID_HEADER;
            } else {
                kind = Kind.PING;
                ping(s, r, r.nextInt(64));
            }
            sc.frames++;
            sc.kinds[kind.ordinal()]++;
            m.advance();
        }
        if (sc.end == null && !m.closed()) {
            realign(sc, r);
            if (!m.closed()) {
                int len = 1 + r.nextInt(512);
                s.header(0x7e570000 | (int) (seed & 0xffff), GroutApi.PING, len).random(r, len);
                m.advance();
                sc.end = End.FINAL_PING;
            }
        }
        if (m.closed()) {
            sc.end = End.SERVER_CLOSES;
            // No barrier before the closing header: answers read together with it still leave before the close.
        }
        sc.barriers.sort((x, y) -> Integer.compare(x.at(), y.at()));
        return sc;
    }
}
