package org.sysframe.bench.cli;

import java.util.function.Function;

/**
 * Parses a command-line option's value, so that a bad one fails naming the option as well as the value and the accepted
 * forms.
 */
final class OptionValues {
    private OptionValues() {}

    static <T> T parse(String option, String value, Function<String, T> parser) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }

    /** {@code --transport} of ping and serve: whether it is shm (else socket); any other value is refused. */
    static boolean sharedMemory(String transport) {
        if (!transport.equals("socket") && !transport.equals("shm")) {
            throw new IllegalArgumentException("--transport " + transport + ": expected socket or shm");
        }
        return transport.equals("shm");
    }
}
