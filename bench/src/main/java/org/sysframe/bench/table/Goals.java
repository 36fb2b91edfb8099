package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;

import java.util.ArrayList;
import java.util.List;

import static org.sysframe.bench.measure.Goal.Metric.CALLS_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.CLIENT_CPU_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.CLIENT_SYSCALLS_PER_CALL;
import static org.sysframe.bench.measure.Goal.Metric.CPU_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.P50_MICROS;
import static org.sysframe.bench.measure.Goal.Metric.P99_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.SERVER_CPU_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.SERVER_RSS_KIB_PER_CONNECTION;
import static org.sysframe.bench.measure.Goal.Metric.SERVER_SYSCALLS_PER_CALL;

/**
 * The project's goals, declared once as data; the reports evaluate this table against a run.
 *
 * <p>Internal to the bench: public for its other packages, not an API.
 */
public final class Goals {
    private Goals() {}

    /**
     * Every goal, one row each: name, table, subject vs versus cell, payload, metric, direction
     * (true: at least), threshold; or {@code Goal.level(name, table, subject, versus, payload, metric,
     * margin)} for a "level with" goal. A row is added by adding a line: the runner gives the cells it
     * names extra rounds while its interval is unsettled, and every report shows it.
     */
    public static final List<Goal> TABLE = List.of(
            new Goal("seed patch: +10 % calls/s", "matrix", "seed-v3", "baseline", 32, CALLS_RATIO, true, 1.10),
            new Goal("seed patch: 15 % less CPU", "matrix", "seed-v3", "baseline", 32, CPU_RATIO, false, 0.85),
            new Goal("merged change: +10 % calls/s", "matrix", "merged", "baseline", 32, CALLS_RATIO, true, 1.10),
            new Goal("merged change: 15 % less CPU", "matrix", "merged", "baseline", 32, CPU_RATIO, false, 0.85),
            new Goal("one at a time: at least 0.97x C lean", "peers", "sysframe", "c-lean", 32, CALLS_RATIO, true, 0.97),
            new Goal("client CPU within 10 % of C lean", "peers", "sysframe", "c-lean", 32, CLIENT_CPU_RATIO, false, 1.10),
            new Goal("at least the tuned JDK's throughput", "peers", "sysframe", "jdk-gather", 32, CALLS_RATIO, true, 1.00),
            new Goal("10 % less client CPU than the tuned JDK", "peers", "sysframe", "jdk-gather", 32, CLIENT_CPU_RATIO, false, 0.90),
            new Goal("+20 % over jnr-unixsocket", "peers", "sysframe", "jnr", 32, CALLS_RATIO, true, 1.20),
            new Goal("one at a time: at least 0.97x C lean", "peers", "sysframe", "c-lean", 1024, CALLS_RATIO, true, 0.97),
            new Goal("client CPU within 10 % of C lean", "peers", "sysframe", "c-lean", 1024, CLIENT_CPU_RATIO, false, 1.10),
            new Goal("at least the tuned JDK's throughput", "peers", "sysframe", "jdk-gather", 1024, CALLS_RATIO, true, 1.00),
            new Goal("10 % less client CPU than the tuned JDK", "peers", "sysframe", "jdk-gather", 1024, CLIENT_CPU_RATIO, false, 0.90),
            new Goal("+20 % over jnr-unixsocket", "peers", "sysframe", "jnr", 1024, CALLS_RATIO, true, 1.20),
            // Spinning's calls/s over blocking's is the machine's price of two wake-ups (17.6x on an Intel guest,
            // 2.3-9.5x on an AMD one with halt polling, the C lean client alike): judged against C lean spinning below.
            new Goal("spinning both sides: no more CPU per call than blocking across cores", "wait",
                    "spin/spin 2 cores", "block/block 2 cores", 32, CPU_RATIO, false, 1.0),
            new Goal("spinning both sides: half the p99 latency", "wait", "spin/spin 2 cores", "block/block 2 cores", 32, P99_RATIO, false, 0.5),
            Goal.level("spin:50us within 10 % of spinning", "wait", "spin:50us/spin 2 cores", "spin/spin 2 cores", 32, CALLS_RATIO, 0.10),
            new Goal("depth 64: 8x depth 1", "depth", "depth 64", "depth 1", 32, CALLS_RATIO, true, 8.0),
            new Goal("depth 64: at least 0.95x C lean at depth 64", "depth", "depth 64", "C lean depth 64", 32, CALLS_RATIO, true, 0.95),
            new Goal("depth 64: at most 2/64 + 0.01 client syscalls per call", "depth", "depth 64", "depth 64", 32,
                    CLIENT_SYSCALLS_PER_CALL, false, 2.0 / 64 + 0.01),
            new Goal("shared memory spinning: 5x the socket spinning", "wait", "shm spin/spin 2 cores", "spin/spin 2 cores", 32, CALLS_RATIO, true, 5.0),
            new Goal("shared memory spinning: no syscall per call", "wait", "shm spin/spin 2 cores", "shm spin/spin 2 cores", 32,
                    CLIENT_SYSCALLS_PER_CALL, false, 0.0005),
            new Goal("shared memory spinning: p50 at most 1 us", "wait", "shm spin/spin 2 cores", "shm spin/spin 2 cores", 32,
                    P50_MICROS, false, 1.0),
            new Goal("shared memory spinning: at least 0.5x the C shared-memory ping-pong", "wait", "shm spin/spin 2 cores",
                    "C shm spin/spin 2 cores", 32, CALLS_RATIO, true, 0.5),
            new Goal("shared memory blocking: no slower than the socket blocking", "wait", "shm block/block 2 cores", "block/block 2 cores", 32,
                    CALLS_RATIO, true, 1.0),
            new Goal("shared memory blocking: at most 2 syscalls per call", "wait", "shm block/block 2 cores", "shm block/block 2 cores", 32,
                    CLIENT_SYSCALLS_PER_CALL, false, 2.0),
            // Both rows wait spin:50us: blocking, each window pays two wake-ups on either transport (DepthTable).
            new Goal("shared memory depth 64: 1.5x the socket at depth 64, both waiting spin:50us", "depth",
                    DepthTable.SHM_PREFIX + DepthTable.spinning(DepthTable.SPINNING_DEPTH), DepthTable.spinning(DepthTable.SPINNING_DEPTH), 32, CALLS_RATIO, true, 1.5),
            new Goal("spinning: at least 0.95x C lean spinning", "wait", "spin/spin 2 cores", "C lean spin/spin 2 cores", 32, CALLS_RATIO, true, 0.95),
            new Goal("io_uring client: 1 syscall per call", "backends", "io_uring/io_uring", "io_uring/io_uring", 32,
                    CLIENT_SYSCALLS_PER_CALL, false, 1.0),
            new Goal("io_uring server: at most 1 syscall per request", "backends", "io_uring/io_uring", "io_uring/io_uring", 32,
                    SERVER_SYSCALLS_PER_CALL, false, 1.0),
            // No calls/s goal one call at a time: io_uring's receive completes through task work on the waiting
            // thread and cannot beat epoll there; where it should win (many connections), the connections goals
            // judge it.
            new Goal("io_uring both sides: less CPU per call than epoll", "backends", "io_uring/io_uring", "epoll/epoll", 32, CPU_RATIO, false, 1.0),
            new Goal("32 connections: io_uring server at most 0.8x epoll's server CPU per request", "connections",
                    "io_uring 1 loop", "epoll 1 loop", 32, SERVER_CPU_RATIO, false, 0.8),
            new Goal("32 connections: io_uring server at most 0.25 syscalls per request", "connections",
                    "io_uring 1 loop", "io_uring 1 loop", 32, SERVER_SYSCALLS_PER_CALL, false, 0.25),
            new Goal("32 C lean connections: io_uring server at most 0.8x epoll's server CPU per request", "connections",
                    "C lean io_uring 1 loop", "C lean epoll 1 loop", 32, SERVER_CPU_RATIO, false, 0.8),
            new Goal("32 C lean connections: io_uring server at most 0.25 syscalls per request", "connections",
                    "C lean io_uring 1 loop", "C lean io_uring 1 loop", 32, SERVER_SYSCALLS_PER_CALL, false, 0.25),
            // The server-side anchor: sysframe's server against the C server (sysframe_serve), both under the lean C clients.
            new Goal("32 C lean connections: sysframe server CPU per request <= 1.10x the C server's", "connections",
                    "C lean epoll 1 loop", "C lean C server", 32, SERVER_CPU_RATIO, false, 1.10),
            new Goal("1 C lean connection: sysframe server CPU per request <= 1.10x the C server's", "connections",
                    "C lean epoll 1 loop (1 conn)", "C lean C server (1 conn)", 32, SERVER_CPU_RATIO, false, 1.10),
            // One figure per cell (the server's RSS growth over its connections), the C server's shown beside it.
            new Goal("idle connection memory <= 4 KiB per connection", "scale", "epoll 1 loop 10000 idle", "C server 10000 idle", 32,
                    SERVER_RSS_KIB_PER_CONNECTION, false, 4.0),
            new Goal("64 virtual callers on one client: 3x 64 platform threads with a GroutClient each", "concurrency",
                    "one client 64 virtual", "clients 64 platform", 32, CALLS_RATIO, true, 3.0),
            new Goal("64 virtual callers on one client: at most 0.2 client syscalls per call", "concurrency",
                    "one client 64 virtual", "one client 64 virtual", 32, CLIENT_SYSCALLS_PER_CALL, false, 0.2),
            new Goal("64 virtual callers on one client: 2x a JDK SocketChannel per virtual thread", "concurrency",
                    "one client 64 virtual", "jdk 64 virtual", 32, CALLS_RATIO, true, 2.0),
            new Goal("64 virtual callers on one io_uring client: 3x 64 platform threads with a GroutClient each", "concurrency",
                    "one client io_uring 64 virtual", "clients 64 platform", 32, CALLS_RATIO, true, 3.0),
            new Goal("64 virtual callers on one io_uring client: at most 0.2 client syscalls per call", "concurrency",
                    "one client io_uring 64 virtual", "one client io_uring 64 virtual", 32, CLIENT_SYSCALLS_PER_CALL, false, 0.2),
            new Goal("64 virtual callers on one client over shared memory: 3x 64 platform threads with a GroutClient each", "concurrency",
                    "one client shm 64 virtual", "clients 64 platform", 32, CALLS_RATIO, true, 3.0),
            // Against a server that answers one request per read (Grout's api.c): one client with maxInFlight(1).
            new Goal("one request per read: 64 callers over a pool of 4 >= 0.9x the calls/s of 4 C lean clients, a connection each", "concurrency",
                    ConcurrencyTable.onePerRead(64, 4), ConcurrencyTable.cOnePerRead(4), 32, CALLS_RATIO, true, 0.9),
            new Goal("one request per read: 64 callers, a pool of 4 makes more calls/s than one connection", "concurrency",
                    ConcurrencyTable.onePerRead(64, 4), ConcurrencyTable.onePerRead(64, 1), 32, CALLS_RATIO, true, 1.0));

    /** The verdict of every goal whose cells the tables hold, in the table's order. */
    public static List<GoalVerdict> evaluate(List<Goal> goals, List<BenchTable> tables) {
        List<GoalVerdict> out = new ArrayList<>();
        for (Goal g : goals) {
            for (BenchTable t : tables) {
                if (!t.name().equals(g.table())) continue;
                GoalVerdict v = GoalVerdict.of(g, t);
                if (v != null) out.add(v);
            }
        }
        return out;
    }

    /** The verdicts of one table. */
    public static List<GoalVerdict> of(List<GoalVerdict> all, String table) {
        return all.stream().filter(v -> v.goal().table().equals(table)).toList();
    }
}
