package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.UnixSocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.testsupport.ChildProcess;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.support.DescriptorLimits;
import org.sysframe.transport.support.FaultChild;
import org.sysframe.transport.support.OwnedClient;
import org.sysframe.transport.support.ServerFixture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.sysframe.transport.support.Pings.ping;

/**
 * A server out of descriptors (EMFILE) pauses accepting, keeps serving its connections, and resumes once
 * descriptors are free again, whether or not one of its own connections closes. The server runs in a
 * child JVM (its own descriptor limit) on the invocation's backend.
 * Outcomes are exact; waits are bounded only as hang guards.
 */
@EachBackend
class DescriptorExhaustionTest {

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    private static final Predicate<String> EMFILE_LINE = l -> l.contains("accept failed") && l.contains("EMFILE");

    private static String countOf(ChildProcess child) throws Exception {
        child.command("count");
        return child.awaitLine(l -> l.startsWith("COUNT "));
    }

    /** The child's server's open and closed connection counts, as it answers the "count" command. */
    private static int[] counts(ChildProcess child) throws Exception {
        String[] f = countOf(child).split(" ");
        return new int[] {Integer.parseInt(f[1]), Integer.parseInt(f[2])};
    }

    /** A child JVM limited to limit descriptors, whose server (on backend) listens at path; its READY line came. */
    private ChildProcess startServer(int limit, String path, Backend backend) throws Exception {
        ChildProcess child = new ChildProcess(DescriptorLimits.withDescriptorLimit(limit,
                ChildProcess.javaCommand(FaultChild.class, "server", path, backend.name())));
        fx.track(child);
        return child;
    }

    /**
     * The child's descriptor count once it is want, or what it is after 30 s. While accepting is paused
     * the loop takes its spare back every 100 ms and resumes: with a client waiting in the backlog, the
     * accept that follows fails with EMFILE at once and the spare goes again, so a look can fall in between;
     * with nobody waiting, the spare stays taken until a client comes (the table plus the spare: the limit).
     * The tests so look with a client waiting.
     */
    private static long settledDescriptors(ChildProcess child, long want) throws Exception {
        long n = ProcessProbe.descriptorsOf(child.pid());
        for (int i = 0; i < 6_000 && n != want; i++) {
            Thread.sleep(5);
            n = ProcessProbe.descriptorsOf(child.pid());
        }
        return n;
    }

    /**
     * The oldest accepted client closes: accepting resumes, the waiting one is taken from the backlog and
     * served, and that fills the table again, so accepting pauses again: warning number warnings, then the
     * child's counts are want.
     */
    private static void oneClosesAndTheWaitingOneIsTaken(ChildProcess child, List<OwnedClient> accepted,
            OwnedClient waiting, int warnings, int[] want) throws Exception {
        accepted.remove(0).close();
        waiting.awaitConnected();
        waiting.ping(100 + warnings, 30_000);
        for (int i = 0; i < 6_000 && child.count(EMFILE_LINE) < warnings; i++) Thread.sleep(5);
        assertEquals(warnings, child.count(EMFILE_LINE), "accept failures logged");
        assertArrayEquals(want, counts(child));
    }

