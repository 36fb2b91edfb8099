package org.sysframe.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.SyscallKind;

import java.util.Objects;

/**
 * A {@link GroutServer}'s counts as meters of a {@link MeterRegistry}:
 *
 * <table>
 * <caption>The server's meters</caption>
 * <tr><th>name</th><th>type</th><th>reads</th></tr>
 * <tr><td>{@code sysframe.server.requests}</td><td>counter</td><td>requests read and handed to their
 *     handlers, GR_HELLO included, every loop and channel: {@code stats().requests()}</td></tr>
 * <tr><td>{@code sysframe.server.errors}</td><td>counter</td><td>answers with an error status (the
 *     handler's, or the server's ENOTSUP, EMSGSIZE, EBADMSG, EIO, ENOMEM): {@code stats().errors()}</td></tr>
 * <tr><td>{@code sysframe.server.bytes.received}, {@code .sent}</td><td>counter</td><td>the frames'
 *     bytes, headers included, of the requests read and of the answers and events written</td></tr>
 * <tr><td>{@code sysframe.server.connections}</td><td>gauge</td><td>connections open now, on every loop:
 *     {@code connectionCount()}</td></tr>
 * <tr><td>{@code sysframe.server.channels}</td><td>gauge</td><td>shared-memory channels open now:
 *     {@code channelCount()}</td></tr>
 * <tr><td>{@code sysframe.server.syscalls}</td><td>counter, tag {@code kind}</td><td>the syscalls of the
 *     event-loop threads, summed over the loops, by kernel name ({@code epoll_wait}, {@code recvfrom},
 *     {@code sendto}, {@code io_uring_enter}, ...): {@code loopCounters(i).get(kind)}</td></tr>
 * </table>
 *
 * <p>Every meter reads the server when the registry is read (from any thread, without a task on a
 * loop): binding adds no work to a request. Each is tagged {@code socket} (the socket path) and
 * {@code backend} ({@code epoll} or {@code io_uring}), plus the tags given here. The shared-memory
 * channels' own threads are not loops: their syscalls are not in {@code sysframe.server.syscalls}.
 *
 * <p>The meters hold the server weakly. {@link #close()} removes them from every registry this binder
 * was bound to: close it with the server.
 */
public final class GroutServerMetrics implements MeterBinder, AutoCloseable {
    private final GroutServer server;
    private final Tags tags;
    private final BoundMeters bound = new BoundMeters();

    /** A binder for server, its meters tagged socket and backend. */
    public GroutServerMetrics(GroutServer server) {
        this(server, Tags.empty());
    }

    /** A binder for server, its meters tagged socket, backend and tags. */
    public GroutServerMetrics(GroutServer server, Iterable<Tag> tags) {
        this.server = Objects.requireNonNull(server, "server");
        this.tags = Tags.of("socket", server.socketPath(), "backend", server.backend().toString()).and(tags);
    }

    /** The tags every meter of this binder has. */
    public Tags tags() { return tags; }

    @Override
    public void bindTo(MeterRegistry registry) {
        bound.add(registry, FunctionCounter.builder("sysframe.server.requests", server, s -> s.stats().requests())
                .description("Requests read and handed to their handlers").tags(tags).register(registry));
        bound.add(registry, FunctionCounter.builder("sysframe.server.errors", server, s -> s.stats().errors())
                .description("Answers with an error status").tags(tags).register(registry));
        bound.add(registry, FunctionCounter.builder("sysframe.server.bytes.received", server, s ->
                s.stats().bytesReceived())
                .description("Bytes of the requests read, headers included").baseUnit("bytes").tags(tags)
                        .register(registry));
        bound.add(registry, FunctionCounter.builder("sysframe.server.bytes.sent", server, s -> s.stats().bytesSent())
                .description("Bytes of the answers and events written, headers included").baseUnit("bytes").tags(tags)
                .register(registry));
        bound.add(registry, Gauge.builder("sysframe.server.connections", server, GroutServer::connectionCount)
                .description("Connections open now").tags(tags).register(registry));
        bound.add(registry, Gauge.builder("sysframe.server.channels", server, GroutServer::channelCount)
                .description("Shared-memory channels open now").tags(tags).register(registry));
        for (SyscallKind kind : Syscalls.KINDS) {
            bound.add(registry, FunctionCounter.builder("sysframe.server.syscalls", server, s -> loopSum(s, kind))
                    .description("Syscalls of the server's event-loop threads, by kind")
                    .tags(tags).tag("kind", kind.kernelName())
                    .register(registry));
        }
    }

    private static double loopSum(GroutServer server, SyscallKind kind) {
        long n = 0;
        for (int i = 0; i < server.loopCount(); i++) n += server.loopCounters(i).get(kind);
        return n;
    }

    /**
     * Removes this binder's meters from every registry it was bound to (the server keeps running); it
     * may be bound again after. Idempotent.
     */
    @Override
    public void close() { bound.removeAll(); }
}
