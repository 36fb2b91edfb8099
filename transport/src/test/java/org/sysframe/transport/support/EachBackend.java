package org.sysframe.transport.support;

import org.junit.jupiter.api.ClassTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A behaviour test of the transport, written once and run for each backend: the class is a JUnit class
 * template invoked once on epoll and once on io_uring (the invocations are named {@code epoll} and
 * {@code io_uring}, so every test's display path shows its backend). In each invocation every server
 * and client whose options do not choose a backend runs on that one ({@link BackendSuite}); a test that
 * wants it takes a {@link org.sysframe.transport.Backend} parameter (constructor or method). Where
 * io_uring is unavailable, the io_uring invocation's tests are skipped with the reason
 * ({@code UringSupport.unavailableReason()}).
 *
 * <p>{@code @BeforeAll} runs once before both invocations: a server or client that should run on the
 * invocation's backend is made per test (or per instance), never in {@code @BeforeAll}. A test that
 * pins both sides to one backend (its own counts) does not belong in such a class: it runs once.
 *
 * <p>A client test class says {@code @EachBackend(alsoOverSharedMemory = true)} to run a third time, in
 * the invocation named {@code epoll+shm}: on epoll, every client made by {@link TestClients} (or
 * {@link ServerFixture#clientOptions}) asks for the shared-memory channel, every server started by
 * {@link TestServers} offers it to every client the test makes, and every {@link RawServer} grants it
 * and runs its script over the channel's rings. {@link TestClients#connect} fails a client that stays on
 * the socket. A test that cannot hold over the channel by design says why and skips there
 * ({@link BackendSuite#overSharedMemory()}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ClassTemplate
@ExtendWith(BackendSuite.class)
public @interface EachBackend {
    /** Whether the class also runs over the shared-memory channel (a third invocation, {@code epoll+shm}). */
    boolean alsoOverSharedMemory() default false;
}