    @Test
    void serverOutOfDescriptorsPausesAcceptingKeepsServingAndResumesWhenAConnectionCloses(
            Backend backend) throws Exception {
        final int limit = 64;
        String p = fx.path("emfile.sock");
        guard(() -> {
            ChildProcess child = startServer(limit, p, backend);
            String ready = child.awaitLine(l -> l.startsWith("READY "));
            assertTrue(ready.endsWith(" backend=" + backend), "the child's server runs on " + backend + ": " + ready);
            ClientOptions o = clientOptions(p).receiveTimeoutMillis(60_000);

            // Connect one client at a time until the child logs that accept failed with EMFILE. Its
            // loop accepts until the backlog is empty, and accept4 reports EMFILE before it looks for
            // a connection: the warning comes from the accept after the one that took the last free
            // descriptor, whether or not a connection is waiting. The child's count says which.
            List<OwnedClient> accepted = new ArrayList<>();
            OwnedClient pending = null;
            for (int i = 0; i < 2 * limit && child.count(EMFILE_LINE) == 0; i++) {
                OwnedClient c = new OwnedClient(o);
                fx.track(c);
                while (!c.client.isDone() && child.count(EMFILE_LINE) == 0) Thread.sleep(1);
                if (c.client.isDone() || counts(child)[0] == accepted.size() + 1) {
                    c.awaitConnected(); // accepted: its hello is answered
                    accepted.add(c);
                } else {
                    pending = c; // met the full table itself: it waits in the backlog
                }
            }
            assertEquals(1, child.count(EMFILE_LINE), "accept failures logged");
            int n = accepted.size();
            // The next client waits in the backlog: each retry's accept fails, and the spare is let go again.
            boolean nobodyWaited = pending == null;
            if (pending == null) {
                pending = new OwnedClient(o);
                fx.track(pending);
            }
            long childFds = settledDescriptors(child, limit - 1);
            System.out.printf(Locale.ROOT,
                    "EMFILE: child pid %d (%s), limit %d, %d clients accepted, child descriptors %d,"
                            + " the warning came %s:%n  %s%n", child.pid(), ready, limit, n, childFds,
                    nobodyWaited ? "right after the last accept (nobody waiting yet)"
                            : "when the next client arrived",
                    child.output.stream().filter(EMFILE_LINE).findFirst().orElseThrow());
            // Full but for the one the server's spare held: let go while accepting is paused.
            assertEquals(limit - 1, childFds, "the child's descriptors when accepting pauses");

            // The accepted ones are all served meanwhile, and the paused listener does not make the loop
            // spin on EMFILE (still one warning).
            for (int i = 0; i < n; i++) accepted.get(i).ping(i, 1 + i * 997 % 20_000);
            assertArrayEquals(new int[] {n, 0}, counts(child));
            assertFalse(pending.client.isDone(), "the client beyond the limit was served");
            assertEquals(1, child.count(EMFILE_LINE), String.join("\n", child.output));

            // One connection closes: accepting resumes and the waiting client is taken from the
            // backlog; that fills the table again, so accepting pauses again (a second warning).
            oneClosesAndTheWaitingOneIsTaken(child, accepted, pending, 2, new int[] {n, 1});
            OwnedClient second = new OwnedClient(o); // waits in the backlog, as pending did
            fx.track(second);
            assertEquals(limit - 1, settledDescriptors(child, limit - 1));
            assertFalse(second.client.isDone(), "a client beyond the limit was served");

            // Once more, and a third warning.
            oneClosesAndTheWaitingOneIsTaken(child, accepted, second, 3, new int[] {n, 2});

            // Three more close: a brand-new client is accepted and served straight away.
            for (int i = 0; i < 3; i++) accepted.remove(0).close();
            int[] want = {n - 3, 5};
            int[] got = counts(child);
            for (int i = 0; i < 6_000 && !Arrays.equals(want, got); i++) {
                Thread.sleep(5);
                got = counts(child);
            }
            assertArrayEquals(want, got);
            OwnedClient fresh = new OwnedClient(o);
            fx.track(fresh);
            fresh.ping(101, GroutApi.MAX_MSG_LEN);
            for (OwnedClient c : accepted) c.ping(102, 64);
            pending.ping(103, 64);
            second.ping(105, 64);
            assertArrayEquals(new int[] {n - 2, 5}, counts(child));
            assertEquals(3, child.count(EMFILE_LINE), "accept failures logged");
            System.out.printf(Locale.ROOT,
                    "EMFILE: after 1 close a backlogged client was accepted (table full again: warning 2), and so"
                    + " once more (warning 3); after 3 more a new client was served at once; child descriptors %d,"
                    + " %s%n",
                            ProcessProbe.descriptorsOf(child.pid()), countOf(child));

            for (OwnedClient c : accepted) c.close();
            pending.close();
            second.close();
            fresh.close();
            child.command("quit");
            child.awaitLine(l -> l.equals("BYE"));
            assertTrue(child.process.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.process.exitValue(), String.join("\n", child.output));
        });
    }

