package org.sysframe.bench.cli;

import picocli.CommandLine.Option;

/**
 * {@code --rounds} of {@code compare}, {@code sweep} and {@code tune}: the interleaved rounds every
 * cell runs, 7 unless given, refused below 5 (the medians need them).
 */
final class RoundsOption {
    /** The fewest rounds taken. */
    static final int MIN = 5;

    @Option(names = "--rounds", description = "interleaved rounds, at least " + MIN + " (default: ${DEFAULT-VALUE})")
    int rounds = 7;

    /** Refuses too few rounds, naming the option; called first thing by the command. */
    void check() {
        if (rounds < MIN) {
            throw new IllegalArgumentException("--rounds " + rounds + ": at least " + MIN + " (medians need them)");
        }
    }
}
