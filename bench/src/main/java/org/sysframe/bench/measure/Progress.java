package org.sysframe.bench.measure;

import java.io.Console;
import java.util.Locale;

/** One progress line on a terminal (rewritten in place); nothing when output goes to a file or pipe. */
final class Progress {
    private Progress() {}

    private static final boolean TERMINAL = terminal();

    private static boolean terminal() {
        Console c = System.console();
        return c != null && c.isTerminal();
    }

    static void show(String what) {
        if (!TERMINAL) return;
        System.err.print("\r" + String.format(Locale.ROOT, "%-60s", what));
        System.err.flush();
    }

    static void done() {
        if (TERMINAL) System.err.print("\r" + " ".repeat(60) + "\r");
    }
}
