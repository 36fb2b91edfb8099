package org.sysframe.bench.explore;

import org.sysframe.transport.wire.GroutApi;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code --payloads} value of the explorer's commands: sizes in bytes separated by commas, where
 * {@code A,...,B} stands for A doubled until B ({@code 32,...,65536} is 32, 64, ..., 65536). Sizes
 * come out ascending, each once.
 */
public final class Payloads {
    private Payloads() {}

    static final Limits.Range SIZE = new Limits.Range("payload", 0, GroutApi.MAX_MSG_LEN, "bytes");

    public static int[] parse(String text) {
        String[] parts = text.split(",", -1);
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            String s = parts[i].trim();
            if (s.equals("...")) {
                if (i == 0 || i == parts.length - 1) throw new IllegalArgumentException("'" + text
                        + "': '...' needs a size on each side, as in 32,...,65536");
                int from = out.get(out.size() - 1), to = SIZE.parse(parts[i + 1].trim(), parts[i + 1]);
                if (from <= 0 || to <= from) throw new IllegalArgumentException("'" + text
                        + "': A,...,B doubles A up to B, so it needs 0 < A < B");
                for (long v = 2L * from; v < to; v *= 2) out.add((int) v);
                continue;
            }
            if (s.isEmpty()) throw new IllegalArgumentException("'" + text + "': an empty size; accepted "
                    + SIZE.accepted());
            out.add(SIZE.parse(s, s));
        }
        return out.stream().distinct().sorted().mapToInt(Integer::intValue).toArray();
    }
}
