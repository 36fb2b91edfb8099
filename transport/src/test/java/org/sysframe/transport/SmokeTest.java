package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SmokeTest {
    @Test
    void pingRoundTrip(@TempDir Path dir) throws Exception {
        String path = dir.resolve("s.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(path));
             GroutClient client = GroutClient.connect(path);
             Arena a = Arena.ofConfined()) {
            assertEquals(1024, client.maxIfaces());
            MemorySegment p = a.allocate(32);
            Response r = client.sendRecv(GroutApi.PING, p);
            assertEquals(32, r.length());
            System.out.println(client.counters() + " / " + server.counters());
        }
    }
}
