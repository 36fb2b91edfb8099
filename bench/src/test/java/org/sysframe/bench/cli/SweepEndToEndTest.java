package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.explore.Sweep;
import org.sysframe.bench.explore.SweepSpec;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.report.ChartImages;
import org.sysframe.bench.report.ResultFiles;
import org.sysframe.bench.table.PairingTable;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.SyscallKind;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tiny sweep on embedded servers and real sockets: two copy thresholds at two payloads, three rounds
 * (52 B: a 64-byte message with its 12-byte header, exactly the lower threshold);
 * the client's and the server's sends per call are exact, and the CSV, JSON and HTML hold them.
 */
class SweepEndToEndTest {
    @Test
    void copyThresholdSweepCountsEverySendExactly(@TempDir Path dir) throws Exception {
        SweepSpec spec = SweepSpec.parse("copy-threshold=64,1024");
        Sweep.Plan plan = new Sweep.Plan(spec, Pairing.named("sysframe"), new int[] {52, 512},
                SweepCommand.pair(spec, ""), 3, true);
        BenchRun run = SweepCommand.run(plan, null, System.nanoTime());
        BenchTable t = run.table(Sweep.NAME);
        assertEquals(List.of("copy-threshold=64", "copy-threshold=1024"), t.names());
        assertEquals("copy-threshold=1024", t.reference(), "the held pairing's own threshold");
        long calls = PairingTable.callsFor(52, true) * Sweep.CALLS_SCALE;
        assertEquals(calls, PairingTable.callsFor(512, true) * Sweep.CALLS_SCALE);
        for (String row : t.names()) {
            for (int payload : new int[] {52, 512}) {
                List<Measurement> runs = t.runs(row, payload);
                assertEquals(3, runs.size(), row + " " + payload);
                // The request (12 B header + payload) is copied and sent once when it fits the threshold, else gathered
                // in one sendmsg; the answer is read ahead in one recvfrom.
                boolean copies = RequestHeader.SIZE + payload <= (row.endsWith("=64") ? 64 : 1024);
                for (Measurement m : runs) {
                    assertEquals(calls, m.calls());
                    assertEquals(copies ? calls : 0, m.clientLibrary().get(SyscallKind.SENDTO), row + " " + payload
                            + " sendto");
                    assertEquals(copies ? 0 : calls, m.clientLibrary().get(SyscallKind.SENDMSG), row + " " + payload
                            + " sendmsg");
                    assertEquals(calls, m.clientLibrary().get(SyscallKind.RECVFROM), row + " " + payload + " recvfrom");
                    // The server's deferred batch of one response (12 B header + payload) is copied and sent once under
                    // the threshold, else written with one writev.
                    long serverSends = ResponseHeader.SIZE + payload <= (row.endsWith("=64") ? 64 : 1024) ? calls : 0;
                    assertEquals(serverSends, m.serverLibrary().get(SyscallKind.SENDTO), row + " " + payload
                            + " server sendto");
                    assertEquals(calls - serverSends, m.serverLibrary().get(SyscallKind.WRITEV), row + " " + payload
                            + " server writev");
                    if (m.kernelMeasured()) {
                        assertEquals(m.clientLibrary(), m.clientKernel(), "client, library vs kernel");
                        assertEquals(m.serverLibrary(), m.serverKernel(), "server, library vs kernel");
                    }
                }
            }
        }
        assertEquals(1, run.crossovers().size());
        assertEquals("copy-threshold=64", run.crossovers().get(0).a());

        List<String> files = ResultFiles.writeAll(run, dir);
        assertEquals(List.of("sweep.csv", "sweep.json", "report.html"), files);
        List<String> csv = Files.readAllLines(dir.resolve("sweep.csv"));
        assertEquals(5, csv.size());
        List<String> header = List.of(csv.get(0).split(","));
        assertEquals(List.of("copy-threshold", "payload", "rounds", "calls_per_sec_median"), header.subList(0, 4));
        int sendto = header.indexOf("client_sendto_per_call"), sendmsg = header.indexOf("client_sendmsg_per_call");
        assertEquals(List.of("copy-threshold=64,52,3", "copy-threshold=1024,52,3", "copy-threshold=64,512,3",
                "copy-threshold=1024,512,3"),
                csv.subList(1, 5).stream().map(l -> l.split(",")[0] + "," + l.split(",")[1] + "," + l.split(",")[2])
                        .toList());
        assertEquals(List.of("1.00000/0.00000", "1.00000/0.00000", "0.00000/1.00000", "1.00000/0.00000"),
                csv.subList(1, 5).stream().map(l -> l.split(",")[sendto] + "/" + l.split(",")[sendmsg]).toList());
        String json = Files.readString(dir.resolve("sweep.json"));
        assertTrue(json.contains("\"table\":\"sweep\",\"title\":\"sweep of copy-threshold, held sysframe"), json);
        assertTrue(json.contains("{\"copy-threshold\":\"copy-threshold=64\",\"payload\":512,\"rounds\":3,"), json);
        assertTrue(
                json.contains("\"client_sendto_per_call\":0,\"client_recvfrom_per_call\":1,"
                + "\"client_sendmsg_per_call\":1,"), json);
        assertTrue(
                json.contains("\"crossovers\":[{\"a\":\"copy-threshold=64\",\"b\":\"copy-threshold=1024\","
                + "\"outcome\":\""), json);
        String html = Files.readString(dir.resolve("report.html"));
        assertEquals(2, html.split("src=\"data:image/png;base64,", -1).length - 1, "two sweep charts");
        // Which threshold leads depends on the timings; the report holds the crossover's own sentence, whichever it is.
        assertTrue(html.contains("<p class=crossover><b>crossover:</b> "
                + ChartImages.esc(run.crossovers().get(0).text()) + "</p>"), html);
    }
}
