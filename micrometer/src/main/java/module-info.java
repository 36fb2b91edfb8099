/**
 * Micrometer binders for sysframe: {@link org.sysframe.micrometer.GroutClientMetrics} and
 * {@link org.sysframe.micrometer.GroutServerMetrics} register a client's and a server's live counts as
 * meters of a {@code MeterRegistry}. Optional: no other sysframe module depends on it or on Micrometer.
 */
// micrometer-core is an automatic module (micrometer.core, its manifest's name): a stable name, required transitively
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module org.sysframe.micrometer {
    requires transitive org.sysframe.transport;
    requires transitive micrometer.core;

    exports org.sysframe.micrometer;
}
