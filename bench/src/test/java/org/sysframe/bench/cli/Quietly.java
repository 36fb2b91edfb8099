package org.sysframe.bench.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Runs a command in this JVM with System.out captured (a green run is quiet): what it printed, its exit 0 checked. */
final class Quietly {
    private Quietly() {}

    static String run(Callable<Integer> command) throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, command.call());
        } finally {
            System.setOut(out);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
