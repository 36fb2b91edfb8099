package org.sysframe.bench.cli;

import picocli.CommandLine.Option;

/** {@code --quick} of {@code sweep} and {@code tune}: a fifth of the calls in every cell. */
final class QuickOption {
    @Option(names = "--quick", description = "a fifth of the calls per cell")
    boolean quick;
}
