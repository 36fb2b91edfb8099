package org.sysframe.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What a snippet prints: System.out captured while it runs (the examples' tests run one at a time). */
final class Printed {
    private Printed() {}

    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    /** Runs body with System.out captured, and returns what it printed (also echoed to the real System.out). */
    static String by(Body body) throws Exception {
        PrintStream real = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(real);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);
        real.print(out);
        return out;
    }
}
