package org.sysframe.transport.support;

import org.junit.jupiter.api.extension.AfterClassTemplateInvocationCallback;
import org.junit.jupiter.api.extension.BeforeClassTemplateInvocationCallback;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContext;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContextProvider;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.params.ParameterizedTest;
import org.sysframe.transport.Backend;
import org.sysframe.unix.uring.UringSupport;

import java.util.List;
import java.util.stream.Stream;

/**
 * The extension behind {@link EachBackend}: one invocation of the test class per backend, epoll then
 * io_uring (Netty's testsuite permutations are the model: the same tests, once per transport).
 *
 * <p>An invocation makes its backend the process default for as long as it runs, through the
 * property {@link Backend#configuredDefault()} reads ({@code sysframe.backend}): every
 * {@code ServerOptions.defaults()} and {@code ClientOptions.defaults()} made during the invocation
 * (by the test, {@link TestServers}, {@link ServerFixture}, {@code GroutClient.connect(path)}, a
 * client thread) starts on it, and an option that chooses a backend still wins (a test of one side's
 * own counts pins that side). The value before the invocation is put back after it. Test classes run
 * one at a time in the surefire JVM (no parallel execution is configured), so invocations never overlap.
 *
 * <p>A class with {@code @EachBackend(alsoOverSharedMemory = true)} has a third invocation,
 * {@code epoll+shm}: epoll is the default, and the property {@value #SHARED_MEMORY} is set while it
 * runs, which {@link TestClients}, {@link TestServers} and {@link RawServer} read
 * ({@link #overSharedMemory()}): the main code has no default transport of its own to set.
 */
public final class BackendSuite implements ClassTemplateInvocationContextProvider {
    /** The backends of the suite, in the order they run. */
    public static final List<Backend> BACKENDS = List.of(Backend.EPOLL, Backend.IO_URING);

    private static final String PROPERTY = "sysframe.backend";

    /** Set ("true") while an {@code epoll+shm} invocation runs. */
    public static final String SHARED_MEMORY = "sysframe.test.sharedMemory";

    /**
     * Whether the running invocation is the shared-memory one: its clients ask for the channel, its servers offer it.
     */
    public static boolean overSharedMemory() { return Boolean.getBoolean(SHARED_MEMORY); }

    @Override
    public boolean supportsClassTemplate(ExtensionContext context) {
        return context.getTestClass().map(c -> c.isAnnotationPresent(EachBackend.class)).orElse(false);
    }

    @Override
    public Stream<ClassTemplateInvocationContext> provideClassTemplateInvocationContexts(ExtensionContext context) {
        boolean shm = context.getRequiredTestClass().getAnnotation(EachBackend.class).alsoOverSharedMemory();
        Stream<Invocation> overSockets = BACKENDS.stream().map(b -> new Invocation(b, false));
        return Stream.concat(overSockets, shm ? Stream.of(new Invocation(Backend.EPOLL, true)) : Stream.empty());
    }

    /**
     * Why the suite's tests on backend b are skipped, or null when they run: io_uring's, when
     * uringReason (what {@link UringSupport#unavailableReason()} says) is not null.
     */
    public static String skipReason(Backend b, String uringReason) {
        return b == Backend.IO_URING && uringReason != null ? "io_uring unavailable: " + uringReason : null;
    }

    /** One invocation: its name, the defaults it sets, its gate and its parameter. */
    private record Invocation(Backend backend, boolean sharedMemory) implements ClassTemplateInvocationContext {
        @Override
        public String getDisplayName(int invocationIndex) { return backend + (sharedMemory ? "+shm" : ""); }

        @Override
        public List<Extension> getAdditionalExtensions() { return List.of(new OnBackend(backend, sharedMemory)); }
    }

    private static final class OnBackend implements BeforeClassTemplateInvocationCallback,
            AfterClassTemplateInvocationCallback, ExecutionCondition, ParameterResolver {
        private final Backend backend;
        private final boolean sharedMemory;
        private String before;
        private String sharedMemoryBefore;

        OnBackend(Backend backend, boolean sharedMemory) {
            this.backend = backend;
            this.sharedMemory = sharedMemory;
        }

        @Override
        public void beforeClassTemplateInvocation(ExtensionContext context) {
            before = System.getProperty(PROPERTY);
            sharedMemoryBefore = System.getProperty(SHARED_MEMORY);
            System.setProperty(PROPERTY, backend.toString());
            System.setProperty(SHARED_MEMORY, Boolean.toString(sharedMemory));
        }

        @Override
        public void afterClassTemplateInvocation(ExtensionContext context) {
            restore(PROPERTY, before);
            restore(SHARED_MEMORY, sharedMemoryBefore);
        }

        private static void restore(String property, String value) {
            if (value == null) System.clearProperty(property);
            else System.setProperty(property, value);
        }

        /**
         * Each test of the invocation is skipped with the reason when its backend is unavailable (the invocation itself
         * runs).
         */
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (context.getTestMethod().isEmpty()) return ConditionEvaluationResult.enabled("the " + backend
                    + " invocation");
            String why = skipReason(backend, backend == Backend.IO_URING ? UringSupport.unavailableReason() : null);
            return why == null ? ConditionEvaluationResult.enabled(backend + " available")
                    : ConditionEvaluationResult.disabled(why);
        }

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == Backend.class
                    && !parameter.getDeclaringExecutable().isAnnotationPresent(ParameterizedTest.class);
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) { return backend; }
    }
}
