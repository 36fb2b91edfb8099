package org.sysframe.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.sysframe.transport.GroutClient;
import org.sysframe.unix.SyscallKind;

import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * A {@link GroutClient}'s counts as meters of a {@link MeterRegistry}:
 *
 * <table>
 * <caption>The client's meters</caption>
 * <tr><th>name</th><th>type</th><th>reads</th></tr>
 * <tr><td>{@code sysframe.client.calls}</td><td>counter</td><td>requests made, by every entry point
 *     (connect's GR_HELLO included): {@code stats().calls()}</td></tr>
 * <tr><td>{@code sysframe.client.errors}</td><td>counter</td><td>calls that ended without an answer
 *     (timed out, interrupted, failed with their connection): {@code stats().failed()}</td></tr>
 * <tr><td>{@code sysframe.client.timeouts}</td><td>counter</td><td>of them, those past their receive
 *     timeout: {@code stats().timedOut()}</td></tr>
 * <tr><td>{@code sysframe.client.bytes.sent}, {@code .received}</td><td>counter</td><td>the frames'
 *     bytes, headers included, of the requests made and of the answers and events received:
 *     {@code stats().bytesSent()}, {@code bytesReceived()}</td></tr>
 * <tr><td>{@code sysframe.client.in.flight}</td><td>gauge</td><td>calls waiting for their answer now:
 *     {@code stats().inFlight()}</td></tr>
 * <tr><td>{@code sysframe.client.answers.late}</td><td>counter</td><td>answers that came after their call
 *     gave up (its receive timeout, an interrupt) and were dropped: {@code stats().late()}</td></tr>
 * <tr><td>{@code sysframe.client.answers.unmatched}</td><td>counter</td><td>answers no call had the id of:
 *     {@code stats().unmatched()}</td></tr>
 * <tr><td>{@code sysframe.client.batches}</td><td>counter</td><td>sends that carried the requests other
 *     callers queued: {@code stats().batches()}</td></tr>
 * <tr><td>{@code sysframe.client.events.received}, {@code .dropped}</td><td>counter</td><td>events received,
 *     and dropped past the 4,096 kept untaken</td></tr>
 * <tr><td>{@code sysframe.client.events.pending}</td><td>gauge</td><td>events received and not taken yet</td></tr>
 * <tr><td>{@code sysframe.client.syscalls}</td><td>counter, tag {@code kind}</td><td>the syscalls the
 *     client made, by kernel name ({@code sendto}, {@code recvfrom}, {@code io_uring_enter}, ...):
 *     {@code counters().get(kind)}</td></tr>
 * </table>
 *
 * <p>Every meter reads the client when the registry is read: binding adds no work to a call. Each is
 * tagged {@code socket} (the socket path), {@code backend} ({@code epoll} or {@code io_uring}) and
 * {@code transport} ({@code socket} or {@code shared-memory}), as the client's first connection runs,
 * plus the tags given here. Two clients of one socket bound to one registry need a tag of their own to
 * tell them apart: a registry keeps the first meter of a name and tags and hands it back for the
 * second. With {@code ClientOptions.connections} over 1 the counts are summed over the connections
 * open now (a connection connected anew in a broken one's place starts from 0; its syscalls carry on).
 *
 * <p>The meters hold the client weakly. {@link #close()} removes them from every registry this binder
 * was bound to: close it with the client (a meter of a client that was collected reads NaN).
 */
public final class GroutClientMetrics implements MeterBinder, AutoCloseable {
    private final GroutClient client;
    private final Tags tags;
    private final BoundMeters bound = new BoundMeters();

    /** A binder for client, its meters tagged socket, backend and transport. */
    public GroutClientMetrics(GroutClient client) {
        this(client, Tags.empty());
    }

    /** A binder for client, its meters tagged socket, backend, transport and tags. */
    public GroutClientMetrics(GroutClient client, Iterable<Tag> tags) {
        this.client = Objects.requireNonNull(client, "client");
        this.tags = Tags.of("socket", client.config().socketPath(),
                "backend", client.backend().toString(),
                "transport", client.sharedMemory() ? "shared-memory" : "socket").and(tags);
    }

    /** The tags every meter of this binder has. */
    public Tags tags() { return tags; }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "sysframe.client.calls", "Requests made, by every entry point", c -> c.stats().calls());
        counter(registry, "sysframe.client.errors", "Calls that ended without an answer (timed out, interrupted,"
                + " failed with their connection)", c -> c.stats().failed());
        counter(registry, "sysframe.client.timeouts", "Calls past their receive timeout", c -> c.stats().timedOut());
        bound.add(registry, FunctionCounter.builder("sysframe.client.bytes.sent", client, c -> c.stats().bytesSent())
                .description("Bytes of the requests made, headers included").baseUnit("bytes").tags(tags)
                        .register(registry));
        bound.add(registry, FunctionCounter.builder("sysframe.client.bytes.received", client, c ->
                c.stats().bytesReceived())
                .description("Bytes of the answers and events received, headers included").baseUnit("bytes").tags(tags)
                .register(registry));
        gauge(registry, "sysframe.client.in.flight", "Calls waiting for their answer", c -> c.stats().inFlight());
        counter(registry, "sysframe.client.answers.late",
                "Answers dropped: their call had given up (timeout, interrupt)", c -> c.stats().late());
        counter(registry, "sysframe.client.answers.unmatched", "Answers dropped: no call had their id",
                c -> c.stats().unmatched());
        counter(registry, "sysframe.client.batches", "Sends that carried requests other callers queued",
                c -> c.stats().batches());
        counter(registry, "sysframe.client.events.received", "Events received", c -> c.stats().events());
        counter(registry, "sysframe.client.events.dropped", "Events dropped past the 4,096 kept untaken",
                c -> c.stats().eventsDropped());
        gauge(registry, "sysframe.client.events.pending", "Events received and not taken yet",
                GroutClient::pendingEvents);
        for (SyscallKind kind : Syscalls.KINDS) {
            bound.add(registry, FunctionCounter.builder("sysframe.client.syscalls", client, c -> c.counters().get(kind))
                    .description("Syscalls the client made, by kind")
                    .tags(tags).tag("kind", kind.kernelName())
                    .register(registry));
        }
    }

    private void counter(MeterRegistry registry, String name, String description, ToDoubleFunction<GroutClient> f) {
        bound.add(registry, FunctionCounter.builder(name, client, f).description(description).tags(tags)
                .register(registry));
    }

    private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<GroutClient> f) {
        bound.add(registry, Gauge.builder(name, client, f).description(description).tags(tags).register(registry));
    }

    /**
     * Removes this binder's meters from every registry it was bound to (the client stays open); it may
     * be bound again after. Idempotent.
     */
    @Override
    public void close() { bound.removeAll(); }
}
