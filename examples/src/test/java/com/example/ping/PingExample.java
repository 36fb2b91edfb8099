package com.example.ping;

import org.sysframe.transport.ApiException;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.Response;
import org.sysframe.unix.ErrnoException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Connects to a Grout API socket, sends one GR_PING carrying some text and prints the server's echo.
 * Usage: {@code PingExample SOCKET_PATH [TEXT]}. Exits 0 on success, 1 on a failure, 2 on bad usage.
 */
public final class PingExample {
    private PingExample() {}

    public static void main(String[] args) {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: PingExample SOCKET_PATH [TEXT]");
            System.exit(2);
        }
        String socketPath = args[0];
        byte[] text = (args.length > 1 ? args[1] : "hello, grout").getBytes(StandardCharsets.UTF_8);

        // connect() says GR_HELLO; any number of threads may share the client. The Arena owns the
        // request payload in native memory, which goes to the kernel as it is (a heap segment is copied first).
        try (GroutClient client = GroutClient.connect(socketPath);
             Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocateFrom(ValueLayout.JAVA_BYTE, text);
            Response response = client.call(GroutApi.PING, payload);
            // The Response is this thread's own, valid until its next call on the client: copy what you keep.
            String echo = new String(response.toByteArray(), StandardCharsets.UTF_8);
            System.out.println("GR_PING answered " + response.length() + " bytes: " + echo);
        } catch (ApiException e) {
            // The server answered with a non-zero status, an errno value (ApiException is an ErrnoException).
            System.err.println(e.call() + " refused by the server: status " + e.status()
                    + " " + e.errnoName() + " (" + e.strerror() + ")");
            System.exit(1);
        } catch (ErrnoException e) {
            // A libc call failed, e.g. connect(PATH): ENOENT when there is no socket at the path.
            System.err.println(e.call() + " failed: " + e.errnoName() + " (" + e.strerror() + ")");
            System.exit(1);
        } catch (IOException e) {
            System.err.println("I/O failure: " + e.getMessage());
            System.exit(1);
        }
    }
}
