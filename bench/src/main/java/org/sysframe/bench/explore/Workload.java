package org.sysframe.bench.explore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * The payload sizes a workload sends and how often each: equal weights from {@code --payloads}, or
 * counts from a histogram file (one {@code SIZE COUNT} per line, {@code #} starts a comment).
 *
 * @param sizes   ascending, each once
 * @param weights each size's share of the calls, summing to 1
 */
public record Workload(int[] sizes, double[] weights, String description) {
    /** At most this many sizes: every size is a cell of every candidate in every round. */
    static final int MAX_SIZES = 12;

    /** Equal weights. */
    public static Workload of(int[] sizes) {
        if (sizes.length > MAX_SIZES) throw new IllegalArgumentException(sizes.length + " sizes; at most " + MAX_SIZES
                + " (each is measured for every candidate)");
        double[] w = new double[sizes.length];
        Arrays.fill(w, 1.0 / sizes.length);
        return new Workload(sizes, w, "sizes " + join(sizes) + ", equally often");
    }

    /** A histogram file's sizes and counts; a bad line fails naming the file and the line. */
    public static Workload histogram(Path file) throws IOException {
        if (!Files.isReadable(file)) throw new IllegalArgumentException("--histogram " + file
                + ": no such readable file");
        List<String> lines = Files.readAllLines(file);
        TreeMap<Integer, Long> counts = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).replaceAll("#.*", "").trim();
            if (line.isEmpty()) continue;
            String at = file + ":" + (i + 1);
            String[] f = line.split("[\\s,]+");
            if (f.length != 2) throw new IllegalArgumentException(at + ": '" + line + "': expected SIZE COUNT");
            int size = Payloads.SIZE.parse(at + ": size " + f[0], f[0]);
            long n;
            try {
                n = Long.parseLong(f[1]);
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n < 1) throw new IllegalArgumentException(at + ": count " + f[1]
                    + ": expected a whole number of at least 1");
            counts.merge(size, n, Long::sum);
        }
        if (counts.isEmpty()) throw new IllegalArgumentException(file + ": no SIZE COUNT lines");
        if (counts.size() > MAX_SIZES) {
            throw new IllegalArgumentException(file + ": " + counts.size() + " sizes; at most " + MAX_SIZES
                    + " (bin them: each is measured for every candidate)");
        }
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        int[] sizes = counts.keySet().stream().mapToInt(Integer::intValue).toArray();
        double[] w = counts.values().stream().mapToDouble(c -> (double) c / total).toArray();
        StringBuilder d = new StringBuilder("histogram " + file.getFileName() + ":");
        for (int i = 0; i < sizes.length; i++) d.append(String.format(Locale.ROOT, " %d B %.1f %%", sizes[i],
                100 * w[i]));
        return new Workload(sizes, w, d.toString());
    }

    /** Seconds per call of the mix, from each size's calls per second. */
    public double secondsPerCall(double[] callsPerSecond) {
        double s = 0;
        for (int i = 0; i < sizes.length; i++) s += weights[i] / callsPerSecond[i];
        return s;
    }

    private static String join(int[] sizes) {
        return String.join(",", Arrays.stream(sizes).mapToObj(Integer::toString).toList());
    }
}
