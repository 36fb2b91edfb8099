package org.sysframe.testsupport;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The test runs perf, recording whole CPUs (root); skipped with the reason for a non-root user outside CI, a failure
 * under root or CI=true when missing.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(PrivilegeGate.class)
public @interface NeedsPerf {}
