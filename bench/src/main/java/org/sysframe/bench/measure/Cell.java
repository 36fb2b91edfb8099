package org.sysframe.bench.measure;

import java.io.IOException;

/**
 * One thing measured in every round of a table: a client kind or peer with its settings against a
 * server with its settings, at one payload. The probe does the work; the cell only names it.
 *
 * @param name        row name in its table, e.g. {@code seed-v3}, {@code jnr}, {@code 2 loops}
 * @param payload     GR_PING payload bytes
 * @param settings    client and server settings, for the report
 * @param calls       round trips per measured run (all clients together)
 * @param warmUpCalls round trips of the one warm-up run before the rounds (0: none)
 */
public record Cell(String name, int payload, String settings, long calls, long warmUpCalls, Probe probe) {

    /** Measures one run of a cell. */
    @FunctionalInterface
    public interface Probe {
        /** Runs calls round trips of cell and returns their figures, labelled with round. */
        Measurement measure(Cell cell, long calls, int round) throws IOException;
    }

    /** "name/payload", unique in a table. */
    public String key() { return name + "/" + payload; }
}
