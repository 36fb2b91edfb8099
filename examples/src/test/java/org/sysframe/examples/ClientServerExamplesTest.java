package org.sysframe.examples;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.ApiException;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.Event;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.Response;
import org.sysframe.transport.ResponseStream;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.Errno;
import org.sysframe.unix.Self;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The snippets of docs/integrating.md's client and server sections, run together: the server as the
 * page shows it, its own message types included, and the client of the page against it, then an event
 * published from another thread through {@code execute}.
 */
class ClientServerExamplesTest {
    static final int MODULE = 0xbeef;                           // your module's number: a type is (module << 16) | id
    static final int SET_NAME = GroutApi.type(MODULE, 1);
    static final int LIST_NAMES = GroutApi.type(MODULE, 2);
    static final int NAME_CHANGED = GroutApi.type(MODULE, 3);   // an ev_type

    /** What LIST_NAMES streams: two 8-byte names, in memory every loop thread may read. */
    private static Arena shared;
    private static MemorySegment names;

    @TempDir
    Path dir;

    @BeforeAll
    static void names() {
        shared = Arena.ofShared();
        names = shared.allocate(16);
        names.copyFrom(MemorySegment.ofArray("eth0\0\0\0\0eth1\0\0\0\0".getBytes(StandardCharsets.US_ASCII)));
    }

    @AfterAll
    static void free() {
        shared.close();
    }

    @Test
    void theServerAndTheClientOfThePage() throws Exception {
        String socketPath = dir.resolve("grout.sock").toString();
        int appUid = Self.uid();

        ServerOptions options = ServerOptions.defaults()
                .socketPath(socketPath).mode(0600)               // the file mode is set before anyone can connect
                .allowedUids(Set.of(appUid))                     // optional, checked with SO_PEERCRED at accept
                .loops(2).waitMode(WaitMode.BLOCK)               // 2 event loops, sleeping in epoll_wait
                // requests of at least 1 byte; on a loop thread: must not block
                .handle(SET_NAME, 1, (request, reply) -> {
                    if (request.getByte(0) == 0) { reply.error(Errno.EINVAL); return; }
                    reply.echo(0, request.length());             // or ok(), ok(segment, off, len), error(errno)
                    // to subscribers
                    reply.publish(NAME_CHANGED, request.buffer(), request.offset(), request.length());
                })
                // answers of at least 8 bytes: a stream of items, then its end
                .handle(LIST_NAMES, 0, 8, (request, reply) -> {
                    reply.item(names, 0, 8);
                    reply.item(names, 8, 8);
                    reply.end();
                });
        // GR_HELLO, GR_PING, GR_PING2, GR_EVENT_(UN)SUBSCRIBE built in
        try (GroutServer server = GroutServer.start(options)) {
            // on a loop thread only; 0: no client caused it
            Runnable announce = () -> server.publish(NAME_CHANGED, names, 0, 8, 0);
            // execute: from any thread, runs on loop 0
            serveUntilStopped(server, () -> server.execute(announce));
        }   // close: stops accepting, closes every connection, frees every buffer, removes the socket file
    }

    /**
     * Stands for the application's work while it serves: here, the page's client, then an announcement watched by a
     * subscriber.
     */
    private static void serveUntilStopped(GroutServer server, Runnable somethingChanged) throws Exception {
        String out = Printed.by(() -> theClient(server.socketPath(), Self.uid()));
        assertEquals("eth7 echoed, 4 bytes pinged, names [eth0, eth1], event NAME_CHANGED\nEINVAL (status 22)\n", out);

        try (GroutClient watcher = GroutClient.connect(server.socketPath())) {
            watcher.subscribe(NAME_CHANGED, false);
            somethingChanged.run();
            Event event = watcher.nextEvent(Duration.ofSeconds(5));
            assertEquals(NAME_CHANGED, event.type());
            assertEquals("eth0", new String(event.toByteArray(), StandardCharsets.US_ASCII).trim());
        }
    }

    private static void theClient(String socketPath, int serverUid) throws Exception {
        ClientOptions options = ClientOptions.defaults()
                .socketPath(socketPath)                     // default: $GROUT_SOCK_PATH, else /run/grout.sock
                .send(SendFraming.COPY_GATHER).recv(RecvFraming.READAHEAD)  // the defaults (tuning.md)
                .receiveTimeoutMillis(2000)                 // default 5000; 0: wait forever
                .serverUids(Set.of(serverUid))              // the uids the server may run as (default: below)
                .waitMode(WaitMode.BLOCK);                  // the default; spin, spin:DURATION, yield: tuning.md
        try (GroutClient client = GroutClient.connect(options);
             Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(ValueLayout.JAVA_BYTE, "eth7".getBytes(StandardCharsets.US_ASCII));
            // this thread's own view, valid until its next call
            Response r = client.call(SET_NAME, name);
            // read it in place (r.buffer(), r.offset(), r.length()) or copy it
            byte[] echoed = r.toByteArray();
            CompletableFuture<Response> ping = client.callAsync(GroutApi.PING, name);  // sent now...
            long pinged = ping.join().length();                             // ...its answer later, a copy of its own
            List<String> all = new ArrayList<>();
            try (ResponseStream items = client.stream(LIST_NAMES, name, 0, 0)) {  // items, then an empty end
                while (items.next()) all.add(new String(items.current().toByteArray(), StandardCharsets.US_ASCII)
                        .trim());
            }                                                               // closing early drains the rest
            // every ev_type, our own requests' events included
            client.subscribe(GroutApi.EVENT_ALL, false);
            client.call(SET_NAME, name);                                    // its handler publishes NAME_CHANGED
            // null if none came within 1 s; type() is the ev_type
            Event event = client.nextEvent(Duration.ofSeconds(1));
            System.out.printf("%s echoed, %d bytes pinged, names %s, event %s%n",
                    new String(echoed, StandardCharsets.US_ASCII),
                    pinged, all, event.type() == NAME_CHANGED ? "NAME_CHANGED" : event);
            try {
                // a first byte 0: the handler answers EINVAL
                client.call(SET_NAME, arena.allocate(1));
            } catch (ApiException e) {                                      // a non-zero status; the client goes on
                System.out.println(e.errnoName() + " (status " + e.status() + ")");
            }
        }
    }
}
