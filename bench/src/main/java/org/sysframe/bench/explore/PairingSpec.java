package org.sysframe.bench.explore;

import org.sysframe.bench.peer.Pairing;
import org.sysframe.transport.Backend;
import org.sysframe.transport.FlushMode;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.WaitMode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parses a {@code --pairing} value: {@code name=mine,client-send=copy:512,client-recv=readahead:4096,
 * server-send=gather,flush=deferred}, or the name of a built-in pairing alone ({@code merged}).
 * Unspecified keys take the library's defaults (the {@code sysframe} pairing), or those of the built-in
 * pairing named by {@code base=}. Every refusal is one line naming the key, its value and what is accepted.
 */
public final class PairingSpec {
    private PairingSpec() {}

    /** The keys, in the order the help gives them. */
    public static final List<String> KEYS = List.of("name", "base", "client-send", "client-recv", "server-send",
            "flush", "high-water", "wait", "cpu", "server-cpu", "depth", "backend", "client-backend", "server-backend");

    static final String SEND_FORMS = "split, copy[:SIZE], gather or copygather[:SIZE] (SIZE "
            + Limits.COPY_THRESHOLD.accepted() + ")";
    static final String RECV_FORMS = "exact or readahead[:SIZE] (SIZE " + Limits.READAHEAD.accepted() + ")";

    /** The pairing a spec describes. */
    public static Pairing parse(String spec) {
        String s = spec.trim();
        if (s.isEmpty()) throw new IllegalArgumentException("empty; expected name=NAME[,KEY=VALUE...] with keys "
                + String.join(", ", KEYS));
        if (!s.contains("=")) return builtIn(s);
        Map<String, String> kv = new LinkedHashMap<>();
        for (String part : s.split(",", -1)) {
            int eq = part.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("'" + part + "' is not KEY=VALUE; keys: "
                    + String.join(", ", KEYS));
            String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = part.substring(eq + 1).trim();
            if (!KEYS.contains(key)) throw new IllegalArgumentException("unknown key '" + key + "'; keys: "
                    + String.join(", ", KEYS));
            if (value.isEmpty()) throw new IllegalArgumentException(key + "=: empty value");
            if (kv.put(key, value) != null) throw new IllegalArgumentException("key '" + key + "' given twice");
        }
        String name = kv.get("name");
        if (name == null) throw new IllegalArgumentException("no name=; every pairing needs one (e.g. name=mine)");
        if (!name.matches("[A-Za-z0-9_.+:-]{1,40}")) {
            throw new IllegalArgumentException("name=" + name + ": 1 to 40 letters, digits or . _ - + :");
        }
        Pairing p = kv.containsKey("base") ? builtIn(kv.get("base")) : Pairing.named("sysframe");
        return new Pairing(name, "user pairing " + s,
                kv.containsKey("client-send") ? send("client-send", kv.get("client-send")) : p.clientSend(),
                kv.containsKey("client-recv") ? recv("client-recv", kv.get("client-recv")) : p.clientRecv(),
                kv.containsKey("server-send") ? send("server-send", kv.get("server-send")) : p.serverSend(),
                kv.containsKey("flush") ? flush("flush", kv.get("flush")) : p.serverFlush(),
                kv.containsKey("high-water") ? Limits.HIGH_WATER.parse("high-water=" + kv.get("high-water"),
                        kv.get("high-water")) : p.highWater(),
                kv.containsKey("wait") ? wait("wait", kv.get("wait")) : p.clientWait(),
                kv.containsKey("cpu") ? Limits.CPU.parse("cpu=" + kv.get("cpu"), kv.get("cpu")) : p.clientCpu(),
                kv.containsKey("server-cpu") ? Limits.CPU.parse("server-cpu=" + kv.get("server-cpu"),
                        kv.get("server-cpu")) : p.serverCpu(),
                kv.containsKey("depth") ? Limits.DEPTH.parse("depth=" + kv.get("depth"), kv.get("depth")) : p.depth(),
                backend(kv, "client-backend", p.clientBackend()), backend(kv, "server-backend", p.serverBackend()));
    }

    /** The backend of one side: its own key, else backend= (both sides), else the base pairing's. */
    private static Backend backend(Map<String, String> kv, String key, Backend base) {
        String v = kv.containsKey(key) ? kv.get(key) : kv.get("backend");
        if (v == null) return base;
        String k = kv.containsKey(key) ? key : "backend";
        try {
            return Backend.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(k + "=" + v + ": unknown backend; accepted epoll, io_uring or auto");
        }
    }

    private static Pairing builtIn(String name) {
        for (Pairing p : Pairing.standard()) if (p.name().equals(name)) return p;
        throw new IllegalArgumentException("'" + name + "' is no built-in pairing (" + String.join(", ",
                Pairing.standard().stream().map(Pairing::name).toList()) + ") and not KEY=VALUE,...");
    }

    /** A send framing whose copy threshold is in {@link Limits#COPY_THRESHOLD}. */
    static SendFraming send(String key, String value) {
        String[] p = value.toLowerCase(Locale.ROOT).split(":", 2);
        boolean copies = p[0].equals("copy") || p[0].equals("copygather");
        boolean known = copies || p[0].equals("split") || p[0].equals("gather");
        if (!known || (!copies && p.length == 2)) {
            throw new IllegalArgumentException(key + "=" + value + ": unknown send framing; accepted " + SEND_FORMS);
        }
        if (p.length == 2) Limits.COPY_THRESHOLD.parse(key + "=" + value, p[1]);
        return SendFraming.parse(value);
    }

    /** A receive framing whose read-ahead is in {@link Limits#READAHEAD}. */
    static RecvFraming recv(String key, String value) {
        String[] p = value.toLowerCase(Locale.ROOT).split(":", 2);
        if (p[0].equals("readahead") && p.length == 2) return RecvFraming.readAhead(Limits.READAHEAD.parse(key + "="
                + value, p[1]));
        if (p.length == 1 && (p[0].equals("readahead") || p[0].equals("exact"))) return RecvFraming.parse(value);
        throw new IllegalArgumentException(key + "=" + value + ": unknown recv framing; accepted " + RECV_FORMS);
    }

    static FlushMode flush(String key, String value) {
        try {
            return FlushMode.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + "=" + value
                    + ": unknown flush mode; accepted immediate or deferred");
        }
    }

    static WaitMode wait(String key, String value) {
        try {
            return WaitMode.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + "=" + value + ": " + e.getMessage());
        }
    }

    /** The spec that gives p back, naming every key but base (e.g. for {@code tune}'s recommendation). */
    public static String format(Pairing p) {
        return "name=" + p.name() + ",client-send=" + p.clientSend() + ",client-recv=" + p.clientRecv()
                + ",server-send=" + p.serverSend()
                + ",flush=" + p.serverFlush().name().toLowerCase(Locale.ROOT) + ",high-water=" + p.highWater()
                        + ",wait=" + p.clientWait()
                + ",cpu=" + p.clientCpu() + ",server-cpu=" + p.serverCpu() + ",depth=" + p.depth()
                + ",client-backend=" + p.clientBackend() + ",server-backend=" + p.serverBackend();
    }
}
