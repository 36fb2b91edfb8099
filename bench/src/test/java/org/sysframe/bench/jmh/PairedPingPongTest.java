package org.sysframe.bench.jmh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The paired ping-pong runs every design it is asked for, sets each against the first, and refuses what it lacks. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PairedPingPongTest {
    /** main with System.out captured; its lines. */
    private static List<String> run(String... args) throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            PairedPingPong.main(args);
        } finally {
            System.setOut(out);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void everyDesignTakesItsTurnsAndTheFirstIsTheOneTheOthersAreSetAgainst() throws Exception {
        List<String> lines = run("3", "500");
        assertEquals("3 rounds of 500 calls per design, 32-byte payload", lines.get(0).replaceAll(" \\(.*", ""));
        assertTrue(lines.get(1).endsWith("/ sequence (p10 median p90)"), lines.get(1));
        List<String> designs = lines.subList(2, lines.size()).stream().map(l -> l.split(" +")[0]).toList();
        assertEquals(List.of("sequence", "records", "zeroAhead", "rings", "channel"), designs);
        assertTrue(lines.get(2).endsWith("1.000 1.000 1.000"), "the first against itself: " + lines.get(2));
        for (String l : lines.subList(2, lines.size())) {
            double median = Double.parseDouble(l.split(" +")[2]);
            assertTrue(median > 0, "a round trip took time: " + l);
        }
    }

    @Test
    void theDesignsNamedRunAloneAndAnUnknownOneIsRefused() throws Exception {
        List<String> lines = run("2", "200", "rings", "zeroAhead");
        assertTrue(lines.get(1).endsWith("/ zeroAhead (p10 median p90)"), lines.get(1));
        assertEquals(List.of("zeroAhead", "rings"), lines.subList(2, lines.size()).stream()
                .map(l -> l.split(" +")[0]).toList());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PairedPingPong.main(new String[] {"2", "200", "ring"}));
        assertEquals("no design ring (sequence, records, zeroAhead, rings, channel)", e.getMessage());
    }
}
