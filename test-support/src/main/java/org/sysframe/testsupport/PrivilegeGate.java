package org.sysframe.testsupport;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The extension behind {@link NeedsRoot}, {@link NeedsKernelCounter}, {@link NeedsStrace} and {@link NeedsPerf}:
 * skips with one line saying why for a non-root user outside CI; under root or CI=true runs, and fails when something
 * is missing.
 */
public final class PrivilegeGate implements ExecutionCondition, BeforeEachCallback {
    private static final Set<String> ANNOUNCED = ConcurrentHashMap.newKeySet();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String missing = missing(context.getElement());
        if (missing == null) return ConditionEvaluationResult.enabled("has what it needs");
        if (Privileges.mustRun()) return ConditionEvaluationResult.enabled("root or CI: must run (" + missing + ")");
        String where = context.getRequiredTestClass().getName()
                + context.getTestMethod().map(m -> "#" + m.getName()).orElse("");
        if (ANNOUNCED.add(where)) System.err.println("[sysframe] " + where + " skipped: " + missing);
        return ConditionEvaluationResult.disabled(missing);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // Under root or CI=true the test runs; what it needs must be there.
        List<String> missing = new ArrayList<>();
        context.getTestClass().map(c -> missing(Optional.of(c))).ifPresent(missing::add);
        context.getTestMethod().map(m -> missing(Optional.of(m))).ifPresent(missing::add);
        missing.removeIf(m -> m == null);
        if (!missing.isEmpty()) {
            throw new AssertionError("this test must run as " + Privileges.who() + ", but: "
                    + String.join("; ", missing));
        }
    }

    /** Null when what element's annotations ask for is here, else why not. */
    private static String missing(Optional<? extends AnnotatedElement> element) {
        if (element.isEmpty()) return null;
        AnnotatedElement e = element.get();
        List<String> why = new ArrayList<>();
        if (AnnotationSupport.isAnnotated(e, NeedsRoot.class)) add(why, Privileges.rootMissing());
        if (AnnotationSupport.isAnnotated(e, NeedsKernelCounter.class)) add(why, Privileges.kernelCounterMissing());
        if (AnnotationSupport.isAnnotated(e, NeedsStrace.class)) add(why, Privileges.straceMissing());
        if (AnnotationSupport.isAnnotated(e, NeedsPerf.class)) add(why, Privileges.perfMissing());
        return why.isEmpty() ? null : String.join("; ", why);
    }

    private static void add(List<String> why, String reason) {
        if (reason != null && !why.contains(reason)) why.add(reason);
    }
}
