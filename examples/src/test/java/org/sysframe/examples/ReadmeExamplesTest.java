package org.sysframe.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.ApiException;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.Response;
import org.sysframe.transport.ServerOptions;
import org.sysframe.unix.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The README's client and server snippets, each run against a real server on a socket in a temp dir. */
class ReadmeExamplesTest {
    /** The README's own message type. */
    static final int ECHO = GroutApi.type(0xbeef, 1);

    @TempDir
    Path dir;

    /** The server's socket, for awaitShutdown. */
    private String socketPath;

    /** The client, against a server with the defaults: it prints what the README says it prints. */
    @Test
    void theClient() throws Exception {
        String socketPath = dir.resolve("grout.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(socketPath))) {
            String out = Printed.by(() -> {
                try (GroutClient client = GroutClient.connect(socketPath);   // connects and says GR_HELLO
                     Arena arena = Arena.ofConfined()) {
                    // native memory goes to the kernel as it is
                    MemorySegment payload = arena.allocate(32);
                    // this thread's own, valid until its next call
                    Response echo = client.call(GroutApi.PING, payload);
                    System.out.println(echo.length() + " bytes back; syscalls: " + client.counters().snapshot());
                }
            });
            assertEquals("32 bytes back; syscalls: sendto=2 recvfrom=2\n", out);
        }
    }

    /** The server: started as shown, then awaitShutdown (below) checks its handler from a client while it serves. */
    @Test
    void theServer() throws Exception {
        socketPath = dir.resolve("echo.sock").toString();

        ServerOptions options = ServerOptions.defaults()
                .socketPath(socketPath)                            // a socket file of mode 0600
                .handle(ECHO, 1, (request, reply) -> {             // requests of at least 1 byte, on the loop thread
                    if (request.getByte(0) == 0) reply.error(Errno.EINVAL);
                    else reply.echo(0, request.length());          // the request's own bytes back, no copy
                });
        try (GroutServer server = GroutServer.start(options)) {    // GR_HELLO, GR_PING, GR_PING2 and events built in
            // yours: it serves on its own event-loop thread meanwhile
            awaitShutdown();
        }                                                          // every connection closed, the socket file removed

        assertFalse(Files.exists(Path.of(socketPath)), "the socket file is removed at close");
    }

    /**
     * Stands for the application's wait for its end: here, a client's requests to the server as the README sets it up.
     */
    private void awaitShutdown() throws Exception {
        assertEquals("srw-------", mode(Path.of(socketPath)), "mode 0600");
        try (GroutClient client = GroutClient.connect(socketPath); Arena arena = Arena.ofConfined()) {
            MemorySegment hello = arena.allocateFrom(ValueLayout.JAVA_BYTE,
                    "hello".getBytes(StandardCharsets.US_ASCII));
            assertEquals("hello", new String(client.call(ECHO, hello).toByteArray(), StandardCharsets.US_ASCII));
            ApiException zero = assertThrows(ApiException.class, () -> client.call(ECHO, arena.allocate(1)));
            assertEquals(Errno.EINVAL, zero.status());
            ApiException empty = assertThrows(ApiException.class, () -> client.call(ECHO));
            assertEquals(Errno.EMSGSIZE, empty.status(), "shorter than the declared 1 byte: the handler is not called");
            assertEquals(32, client.call(GroutApi.PING, arena.allocate(32)).length(), "GR_PING built in");
        }
    }

    private static String mode(Path p) throws Exception {
        return "s" + PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
