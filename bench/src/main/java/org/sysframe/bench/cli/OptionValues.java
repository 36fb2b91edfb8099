package org.sysframe.bench.cli;

import java.util.function.Function;

/** Parses a command-line option's value, so that a bad one fails naming the option as well as the value and the accepted forms. */
final class OptionValues {
    private OptionValues() {}

    static <T> T parse(String option, String value, Function<String, T> parser) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }
}