    /**
     * A burst of connections well past the descriptor limit, all closed again: the server's loop lives
     * through it (its first log line ever, written out of descriptors, does not end it), every
     * connection is taken and closed in the end, and a new client is served. Before, the loop thread
     * died silently at the first EMFILE and the listener closed with it.
     */
    @Test
    void aBurstPastTheDescriptorLimitLeavesTheServerServing(Backend backend) throws Exception {
        final int limit = 64;
        final int burst = 100;
        String p = fx.path("emfile-burst.sock");
        guard(() -> {
            ChildProcess child = startServer(limit, p, backend);
            String ready = child.awaitLine(l -> l.startsWith("READY "));
            long baseline = ProcessProbe.descriptorsOf(child.pid());
            List<UnixSocket> sockets = new ArrayList<>();
            try {
                // Blocking connects: those past the server's free descriptors wait in its listen backlog.
                for (int i = 0; i < burst; i++) sockets.add(UnixSocket.connect(p));
                child.awaitLine(EMFILE_LINE);
            } finally {
                for (UnixSocket s : sockets) s.close();
            }
            // Every connection of the burst is accepted in the end (the backlog's once descriptors are
            // free again) and closed as its peer left: exactly burst closed, none open.
            int[] got = counts(child);
            for (int i = 0; i < 6_000 && !(got[0] == 0 && got[1] == burst); i++) {
                Thread.sleep(5);
                got = counts(child);
            }
            assertArrayEquals(new int[] {0, burst}, got, String.join("\n", child.output));
            try (GroutClient c = GroutClient.connect(clientOptions(p).receiveTimeoutMillis(60_000))) {
                ping(c, 7, 1_000);
            }
            assertEquals(0, child.count(l -> l.contains("failed") && !EMFILE_LINE.test(l)),
                    String.join("\n", child.output));
            for (int i = 0; i < 6_000 && ProcessProbe.descriptorsOf(child.pid()) != baseline; i++) Thread.sleep(5);
            assertEquals(baseline, ProcessProbe.descriptorsOf(child.pid()),
                    "the child's descriptors after every client left");
            System.out.printf(Locale.ROOT,
                    "EMFILE burst: %s, limit %d, %d connects, all closed; then a ping served; %d accept"
                    + " warning(s)%n", ready, limit, burst, child.count(EMFILE_LINE));
            child.command("quit");
            child.awaitLine(l -> l.equals("BYE"));
            assertTrue(child.process.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.process.exitValue(), String.join("\n", child.output));
        });
    }

    @Test
    void acceptingResumesOnceDescriptorsAreFreeAgainEvenIfNoConnectionOfTheServerCloses(
            Backend backend) throws Exception {
        final int limit = 64;
        String p = fx.path("emfile-elsewhere.sock");
        guard(() -> {
            ChildProcess child = startServer(limit, p, backend);
            String ready = child.awaitLine(l -> l.startsWith("READY "));
            assertTrue(ready.endsWith(" backend=" + backend), "the child's server runs on " + backend + ": " + ready);
            // Something else in the process takes every free descriptor; the server has no connection. The
            // JVM may hold one of its own for a while as the table fills (63 read right after, of 64, and
            // once still after 50 tries 5 ms apart on a loaded machine): the child takes what is free again
            // until the table stays full. A bound of 20 s (a hang guard, not a timing requirement).
            child.command("hog");
            String hogged = child.awaitLine(l -> l.startsWith("HOGGED "));
            long until = System.nanoTime() + 20_000_000_000L;
            while (ProcessProbe.descriptorsOf(child.pid()) != limit && System.nanoTime() - until < 0) {
                Thread.sleep(5);
                child.command("hog");
                hogged = child.awaitLine(l -> l.startsWith("HOGGED "));
            }
            // Full: the limit, or one less when the server has just let its spare descriptor go (it does so on an
            // accept that failed with EMFILE, and takes it back 100 ms later: a count read then finds the table
            // full but for the spare's slot, as a fresh-clone run of the io_uring invocation did, twice).
            List<String> fds = DescriptorLimits.targetList(child.pid());
            boolean spare = fds.stream().anyMatch(t -> t.contains("sysframe-spare-fd"));
            assertTrue(fds.size() == limit || (fds.size() == limit - 1 && !spare), fds.size() + " descriptors, "
                    + hogged + "; the child's descriptors: " + DescriptorLimits.summary(fds));

            OwnedClient c = new OwnedClient(clientOptions(p).receiveTimeoutMillis(60_000));
            fx.track(c);
            child.awaitLine(EMFILE_LINE); // the server met the full table and paused accepting
            child.command("release");
            String released = child.awaitLine(l -> l.startsWith("RELEASED "));
            long free = limit - ProcessProbe.descriptorsOf(child.pid());
            System.out.printf(Locale.ROOT,
                    "EMFILE elsewhere: %s, server paused; %s: %d descriptors free, 0 connections to close;"
                    + " child epoll registrations:%s%n", hogged, released, free,
                            DescriptorLimits.epollRegistrations(child.pid()));
            assertTrue(free > 1, "descriptors free after the release: " + free);

            // Nothing of the server's will close, so only a retry can resume accepting. Bounded wait
            // (a hang guard, not a timing requirement): the client waits in the backlog meanwhile.
            try {
                c.client.get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("with " + free
                        + " descriptors free again, the client still waits in the listen backlog: the server"
                        + " paused accepting \"until a connection closes\" and has none; epoll registrations of the "
                                + "child"
                        + " (the listener's tag is ffffffffffffffff; events 18 = only the always-reported "
                                + "EPOLLERR|EPOLLHUP, no EPOLLIN: paused):"
                                        + DescriptorLimits.epollRegistrations(child.pid()));
            }
            c.ping(1, 100);
            assertEquals("COUNT 1 0", countOf(child));
        });
    }
}
