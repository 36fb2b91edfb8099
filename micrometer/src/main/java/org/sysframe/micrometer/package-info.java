/**
 * Micrometer binders: {@link org.sysframe.micrometer.GroutClientMetrics} for a
 * {@link org.sysframe.transport.GroutClient}, {@link org.sysframe.micrometer.GroutServerMetrics} for a
 * {@link org.sysframe.transport.GroutServer}.
 *
 * <p>Every meter is a {@code FunctionCounter} or a {@code Gauge} that reads the client's or the server's
 * own counts when the registry is read (a scrape, a publish): a call costs nothing more with a binder
 * bound. Names start with {@code sysframe.}; every meter is tagged with {@code socket} (the socket
 * path) and {@code backend} ({@code epoll}, {@code io_uring}), a client's also with {@code transport}
 * ({@code socket}, {@code shared-memory}), plus the tags given to the binder.
 */
package org.sysframe.micrometer;
