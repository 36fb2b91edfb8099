package org.sysframe.bench.measure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One table of a bench run: its cells, every measured run in the order it ran, and one summary row
 * per cell against the table's reference cell of the same payload.
 *
 * @param name             short id, e.g. {@code matrix}, {@code peers}, {@code server-loops}; goals name it
 * @param title            heading for the report
 * @param rowKind          what a row is: {@code pairing}, {@code peer}, {@code server}
 * @param reference        the cell name ratios are taken against
 * @param referenceOverRow true when the report shows reference/row (peers) rather than row/reference
 * @param notes            what the run could not do (e.g. a server setting this build refuses)
 */
public record BenchTable(String name, String title, String rowKind, String reference, boolean referenceOverRow,
                         int rounds, List<Cell> cells, List<Measurement> runs, List<CellSummary> rows,
                         List<String> notes) {

    /** Summarises runs (as returned by {@link RoundRunner}) cell by cell, in the cells' order. */
    public static BenchTable of(String name, String title, String rowKind, String reference, boolean referenceOverRow,
                                int rounds, List<Cell> cells, List<Measurement> runs, List<String> notes) {
        Map<String, List<Measurement>> byCell = new LinkedHashMap<>();
        for (Measurement m : runs) byCell.computeIfAbsent(m.cell() + "/" + m.payload(), k -> new ArrayList<>()).add(m);
        List<CellSummary> rows = new ArrayList<>();
        for (Cell c : cells) {
            List<Measurement> ref = byCell.get(reference + "/" + c.payload());
            List<Measurement> own = byCell.getOrDefault(c.key(), List.of());
            rows.add(CellSummary.of(c.name(), c.payload(), own, ref == null ? own : ref));
        }
        return new BenchTable(name, title, rowKind, reference, referenceOverRow, rounds, List.copyOf(cells),
                List.copyOf(runs), rows, List.copyOf(notes));
    }

    /** Every round's run of one cell, in round order; empty when the table has no such cell. */
    public List<Measurement> runs(String cell, int payload) {
        List<Measurement> out = new ArrayList<>();
        for (Measurement m : runs) if (m.cell().equals(cell) && m.payload() == payload) out.add(m);
        return out;
    }

    /** The summary row of one cell, or null. */
    public CellSummary row(String cell, int payload) {
        for (CellSummary r : rows) if (r.name().equals(cell) && r.payload() == payload) return r;
        return null;
    }

    /** The distinct payloads, in the cells' order. */
    public List<Integer> payloads() {
        List<Integer> out = new ArrayList<>();
        for (Cell c : cells) if (!out.contains(c.payload())) out.add(c.payload());
        return out;
    }

    /** The distinct cell names, in the cells' order. */
    public List<String> names() {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) if (!out.contains(c.name())) out.add(c.name());
        return out;
    }

    /** Settings of the cell named name (its first payload). */
    public String settings(String cell) {
        for (Cell c : cells) if (c.name().equals(cell)) return c.settings();
        return "";
    }

    /** The ratio shown for a row: row/reference, or reference/row for a peers table. */
    public Spread shownRatio(CellSummary row) { return referenceOverRow ? row.referenceRatio() : row.ratio(); }
}
