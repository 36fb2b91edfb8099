package org.sysframe.transport.support;

import org.sysframe.transport.Backend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.transport.ServerOptions;

import org.sysframe.unix.UnixSocket;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * The child process of the fault tests (a peer killed mid-request, descriptor exhaustion): a separate JVM, so that the
 * test can SIGKILL it or start it with a low descriptor limit. It reports on stdout, one line per fact, and reads
 * commands on stdin.
 *
 * <ul>
 *   <li>{@code partial PATH UNREAD}: connects to PATH with a raw socket, says GR_HELLO and reads the answer;
 *       if UNREAD is {@code true}, sends a 100-byte GR_PING whose answer it never reads; then sends the
 *       header of a 128 KiB GR_PING and 60 KiB of its payload, slowly (4 KiB at a time), prints
 *       {@code SENT <bytes>} and sleeps until killed.</li>
 *   <li>{@code server PATH}: runs a GroutServer on PATH, prints {@code READY fds=N}, then answers the
 *       stdin commands {@code count} ({@code COUNT <open connections> <closed connections>}),
 *       {@code hog} (opens /dev/null until the descriptor table is full, prints {@code HOGGED <n> (...)}),
 *       {@code release} (closes those, prints {@code RELEASED <n>}) and {@code quit} (closes the server,
 *       prints {@code BYE}, exits 0).</li>
 * </ul>
 */
public final class FaultChild {
    /** The incomplete request's declared payload, and how much of it the child sends. */
    public static final int DECLARED = GroutApi.MAX_MSG_LEN;
    public static final int SENT_PAYLOAD = 60 * 1024;

    private FaultChild() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "partial" -> partial(args[1], Boolean.parseBoolean(args[2]));
            case "server" -> server(args[1], Backend.valueOf(args[2]));
            default -> throw new IllegalArgumentException("mode " + args[0]);
        }
    }

    private static void request(MemorySegment s, long at, int id, int type, int payloadLen) {
        s.set(JAVA_INT_UNALIGNED, at, id);
        s.set(JAVA_INT_UNALIGNED, at + 4, type);
        s.set(JAVA_INT_UNALIGNED, at + 8, payloadLen);
    }

    private static void partial(String path, boolean leaveAResponseUnread) throws Exception {
        Arena arena = Arena.global();
        UnixSocket s = UnixSocket.connect(path);
        s.setReceiveTimeout(30_000); // hang guard should the server never answer

        MemorySegment hello = arena.allocate(RequestHeader.SIZE + GroutApi.HELLO_REQUEST_SIZE);
        request(hello, 0, 1, GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE);
        hello.set(JAVA_INT_UNALIGNED, RequestHeader.SIZE, GroutApi.DEFAULT_API_VERSION);
        byte[] v = "fault-child".getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(v, 0, hello, JAVA_BYTE, RequestHeader.SIZE + 4, v.length);
        s.sendFully(hello, 0, hello.byteSize());
        MemorySegment answer = arena.allocate(ResponseHeader.SIZE + GroutApi.HELLO_RESPONSE_SIZE);
        s.recvFully(answer, 0, answer.byteSize());
        int status = ResponseHeader.status(answer, 0);
        if (ResponseHeader.forId(answer, 0) != 1
                || status != 0) throw new IllegalStateException("hello answered with status " + status);

        if (leaveAResponseUnread) {
            MemorySegment ping = arena.allocate(RequestHeader.SIZE + 100);
            request(ping, 0, 2, GroutApi.PING, 100);
            s.sendFully(ping, 0, ping.byteSize());
        }

        MemorySegment big = arena.allocate(RequestHeader.SIZE + DECLARED);
        request(big, 0, 3, GroutApi.PING, DECLARED);
        for (int i = 0; i < DECLARED; i++) big.set(JAVA_BYTE, RequestHeader.SIZE + i, (byte) (i * 7 + 3));
        s.sendFully(big, 0, RequestHeader.SIZE);
        for (int off = 0; off < SENT_PAYLOAD; off += 4096) {
            s.sendFully(big, RequestHeader.SIZE + off, 4096);
            Thread.sleep(2);
        }
        System.out.println("SENT " + (RequestHeader.SIZE + SENT_PAYLOAD));
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // mid-request until SIGKILL
    }

    private static void server(String path, Backend backend) throws Exception {
        // Logging is left as `sysframe serve` leaves it: untouched until the server's first line, which
        // may well be the one about descriptors running out (java.util.logging then opens the JDK's
        // logging.properties and tzdb.dat for the first time: the server must leave it a descriptor).
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path).backend(backend))) {
            long fds;
            try (var list = Files.list(Path.of("/proc/self/fd"))) {
                fds = list.count() - 1; // without the directory stream's own descriptor
            }
            System.out.println("READY fds=" + fds + " backend=" + server.backend());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            List<RandomAccessFile> hogged = new ArrayList<>();
            String line;
            while ((line = in.readLine()) != null) {
                switch (line.trim()) {
                    case "count" -> System.out.println("COUNT " + server.connectionCount() + " "
                            + server.closedConnections().size());
                    case "hog" -> {
                        // Descriptors taken by something else in the process than the server's connections.
                        try {
                            while (true) hogged.add(new RandomAccessFile("/dev/null", "r"));
                        } catch (IOException full) {
                            System.out.println("HOGGED " + hogged.size() + " (" + full.getMessage() + ")");
                        }
                    }
                    case "release" -> {
                        for (RandomAccessFile f : hogged) f.close();
                        System.out.println("RELEASED " + hogged.size());
                        hogged.clear();
                    }
                    case "quit" -> {
                        server.close();
                        System.out.println("BYE");
                        System.out.flush();
                        return;
                    }
                    default -> System.out.println("UNKNOWN " + line);
                }
                System.out.flush();
            }
        }
    }
}
