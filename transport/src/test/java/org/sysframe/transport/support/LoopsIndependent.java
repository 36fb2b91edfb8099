package org.sysframe.transport.support;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test (class or method) whose outcome cannot depend on how many event loops a server has: a
 * client's own property (its timeouts, cap, I/O role, allocation), scripted peers in place of a
 * server, or servers that choose their loops themselves. {@code make test}'s second pass, which runs
 * the transport's tests again with every {@link TestServers} server on two loops, leaves these out
 * ({@code -DexcludedGroups=}{@value #TAG}): run there, they would repeat the first pass exactly.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(LoopsIndependent.TAG)
public @interface LoopsIndependent {
    /** The JUnit tag this annotation carries. */
    String TAG = "loops-independent";
}
