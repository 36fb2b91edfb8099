package org.sysframe.micrometer;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.ArrayList;
import java.util.List;

/** The meters one binder registered, with their registries, so that unbinding removes those alone. */
final class BoundMeters {
    private record Bound(MeterRegistry registry, Meter meter) {}

    private final List<Bound> bound = new ArrayList<>();

    /** Keeps meter, registered in registry, for {@link #removeAll()}. */
    synchronized void add(MeterRegistry registry, Meter meter) {
        bound.add(new Bound(registry, meter));
    }

    /** Removes every meter kept from its registry and forgets them. */
    synchronized void removeAll() {
        for (Bound b : bound) b.registry.remove(b.meter);
        bound.clear();
    }
}
